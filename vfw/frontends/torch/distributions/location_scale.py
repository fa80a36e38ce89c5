"""``Laplace`` and ``Cauchy``: location-scale families drawn from torch's own uniform / Cauchy draws."""

import math

import vfw.frontends.torch as torch
from vfw.frontends.torch.distributions import constraints
from vfw.frontends.torch.distributions.distribution import EMPTY_SHAPE, Distribution, broadcast_all


class _LocationScale(Distribution):
    """A family with a real ``loc`` and a positive ``scale`` broadcast to the batch shape."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.size(), validate_args=validate_args)

    @property
    def mode(self):
        return self.loc

    def _standardized(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (value - self.loc) / self.scale


class Laplace(_LocationScale):
    """The Laplace (double exponential) distribution.

    Parameters
    ----------
    loc, scale : float or Tensor
        Location (the mean) and positive scale.
    validate_args : bool, optional
        Check ``scale > 0`` (and ``log_prob``'s values).
    """

    @property
    def mean(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return math.sqrt(2) * self.scale

    def rsample(self, sample_shape=EMPTY_SHAPE):
        """``loc - scale * sign(u) * log(1 - |u|)`` for ``u`` uniform on ``[eps - 1, 1)`` (torch's draws)."""
        eps = torch.finfo(self.loc.dtype).eps
        u = torch.empty(self._extended_shape(sample_shape), dtype=self.loc.dtype).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * torch.log1p(-u.abs())

    def log_prob(self, value):
        return -torch.log(2 * self.scale) - self._standardized(value).abs()

    def cdf(self, value):
        z = self._standardized(value)
        return 0.5 - 0.5 * z.sign() * torch.expm1(-z.abs())

    def icdf(self, value):
        centred = value - 0.5
        return self.loc - self.scale * centred.sign() * torch.log1p(-2 * centred.abs())

    def entropy(self):
        return 1 + torch.log(2 * self.scale)


class Cauchy(_LocationScale):
    """The Cauchy (Lorentz) distribution: no mean (NaN) and infinite variance.

    Parameters
    ----------
    loc, scale : float or Tensor
        Median and positive half width at half maximum.
    validate_args : bool, optional
        Check ``scale > 0`` (and ``log_prob``'s values).
    """

    @property
    def mean(self):
        return torch.full(self._extended_shape(), math.nan, dtype=self.loc.dtype)

    @property
    def variance(self):
        return torch.full(self._extended_shape(), math.inf, dtype=self.loc.dtype)

    def rsample(self, sample_shape=EMPTY_SHAPE):
        """``loc + scale * c`` with ``c`` standard Cauchy draws (``cauchy_``, as torch)."""
        with torch.no_grad():
            eps = torch.empty(self._extended_shape(sample_shape), dtype=self.loc.dtype).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        return -math.log(math.pi) - self.scale.log() - self._standardized(value).pow(2).log1p()

    def cdf(self, value):
        return torch.atan(self._standardized(value)) / math.pi + 0.5

    def icdf(self, value):
        return torch.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
