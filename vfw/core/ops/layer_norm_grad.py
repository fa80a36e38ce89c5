"""LayerNormalizationGrad: the gradient of LayerNormalization's Y in one kernel (vfw's own op).

The gradient makers of LayerNormalization, GroupNormalization and InstanceNormalization use it when the backward
is not itself recorded (no ``create_graph``) and nothing flows back through the statistics outputs: the group
norms are layer norms of X viewed as (N, groups, C / groups, spatial) over its last two axes, with the scale
viewed as (1, groups, C / groups, 1).  A recorded backward keeps the composition of engine ops, which can be
differentiated again, so this op has no gradient of its own.
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable
from vfw.core.errors import ShapeError
from vfw.core.ops._common import in_dtype, normalize_axis
from vfw.core.ops.normalization import _check_unidirectional, _compute_dtype, _standardize
from vfw.core.registry import Attr, TensorInfo, defop, describe

_OP = "LayerNormalizationGrad"


def _infer(attrs, infos):
    dy, scale = infos[0], infos[2]
    return [TensorInfo(dy.shape, dy.dtype), TensorInfo(scale.shape, scale.dtype)]


def _sum_to(a, shape):
    """``a`` summed over the dims that broadcasting ``shape`` to ``a.shape`` added or stretched."""
    lead = a.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and a.shape[lead + i] != 1)
    return np.add.reduce(a, axis=axes).reshape(shape) if axes else a


@defop(_OP, inputs="dY:T X:T Scale:T", outputs="dX:T dScale:T", types={"T": dt.FLOATS},
       attrs={"axis": Attr("int", -1), "epsilon": Attr("float", 1e-5)}, infer=_infer)
def layer_normalization_grad(axis, epsilon):
    """Gradients of LayerNormalization's Y (``xhat * Scale + B``, normalized over axes [axis, rank)) to X and Scale.

    With ``gs = dY * Scale`` and means over each normalized slice:
    ``dX = inv * (gs - mean(gs) - xhat * mean(gs * xhat))`` and ``dScale = dY * xhat`` summed to Scale's shape.
    """

    def kernel(dy, x, scale, out=None):
        if dy.shape != x.shape:
            raise ShapeError(f"{_OP}: dY {describe(dy)} and X {describe(x)} must have the same shape")
        _check_unidirectional(_OP, "Scale", scale, x)
        ax = normalize_axis(_OP, axis, x.ndim)
        rows, n = math.prod(x.shape[:ax]), math.prod(x.shape[ax:])
        cdt = _compute_dtype(x)
        xhat, _, inv = _standardize(in_dtype(x, cdt).reshape(rows, n), epsilon)
        g = in_dtype(dy, cdt)
        s = in_dtype(scale, cdt)
        if s.shape[s.ndim - (x.ndim - ax):] == x.shape[ax:] and s.size == n:  # one scale per normalized position
            dscale = np.einsum("rn,rn->n", g.reshape(rows, n), xhat).reshape(scale.shape)
        else:
            dscale = _sum_to(g * xhat.reshape(x.shape), scale.shape)
        # becomes dX in place: C order, so that the reshape below is a view of it (dY may be a transpose)
        dx = np.multiply(g, s, order="C")
        gs = dx.reshape(rows, n)
        mean_gs = np.add.reduce(gs, axis=1, keepdims=True)
        mean_gs /= n
        proj = np.einsum("rn,rn->r", gs, xhat)[:, None]
        proj /= n
        # inv * (gs - mean(gs) - xhat * proj), in gs's memory
        xhat *= proj
        gs -= xhat
        gs -= mean_gs
        gs *= inv
        return dx.astype(x.dtype, copy=False), dscale.astype(scale.dtype, copy=False)

    return kernel


not_differentiable(_OP)
