"""Elementwise unary math: Exp, Log, trigonometric and hyperbolic functions, Erf, IsNaN, IsInf.

Every op computes IEEE results: out-of-domain inputs give NaN, poles give
+-inf, and NaN propagates (numpy's warnings for these are silenced engine-wide).
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.ops._common import same_as_first, ufunc_kernel
from vfw.core.ops._special import erf as _erf
from vfw.core.registry import Attr, TensorInfo, defop

_UNARY = (
    ("Exp", np.exp), ("Log", np.log), ("Sqrt", np.sqrt),
    ("Sin", np.sin), ("Cos", np.cos), ("Tan", np.tan),
    ("Asin", np.arcsin), ("Acos", np.arccos), ("Atan", np.arctan),
    ("Sinh", np.sinh), ("Cosh", np.cosh), ("Tanh", np.tanh),
    ("Asinh", np.arcsinh), ("Acosh", np.arccosh), ("Atanh", np.arctanh),
)

# ONNX names the single input of these ops "input" (Sqrt's is "X").
for _name, _ufunc in _UNARY:
    _slot = "X" if _name == "Sqrt" else "input"
    defop(_name, inputs=f"{_slot}:T", outputs=f"{'Y' if _name == 'Sqrt' else 'output'}:T",
          types={"T": dt.FLOATS}, infer=same_as_first)(ufunc_kernel(_ufunc))


@defop("Erf", inputs="input:T", outputs="output:T", types={"T": dt.FLOATS}, infer=same_as_first)
def erf():
    """Gauss error function, elementwise (W. J. Cody's rational approximation, computed in float64)."""

    def kernel(x, out=None):
        if out is None:
            return _erf(x)
        np.copyto(out, _erf(x))
        return out

    return kernel


def _bool_like_first(attrs, infos):
    """Shape inference: one bool output shaped like the first input."""
    return [TensorInfo(infos[0].shape, dt.bool_)]


@defop("IsNaN", inputs="X:T1", outputs="Y:T2", types={"T1": dt.FLOATS, "T2": dt.BOOL}, infer=_bool_like_first)
def isnan():
    """True where the input is NaN."""
    return np.isnan


@defop("IsInf", inputs="X:T1", outputs="Y:T2", types={"T1": dt.FLOATS, "T2": dt.BOOL},
       attrs={"detect_negative": Attr("int", 1, choices=(0, 1)),
              "detect_positive": Attr("int", 1, choices=(0, 1))},
       infer=_bool_like_first)
def isinf(detect_negative, detect_positive):
    """True where the input is infinite (of the signs selected by the attributes)."""
    if detect_negative and detect_positive:
        return np.isinf
    if detect_positive or detect_negative:
        target = np.inf if detect_positive else -np.inf

        def kernel(x, out=None):
            return np.equal(x, target, out=out)

        return kernel

    def none(x, out=None):
        if out is None:
            return np.zeros(x.shape, dt.bool_)
        out[...] = False
        return out

    return none
