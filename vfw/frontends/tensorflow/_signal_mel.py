"""tf.signal's mel-frequency tools: ``linear_to_mel_weight_matrix`` (HTK mel scale, triangular filters) and
``mfccs_from_log_mel_spectrograms`` (a scaled DCT-II of log-mel spectrograms)."""

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, wrap
from vfw.frontends.tensorflow._math_ops import multiply
from vfw.frontends.tensorflow._op_support import F32, F64
from vfw.frontends.tensorflow._signal_dct import dct

# The HTK mel scale: mel(f) = 1127 ln(1 + f / 700).
_MEL_Q = 1127.0
_MEL_BREAK_HERTZ = 700.0


def _hertz_to_mel(frequencies):
    dtype = frequencies.dtype.type
    return dtype(_MEL_Q) * np.log(dtype(1) + frequencies / dtype(_MEL_BREAK_HERTZ))


def _static_number(value, argument):
    if hasattr(value, "array"):
        value = value.array
    array = np.asarray(value)
    if array.ndim:
        raise ValueError(f"linear_to_mel_weight_matrix: {argument} must be a scalar, got shape {array.shape}")
    return array.item()


def _check_arguments(num_mel_bins, sample_rate, lower_edge_hertz, upper_edge_hertz, dtype):
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if lower_edge_hertz < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower_edge_hertz}")
    if lower_edge_hertz >= upper_edge_hertz:
        raise ValueError(f"lower_edge_hertz {lower_edge_hertz} >= upper_edge_hertz {upper_edge_hertz}")
    if sample_rate <= 0.0:
        raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
    if upper_edge_hertz > sample_rate / 2:
        raise ValueError(f"upper_edge_hertz must not be larger than the Nyquist frequency (sample_rate / 2). Got "
                         f"{upper_edge_hertz} for sample_rate: {sample_rate}")
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Got: {dtype}")


def mel_weights(num_mel_bins, num_spectrogram_bins, sample_rate, lower_edge_hertz, upper_edge_hertz, np_dtype):
    """The mel weight matrix (numpy, ``np_dtype``) of ``linear_to_mel_weight_matrix``, arguments unchecked (Keras'
    MelSpectrogram computes it without TF's checks)."""
    # Computed in ``np_dtype``, as TF does (float32 rounding moves the filter edges by a few ulps).
    real = np.dtype(np_dtype).type
    bin_mels = _hertz_to_mel(np.linspace(0.0, sample_rate / 2, num_spectrogram_bins, dtype=np_dtype)[1:])[:, None]
    edges = np.linspace(_hertz_to_mel(real(lower_edge_hertz)), _hertz_to_mel(real(upper_edge_hertz)),
                        num_mel_bins + 2, dtype=np_dtype)
    below, center, above = edges[:-2], edges[1:-1], edges[2:]
    rising = (bin_mels - below) / (center - below)
    falling = (above - bin_mels) / (above - center)
    weights = np.maximum(real(0), np.minimum(rising, falling))
    return np.pad(weights, [[1, 0], [0, 0]])


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000, lower_edge_hertz=125.0,
                                upper_edge_hertz=3800.0, dtype=_dtypes.float32, name=None):
    """The ``[num_spectrogram_bins, num_mel_bins]`` matrix that maps a linear spectrogram (bins evenly spaced from
    0 Hz to ``sample_rate / 2``) to ``num_mel_bins`` mel bands: triangular filters evenly spaced on the HTK mel
    scale between ``lower_edge_hertz`` and ``upper_edge_hertz``, each rising from its lower neighbour's center to 1
    at its own and falling to 0 at its upper neighbour's.  The DC bin (row 0) has no weight."""
    num_mel_bins = int(_static_number(num_mel_bins, "num_mel_bins"))
    num_spectrogram_bins = int(_static_number(num_spectrogram_bins, "num_spectrogram_bins"))
    sample_rate = _static_number(sample_rate, "sample_rate")
    lower = _static_number(lower_edge_hertz, "lower_edge_hertz")
    upper = _static_number(upper_edge_hertz, "upper_edge_hertz")
    dtype = _dtypes.as_dtype(dtype)
    _check_arguments(num_mel_bins, sample_rate, lower, upper, dtype)
    return wrap(mel_weights(num_mel_bins, num_spectrogram_bins, sample_rate, lower, upper, dtype.np))


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """Mel-frequency cepstral coefficients of ``[..., num_mel_bins]`` log-mel spectrograms: their DCT-II
    divided by ``sqrt(2 num_mel_bins)`` (orthonormal but for the first coefficient, which is ``sqrt(2)`` times
    larger), all ``num_mel_bins`` of them."""
    x = convert_to_tensor(log_mel_spectrograms)
    if x.array.dtype not in (F32, F64):
        raise ValueError(f"mfccs_from_log_mel_spectrograms: expected float32 or float64, got "
                         f"{_dtypes.of_array(x.array)!r}")
    if x.array.ndim == 0:
        raise ValueError("mfccs_from_log_mel_spectrograms: input must have rank at least 1, got shape ()")
    bins = x.array.shape[-1]
    return multiply(dct(x, type=2), wrap(np.asarray(1 / np.sqrt(2.0 * bins), x.array.dtype)))


NAMESPACES = {"signal": ["linear_to_mel_weight_matrix", "mfccs_from_log_mel_spectrograms"]}
TENSOR_METHODS = {}
