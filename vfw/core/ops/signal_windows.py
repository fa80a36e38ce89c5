"""Window functions for spectral analysis: the ONNX operators ``HannWindow``, ``HammingWindow`` and
``BlackmanWindow`` (opset 17), and the engine ops ``CosineSumWindow`` (any cosine-sum window, such as
Hamming windows with other coefficients than ONNX's), ``BartlettWindow`` and ``KaiserWindow``.

All take the window length as the scalar input ``size`` (int32/int64) and the ONNX attributes
``periodic`` (1: the window of length ``size + 1`` without its last value, the form a DFT wants;
0: the symmetric window) and ``output_datatype``.  With ``N = size`` (periodic) or ``size - 1``
(symmetric), sample ``n`` of a cosine-sum window is ``sum_k (-1)^k a_k cos(2 pi k n / N)``: Hann
``a = (0.5, 0.5)``, Hamming ``(25/46, 21/46)``, Blackman ``(0.42, 0.5, 0.08)``.  Bartlett is
``1 - |2 n / N - 1|``, Kaiser ``I0(beta sqrt(1 - (2 n / N - 1)^2)) / I0(beta)``.  Values are computed
in float64 and rounded once.  A symmetric window of one sample is ``[1]`` (ONNX's formula divides 0 by
0 there; numpy and the frameworks give 1).  None of these ops is differentiable (no float input).
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable
from vfw.core.errors import OpInputError
from vfw.core.ops._common import copy_out, require
from vfw.core.ops.special_bessel import scaled_i
from vfw.core.registry import Attr, TensorInfo, defop

_LENGTHS = frozenset({dt.int32, dt.int64})
_HANN = (0.5, 0.5)
_HAMMING = (25 / 46, 21 / 46)
_BLACKMAN = (0.42, 0.5, 0.08)


def _window_infer(attrs, infos):
    size = infos[0].value
    length = None if size is None else int(np.asarray(size).reshape(-1)[0])
    return [TensorInfo((length,), attrs["output_datatype"])]


def _window_op(op_type, extra_attrs=None):
    """``defop`` for a window op: the ``size`` input and the ``periodic``/``output_datatype`` attributes."""
    attrs = {"periodic": Attr("int", 1, choices=(0, 1)), "output_datatype": Attr("dtype", dt.float32)}
    attrs.update(extra_attrs or {})
    return defop(op_type, inputs="size:T1", outputs="output:T2", types={"T1": _LENGTHS, "T2": dt.NUMERIC},
                 attrs=attrs, infer=_window_infer, value_inputs=("size",))


def _positions(op_type, size, periodic):
    """``n / N`` for the window's samples as float64 (``None`` for a symmetric window of one sample)."""
    require(op_type, size.size == 1, f"size must be a scalar, got shape {size.shape}", error=OpInputError)
    length = int(size.reshape(-1)[0])
    require(op_type, length >= 0, f"size must be >= 0, got {length}", error=OpInputError)
    denominator = length if periodic else length - 1
    if denominator == 0:
        return None if length else np.zeros(0)
    return np.arange(length, dtype=np.float64) / denominator


def _kernel(op_type, periodic, output_datatype, shape):
    """A window kernel: ``shape(fraction)`` maps the float64 positions ``n / N`` to the window's values."""

    def kernel(size, out=None):
        fraction = _positions(op_type, size, periodic)
        values = np.ones(1) if fraction is None else shape(fraction)
        return copy_out(values.astype(output_datatype), out)

    return kernel


def _cosine_sum(coefficients):
    def shape(fraction):
        phase = 2 * np.pi * fraction
        total = np.full_like(fraction, coefficients[0])
        for k, a in enumerate(coefficients[1:], 1):
            total += (-a if k % 2 else a) * np.cos(k * phase)
        return total

    return shape


@_window_op("HannWindow")
def hann_window(periodic, output_datatype):
    """Hann window ``0.5 - 0.5 cos(2 pi n / N)``."""
    return _kernel("HannWindow", periodic, output_datatype, _cosine_sum(_HANN))


@_window_op("HammingWindow")
def hamming_window(periodic, output_datatype):
    """Hamming window ``25/46 - 21/46 cos(2 pi n / N)`` (ONNX's coefficients; see CosineSumWindow for others)."""
    return _kernel("HammingWindow", periodic, output_datatype, _cosine_sum(_HAMMING))


@_window_op("BlackmanWindow")
def blackman_window(periodic, output_datatype):
    """Blackman window ``0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)``."""
    return _kernel("BlackmanWindow", periodic, output_datatype, _cosine_sum(_BLACKMAN))


def _coefficients(values):
    return None if len(values) >= 1 else "needs at least one coefficient"


@_window_op("CosineSumWindow", {"coefficients": Attr("floats", check=_coefficients)})
def cosine_sum_window(periodic, output_datatype, coefficients):
    """Cosine-sum window ``sum_k (-1)^k coefficients[k] cos(2 pi k n / N)`` (not ONNX)."""
    return _kernel("CosineSumWindow", periodic, output_datatype, _cosine_sum(tuple(coefficients)))


@_window_op("BartlettWindow")
def bartlett_window(periodic, output_datatype):
    """Bartlett (triangular) window ``1 - |2 n / N - 1|`` (not ONNX)."""
    return _kernel("BartlettWindow", periodic, output_datatype, lambda fraction: 1 - np.abs(2 * fraction - 1))


@_window_op("KaiserWindow", {"beta": Attr("float", 12.0)})
def kaiser_window(periodic, output_datatype, beta):
    """Kaiser window ``I0(beta sqrt(1 - (2 n / N - 1)^2)) / I0(beta)`` (not ONNX; I0: the modified Bessel
    function of order 0)."""
    scale = abs(beta)

    def shape(fraction):
        argument = scale * np.sqrt(np.clip(1 - (2 * fraction - 1) ** 2, 0, None))
        # I0(u) / I0(b) = e^(u - b) I0e(u) / I0e(b): no overflow for large beta.
        return np.exp(argument - scale) * scaled_i(argument, 0) / scaled_i(np.array([scale]), 0)

    return _kernel("KaiserWindow", periodic, output_datatype, shape)


not_differentiable("HannWindow", "HammingWindow", "BlackmanWindow", "CosineSumWindow", "BartlettWindow",
                   "KaiserWindow")
