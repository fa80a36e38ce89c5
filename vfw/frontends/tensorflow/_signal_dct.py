"""tf.signal's discrete cosine transforms (``dct``/``idct``, types I-IV) and the modified DCT (``mdct``/
``inverse_mdct``).

A DCT of ``n`` points is a matmul with an ``n x n`` cosine matrix built in numpy (float64, rounded to the
input's dtype): one engine ``MatMul``, so tapes and traces differentiate it.  The unnormalized types
are scipy.fftpack's (type II: ``2 sum x[m] cos(pi k (2m + 1) / 2n)``), as TF's; ``norm="ortho"`` scales
them to orthonormal matrices.
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._array_ops import concat, reshape
from vfw.frontends.tensorflow._array_transform import pad, reverse
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, wrap
from vfw.frontends.tensorflow._linalg_ops import matmul
from vfw.frontends.tensorflow._math_ops import multiply
from vfw.frontends.tensorflow._op_support import F32, F64
from vfw.frontends.tensorflow._signal_fft import frame, overlap_and_add
from vfw.frontends.tensorflow._signal_windows import vorbis_window


def _cosine_matrix(dct_type, n, ortho):
    """The ``[n, n]`` matrix ``C`` (float64) of the DCT of ``type``: ``y[k] = sum_m C[k, m] x[m]``."""
    k = np.arange(n)[:, None]
    m = np.arange(n)[None, :]
    if dct_type == 1:
        matrix = 2 * np.cos(np.pi * k * m / (n - 1))
        matrix[:, 0] = 1
        matrix[:, -1] = (-1.0) ** np.arange(n)
        return matrix
    if dct_type == 2:
        matrix = 2 * np.cos(np.pi * k * (2 * m + 1) / (2 * n))
        if ortho:
            matrix *= np.sqrt(1 / (2 * n))
            matrix[0] *= np.sqrt(0.5)
        return matrix
    if dct_type == 3:  # the transpose of type II: the unnormalized one takes x[0] once
        matrix = 2 * np.cos(np.pi * m * (2 * k + 1) / (2 * n))
        if ortho:
            matrix *= np.sqrt(1 / (2 * n))
            matrix[:, 0] *= np.sqrt(0.5)
        else:
            matrix[:, 0] = 1
        return matrix
    matrix = 2 * np.cos(np.pi * (2 * k + 1) * (2 * m + 1) / (4 * n))
    return matrix * np.sqrt(1 / (2 * n)) if ortho else matrix


def _validate(x, dct_type, n, axis, norm):
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError("n should be a positive integer or None")
    if dct_type not in (1, 2, 3, 4):
        raise ValueError("Types I, II, III and IV (I)DCT are supported.")
    if dct_type == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        if x.array.ndim and x.array.shape[-1] < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")


def _dct(x, dct_type, n, norm):
    if x.array.dtype not in (F32, F64):
        raise ValueError(f"dct: input must be float32 or float64, got {_dtypes.of_array(x.array)!r}")
    if x.array.ndim == 0:
        raise ValueError("dct: input must have rank at least 1, got shape ()")
    length = x.array.shape[-1]
    if n is not None and n != length:  # crop to n samples, or zero-pad to them
        if n < length:
            x = x[..., :n]
        else:
            x = pad(x, [[0, 0]] * (x.array.ndim - 1) + [[0, n - length]])
        length = n
    matrix = _cosine_matrix(dct_type, length, norm == "ortho").T.astype(x.array.dtype)
    return matmul(x, wrap(matrix)) if x.array.ndim >= 2 else reshape(matmul(x[None], wrap(matrix)), [length])


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002  (TF's argument names)
    """The DCT of ``type`` (1-4) over the last axis of a float32/float64 ``[..., samples]`` tensor.

    ``n`` crops or zero-pads the signal to ``n`` samples first; ``norm`` is None (scipy.fftpack's
    unnormalized transforms) or ``"ortho"`` (orthonormal; not for type I).  ``axis`` must be -1.
    """
    x = convert_to_tensor(input)
    _validate(x, type, n, axis, norm)
    return _dct(x, type, n, norm)


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    """The inverse DCT as TF defines it: the DCT of the inverse type (II <-> III), unscaled unless ``norm`` is
    ``"ortho"`` (so ``idct(dct(x))`` is ``x`` times ``2 n`` for types II-IV without normalization)."""
    x = convert_to_tensor(input)
    _validate(x, type, n, axis, norm)
    return _dct(x, {1: 1, 2: 3, 3: 2, 4: 4}[type], n, norm)


# -- modified DCT ----------------------------------------------------------------------------------------------------
def _quarters(frames, length):
    quarter = length // 4
    return [frames[..., i * quarter:(i + 1) * quarter] for i in range(4)]


def _windowed(frames, window_fn, frame_length):
    """``frames`` times ``window_fn(frame_length)``; without a window, times ``1 / sqrt(2)`` (TF's rectangular
    window, which makes the inverse reconstruct the signal)."""
    dtype = _dtypes.of_array(frames.array)
    window = wrap(np.asarray(np.sqrt(0.5), dtype.np)) if window_fn is None else window_fn(frame_length, dtype=dtype)
    return multiply(frames, window)


def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None, name=None):
    """The modified DCT of ``signals`` (``[..., samples]``): frames of ``frame_length`` samples (a multiple of 4)
    every ``frame_length / 2``, windowed by ``window_fn`` (None: a flat ``1 / sqrt(2)``), each folded to
    ``frame_length / 2`` samples and DCT-IV transformed: shape ``[..., frames, frame_length / 2]``."""
    x = convert_to_tensor(signals)
    frame_length = int(np.asarray(getattr(frame_length, "array", frame_length)))
    if frame_length % 4:
        raise ValueError("The frame length must be a multiple of 4.")
    if x.array.dtype not in (F32, F64):
        raise ValueError(f"mdct: signals must be float32 or float64, got {_dtypes.of_array(x.array)!r}")
    frames = frame(x, frame_length, frame_length // 2, pad_end=pad_end)
    frames = _windowed(frames, window_fn, frame_length)
    a, b, c, d = _quarters(frames, frame_length)
    # Folding: the frame (a, b, c, d) becomes (-c_r - d, a - b_r), _r reversing a quarter.
    folded = concat([-reverse(c, [-1]) - d, a - reverse(b, [-1])], axis=-1)
    return dct(folded, type=4, norm=norm)


def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None):
    """The signal of ``mdcts`` (``[..., frames, half_length]``): each frame DCT-IV transformed, unfolded to
    ``2 half_length`` samples, windowed by ``window_fn`` (None: a flat ``1 / sqrt(2)``) and overlap-added every
    ``half_length`` samples.  With the default window and the same ``norm`` on both sides,
    ``inverse_mdct(mdct(x, n))`` is ``x`` away from the first and last half frame."""
    x = convert_to_tensor(mdcts)
    if x.array.dtype not in (F32, F64):
        raise ValueError(f"inverse_mdct: mdcts must be float32 or float64, got {_dtypes.of_array(x.array)!r}")
    half_length = x.array.shape[-1]
    frame_length = 2 * half_length
    values = idct(x, type=4, norm=norm)
    if norm is None:  # the unnormalized DCT-IV is its own inverse up to 1 / (2 half_length)
        values = multiply(values, wrap(np.asarray(0.5 / half_length, x.array.dtype)))
    first, second = values[..., :half_length // 2], values[..., half_length // 2:]
    # Unfolding, the adjoint of mdct's folding: (second, -second_r, -first_r, -first).
    frames = concat([second, -reverse(second, [-1]), -reverse(first, [-1]), -first], axis=-1)
    frames = _windowed(frames, window_fn, frame_length)
    return overlap_and_add(frames, half_length)


NAMESPACES = {"signal": ["dct", "idct", "mdct", "inverse_mdct"]}
TENSOR_METHODS = {}
