"""Families on (part of) the positive half line built from exponential, gamma or uniform draws: ``Weibull``,
``Pareto``, ``GeneralizedPareto``, ``InverseGamma`` and ``FisherSnedecor``.

Their draws are torch's numbers from the same seed: ``Weibull`` and ``Pareto`` transform torch's exponential
draws, ``GeneralizedPareto`` its uniform ones, ``InverseGamma`` and ``FisherSnedecor`` its gamma draws (replayed
by :mod:`._gamma_sampler`).
"""

import math

import vfw.frontends.torch as torch
from vfw.frontends.torch.distributions import constraints
from vfw.frontends.torch.distributions.distribution import EMPTY_SHAPE, Distribution, broadcast_all
from vfw.frontends.torch.distributions.gamma import Exponential, Gamma
from vfw.frontends.torch.distributions.transformed import _EULER_GAMMA, TransformedDistribution
from vfw.frontends.torch.distributions.transforms import AffineTransform, ExpTransform, PowerTransform


class Weibull(TransformedDistribution):
    """The Weibull distribution: ``scale * E ** (1 / concentration)`` for ``E ~ Exponential(1)``.

    Parameters
    ----------
    scale, concentration : float or Tensor
        Positive scale and shape.
    validate_args : bool, optional
        Check both are positive (and ``log_prob``'s values).
    """

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        base = Exponential(torch.ones_like(self.scale), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration.reciprocal()),
                      AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    @property
    def concentration_reciprocal(self):
        """Tensor: ``1 / concentration``."""
        return self.concentration.reciprocal()

    @property
    def mean(self):
        return self.scale * torch.exp(torch.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self):
        return self.scale * ((self.concentration - 1) / self.concentration) ** self.concentration_reciprocal

    @property
    def variance(self):
        k_inv = self.concentration_reciprocal
        return self.scale.pow(2) * (torch.exp(torch.lgamma(1 + 2 * k_inv)) - torch.exp(2 * torch.lgamma(1 + k_inv)))

    def entropy(self):
        k_inv = self.concentration_reciprocal
        return _EULER_GAMMA * (1 - k_inv) + torch.log(self.scale * k_inv) + 1


class Pareto(TransformedDistribution):
    """The Pareto (type I) distribution: ``scale * exp(E)`` for ``E ~ Exponential(alpha)``.

    Parameters
    ----------
    scale, alpha : float or Tensor
        Positive scale (the smallest value) and tail index.
    validate_args : bool, optional
        Check both are positive (and ``log_prob``'s values).
    """

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        super().__init__(base, [ExpTransform(), AffineTransform(loc=0, scale=self.scale)], validate_args=validate_args)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """Constraint: ``value >= scale``."""
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)  # infinite for alpha <= 1
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)  # infinite for alpha <= 2
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    def entropy(self):
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())


