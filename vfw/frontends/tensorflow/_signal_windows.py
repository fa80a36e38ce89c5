"""tf.signal's Kaiser, Kaiser-Bessel-derived and Vorbis windows (``hann_window``/``hamming_window`` are in
``_signal_fft``).  Windows are constants: computed in numpy (float64) and rounded to ``dtype``."""

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, op, wrap
from vfw.frontends.tensorflow._op_support import static_int

_bessel_i0 = op("BesselI0").kernel


def _window_args(window_length, dtype, fn):
    length = static_int(convert_to_tensor(window_length), "window_length")
    dtype = _dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"{fn}: dtype must be a floating point type, got {dtype!r}")
    return length, dtype


def _kaiser(length, beta):
    """The symmetric Kaiser window of ``length`` points (float64)."""
    if length == 1:
        return np.ones(1)
    positions = 2 * np.arange(length) / (length - 1) - 1  # -1 ... 1
    return _bessel_i0(beta * np.sqrt(np.clip(1 - positions ** 2, 0, None))) / _bessel_i0(np.asarray(float(beta)))


def kaiser_window(window_length, beta=12.0, dtype=_dtypes.float32, name=None):
    """The Kaiser window ``I0(beta sqrt(1 - (2n / (N - 1) - 1)^2)) / I0(beta)`` of ``window_length`` points."""
    length, dtype = _window_args(window_length, dtype, "kaiser_window")
    return wrap(_kaiser(length, float(beta)).astype(dtype.np))


def kaiser_bessel_derived_window(window_length, beta=12.0, dtype=_dtypes.float32, name=None):
    """The Kaiser-Bessel-derived window of ``window_length`` points: the square roots of the normalized cumulative
    sums of a Kaiser window of ``window_length // 2 + 1`` points, mirrored."""
    length, dtype = _window_args(window_length, dtype, "kaiser_bessel_derived_window")
    half = length // 2
    sums = np.cumsum(_kaiser(half + 1, float(beta)))
    rising = np.sqrt(sums[:half] / sums[half])
    return wrap(np.concatenate([rising, rising[::-1]]).astype(dtype.np))


def vorbis_window(window_length, dtype=_dtypes.float32, name=None):
    """The Vorbis window ``sin(pi / 2 sin^2(pi (n + 1/2) / N))`` of ``window_length`` points."""
    length, dtype = _window_args(window_length, dtype, "vorbis_window")
    values = np.sin(np.pi / 2 * np.sin(np.pi * (np.arange(length) + 0.5) / length) ** 2)
    return wrap(values.astype(dtype.np))


NAMESPACES = {"signal": ["kaiser_window", "kaiser_bessel_derived_window", "vorbis_window"]}
TENSOR_METHODS = {}
