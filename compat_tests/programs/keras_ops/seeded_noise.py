"""keras.random with a SeedGenerator held by a layer: Gaussian noise and a dropout-like mask drawn in call during
training only; keras.random.uniform/normal/randint/shuffle/categorical with integer seeds and generators after
keras.utils.set_random_seed; fit with the noisy layer, predictions deterministic at inference."""

import keras
import numpy as np
from keras import ops


class NoisyDrop(keras.layers.Layer):
    def __init__(self, stddev=0.1, rate=0.25, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.stddev, self.rate = stddev, rate
        self.seed_generator = keras.random.SeedGenerator(seed)

    def call(self, inputs, training=False):
        if not training:
            return inputs
        noise = keras.random.normal(ops.shape(inputs), stddev=self.stddev, seed=self.seed_generator)
        keep = keras.random.uniform(ops.shape(inputs), seed=self.seed_generator) >= self.rate
        return ops.where(keep, (inputs + noise) / (1.0 - self.rate), ops.zeros_like(inputs))


def main():
    keras.utils.set_random_seed(3)
    values = []
    generator = keras.random.SeedGenerator(5)
    values += [float(v) for v in ops.convert_to_numpy(keras.random.uniform((4,), seed=generator))]
    values += [float(v) for v in ops.convert_to_numpy(keras.random.normal((3,), mean=1.0, seed=generator))]
    values += [float(v) for v in ops.convert_to_numpy(keras.random.randint((5,), 0, 10, seed=42))]
    values += [float(v) for v in ops.convert_to_numpy(keras.random.shuffle(ops.arange(6), seed=generator))]
    values += [float(v) for v in ops.convert_to_numpy(
        keras.random.categorical(ops.log(ops.convert_to_tensor([[0.2, 0.5, 0.3]])), 6, seed=9)).ravel()]
    values += [float(v) for v in ops.convert_to_numpy(keras.random.truncated_normal((3,), seed=generator))]
    values += [float(v) for v in ops.convert_to_numpy(keras.random.dropout(ops.ones((6,)), 0.5, seed=12))]
    values += [float(ops.convert_to_numpy(keras.random.uniform(())))]  # the global generator

    layer = NoisyDrop(seed=17)
    sample = ops.convert_to_tensor(np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4))
    values += [float(v) for v in ops.convert_to_numpy(layer(sample, training=True)).ravel()]
    values += [float(v) for v in ops.convert_to_numpy(layer(sample, training=True)).ravel()]

    rng = np.random.default_rng(3)
    x = rng.normal(size=(64, 4)).astype(np.float32)
    y = (x @ np.array([[1.0], [-1.0], [0.5], [0.0]], dtype=np.float32)).astype(np.float32)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), NoisyDrop(seed=23),
                              keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.05, momentum=0.9), loss="mse")
    history = model.fit(x, y, batch_size=16, epochs=3, verbose=0)
    values += history.history["loss"]
    values += [float(v) for v in model.predict(x[:3], verbose=0).ravel()]
    values += [str(ops.convert_to_numpy(layer.seed_generator.state).dtype)]
    return values