class GeneralizedPareto(Distribution):
    """The generalized Pareto distribution, drawn by its quantile function at torch's uniform draws.

    Parameters
    ----------
    loc, scale, concentration : float or Tensor
        Location, positive scale and (any real) shape; ``concentration = 0`` is the shifted exponential.
    validate_args : bool, optional
        Check the parameters (and ``log_prob``'s values).
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive, "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(self.loc.size(), validate_args=validate_args)

    def _split_concentration(self):
        """Where the shape is (close to) 0, and the shape with 1 there (so that dividing by it is safe)."""
        at_zero = torch.isclose(self.concentration, torch.zeros_like(self.concentration))
        return at_zero, torch.where(at_zero, torch.ones_like(self.concentration), self.concentration)

    def rsample(self, sample_shape=EMPTY_SHAPE):
        return self.icdf(torch.rand(self._extended_shape(sample_shape), dtype=self.loc.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        at_zero, safe = self._split_concentration()
        power = 1 / safe + torch.ones_like(z)
        away_from_zero = torch.where(power == 0, power, power * torch.log1p(safe * z))
        return -self.scale.log() - torch.where(at_zero, z, away_from_zero)

    def log_survival_function(self, value):
        """Tensor: ``log P(X > value)``."""
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        at_zero, safe = self._split_concentration()
        return torch.where(at_zero, -z, -torch.log1p(safe * z) / safe)

    def log_cdf(self, value):
        """Tensor: ``log P(X <= value)``."""
        return torch.log1p(-torch.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return torch.exp(self.log_cdf(value))

    def icdf(self, value):
        at_zero, safe = self._split_concentration()
        log_tail = torch.log1p(-value)
        away_from_zero = self.loc + self.scale / safe * torch.expm1(-safe * log_tail)
        return torch.where(at_zero, self.loc - self.scale * log_tail, away_from_zero)

    @property
    def mean(self):
        finite = self.concentration < 1
        safe = torch.where(finite, self.concentration, 0.5)
        return torch.where(finite, self.loc + self.scale / (1 - safe), math.nan)

    @property
    def variance(self):
        finite = self.concentration < 0.5
        safe = torch.where(finite, self.concentration, 0.25)
        return torch.where(finite, self.scale ** 2 / ((1 - safe) ** 2 * (1 - 2 * safe)), math.nan)

    @property
    def mode(self):
        return self.loc

    def entropy(self):
        return torch.broadcast_to(torch.log(self.scale) + self.concentration + 1, self._batch_shape)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        """Constraint: ``[loc, loc - scale / concentration]`` for a negative shape, else ``[loc, inf]``."""
        upper = torch.where(self.concentration < 0, self.loc - self.scale / self.concentration, math.inf)
        return constraints.interval(self.loc, upper)


class InverseGamma(TransformedDistribution):
    """``1 / X`` for ``X ~ Gamma(concentration, rate)``.

    Parameters
    ----------
    concentration, rate : float or Tensor
        The gamma distribution's positive shape and rate (the inverse gamma's shape and scale).
    validate_args : bool, optional
        Check both are positive (and ``log_prob``'s values).
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        super().__init__(base, PowerTransform(-base.rate.new_ones(())), validate_args=validate_args)

    @property
    def concentration(self):
        """Tensor: the shape."""
        return self.base_dist.concentration

    @property
    def rate(self):
        """Tensor: the scale of the inverse gamma (the gamma's rate)."""
        return self.base_dist.rate

    @property
    def mean(self):
        return torch.where(self.concentration > 1, self.rate / (self.concentration - 1), math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        a = self.concentration
        return torch.where(a > 2, self.rate.square() / ((a - 1).square() * (a - 2)), math.inf)

    def entropy(self):
        a = self.concentration
        return a + self.rate.log() + a.lgamma() - (1 + a) * a.digamma()


class FisherSnedecor(Distribution):
    """The F distribution with ``df1`` and ``df2`` degrees of freedom, drawn as a ratio of two gamma draws.

    Parameters
    ----------
    df1, df2 : float or Tensor
        Positive degrees of freedom.
    validate_args : bool, optional
        Check both are positive (and ``log_prob``'s values).
    """

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        super().__init__(self.df1.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        new._gamma1, new._gamma2 = self._gamma1.expand(batch_shape), self._gamma2.expand(batch_shape)
        return new

    @property
    def mean(self):
        return torch.where(self.df2 > 2, self.df2 / (self.df2 - 2), math.nan)

    @property
    def mode(self):
        return torch.where(self.df1 > 2, (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2), math.nan)

    @property
    def variance(self):
        df1, df2 = self.df1, self.df2
        finite = 2 * df2.pow(2) * (df1 + df2 - 2) / (df1 * (df2 - 2).pow(2) * (df2 - 4))
        return torch.where(df2 > 4, finite, math.nan)

    def rsample(self, sample_shape=EMPTY_SHAPE):
        """``X1 / X2`` for ``Xi ~ Gamma(dfi / 2, dfi)`` (drawn in that order), kept above the smallest normal."""
        shape = self._extended_shape(sample_shape)
        numerator = self._gamma1.rsample(sample_shape).view(shape)
        denominator = self._gamma2.rsample(sample_shape).view(shape)
        tiny = torch.finfo(denominator.dtype).tiny
        return (numerator / denominator.clamp(min=tiny)).clamp(min=tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        half1, half2 = self.df1 * 0.5, self.df2 * 0.5
        ratio = self.df1 / self.df2
        log_norm = (half1 + half2).lgamma() - half1.lgamma() - half2.lgamma()
        return log_norm + half1 * ratio.log() + (half1 - 1) * torch.log(value) - (half1 + half2) * torch.log1p(
            ratio * value)
