"""keras.ops' Fourier transforms and complex helpers: ``fft``, ``fft2``, ``ifft2``, ``rfft``, ``irfft``, ``stft``,
``istft``, ``view_as_complex``, ``view_as_real`` (keras.ops.math in Keras), ``angle`` (numpy), ``polar`` (nn) and
``eig`` (linalg).

Keras' transforms take and return complex values as ``(real, imag)`` tuples of float tensors, except
``rfft`` (a real input) and ``irfft``/``istft`` (a real output); the tf backend computes them with
tf.signal, as here.
"""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.backend import config
from vfw.frontends.tensorflow.keras.src.backend.dtypes import result_type
from vfw.frontends.tensorflow.keras.src.ops._common import convert_to_tensor, keras_op
from vfw.frontends.tensorflow.keras.src.ops.linalg import _check_matrices


def _complex_of_pair(x):
    """The complex tensor of a ``(real, imag)`` pair of float tensors of one shape (Keras' checks and errors)."""
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError(f"Input `x` should be a tuple of two tensors - real and imaginary.Received: x={x}")
    real, imag = convert_to_tensor(x[0]), convert_to_tensor(x[1])
    if real.shape != imag.shape:
        raise ValueError("Input `x` should be a tuple of two tensors - real and imaginary.Both the real and imaginary "
                         f"parts should have the same shape. Received: x[0].shape = {real.shape}, x[1].shape = "
                         f"{imag.shape}")
    if not real.dtype.is_floating or not imag.dtype.is_floating:
        raise ValueError(f"At least one tensor in input `x` is not of type float.Received: x={x}.")
    return tf.complex(real, imag)


def _pair(z):
    return tf.math.real(z), tf.math.imag(z)


@keras_op
def fft(x):
    """The DFT over the last axis of the complex ``x = (real, imag)``: a ``(real, imag)`` pair."""
    return _pair(tf.signal.fft(_complex_of_pair(x)))


@keras_op
def fft2(x):
    """The 2-D DFT over the last two axes of ``x = (real, imag)``: a ``(real, imag)`` pair."""
    return _pair(tf.signal.fft2d(_complex_of_pair(x)))


@keras_op
def ifft2(x):
    """The inverse 2-D DFT over the last two axes of ``x = (real, imag)``: a ``(real, imag)`` pair."""
    return _pair(tf.signal.ifft2d(_complex_of_pair(x)))


@keras_op
def rfft(x, fft_length=None):
    """The one-sided DFT of real ``x`` over its last axis (cropped or zero-padded to ``fft_length``): a
    ``(real, imag)`` pair with ``fft_length // 2 + 1`` frequencies."""
    # unconverted, as Keras passes it: TF converts numpy/Python values preferring float32
    return _pair(tf.signal.rfft(x, fft_length=None if fft_length is None else [fft_length]))


@keras_op
def irfft(x, fft_length=None):
    """The real signal (``fft_length`` samples, default ``2 (m - 1)``) of the one-sided spectrum
    ``x = (real, imag)`` of ``m`` frequencies."""
    return tf.signal.irfft(_complex_of_pair(x), None if fft_length is None else [fft_length])


def _stft_window(window, sequence_length, fft_length, dtype):
    """The window (``"hann"``, ``"hamming"``, values or None) zero-padded to ``fft_length`` in the middle, as a
    ``window_fn`` for tf.signal (None without a window)."""
    if window is None:
        return None
    if isinstance(window, str):
        make = tf.signal.hann_window if window == "hann" else tf.signal.hamming_window
        values = make(sequence_length, periodic=True, dtype=dtype)
    else:
        values = convert_to_tensor(window, dtype=dtype.name)
    if values.shape.rank != 1 or values.shape[-1] != sequence_length:
        raise ValueError(f"The shape of `window` must be equal to [sequence_length].Received: window shape="
                         f"{values.shape}")
    left = (fft_length - sequence_length) // 2
    values = tf.pad(values, [[left, fft_length - sequence_length - left]])
    return lambda frame_length, dtype=None: values


def _check_window_name(window):
    if isinstance(window, str) and window not in ("hann", "hamming"):
        raise ValueError(f'If a string is passed to `window`, it must be one of `"hann"`, `"hamming"`. Received: '
                         f"window={window}")


