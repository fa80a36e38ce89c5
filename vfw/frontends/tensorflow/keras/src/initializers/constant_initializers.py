"""Deterministic initializers: Zeros, Ones, Constant, Identity, STFT."""

import math

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.backend import standardize_dtype
from vfw.frontends.tensorflow.keras.src.initializers.base import Initializer
from vfw.frontends.tensorflow.keras.src.utils.serialization import deserialize_keras_object, serialize_keras_object


class Constant(Initializer):
    """Fill with ``value`` (a scalar, or values broadcastable to the requested shape)."""

    def __init__(self, value=0.0):
        self.value = value

    def __call__(self, shape, dtype=None):
        dtype = standardize_dtype(dtype)
        return tf.cast(self.value, dtype) * tf.ones(shape, dtype=dtype)

    def get_config(self):
        return {"value": serialize_keras_object(self.value)}

    @classmethod
    def from_config(cls, config):
        return cls(deserialize_keras_object(config["value"]))


class Zeros(Initializer):
    """Fill with 0."""

    def __call__(self, shape, dtype=None):
        return tf.zeros(shape, dtype=standardize_dtype(dtype))


class Ones(Initializer):
    """Fill with 1."""

    def __call__(self, shape, dtype=None):
        return tf.ones(shape, dtype=standardize_dtype(dtype))


class Identity(Initializer):
    """``gain`` times the identity matrix (2-D shapes only; rectangular ones get ones on the diagonal).

    Its config is empty, as in Keras (a rebuilt Identity has gain 1).
    """

    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=None):
        if len(shape) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices. "
                             f"Received: shape={shape} of rank {len(shape)}.")
        return self.gain * tf.eye(*shape, dtype=standardize_dtype(dtype))


# Windows as sums of cosines: w[n] = sum_k (-1)^k a_k cos(2 pi k n / M) (scipy.signal's definitions).
_COSINE_WINDOWS = {"hann": (0.5, 0.5), "hamming": (0.54, 0.46), "blackman": (0.42, 0.5, 0.08),
                   "boxcar": (1.0,)}


def _window(name, length, periodic):
    """The ``name`` window of ``length`` points (periodic: one point of a ``length + 1`` symmetric window dropped)."""
    if name not in _COSINE_WINDOWS:
        raise ValueError(f"Unknown window type: {name!r}. vfw supports {sorted(_COSINE_WINDOWS)}.")
    points = length + 1 if periodic else length
    if points == 1:
        return np.ones(length)
    angle = 2 * math.pi * np.arange(points) / (points - 1)
    values = sum((-1) ** k * a * np.cos(k * angle) for k, a in enumerate(_COSINE_WINDOWS[name]))
    return values[:length]


class STFT(Initializer):
    """Kernels of a short-time Fourier transform as a convolution: shape ``(frame_length, 1, bins)``.

    Parameters
    ----------
    side : {"real", "imag"}
        Which part of the transform the kernel computes.
    window : str, array-like or None
        Window name ("hann", "hamming", "blackman", "boxcar"), window values, or None.
    scaling : {"density", "spectrum"} or None
        Divide by the window's L2 norm ("density") or L1 norm ("spectrum").
    periodic : bool
        Periodic rather than symmetric window.
    """

    def __init__(self, side="real", window="hann", scaling="density", periodic=False):
        if side not in ("real", "imag"):
            raise ValueError(f"side should be 'real' or 'imag', not {side}")
        if isinstance(window, str):
            _window(window, 1, periodic)
        if scaling is not None and scaling not in ("density", "spectrum"):
            raise ValueError(f"Scaling is invalid, it must be `None`, 'density' or 'spectrum'. Received "
                             f"scaling={scaling}")
        self.side = side
        self.window = window
        self.scaling = scaling
        self.periodic = periodic

    def __call__(self, shape, dtype=None):
        dtype = standardize_dtype(dtype)
        frame_length, _, bins = shape
        window = None
        scale = 1
        if self.window is not None:
            window = self.window
            if isinstance(window, str):
                window = _window(window, frame_length, self.periodic)
            window = tf.convert_to_tensor(np.asarray(window), dtype=dtype)
            if len(window.shape) != 1 or window.shape[-1] != frame_length:
                raise ValueError(f"The shape of `window` must be equal to [frame_length].Received: window shape="
                                 f"{window.shape}")
            window = tf.reshape(window, [frame_length, 1, 1])
            if self.scaling == "density":
                scale = tf.sqrt(tf.reduce_sum(tf.square(window)))
            elif self.scaling == "spectrum":
                scale = tf.reduce_sum(tf.abs(window))
        frequency = tf.reshape(tf.range(bins, dtype=dtype), (1, 1, bins)) / tf.cast((bins - 1) * 2, dtype)
        time = tf.reshape(tf.range(frame_length, dtype=dtype), (frame_length, 1, 1))
        angle = (tf.cast(-2, dtype) * time) * frequency * tf.acos(tf.cast(-1, dtype))
        kernel = tf.cos(angle) if self.side == "real" else tf.sin(angle)
        if window is not None:
            kernel = kernel * window / scale
        return kernel

    def get_config(self):
        return {"side": self.side, "window": self.window, "periodic": self.periodic, "scaling": self.scaling}
