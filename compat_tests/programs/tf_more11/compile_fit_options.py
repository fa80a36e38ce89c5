"""model.compile / fit / evaluate / predict with the less common arguments Kaggle notebooks pass:
compile(jit_compile=False, steps_per_execution=2, weighted_metrics=...), fit(validation_split=..., class_weight=...,
shuffle=False, initial_epoch=...), evaluate(return_dict=True), predict on a tf.data.Dataset batched with
drop_remainder=True, and float64 inputs into a float32 model (cast by the input layer) next to a model built with
dtype="float64" trained by a GradientTape loop."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers


def build(dtype=None):
    return keras.Sequential([keras.Input((6,)), layers.Dense(10, activation="relu", dtype=dtype),
                             layers.Dropout(0.2), layers.Dense(3, activation="softmax", dtype=dtype)])


def main():
    keras.utils.set_random_seed(17)
    rng = np.random.default_rng(17)
    values = []
    x = rng.normal(size=(40, 6))  # float64, as numpy makes it
    y = (x[:, 0] > 0.3).astype(np.int64) + (x[:, 1] > 0.8)

    model = build()
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"], weighted_metrics=["sparse_categorical_accuracy"], jit_compile=False,
                  steps_per_execution=2)
    history = model.fit(x, y, batch_size=8, epochs=2, validation_split=0.25, class_weight={0: 1.0, 1: 1.5, 2: 3.0},
                        shuffle=False, verbose=0)
    for key in sorted(history.history):
        values += [key] + history.history[key]
    values += [str(history.epoch), int(model.optimizer.iterations.numpy())]
    more = model.fit(x, y, class_weight={0: 2.0, 1: 1.0, 2: 1.0}, batch_size=8, epochs=3, initial_epoch=2, verbose=0)
    values += [str(more.epoch)] + more.history["loss"]

    result = model.evaluate(x, y, batch_size=8, return_dict=True, verbose=0)
    values += [str(sorted(result))] + [result[k] for k in sorted(result)]

    ds = tf.data.Dataset.from_tensor_slices(x).batch(16, drop_remainder=True)
    predicted = model.predict(ds, verbose=0)
    values += [str(predicted.shape), str(predicted.dtype), float(np.sum(predicted[:, 2]))]

    double = build("float64")
    optimizer = keras.optimizers.SGD(0.1)
    loss_fn = keras.losses.SparseCategoricalCrossentropy()
    for start in range(0, 40, 20):
        with tf.GradientTape() as tape:
            loss = loss_fn(y[start:start + 20], double(x[start:start + 20], training=True))
        grads = tape.gradient(loss, double.trainable_variables)
        optimizer.apply_gradients(zip(grads, double.trainable_variables))
        values += [float(loss), str(loss.dtype), str(grads[0].dtype)]
    values += [str(double.layers[0].kernel.dtype), str(double(x[:2]).dtype)]
    values += [str(model(x[:2]).dtype), str(double.layers[0].compute_dtype)]
    return values
