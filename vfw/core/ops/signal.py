"""Signal processing ops (ONNX): DFT, STFT and MelWeightMatrix.

Complex values are real tensors with a last dim of 2 (real, imaginary); a real signal has a last dim
of 1.  Transforms compute with numpy's FFT, in double precision for float64 inputs and in single
precision otherwise (half-precision inputs are widened and the result rounded once).
None of these ops is differentiable here.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable
from vfw.core.errors import ShapeError
from vfw.core.ops._common import normalize_axis, require
from vfw.core.registry import Attr, defop

_LENGTHS = frozenset({dt.int32, dt.int64})


def _scalar(op_type, value, name):
    require(op_type, value.size == 1, f"{name} must be a scalar, got shape {value.shape}")
    return int(value.reshape(-1)[0])


def _as_complex(op_type, x, name):
    """A complex array from a ``[..., 1]`` (real) or ``[..., 2]`` (complex) tensor, and whether it was real.

    float64 inputs compute in double precision, narrower ones in single precision (numpy's FFT keeps it).
    """
    require(op_type, x.ndim >= 2 and x.shape[-1] in (1, 2),
            f"{name} must end with a dim of 1 (real) or 2 (complex), got shape {x.shape}")
    real_type, complex_type = (np.float64, np.complex128) if x.dtype == np.float64 else (np.float32, np.complex64)
    if x.shape[-1] == 1:
        return x[..., 0].astype(real_type), True
    values = np.empty(x.shape[:-1], complex_type)
    values.real, values.imag = x[..., 0], x[..., 1]
    return values, False


def _as_pairs(values, dtype):
    """``[..., 2]`` real tensor of complex ``values`` (or ``[..., 1]`` of real ones) in ``dtype``."""
    if np.iscomplexobj(values):
        return np.stack([values.real, values.imag], axis=-1).astype(dtype)
    return values[..., None].astype(dtype)


@defop("DFT", inputs="input:T1 dft_length?:T2 axis?:int64", outputs="output:T1",
       types={"T1": dt.FLOATS, "T2": _LENGTHS},
       attrs={"inverse": Attr("int", 0, choices=(0, 1)), "onesided": Attr("int", 0, choices=(0, 1))})
def dft(inverse, onesided):
    """Discrete Fourier transform along ``axis`` (default -2, the last signal axis): full, one-sided (real input,
    RFFT) or their inverses (IRFFT returns a real signal)."""

    def kernel(x, dft_length=None, axis=None, out=None):
        signal, real = _as_complex("DFT", x, "input")
        ax = -2 if axis is None else _scalar("DFT", axis, "axis")
        if not (-x.ndim <= ax <= -2 or 0 <= ax <= x.ndim - 2):
            raise ShapeError(f"DFT: axis {ax} is out of range for an input of rank {x.ndim} (the last dim holds the "
                             "complex parts)")
        ax = normalize_axis("DFT", ax, x.ndim)
        size = signal.shape[ax]
        if dft_length is not None:
            n = _scalar("DFT", dft_length, "dft_length")
            require("DFT", n > 0, f"dft_length must be positive, got {n}")
        else:
            n = 2 * (size - 1) if onesided and inverse else size
        if onesided and not inverse:
            require("DFT", real, "a one-sided forward DFT takes a real input (last dim 1)")
            result = np.fft.rfft(signal.real, n, axis=ax)
        elif onesided:
            result = np.fft.irfft(signal, n, axis=ax)
        elif inverse:
            result = np.fft.ifft(signal, n, axis=ax)
        else:
            result = np.fft.fft(signal, n, axis=ax)
        return _as_pairs(result, x.dtype)

    return kernel


@defop("STFT", inputs="signal:T1 frame_step:T2 window?:T1 frame_length?:T2", outputs="output:T1",
       types={"T1": dt.FLOATS, "T2": _LENGTHS}, attrs={"onesided": Attr("int", 1, choices=(0, 1))})
def stft(onesided):
    """Short-time Fourier transform: the DFT of each windowed frame of ``frame_length`` samples taken every
    ``frame_step`` samples; ``[batch, frames, bins, 2]``."""

    def kernel(signal, frame_step, window=None, frame_length=None, out=None):
        require("STFT", signal.ndim == 3, f"signal must have shape (batch, length, 1 or 2), got {signal.shape}")
        values, real = _as_complex("STFT", signal, "signal")
        step = _scalar("STFT", frame_step, "frame_step")
        length = values.shape[1]
        if frame_length is not None:
            frame = _scalar("STFT", frame_length, "frame_length")
        else:
            frame = window.shape[0] if window is not None else length
        if window is not None:
            require("STFT", window.ndim == 1 and window.shape[0] == frame,
                    f"window must be 1-D of frame_length {frame}, got shape {window.shape}")
        require("STFT", step > 0 and 0 < frame <= length,
                f"need frame_step > 0 and 0 < frame_length <= signal length {length}, got {step} and {frame}")
        frames = np.lib.stride_tricks.sliding_window_view(values, frame, axis=1)[:, ::step]
        if window is not None:
            frames = frames * window.astype(values.real.dtype)
        if onesided:
            require("STFT", real, "a one-sided STFT takes a real signal (last dim 1)")
            result = np.fft.rfft(frames.real, axis=-1)
        else:
            result = np.fft.fft(frames, axis=-1)
        return np.stack([result.real, result.imag], axis=-1).astype(signal.dtype)

    return kernel


@defop("MelWeightMatrix",
       inputs="num_mel_bins:T1 dft_length:T1 sample_rate:T1 lower_edge_hertz:T2 upper_edge_hertz:T2",
       outputs="output:T3", types={"T1": _LENGTHS, "T2": dt.FLOATS, "T3": dt.NUMERIC},
       attrs={"output_datatype": Attr("dtype", dt.float32)})
def mel_weight_matrix(output_datatype):
    """``[dft_length // 2 + 1, num_mel_bins]`` triangular filters, equally spaced on the mel scale
    ``2595 log10(1 + f / 700)`` between the edge frequencies, each peaking at 1."""

    def kernel(num_mel_bins, dft_length, sample_rate, lower_edge_hertz, upper_edge_hertz, out=None):
        bins = _scalar("MelWeightMatrix", num_mel_bins, "num_mel_bins")
        length = _scalar("MelWeightMatrix", dft_length, "dft_length")
        rate = _scalar("MelWeightMatrix", sample_rate, "sample_rate")
        require("MelWeightMatrix", bins > 0 and length > 0 and rate > 0,
                f"num_mel_bins, dft_length and sample_rate must be positive, got {bins}, {length}, {rate}")
        low, high = (float(np.asarray(e, np.float64).reshape(-1)[0]) for e in (lower_edge_hertz, upper_edge_hertz))
        spectrum = length // 2 + 1
        mel_low, mel_high = (2595 * np.log10(1 + f / 700) for f in (low, high))
        # bins + 2 edge points, spaced by (high - low) / (bins + 2) on the mel scale (as ONNX's reference).
        mels = np.arange(bins + 2) * ((mel_high - mel_low) / (bins + 2)) + mel_low
        edges = np.floor((length + 1) * (700 * (10 ** (mels / 2595) - 1)) / rate).astype(np.int64)
        if edges.min() < 0 or edges.max() >= spectrum:
            raise ShapeError(f"MelWeightMatrix: the band edges {edges.tolist()} fall outside the {spectrum} "
                             "spectrogram bins (check the edge frequencies against sample_rate)")
        left, center, right = edges[:-2], edges[1:-1], edges[2:]
        j = np.arange(spectrum)[:, None]
        rising = (j >= left) & (j <= center)
        falling = (j >= center) & (j < right)
        rise = np.where(center > left, (j - left) / np.maximum(center - left, 1), (j == center).astype(np.float64))
        fall = (right - j) / np.maximum(right - center, 1)
        weights = np.where(falling, fall, np.where(rising, rise, 0.0))
        return weights.astype(output_datatype)

    return kernel


not_differentiable("DFT", "STFT", "MelWeightMatrix")
