"""The TF "mixed precision" guide on a small MLP: keras.mixed_precision.set_global_policy("mixed_float16"), a float32
softmax output layer (dtype="float32"), the layers' compute/variable dtypes and the dtypes of their outputs, fit with
the LossScaleOptimizer compile wraps in, then a custom loop with an explicit LossScaleOptimizer (scale_loss, gradients
unscaled by hand, apply), and the policy restored to float32."""

import numpy as np
import tensorflow as tf
from tensorflow import keras


def make_model():
    inputs = keras.Input(shape=(12,))
    x = keras.layers.Dense(32, activation="relu", name="dense_1")(inputs)
    x = keras.layers.Dense(32, activation="relu", name="dense_2")(x)
    x = keras.layers.Dense(4, name="logits")(x)
    outputs = keras.layers.Activation("softmax", dtype="float32", name="predictions")(x)
    return keras.Model(inputs, outputs)


def main():
    keras.utils.set_random_seed(52)
    rng = np.random.default_rng(52)
    x = rng.normal(size=(160, 12)).astype(np.float32)
    y = (np.argmax(x[:, :4] + 0.5 * x[:, 4:8], axis=1)).astype(np.int64)
    values = []
    keras.mixed_precision.set_global_policy("mixed_float16")
    try:
        policy = keras.mixed_precision.global_policy()
        values += [policy.name, policy.compute_dtype, policy.variable_dtype]
        model = make_model()
        dense = model.get_layer("dense_1")
        values += [dense.dtype_policy.name, dense.compute_dtype, dense.kernel.dtype,
                   model.get_layer("predictions").compute_dtype,
                   str(model.get_layer("logits").output.dtype), str(model.output.dtype)]
        model.compile(loss="sparse_categorical_crossentropy", optimizer=keras.optimizers.RMSprop(1e-3),
                      metrics=["accuracy"])
        values += [type(model.optimizer).__name__]
        history = model.fit(x, y, batch_size=32, epochs=3, validation_split=0.2, verbose=0, shuffle=False)
        values += history.history["loss"] + history.history["val_accuracy"]
        values += [float(model.optimizer.dynamic_scale.numpy()), str(model.predict(x[:2], verbose=0).dtype)]

        model = make_model()
        optimizer = keras.optimizers.LossScaleOptimizer(keras.optimizers.Adam(1e-3), initial_scale=2.0 ** 10)
        loss_fn = keras.losses.SparseCategoricalCrossentropy()
        values += [float(optimizer.scale_loss(tf.constant(0.5)))]
        optimizer.build(model.trainable_variables)
        for start in range(0, 160, 40):
            xb, yb = x[start:start + 40], y[start:start + 40]
            with tf.GradientTape() as tape:
                predictions = model(xb, training=True)
                loss = loss_fn(yb, predictions)
                scaled = optimizer.scale_loss(loss)
            scaled_grads = tape.gradient(scaled, model.trainable_variables)
            grads = [g / optimizer.dynamic_scale for g in scaled_grads]
            optimizer.apply_gradients(zip(scaled_grads, model.trainable_variables))
            values += [float(loss), float(scaled), str(predictions.dtype), str(scaled_grads[0].dtype),
                       float(tf.linalg.global_norm(grads))]
        values += [float(optimizer.dynamic_scale.numpy()), float(optimizer.iterations.numpy())]
        hidden = model.get_layer("dense_2")(tf.ones([1, 32]))
        values += [str(hidden.dtype), float(tf.reduce_sum(tf.cast(hidden, tf.float32)))]
    finally:
        keras.mixed_precision.set_global_policy("float32")
    values += [keras.mixed_precision.global_policy().name, make_model().get_layer("dense_1").compute_dtype]
    return values


if __name__ == "__main__":
    print(main())
