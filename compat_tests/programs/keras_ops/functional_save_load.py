"""keras.Input + the functional API with two inputs and two outputs, a custom layer registered with
keras.saving.register_keras_serializable and written with keras.ops, keras.saving.save_model / load_model
round trip, predictions compared after loading, training continued on the loaded model."""

import os
import tempfile

import keras
import numpy as np
from keras import ops


@keras.saving.register_keras_serializable(package="keras_ops_programs")
class GatedMix(keras.layers.Layer):
    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=(input_shape[-1], 2 * self.units),
                                      initializer="he_normal")

    def call(self, inputs):
        value, gate = ops.split(ops.matmul(inputs, self.kernel), 2, axis=-1)
        return value * ops.sigmoid(gate)

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def build():
    numeric = keras.Input((6,), name="numeric")
    tokens = keras.Input((5,), dtype="int32", name="tokens")
    embedded = ops.mean(keras.layers.Embedding(12, 4)(tokens), axis=1)
    h = GatedMix(8)(keras.layers.Concatenate()([numeric, embedded]))
    score = keras.layers.Dense(1, name="score")(h)
    label = keras.layers.Dense(3, activation="softmax", name="label")(h)
    return keras.Model({"numeric": numeric, "tokens": tokens}, {"score": score, "label": label})


def main():
    keras.utils.set_random_seed(13)
    rng = np.random.default_rng(13)
    numeric = rng.normal(size=(60, 6)).astype(np.float32)
    tokens = rng.integers(0, 12, size=(60, 5)).astype(np.int32)
    score = (numeric[:, :2].sum(axis=1, keepdims=True) + (tokens == 3).mean(axis=1, keepdims=True)).astype(np.float32)
    label = (tokens[:, 0] % 3).astype(np.int32)
    model = build()
    model.compile(optimizer=keras.optimizers.Adam(0.01),
                  loss={"score": "mse", "label": "sparse_categorical_crossentropy"},
                  loss_weights={"score": 1.0, "label": 0.5}, metrics={"label": ["accuracy"]})
    inputs = {"numeric": numeric, "tokens": tokens}
    history = model.fit(inputs, {"score": score, "label": label}, batch_size=15, epochs=3, verbose=0)
    values = []
    for key in sorted(history.history):
        values += [key] + history.history[key]
    before = model.predict(inputs, verbose=0)
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "model.keras")
        keras.saving.save_model(model, path)
        loaded = keras.saving.load_model(path)
    after = loaded.predict(inputs, verbose=0)
    values += [float(np.abs(before[k] - after[k]).max()) for k in ("label", "score")]
    values += [float(np.sum(after["score"])), float(np.sum(after["label"][:, 1]))]
    values += [type(layer).__name__ for layer in loaded.layers]
    values += sorted(w.path for w in loaded.weights)
    more = loaded.fit(inputs, {"score": score, "label": label}, batch_size=30, epochs=2, verbose=0)
    values += more.history["loss"]
    return values
