"""tf.signal: discrete Fourier transforms over the innermost 1-3 dims, ``fftshift``, framing, windows and the
short-time Fourier transform.

The transforms run the engine's ``FFT``/``RFFT``/``IRFFT`` ops (differentiable: their adjoints);
``frame``, ``overlap_and_add``, ``stft`` and ``inverse_stft`` are compositions of tf functions, so
they differentiate through them as TF's do.
"""

import math

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._array_gather import gather
from vfw.frontends.tensorflow._array_ops import reshape
from vfw.frontends.tensorflow._array_transform import pad, roll
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, op, op_error, wrap
from vfw.frontends.tensorflow._math_ops import add, multiply
from vfw.frontends.tensorflow._op_support import F32, F64, shape_text, static_int

_COMPLEX_NAMES = "complex64, complex128"


def _rank_check(x, rank, tf_op):
    if x.array.ndim < rank:
        raise op_error(f"Input must have rank of at least {rank} but got: {shape_text(x.array.shape)}", tf_op)


def _real_rank_check(x, rank):
    if x.array.ndim < rank:  # the Python-level shape check of TF's real transforms
        raise ValueError(f"Shape {tuple(x.array.shape)} must have rank at least {rank}")


def _complex_transform(rank, inverse, tf_op):
    axes = tuple(range(-rank, 0))

    def transform(input, name=None):  # noqa: A002  (TF's argument name)
        # the op's type attribute defaults to complex64: TF converts Python and numpy values to it
        x = convert_to_tensor(input, dtype_hint=_dtypes.complex64)
        if x.array.dtype.kind != "c":
            raise op_error(f"Value for attr 'Tcomplex' of {_dtypes.of_array(x.array).name} is not in the list of "
                           f"allowed values: {_COMPLEX_NAMES}\n\t; NodeDef: {{{{node {tf_op}}}}}", tf_op)
        _rank_check(x, rank, tf_op)
        return call(op("FFT", axes=axes, inverse=int(inverse)), x, tf_op=tf_op)

    transform.__name__ = transform.__qualname__ = tf_op.lower()
    transform.__doc__ = (f"The {'inverse ' if inverse else ''}discrete Fourier transform over the innermost "
                         f"{rank} dim(s) of a complex tensor{' (divided by the number of points)' if inverse else ''}.")
    return transform


fft = _complex_transform(1, False, "FFT")
ifft = _complex_transform(1, True, "IFFT")
fft2d = _complex_transform(2, False, "FFT2D")
ifft2d = _complex_transform(2, True, "IFFT2D")
fft3d = _complex_transform(3, False, "FFT3D")
ifft3d = _complex_transform(3, True, "IFFT3D")


def _fft_lengths(fft_length, rank, tf_op):
    """``fft_length`` as a tuple of ``rank`` positive ints (None stays None)."""
    if fft_length is None:
        return None
    lengths = np.asarray(fft_length.array if hasattr(fft_length, "array") else fft_length).reshape(-1)
    if lengths.dtype.kind not in "iu" or lengths.size != rank:
        raise ValueError(f"{tf_op}: fft_length must be {rank} integers, got {fft_length!r}")
    if (lengths < 0).any():
        raise op_error(f"fft_length must be non-negative, got {lengths.tolist()}", tf_op)
    return tuple(int(n) for n in lengths)


def _real_transform(rank, inverse, tf_op):
    axes = tuple(range(-rank, 0))
    wanted = ("tf.complex64 or tf.complex128" if inverse else "tf.float32 or tf.float64")

    def transform(input_tensor, fft_length=None, name=None):
        # TF converts Python and numpy values preferring complex64 (inverse) or float32 (forward)
        x = convert_to_tensor(input_tensor, dtype_hint=_dtypes.complex64 if inverse else _dtypes.float32)
        kind_ok = x.array.dtype.kind == "c" if inverse else x.array.dtype in (F32, F64)
        if not kind_ok:
            raise ValueError(f"{tf_op} requires {wanted} inputs, got: {x}")
        _real_rank_check(x, rank)
        lengths = _fft_lengths(fft_length, rank, tf_op)
        if lengths is None:
            lengths = x.array.shape[-rank:]
            if inverse:  # the last dim holds m frequencies of a signal of 2 (m - 1) points
                lengths = (*lengths[:-1], 2 * (lengths[-1] - 1))
        if min(lengths, default=1) == 0 or (not inverse and 0 in x.array.shape[-rank:]):
            return _empty_transform(x, rank, lengths, inverse)
        return call(op("IRFFT" if inverse else "RFFT", axes=axes, lengths=tuple(lengths)), x, tf_op=tf_op)

    transform.__name__ = transform.__qualname__ = tf_op.lower()
    transform.__doc__ = (
        f"The {'inverse ' if inverse else ''}discrete Fourier transform of a "
        f"{'one-sided Hermitian spectrum to a real signal' if inverse else 'real signal, one-sided'} over the "
        f"innermost {rank} dim(s).\n\n``fft_length`` ({rank} ints) gives the signal length of each: the input is "
        "cropped or zero-padded to it" + (" (default: the input's sizes, ``2 (m - 1)`` for the last)." if inverse
                                          else " (default: the input's sizes; the last dim of the result is "
                                               "``fft_length[-1] // 2 + 1``).")
    )
    return transform


