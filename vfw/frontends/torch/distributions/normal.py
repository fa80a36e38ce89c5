"""``Normal`` and ``Uniform``: the location-scale and interval families."""

import math

import vfw.frontends.torch as torch
from vfw.frontends.torch._tensor import Tensor  # noqa: F401  (torch.distributions.normal has it)
from vfw.frontends.torch.distributions.constraints import greater_than, interval, less_than, positive, real
from vfw.frontends.torch.distributions.distribution import EMPTY_SHAPE, Distribution, broadcast_all
from vfw.frontends.torch.distributions.exponential_family import ExponentialFamily

__all__ = ["Normal"]  # torch.distributions.normal's (Uniform is torch.distributions.uniform's)


class Normal(ExponentialFamily):
    """The normal distribution ``N(loc, scale**2)``, batched over the broadcast shape of its parameters.

    Parameters
    ----------
    loc : float or Tensor
        Mean.
    scale : float or Tensor
        Standard deviation (positive).
    validate_args : bool, optional
        Check ``scale > 0`` (and ``log_prob``'s values).
    """

    arg_constraints = {"loc": real, "scale": positive}
    support = real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.size(), validate_args=validate_args)

    @property
    def mean(self):
        """Tensor: ``loc``."""
        return self.loc

    @property
    def mode(self):
        """Tensor: ``loc``."""
        return self.loc

    @property
    def stddev(self):
        """Tensor: ``scale``."""
        return self.scale

    @property
    def variance(self):
        """Tensor: ``scale ** 2``."""
        return self.stddev.pow(2)

    def sample(self, sample_shape=EMPTY_SHAPE):
        """Draws from ``torch.normal(loc, scale)`` expanded to ``sample_shape + batch_shape`` (no history)."""
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=EMPTY_SHAPE):
        """``loc + eps * scale`` with ``eps`` standard normal: differentiable in ``loc`` and ``scale``."""
        eps = torch.empty(self._extended_shape(sample_shape), dtype=self.loc.dtype).normal_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        """Log density at ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        return -((value - self.loc) ** 2) / (2 * self.scale ** 2) - self.scale.log() - math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        """``P(X <= value)``."""
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + torch.erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value):
        """The quantile function."""
        return self.loc + self.scale * torch.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        """Differential entropy ``0.5 + 0.5 * log(2 pi) + log(scale)``."""
        return 0.5 + 0.5 * math.log(2 * math.pi) + torch.log(self.scale)


class Uniform(Distribution):
    """The uniform distribution on ``[low, high)``.

    Parameters
    ----------
    low, high : float or Tensor
        The interval's ends (``low < high``).
    validate_args : bool, optional
        Check ``low < high`` (and ``log_prob``'s values).
    """

    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = broadcast_all(low, high)
        super().__init__(self.low.size(), validate_args=validate_args)

    @property
    def arg_constraints(self):
        """dict: ``low < high``, checked on each side."""
        return {"low": less_than(self.high), "high": greater_than(self.low)}

    @property
    def support(self):
        """Constraint: ``low <= value <= high``."""
        return interval(self.low, self.high)

    @property
    def mean(self):
        """Tensor: the midpoint."""
        return (self.high + self.low) / 2

    @property
    def variance(self):
        """Tensor: ``(high - low) ** 2 / 12``."""
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape=EMPTY_SHAPE):
        """``low + u * (high - low)`` with ``u`` from ``torch.rand``."""
        u = torch.rand(self._extended_shape(sample_shape), dtype=self.low.dtype)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        """``-log(high - low)`` inside the interval, ``-inf`` outside."""
        if self._validate_args:
            self._validate_sample(value)
        inside = self.low.le(value).type_as(self.low).mul(self.high.gt(value).type_as(self.low))
        return torch.log(inside) - torch.log(self.high - self.low)

    def cdf(self, value):
        """``P(X <= value)``, clamped to [0, 1]."""
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value):
        """The quantile ``low + value * (high - low)`` of a probability ``value``."""
        return value * (self.high - self.low) + self.low

    def entropy(self):
        """``log(high - low)``."""
        return torch.log(self.high - self.low)
