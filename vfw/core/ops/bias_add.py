"""BiasAdd: ``X + B`` with a 1-D ``B`` along the last axis of ``X`` (TF's BiasAdd, channels last).

The forward is an Add; the op exists for its gradient.  TF sums the bias gradient (BiasAddGrad) in float32 for
float16 but in bfloat16 itself for bfloat16, rounding after each row it adds, where a broadcast Add's gradient
(ReduceSum) accumulates in float32 and rounds once: under a ``mixed_bfloat16`` policy the bias gradients of Dense
and Conv layers differ by an ulp or more between the two.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.errors import ShapeError
from vfw.core.ops._common import execute, int64s, reshape_to, same_as_first, unbroadcast
from vfw.core.registry import defop, describe

_LAST_ROW = (int64s((-1,)), int64s((np.iinfo(np.int64).max,)), int64s((0,)))


@defop("BiasAdd", inputs="X:T B:T", outputs="Y:T", types={"T": dt.NUMERIC}, infer=same_as_first)
def bias_add():
    """``X + B``, ``B`` 1-D of the size of ``X``'s last axis (``X`` of rank 2 or more)."""

    def kernel(x, b, out=None):
        if x.ndim < 2 or b.ndim != 1 or b.shape[0] != x.shape[-1]:
            raise ShapeError(f"BiasAdd: B must be 1-D of the size of X's last axis (X of rank >= 2), got X "
                             f"{describe(x)} and B {describe(b)}")
        return np.add(x, b, out=out)

    return kernel


@register_gradient("BiasAdd")
def _bias_add_grad(node, g):
    x, b = node.inputs
    need_x, need_b = node.needs_input_grad
    gb = None
    if need_b:
        if b.array.dtype == dt.bfloat16:
            # the running bfloat16 sum over the rows of g (all dims but the last): the last row of its CumSum
            rows = execute("Reshape", g, int64s((-1, b.array.shape[0])))
            running = execute("CumSum", rows, int64s(0), half_steps=1)
            gb = reshape_to(execute("Slice", running, *_LAST_ROW), b.array.shape)
        else:
            gb = unbroadcast(g, b.array.shape)
    return (g if need_x else None), gb
