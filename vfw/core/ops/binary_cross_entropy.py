"""BinaryCrossEntropy: the elementwise binary cross entropy of probabilities (PyTorch's ``binary_cross_entropy``
without weight and reduction).

Not an ONNX operator.  ``loss = -(target * log(input) + (1 - target) * log(1 - input))`` with each logarithm
clamped at -100, so that an input of exactly 0 or 1 gives a finite loss (PyTorch's rule).  Inputs outside
[0, 1] (NaN included) are refused.  The gradients are PyTorch's: ``(input - target) / max(input * (1 - input),
1e-12)`` for the input (finite at 0 and 1 too) and ``log(1 - input) - log(input)`` for the target; they are
made of engine ops, so they differentiate again.  Half-precision inputs are computed in float32.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.errors import OpInputError, ShapeError
from vfw.core.ops._common import array_of, cast_to, execute, in_dtype, same_as_first, scalar
from vfw.core.registry import defop, describe

_LOG_FLOOR = -100.0
_EPSILON = 1e-12  # the smallest denominator of the input gradient


@defop("BinaryCrossEntropy", inputs="input:T target:T", outputs="loss:T", types={"T": dt.FLOATS},
       infer=same_as_first)
def binary_cross_entropy():
    """Elementwise ``-(target * log(input) + (1 - target) * log(1 - input))``, logs clamped at -100."""

    def kernel(x, y, out=None):
        if x.shape != y.shape:
            raise ShapeError(f"BinaryCrossEntropy: target {describe(y)} must have the shape of input {describe(x)}")
        cdt = dt.float64 if x.dtype == dt.float64 else dt.float32
        p, t = in_dtype(x, cdt), in_dtype(y, cdt)
        if not np.all((p >= 0) & (p <= 1)):
            raise OpInputError("BinaryCrossEntropy: all elements of input should be between 0 and 1")
        log_p = np.maximum(np.log(p), _LOG_FLOOR)
        log_q = np.maximum(np.log1p(-p), _LOG_FLOOR)
        log_q *= t - 1
        log_p *= t
        log_q -= log_p
        return log_q.astype(x.dtype, copy=False)

    return kernel


@register_gradient("BinaryCrossEntropy")
def _binary_cross_entropy_grad(node, g):
    x, y = node.inputs
    need_x, need_y = node.needs_input_grad
    dtype = array_of(x).dtype
    cdt = dt.float64 if dtype == dt.float64 else dt.float32  # 1e-12 is 0 in half precision
    xs, g = cast_to(x, cdt), cast_to(g, cdt)
    q = execute("Sub", scalar(1, cdt), xs)
    dx = dy = None
    if need_x:
        spread = execute("Max", execute("Mul", xs, q), scalar(_EPSILON, cdt))
        dx = cast_to(execute("Mul", g, execute("Div", execute("Sub", xs, cast_to(y, cdt)), spread)), dtype)
    if need_y:
        dy = cast_to(execute("Mul", g, execute("Sub", execute("Log", q), execute("Log", xs))), dtype)
    return dx, dy
