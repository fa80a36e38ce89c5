"""``torch.distributions.transforms``: invertible maps with the log |det Jacobian| a change of variables needs
(the base classes live in :mod:`.transform_base`)."""

import math
import numbers

import vfw.frontends.torch as torch
from vfw.frontends.torch.distributions import constraints
from vfw.frontends.torch.distributions.distribution import broadcast_all
from vfw.frontends.torch.distributions.transform_base import (
    ComposeTransform,
    Transform,
    identity_transform,
)
from vfw.frontends.torch.distributions.transforms_structured import (
    CatTransform,
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    ReshapeTransform,
    StackTransform,
)
from vfw.frontends.torch.nn import functional as F

__all__ = [
    "AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform", "CorrCholeskyTransform",
    "CumulativeDistributionTransform", "ExpTransform", "IndependentTransform", "LowerCholeskyTransform",
    "PositiveDefiniteTransform", "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform",
    "SoftplusTransform", "StackTransform", "StickBreakingTransform", "TanhTransform", "Transform",
    "identity_transform",
]


def _clipped_sigmoid(x):
    """``sigmoid(x)`` kept in ``[tiny, 1 - eps]``, so its logarithm and that of ``1 - y`` are finite."""
    finfo = torch.finfo(x.dtype)
    return torch.clamp(torch.sigmoid(x), min=finfo.tiny, max=1.0 - finfo.eps)


class ExpTransform(Transform):
    """``y = exp(x)``."""

    codomain = constraints.positive
    bijective = True

    def __eq__(self, other):
        return isinstance(other, ExpTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.exp()

    def _inverse_call(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """``y = x ** exponent`` on positive values."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        return self if self._cache_size == cache_size else PowerTransform(self.exponent, cache_size=cache_size)

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and bool(self.exponent.eq(other.exponent).all())

    __hash__ = object.__hash__

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse_call(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return torch.broadcast_shapes(shape, self.exponent.shape)

    def inverse_shape(self, shape):
        return self.forward_shape(shape)


class SigmoidTransform(Transform):
    """``y = sigmoid(x)``, kept inside ``(0, 1)`` in floating point."""

    codomain = constraints.unit_interval
    bijective = True

    def __eq__(self, other):
        return isinstance(other, SigmoidTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse_call(self, y):
        finfo = torch.finfo(y.dtype)
        y = y.clamp(min=finfo.tiny, max=1.0 - finfo.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        # sigmoid' = sigmoid(x) * sigmoid(-x); both logs via softplus for stability
        return -F.softplus(-x) - F.softplus(x)


class SoftplusTransform(Transform):
    """``y = log(1 + exp(x))``."""

    codomain = constraints.positive
    bijective = True

    def __eq__(self, other):
        return isinstance(other, SoftplusTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return F.softplus(x)

    def _inverse_call(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x)


class TanhTransform(Transform):
    """``y = tanh(x)``."""

    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = 1

    def __eq__(self, other):
        return isinstance(other, TanhTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tanh()

    def _inverse_call(self, y):
        return torch.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        # 1 - tanh(x)^2 = 4 / (e^x + e^-x)^2, written with softplus to stay finite for large |x|
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class AbsTransform(Transform):
    """``y = |x|`` (not invertible: ``inv`` returns ``y``)."""

    codomain = constraints.positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.abs()

    def _inverse_call(self, y):
        return y


class AffineTransform(Transform):
    """``y = loc + scale * x``, over events of ``event_dim`` dims.

    Parameters
    ----------
    loc, scale : Tensor or float
        Shift and scale (broadcast against ``x``).
    event_dim : int
        How many rightmost dims form one event (the Jacobian term is summed over them).
    """

    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc, self.scale, self._event_dim = loc, scale, event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @property
    def domain(self):
        return constraints.real if self._event_dim == 0 else constraints.independent(constraints.real,
                                                                                     self._event_dim)

    codomain = domain

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self._event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        return all(bool((mine == theirs).all()) if isinstance(mine, torch.Tensor) or isinstance(theirs, torch.Tensor)
                   else mine == theirs for mine, theirs in ((self.loc, other.loc), (self.scale, other.scale)))

    __hash__ = object.__hash__

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse_call(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        if isinstance(self.scale, numbers.Real):
            result = torch.full_like(x, math.log(abs(self.scale)))
        else:
            result = torch.abs(self.scale).log()
        shape = x.shape
        if self._event_dim:
            result = result.view(result.size()[:result.dim() - self._event_dim] + (-1,)).sum(-1)
            shape = shape[:len(shape) - self._event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        return torch.broadcast_shapes(shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ()))

    def inverse_shape(self, shape):
        return self.forward_shape(shape)


class SoftmaxTransform(Transform):
    """``y = softmax(x)`` over the last dim (not bijective: ``inv`` gives ``log y``, one of many preimages)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        shifted = (x - x.max(-1, keepdim=True)[0]).exp()
        return shifted / shifted.sum(-1, keepdim=True)

    def _inverse_call(self, y):
        return y.log()


class StickBreakingTransform(Transform):
    """Maps ``R^(K-1)`` onto the ``K``-simplex by breaking a unit stick: piece ``i`` takes the fraction
    ``sigmoid(x_i - log(K - 1 - i))`` of what is left (the shift makes ``x = 0`` the uniform point)."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    __hash__ = object.__hash__

    @staticmethod
    def _log_offsets(size, like):
        """``log(K - 1 - i)`` for ``i = 0 .. K-2``, with ``K - 1 = size``."""
        return (size + 1 - torch.ones(size, dtype=like.dtype).cumsum(-1)).log()

    def _call(self, x):
        fractions = _clipped_sigmoid(x - self._log_offsets(x.shape[-1], x))
        left = (1 - fractions).cumprod(-1)
        return F.pad(fractions, [0, 1], value=1) * F.pad(left, [1, 0], value=1)

    def _inverse_call(self, y):
        pieces = y[..., :-1]
        left = torch.clamp(1 - pieces.cumsum(-1), min=torch.finfo(y.dtype).tiny)
        return pieces.log() - left.log() + self._log_offsets(pieces.shape[-1], y)

    def log_abs_det_jacobian(self, x, y):
        # dy_i/dx_i = y_i * (1 - fraction_i), and the Jacobian is triangular
        shifted = x - self._log_offsets(x.shape[-1], x)
        return (y[..., :-1].log() + F.logsigmoid(-shifted)).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape[:-1] + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape[:-1] + (shape[-1] - 1,)
