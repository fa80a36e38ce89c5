"""BatchNormalizationGrad: the training-mode gradient of BatchNormalization in one kernel (vfw's own op).

BatchNormalization's gradient maker uses it when the backward is not itself recorded (no ``create_graph``):
about nine passes over the data (statistics, two sums, dX built in place) instead of the twenty-odd the
composition of engine ops takes.  A recorded backward keeps the composition, which can be differentiated
again, so this op has no gradient of its own.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable
from vfw.core.errors import ShapeError
from vfw.core.ops._common import in_dtype
from vfw.core.ops.normalization import _check_channels, _compute_dtype, channel_moments
from vfw.core.registry import Attr, TensorInfo, defop, describe


def _infer(attrs, infos):
    dy, scale = infos[0], infos[2]
    return [TensorInfo(dy.shape, dy.dtype), TensorInfo(scale.shape, scale.dtype),
            TensorInfo(scale.shape, scale.dtype)]


@defop("BatchNormalizationGrad", inputs="dY:T X:T scale:T1", outputs="dX:T dscale:T1 dB:T1",
       types={"T": dt.FLOATS, "T1": dt.FLOATS}, attrs={"epsilon": Attr("float", 1e-5)}, infer=_infer)
def batch_normalization_grad(epsilon):
    """Gradients of training-mode BatchNormalization's Y (batch statistics) to X, scale and B.

    With ``xhat = (x - mean) * inv`` (``inv = 1 / sqrt(var + epsilon)``, biased batch variance) and ``n``
    values per channel: ``dB = sum(dY)``, ``dscale = sum(dY * xhat)`` and
    ``dX = scale * inv * (dY - dB / n - xhat * dscale / n)``, sums over every axis but 1.
    """
    op = "BatchNormalizationGrad"

    def kernel(dy, x, scale, out=None):
        c = _check_channels(op, x, (("scale", scale),))
        if dy.shape != x.shape:
            raise ShapeError(f"{op}: dY {describe(dy)} and X {describe(x)} must have the same shape")
        cdt = _compute_dtype(x, scale)
        dx, d, offset, _, var = channel_moments(in_dtype(x, cdt), c)
        g = in_dtype(dy, cdt).reshape(d.shape)
        count = d.shape[0] * d.shape[2]
        inv = var
        inv += epsilon
        np.sqrt(inv, out=inv)
        np.divide(1.0, inv, out=inv)
        sum_g = np.einsum("ncs->c", g)
        sum_gd = np.einsum("ncs,ncs->c", g, d)
        sum_gd -= offset * sum_g  # sum(dY * (x - mean)): the centered values are d - offset
        k = in_dtype(scale, cdt) * inv
        # dX = k dY + (d - offset) a - k sum(dY) / n with a = -k inv^2 sum(dY (x - mean)) / n, built in d's memory
        # without a temporary as k ((d - offset) a / k + dY - sum(dY) / n): channels with k = 0 get 0.
        a_over_k = np.divide(inv * sum_gd, -count, out=np.zeros_like(k), where=k != 0)
        a_over_k *= inv
        d *= a_over_k[:, None]
        d += g
        d -= (sum_g / count + offset * a_over_k)[:, None]
        d *= k[:, None]
        dscale = sum_gd * inv
        return (dx.astype(x.dtype, copy=False), dscale.astype(scale.dtype, copy=False),
                sum_g.astype(scale.dtype, copy=False))

    return kernel


not_differentiable("BatchNormalizationGrad")