def _empty_transform(x, rank, lengths, inverse):
    """The (all-zero or empty) result of a real transform with a zero length or an empty input, as TF gives it."""
    shape = list(x.array.shape[:-rank]) + list(lengths)
    if inverse:
        return wrap(np.zeros(shape, F32 if x.array.dtype == np.complex64 else F64))
    shape[-1] = shape[-1] // 2 + 1
    return wrap(np.zeros(shape, np.complex64 if x.array.dtype == F32 else np.complex128))


rfft = _real_transform(1, False, "RFFT")
irfft = _real_transform(1, True, "IRFFT")
rfft2d = _real_transform(2, False, "RFFT2D")
irfft2d = _real_transform(2, True, "IRFFT2D")
rfft3d = _real_transform(3, False, "RFFT3D")
irfft3d = _real_transform(3, True, "IRFFT3D")


# -- shifts ----------------------------------------------------------------------------------------
def _shift(x, axes, sign):
    x = convert_to_tensor(x)
    if axes is None:
        axes = tuple(range(x.array.ndim))
    elif isinstance(axes, (int, np.integer)):
        axes = (int(axes),)
    else:
        axes = tuple(int(a) for a in np.asarray(axes).reshape(-1))
    if not axes:
        return x
    shifts = [sign * (x.array.shape[a] // 2) for a in axes]
    return roll(x, shifts, list(axes))


def fftshift(x, axes=None, name=None):
    """``x`` rolled by half its size along ``axes`` (all dims when None): the zero frequency moves to the center."""
    return _shift(x, axes, 1)


def ifftshift(x, axes=None, name=None):
    """The inverse of ``fftshift``: rolled by minus half the size along ``axes``."""
    return _shift(x, axes, -1)


# -- windows ---------------------------------------------------------------------------------------
def _raised_cosine(window_length, periodic, dtype, a, b, fn):
    length = static_int(convert_to_tensor(window_length), "window_length")
    dtype = _dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"{fn}: dtype must be a floating point type, got {dtype!r}")
    if length == 1:
        return wrap(np.ones([1], dtype.np))
    periodic = bool(np.asarray(periodic.array if hasattr(periodic, "array") else periodic))
    # TF's denominator: length - 1, plus 1 for a periodic window of even length (odd lengths are symmetric either way)
    denominator = np.asarray(length - 1 + (periodic and length % 2 == 0), dtype.np)
    n = np.arange(length).astype(dtype.np)
    values = a - b * np.cos(np.asarray(2 * np.pi, dtype.np) * n / denominator)
    return wrap(values.astype(dtype.np))


def hann_window(window_length, periodic=True, dtype=_dtypes.float32, name=None):
    """The Hann window ``0.5 - 0.5 cos(2 pi n / N)`` of ``window_length`` points (``N`` = the length when
    ``periodic``, the length - 1 otherwise)."""
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5, "hann_window")


def hamming_window(window_length, periodic=True, dtype=_dtypes.float32, name=None):
    """The Hamming window ``0.54 - 0.46 cos(2 pi n / N)`` of ``window_length`` points (see ``hann_window``)."""
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46, "hamming_window")


