"""keras.ops numerics and a custom layer drawing noise from keras.random with its own SeedGenerator, as in the
Keras 3 custom-layer guides: logsumexp, softplus / log_sigmoid, erf / erfinv, moments, normalize (order 1 and 2),
the fft family (rfft / irfft / stft magnitude), polar-free complex arithmetic, top_k, and a GaussianNoise-like
layer trained with fit whose noise is reproducible from its seed."""

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import ops


class SeededNoise(keras.layers.Layer):
    def __init__(self, stddev, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.stddev = stddev
        self.seed_generator = keras.random.SeedGenerator(seed)

    def call(self, x, training=False):
        if training:
            return x + keras.random.normal(ops.shape(x), stddev=self.stddev, seed=self.seed_generator)
        return x


def main():
    rng = np.random.default_rng(9)
    x = rng.normal(size=(3, 8)).astype("float32")
    values = []
    values += ops.convert_to_numpy(ops.logsumexp(x, axis=-1)).tolist()
    values += ops.convert_to_numpy(ops.logsumexp(x, axis=0, keepdims=True)).ravel().tolist()
    values += ops.convert_to_numpy(ops.softplus(x)).ravel()[:6].tolist()
    values += ops.convert_to_numpy(ops.log_sigmoid(x)).ravel()[:6].tolist()
    values += ops.convert_to_numpy(ops.erf(x)).ravel()[:6].tolist()
    values += ops.convert_to_numpy(ops.erfinv(ops.tanh(x))).ravel()[:6].tolist()
    mean, var = ops.moments(x, axes=[1])
    values += ops.convert_to_numpy(mean).tolist() + ops.convert_to_numpy(var).tolist()
    mean, var = ops.moments(x, axes=[0], keepdims=True)
    values += [str(tuple(mean.shape))] + ops.convert_to_numpy(var).ravel().tolist()
    values += ops.convert_to_numpy(ops.normalize(x, axis=-1, order=2)).ravel()[:6].tolist()
    values += ops.convert_to_numpy(ops.normalize(x, axis=0, order=1)).ravel()[:6].tolist()
    real, imag = ops.rfft(x)
    values += ops.convert_to_numpy(real).ravel().tolist() + ops.convert_to_numpy(imag).ravel().tolist()
    values += ops.convert_to_numpy(ops.irfft((real, imag))).ravel()[:8].tolist()
    fr, fi = ops.fft((ops.convert_to_tensor(x), ops.zeros_like(x)))
    values += ops.convert_to_numpy(ops.sqrt(fr * fr + fi * fi)).ravel()[:8].tolist()
    signal = np.sin(np.arange(64, dtype="float32") * 0.4)[None]
    sr, si = ops.stft(signal, sequence_length=16, sequence_stride=8, fft_length=16, window="hann")
    values += [str(tuple(sr.shape))] + ops.convert_to_numpy(ops.sqrt(sr * sr + si * si)).ravel()[:10].tolist()
    vals, idx = ops.top_k(x, k=2)
    values += ops.convert_to_numpy(vals).ravel().tolist() + ops.convert_to_numpy(idx).ravel().tolist()

    layer = SeededNoise(0.5, seed=42)
    a = layer(x, training=True)
    b = layer(x, training=True)
    values.append(float(np.abs(ops.convert_to_numpy(a) - ops.convert_to_numpy(b)).max()) > 0)
    values.append(float(np.abs(ops.convert_to_numpy(layer(x)) - x).max()))
    fresh = SeededNoise(0.5, seed=42)
    values.append(float(np.abs(ops.convert_to_numpy(fresh(x, training=True)) - ops.convert_to_numpy(a)).max()))
    values += ops.convert_to_numpy(keras.random.uniform((4,), seed=keras.random.SeedGenerator(3))).tolist()

    keras.utils.set_random_seed(1)
    model = keras.Sequential([keras.Input((8,)), SeededNoise(0.1, seed=7), keras.layers.Dense(4, activation="gelu"),
                              keras.layers.Dense(1)])
    model.compile(optimizer="adam", loss="mae")
    y = x.sum(axis=1, keepdims=True)
    hist = model.fit(np.tile(x, (4, 1)), np.tile(y, (4, 1)), batch_size=6, epochs=3, verbose=0, shuffle=False)
    values += hist.history["loss"]
    values += model.predict(x, verbose=0).ravel().tolist()
    values.append(str(tf.shape(a).numpy().tolist()))
    return values
