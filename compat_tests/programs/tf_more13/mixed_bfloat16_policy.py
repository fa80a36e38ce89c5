"""keras.mixed_precision with the "mixed_bfloat16" policy (the TPU/CPU flavour of the mixed precision guide): a
small Conv1D + LayerNormalization + Dense classifier whose last Activation stays float32, the layers' compute and
variable dtypes, the dtypes flowing between them, tf.bfloat16 casts, arithmetic and cumsum by hand, a custom
GradientTape loop (bfloat16 gradients, float32 variables) and a fit(run_eagerly=True) with a plain Adam (no loss
scaling for bfloat16) whose losses and predictions come back as float32."""

import numpy as np
import tensorflow as tf
from tensorflow import keras


def make_model():
    inputs = keras.Input(shape=(16, 3))
    x = keras.layers.Conv1D(8, 3, activation="relu", name="conv")(inputs)
    x = keras.layers.LayerNormalization(name="norm")(x)
    x = keras.layers.GlobalAveragePooling1D(name="pool")(x)
    x = keras.layers.Dense(3, name="logits")(x)
    outputs = keras.layers.Activation("softmax", dtype="float32", name="probs")(x)
    return keras.Model(inputs, outputs)


def main():
    keras.utils.set_random_seed(131)
    rng = np.random.default_rng(131)
    values = []
    # bfloat16 by hand: rounding to 8 mantissa bits, and arithmetic that stays bfloat16
    a = tf.constant([1.0, 1.00390625, 3.14159265, -2.71828, 1e-3, 65504.0, 1.0e30])
    b = tf.cast(a, tf.bfloat16)
    values += [str(b.dtype)] + [float(v) for v in tf.cast(b, tf.float32)]
    c = b * tf.constant(3.0, tf.bfloat16) + tf.ones_like(b)
    values += [str(c.dtype)] + [float(v) for v in tf.cast(c, tf.float32).numpy()]
    values += [float(tf.reduce_sum(tf.cast(tf.range(1, 40), tf.bfloat16)))]
    running = tf.cumsum(tf.cast(tf.linspace(0.1, 3.0, 40), tf.bfloat16))  # rounded to bfloat16 at every step
    values += [float(v) for v in tf.cast(running[::6], tf.float32)]
    values += [float(v) for v in tf.cast(tf.cumsum(b, exclusive=True, reverse=True), tf.float32)]

    keras.mixed_precision.set_global_policy("mixed_bfloat16")
    try:
        policy = keras.mixed_precision.global_policy()
        values += [policy.name, policy.compute_dtype, policy.variable_dtype]
        model = make_model()
        for name in ("conv", "norm", "logits", "probs"):
            layer = model.get_layer(name)
            values += [name, layer.dtype_policy.name, layer.compute_dtype, layer.variable_dtype,
                       str(layer.output.dtype)]
        values += [str(model.get_layer("conv").kernel.dtype), str(model.get_layer("norm").gamma.dtype)]

        x = rng.normal(size=(48, 16, 3)).astype(np.float32)
        y = (x[:, :, 0].mean(axis=1) > 0).astype(np.int64) + (x[:, :, 1].mean(axis=1) > 0.2)
        hidden = model.get_layer("conv")(x[:2])
        values += [str(hidden.dtype), float(tf.reduce_sum(tf.cast(hidden, tf.float32)))]
        optimizer = keras.optimizers.Adam(1e-2)
        loss_fn = keras.losses.SparseCategoricalCrossentropy()
        for start in range(0, 48, 16):
            with tf.GradientTape() as tape:
                probs = model(x[start:start + 16], training=True)
                loss = loss_fn(y[start:start + 16], probs)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            values += [float(loss), str(probs.dtype), str(loss.dtype), str(grads[0].dtype)]
            values += [float(v) for v in grads[-1]] + [float(tf.linalg.global_norm(grads))]

        model = make_model()
        # eagerly: TF's graph mode fuses MatMul + BiasAdd, which rounds bfloat16 differently
        model.compile(optimizer=keras.optimizers.Adam(1e-2), loss="sparse_categorical_crossentropy",
                      metrics=["accuracy"], run_eagerly=True)
        values += [type(model.optimizer).__name__]
        history = model.fit(x, y, batch_size=16, epochs=3, verbose=0, shuffle=False)
        values += history.history["loss"] + history.history["accuracy"]
        predicted = model(x[:4]).numpy()
        values += [str(predicted.dtype)] + [float(v) for v in predicted.ravel()]
        values += [str(model.get_layer("logits").kernel.dtype), str(model.get_layer("logits").kernel.value.dtype)]
    finally:
        keras.mixed_precision.set_global_policy("float32")
    values += [keras.mixed_precision.global_policy().name]
    return values