@keras_op
def stft(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    """The short-time Fourier transform of real ``x`` (``[..., samples]``): a ``(real, imag)`` pair of shape
    ``[..., frames, fft_length // 2 + 1]``.

    Frames of ``fft_length`` samples every ``sequence_stride`` samples (``x`` reflect-padded by
    ``fft_length // 2`` on both sides when ``center``), windowed by ``window`` (``"hann"``, ``"hamming"``
    (periodic), ``sequence_length`` values, or None) centred in the frame.
    """
    if not isinstance(sequence_stride, int) or sequence_stride <= 0:
        raise ValueError(f"`sequence_stride` must be a positive integer. Received: sequence_stride={sequence_stride}")
    x = convert_to_tensor(x)
    if x.dtype.name not in ("float32", "float64"):
        raise TypeError(f"Invalid input type. Expected `float32` or `float64`. Received: input type={x.dtype.name}")
    if fft_length < sequence_length:
        raise ValueError("`fft_length` must equal or larger than `sequence_length`. Received: sequence_length="
                         f"{sequence_length}, fft_length={fft_length}")
    _check_window_name(window)
    if center:
        half = fft_length // 2
        x = tf.pad(x, [[0, 0]] * (x.shape.rank - 1) + [[half, half]], mode="REFLECT")
    window_fn = _stft_window(window, sequence_length, fft_length, x.dtype)
    return _pair(tf.signal.stft(x, fft_length, sequence_stride, fft_length=fft_length, window_fn=window_fn))


@keras_op
def istft(x, sequence_length, sequence_stride, fft_length, length=None, window="hann", center=True):
    """The signal of the short-time spectrum ``x = (real, imag)`` (``[..., frames, fft_length // 2 + 1]``), the
    inverse of ``stft`` with the same arguments: overlap-added inverse DFTs divided by the overlapped squared
    window, cropped to ``length`` samples (by default the ``center`` padding is removed)."""
    z = _complex_of_pair(x)
    dtype = tf.math.real(z).dtype  # window names are not checked here: any but "hann" is Hamming, as Keras
    window_fn = _stft_window(window, sequence_length, fft_length, dtype)
    if window_fn is not None:
        window_fn = tf.signal.inverse_stft_window_fn(sequence_stride, window_fn)
    signal = tf.signal.inverse_stft(z, fft_length, sequence_stride, fft_length=fft_length, window_fn=window_fn)
    start = fft_length // 2 if center else 0
    if length is not None:
        end = start + length
    elif center:
        end = -(fft_length // 2)
    else:
        end = fft_length + sequence_stride * (z.shape[-2] - 1)
    return signal[..., start:end]


@keras_op
def view_as_complex(x):
    """The complex64 tensor of ``x``'s last axis of size 2 (real and imaginary parts)."""
    x = convert_to_tensor(x)
    if x.shape.rank < 1 or x.shape[-1] != 2:
        raise ValueError(f"Last dimension of input must be size 2 (real and imaginary). Received shape: {x.shape}")
    return tf.complex(tf.cast(x[..., 0], "float32"), tf.cast(x[..., 1], "float32"))


@keras_op
def view_as_real(x):
    """``x``'s real and imaginary parts stacked on a new last axis (zeros for a real ``x``)."""
    x = convert_to_tensor(x)
    return tf.stack([tf.math.real(x), tf.math.imag(x)], axis=-1)


@keras_op
def angle(x):
    """The argument of each element (``atan2(imag, real)``; 0 or pi for real values), as a float tensor:
    float32 for complex64 and complex128 (as Keras), int64 gives floatx, other types their float promotion."""
    x = convert_to_tensor(x)
    dtype = x.dtype.name
    if dtype.startswith("complex"):
        return tf.cast(tf.math.angle(x), "float32")
    target = config.floatx() if dtype == "int64" else result_type(dtype, float)
    return tf.math.angle(tf.cast(x, target))


@keras_op
def polar(abs_, angle):
    """The complex numbers ``abs_ * (cos(angle) + i sin(angle))`` (same float dtypes required)."""
    abs_, angle = convert_to_tensor(abs_), convert_to_tensor(angle)
    return tf.complex(abs_ * tf.cos(angle), abs_ * tf.sin(angle))


@keras_op
def eig(x):
    """``(eigenvalues, eigenvectors)`` of the square matrices ``x``, complex (see ``tf.linalg.eig``)."""
    x = convert_to_tensor(x)
    _check_matrices(x)
    return tf.linalg.eig(x)

