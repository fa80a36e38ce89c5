"""A registered custom layer (build, add_weight, get_config) in a Sequential model: fit, save to .keras, load it back
without custom_objects, save_weights/load_weights into a fresh model, and get_config round trips."""

import os
import tempfile

import keras
import numpy as np


@keras.saving.register_keras_serializable(package="programs")
class ScaledDense(keras.layers.Layer):
    def __init__(self, units=8, scale=1.0, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.scale = scale

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="glorot_uniform", trainable=True,
                                 name="w")
        self.b = self.add_weight(shape=(self.units,), initializer="zeros", trainable=True, name="b")
        self.calls = self.add_weight(shape=(), initializer="zeros", trainable=False, name="calls")

    def call(self, inputs):
        self.calls.assign_add(1.0)
        return self.scale * keras.ops.tanh(keras.ops.matmul(inputs, self.w) + self.b)

    def get_config(self):
        config = super().get_config()
        config.update({"units": self.units, "scale": self.scale})
        return config


def build_model():
    return keras.Sequential([keras.Input((6,)), ScaledDense(12, scale=2.0, name="scaled"), keras.layers.Dense(1)])


def main():
    keras.utils.set_random_seed(14)
    rng = np.random.default_rng(14)
    x = rng.standard_normal((96, 6)).astype(np.float32)
    y = np.cos(x[:, :2]).sum(1, keepdims=True).astype(np.float32)
    model = build_model()
    model.compile(optimizer=keras.optimizers.Adam(1e-2), loss="mse", metrics=["mae"])
    history = model.fit(x, y, batch_size=16, epochs=3, verbose=0)
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "scaled.keras")
    model.save(path)
    loaded = keras.models.load_model(path)
    layer = loaded.get_layer("scaled")
    values = history.history["loss"] + history.history["mae"]
    values += [float(np.abs(loaded.predict(x, verbose=0) - model.predict(x, verbose=0)).max()),
               float(layer.units), layer.scale, float(type(layer).__name__ == "ScaledDense"),
               float(keras.ops.convert_to_numpy(layer.calls)), float(len(loaded.trainable_weights)),
               float(len(loaded.non_trainable_weights))]
    values += loaded.evaluate(x, y, verbose=0)
    # Keep training the reloaded model: its optimizer state came back too.
    values += loaded.fit(x, y, batch_size=16, epochs=1, verbose=0).history["loss"]
    weights_path = os.path.join(folder, "scaled.weights.h5")
    loaded.save_weights(weights_path)
    fresh = build_model()
    fresh.load_weights(weights_path)
    values.append(float(np.abs(fresh.predict(x, verbose=0) - loaded.predict(x, verbose=0)).max()))
    clone = ScaledDense.from_config(layer.get_config())
    values += [float(clone.units), clone.scale, float(keras.saving.get_registered_name(ScaledDense) ==
                                                      "programs>ScaledDense")]
    return values


if __name__ == "__main__":
    print(main())
