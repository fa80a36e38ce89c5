"""The keras.io guide "The Sequential model": a Sequential from a list and built incrementally with add/pop,
layers without weights until the model is built (weights appear after the first call), summary() text at each
stage, specifying the input shape with keras.Input, the "add + summary" debugging workflow with a small CNN, and
feature extraction through keras.Model(inputs=model.inputs, outputs=[layer.output ...]) and a single named layer."""

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers


def _summary(model):
    lines = []
    model.summary(print_fn=lambda line, *args, **kwargs: lines.append(line))
    return "\n".join(lines)


def main():
    keras.utils.set_random_seed(7)
    values = []
    model = keras.Sequential([layers.Dense(2, activation="relu", name="layer1"),
                              layers.Dense(3, activation="relu", name="layer2"),
                              layers.Dense(4, name="layer3")])
    x = tf.ones((3, 3))
    y = model(x)
    values += [str(y.shape), float(tf.reduce_sum(y)), str([layer.name for layer in model.layers])]

    model = keras.Sequential()
    model.add(layers.Dense(2, activation="relu"))
    model.add(layers.Dense(3, activation="relu"))
    model.add(layers.Dense(4))
    model.pop()
    values += [float(len(model.layers))]

    layer = layers.Dense(3)
    values += [str(layer.weights)]
    layer(tf.ones((1, 4)))
    values += [str([(w.path, tuple(w.shape)) for w in layer.weights])]

    model = keras.Sequential([layers.Dense(2, activation="relu"), layers.Dense(3, activation="relu"),
                              layers.Dense(4)])
    values += [str(model.weights)]
    model(tf.ones((1, 4)))
    values += [float(len(model.weights)), _summary(model)]

    model = keras.Sequential()
    model.add(keras.Input(shape=(4,)))
    model.add(layers.Dense(2, activation="relu"))
    values += [_summary(model), str(model.layers)[:1]]

    model = keras.Sequential()
    model.add(keras.Input(shape=(50, 50, 3)))
    model.add(layers.Conv2D(8, 5, strides=2, activation="relu"))
    model.add(layers.Conv2D(8, 3, activation="relu"))
    model.add(layers.MaxPooling2D(3))
    values += [_summary(model)]
    model.add(layers.Conv2D(8, 3, activation="relu"))
    model.add(layers.Conv2D(8, 3, activation="relu"))
    model.add(layers.MaxPooling2D(2))
    values += [_summary(model)]
    model.add(layers.GlobalMaxPooling2D())
    model.add(layers.Dense(10))
    values += [_summary(model)]

    initial_model = keras.Sequential([keras.Input(shape=(25, 25, 3)),
                                      layers.Conv2D(4, 5, strides=2, activation="relu"),
                                      layers.Conv2D(4, 3, activation="relu"),
                                      layers.Conv2D(4, 3, activation="relu")])
    feature_extractor = keras.Model(inputs=initial_model.inputs,
                                    outputs=[layer.output for layer in initial_model.layers])
    images = tf.reshape(tf.range(2 * 25 * 25 * 3, dtype=tf.float32) / 3750.0, (2, 25, 25, 3))
    features = feature_extractor(images)
    values += [str([tuple(f.shape) for f in features])] + [float(tf.reduce_mean(f)) for f in features]

    initial_model = keras.Sequential([keras.Input(shape=(25, 25, 3)),
                                      layers.Conv2D(4, 5, strides=2, activation="relu"),
                                      layers.Conv2D(4, 3, activation="relu", name="my_intermediate_layer"),
                                      layers.Conv2D(4, 3, activation="relu")])
    feature_extractor = keras.Model(inputs=initial_model.inputs,
                                    outputs=initial_model.get_layer(name="my_intermediate_layer").output)
    features = feature_extractor(images)
    values += [str(tuple(features.shape)), float(tf.reduce_sum(features))]

    # Transfer learning with a Sequential model: freeze all layers except the last one.
    model = keras.Sequential([keras.Input(shape=(6,)), layers.Dense(8, activation="relu"),
                              layers.Dense(8, activation="relu"), layers.Dense(1)])
    for layer in model.layers[:-1]:
        layer.trainable = False
    model.compile(optimizer="adam", loss="mse")
    rng = np.random.default_rng(7)
    data = rng.normal(size=(32, 6)).astype("float32")
    history = model.fit(data, data.sum(axis=1, keepdims=True), epochs=3, batch_size=8, verbose=0)
    values += history.history["loss"] + [float(len(model.trainable_weights)), _summary(model)]
    return values


if __name__ == "__main__":
    print(main())
