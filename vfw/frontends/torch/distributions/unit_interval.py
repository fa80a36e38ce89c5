"""Families on the unit interval or the simplex: ``Kumaraswamy``, ``ContinuousBernoulli`` and
``LogisticNormal``; all three draw torch's numbers (transforms of its uniform / normal draws)."""

import math

import vfw.frontends.torch as torch
from vfw.frontends.torch.distributions import constraints
from vfw.frontends.torch.distributions.distribution import (
    EMPTY_SHAPE,
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    one_param,
    probs_to_logits,
)
from vfw.frontends.torch.distributions.exponential_family import ExponentialFamily
from vfw.frontends.torch.distributions.normal import Normal, Uniform
from vfw.frontends.torch.distributions.transformed import _EULER_GAMMA, TransformedDistribution
from vfw.frontends.torch.distributions.transforms import AffineTransform, PowerTransform, StickBreakingTransform
from vfw.frontends.torch.nn import functional as F


def _kumaraswamy_moment(a, b, n):
    """``E[X^n] = b B(1 + n / a, b)``."""
    shifted = 1 + n / a
    return b * torch.exp(torch.lgamma(shifted) + torch.lgamma(b) - torch.lgamma(shifted + b))


class Kumaraswamy(TransformedDistribution):
    """The Kumaraswamy distribution: ``(1 - U ** (1 / concentration0)) ** (1 / concentration1)``, ``U`` uniform.

    Parameters
    ----------
    concentration1, concentration0 : float or Tensor
        The positive shapes ``a`` and ``b`` of the density ``a b x^(a-1) (1 - x^a)^(b-1)``.
    validate_args : bool, optional
        Check both are positive (and ``log_prob``'s values).
    """

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(torch.full_like(self.concentration0, 0), torch.full_like(self.concentration0, 1),
                       validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()), AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base, transforms, validate_args=validate_args)

    @property
    def mean(self):
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        return torch.where((b < 1) | (a < 1), math.nan, log_mode).exp()  # no interior mode then

    @property
    def variance(self):
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 2) - torch.pow(self.mean, 2)

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        harmonic = torch.digamma(b + 1) + _EULER_GAMMA
        return (1 - b.reciprocal()) + (1 - a.reciprocal()) * harmonic - torch.log(a) - torch.log(b)


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli distribution on ``[0, 1]``: density proportional to ``p^x (1 - p)^(1 - x)``.

    Near ``p = 1/2`` (inside ``lims``) the normalizer and moments use their Taylor expansions, as torch's do.

    Parameters
    ----------
    probs, logits : float or Tensor, optional
        The parameter ``p`` in ``[0, 1]`` (clamped away from 0 and 1) or its log-odds (exactly one).
    lims : tuple of float
        The interval around 1/2 where the Taylor expansions are used.
    validate_args : bool, optional
        Check the parameter (and ``log_prob``'s values).
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        one_param(probs, logits)
        if probs is not None:
            (probs,) = broadcast_all(probs)
            if validate_args is not None and not self.arg_constraints["probs"].check(probs).all():
                raise ValueError("The parameter probs has invalid values")  # checked before the clamp, as torch
            self.probs = clamp_probs(probs)
            self._param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        self._lims = lims
        super().__init__(self._param.size(), validate_args=validate_args)

    @lazy_property
    def logits(self):
        """Tensor: the log-odds of ``probs``."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        """Tensor: the parameter ``p``, kept inside ``(0, 1)``."""
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self):
        """torch.Size: the parameter's shape."""
        return self._param.size()

    def _stable(self):
        """Where ``probs`` is outside ``lims`` (the closed forms are accurate there)."""
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        """``probs`` outside ``lims``, ``lims[0]`` inside (so that the unused closed forms stay finite)."""
        return torch.where(self._stable(), self.probs, self._lims[0] * torch.ones_like(self.probs))

    def _log_normalizer_of_probs(self):
        """``log C(p)`` with ``C(p) = 2 atanh(1 - 2p) / (1 - 2p)``."""
        cut = self._cut_probs()
        below = torch.where(cut <= 0.5, cut, torch.zeros_like(cut))
        above = torch.where(cut >= 0.5, cut, torch.ones_like(cut))
        closed = torch.log(torch.abs(torch.log1p(-cut) - torch.log(cut))) - torch.where(
            cut <= 0.5, torch.log1p(-2.0 * below), torch.log(2.0 * above - 1.0))
        x = torch.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return torch.where(self._stable(), closed, taylor)

    @property
    def mean(self):
        cut = self._cut_probs()
        closed = cut / (2.0 * cut - 1.0) + 1.0 / (torch.log1p(-cut) - torch.log(cut))
        x = self.probs - 0.5
        return torch.where(self._stable(), closed, 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * torch.pow(x, 2)) * x)

    @property
    def stddev(self):
        return torch.sqrt(self.variance)

    @property
    def variance(self):
        cut = self._cut_probs()
        closed = (cut * (cut - 1.0) / torch.pow(1.0 - 2.0 * cut, 2)
                  + 1.0 / torch.pow(torch.log1p(-cut) - torch.log(cut), 2))
        x = torch.pow(self.probs - 0.5, 2)
        return torch.where(self._stable(), closed, 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x)

    def sample(self, sample_shape=EMPTY_SHAPE):
        u = torch.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        with torch.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=EMPTY_SHAPE):
        """The quantile function at torch's uniform draws."""
        return self.icdf(torch.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        bce = F.binary_cross_entropy_with_logits(logits, value, reduction="none")
        return -bce + self._log_normalizer_of_probs()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        closed = (torch.pow(cut, value) * torch.pow(1.0 - cut, 1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        inside = torch.where(self._stable(), closed, value)
        return torch.where(value <= 0.0, torch.zeros_like(value),
                           torch.where(value >= 1.0, torch.ones_like(value), inside))

    def icdf(self, value):
        cut = self._cut_probs()
        closed = ((torch.log1p(-cut + value * (2.0 * cut - 1.0)) - torch.log1p(-cut))
                  / (torch.log(cut) - torch.log1p(-cut)))
        return torch.where(self._stable(), closed, value)

    def entropy(self):
        log_q, log_p = torch.log1p(-self.probs), torch.log(self.probs)
        return self.mean * (log_q - log_p) - self._log_normalizer_of_probs() - log_q

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """``log((e^x - 1) / x)`` of the natural parameter (Taylor expansion near 0)."""
        stable = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = torch.where(stable, x, (self._lims[0] - 0.5) * torch.ones_like(x))
        closed = torch.log(torch.abs(torch.special.expm1(cut))) - torch.log(torch.abs(cut))
        return torch.where(stable, closed, 0.5 * x + torch.pow(x, 2) / 24.0 - torch.pow(x, 4) / 2880.0)


class LogisticNormal(TransformedDistribution):
    """The logistic normal distribution on the simplex: a ``Normal`` vector pushed through stick breaking.

    Parameters
    ----------
    loc, scale : float or Tensor
        The underlying normal's mean and positive standard deviation (last dim: ``K - 1`` for a ``K``-simplex).
    validate_args : bool, optional
        Check ``scale > 0`` (and ``log_prob``'s values).
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    @property
    def loc(self):
        """Tensor: the underlying normal's mean."""
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        """Tensor: the underlying normal's standard deviation."""
        return self.base_dist.base_dist.scale