# -- framing ---------------------------------------------------------------------------------------
def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Overlapping frames of ``frame_length`` samples taken every ``frame_step`` samples along ``axis``.

    Parameters
    ----------
    signal : tensor-like, shape ``[..., samples, ...]``
    frame_length, frame_step : int
    pad_end : bool
        Pad the end with ``pad_value`` so that every sample lies in a frame (``ceil(samples / frame_step)``
        frames); otherwise only whole frames are taken.
    axis : int

    Returns
    -------
    Tensor, shape ``[..., frames, frame_length, ...]``
    """
    x = convert_to_tensor(signal)
    length = static_int(convert_to_tensor(frame_length), "frame_length")
    step = static_int(convert_to_tensor(frame_step), "frame_step")
    rank = x.array.ndim
    if rank == 0:
        raise ValueError(f"frame: signal must have rank at least 1, got shape {list(x.array.shape)}")
    axis = static_int(convert_to_tensor(axis), "axis")
    axis = axis % rank if -rank <= axis < rank else axis
    samples = x.array.shape[axis]
    if pad_end:
        frames = -(-samples // step)
        padded = max((frames - 1) * step + length, samples)
        if padded > samples:
            paddings = [[0, 0]] * rank
            paddings[axis] = [0, padded - samples]
            x = pad(x, paddings, constant_values=pad_value)
    else:
        frames = max(0, 1 + (samples - length) // step) if samples >= length else 0
    indices = (np.arange(frames)[:, None] * step + np.arange(length)[None, :]).astype(np.int32)
    return gather(x, wrap(indices), axis=axis)


def overlap_and_add(signal, frame_step, name=None):
    """The sum of overlapping frames: frame ``f`` of ``signal`` (``[..., frames, frame_length]``) is added at
    sample ``f * frame_step`` of a signal of ``(frames - 1) * frame_step + frame_length`` samples."""
    x = convert_to_tensor(signal)
    step = static_int(convert_to_tensor(frame_step), "frame_step")
    if x.array.ndim < 2:
        raise ValueError(f"overlap_and_add: signal must have rank at least 2, got shape {list(x.array.shape)}")
    if step <= 0:
        raise ValueError(f"overlap_and_add: frame_step must be positive, got {step}")
    *outer, frames, length = x.array.shape
    out_length = (frames - 1) * step + length if frames else 0
    blocks = -(-length // step)  # each frame as blocks of frame_step samples, the last zero-padded
    rank = x.array.ndim
    no_pad = [[0, 0]] * (rank - 2)
    x = pad(x, no_pad + [[0, 0], [0, blocks * step - length]])
    x = reshape(x, [*outer, frames, blocks, step])
    total = None
    # Block j of frame f lands on block f + j of the output: a shift of j frames per block index (few blocks).
    for j in range(blocks):
        part = gather(x, wrap(np.asarray(j, np.int32)), axis=rank - 1)  # [..., frames, step]
        part = pad(part, no_pad + [[j, blocks - 1 - j], [0, 0]])
        total = part if total is None else add(total, part)
    total = reshape(total, [*outer, (frames + blocks - 1) * step])
    return gather(total, wrap(np.arange(out_length, dtype=np.int32)), axis=rank - 2)


# -- short-time Fourier transform ------------------------------------------------------------------
def _default_fft_length(frame_length):
    return 1 if frame_length <= 1 else 2 ** math.ceil(math.log2(frame_length))


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window, pad_end=False, name=None):
    """The short-time Fourier transform of real ``signals`` (``[..., samples]``): the one-sided DFT of each
    windowed frame, shape ``[..., frames, fft_length // 2 + 1]``.

    ``fft_length`` defaults to the smallest power of 2 enclosing ``frame_length``; ``window_fn(frame_length,
    dtype=...)`` gives the window (None: none).
    """
    x = convert_to_tensor(signals)
    if x.array.dtype not in (F32, F64):
        raise ValueError(f"stft: signals must be float32 or float64, got {_dtypes.of_array(x.array)!r}")
    frame_length = static_int(convert_to_tensor(frame_length), "frame_length")
    fft_length = _default_fft_length(frame_length) if fft_length is None else \
        static_int(convert_to_tensor(fft_length), "fft_length")
    frames = frame(x, frame_length, frame_step, pad_end=pad_end)
    if window_fn is not None:
        frames = multiply(frames, window_fn(frame_length, dtype=_dtypes.of_array(x.array)))
    return rfft(frames, [fft_length])


def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window, name=None):
    """The signal of ``stfts`` (``[..., frames, fft_length // 2 + 1]``): the inverse DFT of each frame, windowed
    by ``window_fn`` and overlap-added.  Use ``inverse_stft_window_fn`` for a perfect reconstruction."""
    x = convert_to_tensor(stfts)
    if x.array.dtype.kind != "c":
        raise ValueError(f"inverse_stft: stfts must be complex64 or complex128, got {_dtypes.of_array(x.array)!r}")
    frame_length = static_int(convert_to_tensor(frame_length), "frame_length")
    fft_length = _default_fft_length(frame_length) if fft_length is None else \
        static_int(convert_to_tensor(fft_length), "fft_length")
    frames = irfft(x, [fft_length])
    if fft_length >= frame_length:
        frames = gather(frames, wrap(np.arange(frame_length, dtype=np.int32)), axis=-1)
    else:
        frames = pad(frames, [[0, 0]] * (frames.array.ndim - 1) + [[0, frame_length - fft_length]])
    if window_fn is not None:
        frames = multiply(frames, window_fn(frame_length, dtype=_dtypes.of_array(frames.array)))
    return overlap_and_add(frames, frame_step)


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A ``window_fn`` for ``inverse_stft`` that inverts an ``stft`` windowed by ``forward_window_fn``: the
    forward window divided by the overlap-added squares of the forward window."""
    step = static_int(convert_to_tensor(frame_step), "frame_step")

    def window_fn(frame_length, dtype=_dtypes.float32):
        window = forward_window_fn(frame_length, dtype=dtype).array
        blocks = -(-window.shape[0] // step)
        squares = np.pad(window * window, (0, blocks * step - window.shape[0])).reshape(blocks, step)
        denominator = np.tile(squares.sum(0), blocks)[: window.shape[0]]
        return wrap((window / denominator).astype(window.dtype))

    return window_fn


NAMESPACES = {
    "signal": ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft", "rfft2d", "irfft2d", "rfft3d",
               "irfft3d", "fftshift", "ifftshift", "hann_window", "hamming_window", "frame", "overlap_and_add",
               "stft", "inverse_stft", "inverse_stft_window_fn"],
}
TENSOR_METHODS = {}
