"""``Gamma``, ``Chi2`` and ``Exponential``, and the reparameterized standard-gamma draw that ``Gamma``,
``Chi2``, ``Beta``, ``Dirichlet`` and ``StudentT`` sample with.

Gamma draws replay torch's rejection sampler on the generator's stream (:mod:`._gamma_sampler`): torch's numbers
from the same seed.  ``Exponential`` draws are torch's exactly.
"""

import math

import vfw.frontends.torch as torch
from vfw.frontends.torch._random_draws import rng_of
from vfw.frontends.torch._traced import replayed
from vfw.frontends.torch.distributions import constraints
from vfw.frontends.torch.distributions._gamma_sampler import standard_gamma_draws
from vfw.frontends.torch.distributions.distribution import EMPTY_SHAPE, Distribution, broadcast_all
from vfw.frontends.torch.distributions.exponential_family import ExponentialFamily

# torch's public names of this module: ``import *`` gives no more (vfw keeps kindred classes in one file)
__all__ = ["Gamma"]

_STEP = 1e-3  # relative step of the central differences in the concentration (see ``_gamma_sample_slope``)


def _gamma_sample_slope(concentration, sample):
    """``d sample / d concentration`` for ``sample ~ Gamma(concentration, 1)``, by implicit differentiation of
    the CDF: ``-(dP(a, x)/da) / p(x; a)``.  ``dP/da`` is a Richardson-extrapolated central difference of the
    regularized incomplete gamma function in float64 (accurate to about 1e-9 relative)."""
    with torch.no_grad():
        a, x = concentration.double(), sample.double()
        h = a * _STEP

        def difference(k):
            return (torch.igamma(a + k * h, x) - torch.igamma(a - k * h, x)) / (2 * k * h)

        d_cdf = (4 * difference(1) - difference(2)) / 3
        log_density = torch.xlogy(a - 1, x) - x - torch.lgamma(a)
        slope = -d_cdf / log_density.exp()
        return torch.nan_to_num(slope, nan=0.0, posinf=0.0, neginf=0.0).to(sample.dtype)


def standard_gamma(concentration):
    """Draws of ``Gamma(concentration, 1)`` (one per element), differentiable in ``concentration``.

    The gradient is the implicit reparameterization gradient ``dx/da`` of :func:`_gamma_sample_slope`
    (first order only, like torch's).
    """
    rng = rng_of(None, "_standard_gamma")

    def draw(alpha):
        return standard_gamma_draws(rng, alpha)

    with torch.no_grad():
        sample = replayed(draw, concentration.detach()).clamp(min=torch.finfo(concentration.dtype).tiny)
    if not (concentration.requires_grad and torch.is_grad_enabled()):
        return sample
    # value: the draw itself; gradient: slope * d(concentration)
    slope = _gamma_sample_slope(concentration.detach(), sample)
    return sample + (concentration - concentration.detach()) * slope


class Gamma(ExponentialFamily):
    """The gamma distribution with shape ``concentration`` and inverse scale ``rate``.

    Parameters
    ----------
    concentration, rate : float or Tensor
        Positive shape and rate.
    validate_args : bool, optional
        Check both are positive (and ``log_prob``'s values).

    Notes
    -----
    ``rsample`` draws torch's numbers (its rejection sampler replayed on the same stream); its gradient in
    ``concentration`` is the exact implicit one (torch's approximation agrees to about 1e-4).
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.size(), validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=EMPTY_SHAPE):
        shape = self._extended_shape(sample_shape)
        return standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)

    def log_prob(self, value):
        """``a log b + (a - 1) log x - b x - lgamma(a)``."""
        value = torch.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        a, b = self.concentration, self.rate
        return torch.xlogy(a, b) + torch.xlogy(a - 1, value) - b * value - torch.lgamma(a)

    def entropy(self):
        a = self.concentration
        return a - torch.log(self.rate) + torch.lgamma(a) + (1.0 - a) * torch.digamma(a)

    def cdf(self, value):
        """The regularized lower incomplete gamma function at ``rate * value``."""
        if self._validate_args:
            self._validate_sample(value)
        return torch.special.gammainc(self.concentration, self.rate * value)


class Chi2(Gamma):
    """The chi-squared distribution with ``df`` degrees of freedom: ``Gamma(df / 2, 1 / 2)``.

    Parameters
    ----------
    df : float or Tensor
        Positive degrees of freedom.
    validate_args : bool, optional
        Check ``df > 0`` (and ``log_prob``'s values).
    """

    arg_constraints = {"df": constraints.positive}
    _expanded_extras = ("concentration", "rate")

    def __init__(self, df, validate_args=None):
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    @property
    def df(self):
        """Tensor: the degrees of freedom."""
        return self.concentration * 2


class Exponential(ExponentialFamily):
    """The exponential distribution with ``rate`` (inverse mean); draws are torch's (``exponential_``).

    Parameters
    ----------
    rate : float or Tensor
        Positive rate.
    validate_args : bool, optional
        Check ``rate > 0`` (and ``log_prob``'s values).
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.size(), validate_args=validate_args)

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return torch.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=EMPTY_SHAPE):
        unit = torch.empty(self._extended_shape(sample_shape), dtype=self.rate.dtype).exponential_()
        return unit / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - torch.exp(-self.rate * value)

    def icdf(self, value):
        return -torch.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - torch.log(self.rate)


class StudentT(Distribution):
    """Student's t distribution with ``df`` degrees of freedom, location ``loc`` and scale ``scale``.

    Parameters
    ----------
    df : float or Tensor
        Positive degrees of freedom.
    loc, scale : float or Tensor
        Location and positive scale.
    validate_args : bool, optional
        Check the parameters (and ``log_prob``'s values).

    Notes
    -----
    Drawn as ``loc + scale * z / sqrt(chi2 / df)``: ``z`` is torch's normal draw, the chi-squared one is not
    torch's number (see :class:`Gamma`).
    """

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        new._chi2 = self._chi2.expand(batch_shape)
        return new

    @property
    def mean(self):
        return torch.where(self.df > 1, self.loc, math.nan)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        finite = self.scale.pow(2) * df / (df - 2)
        return torch.where(df > 2, finite, torch.where(df > 1, math.inf, math.nan))

    def rsample(self, sample_shape=EMPTY_SHAPE):
        normal = torch.empty(self._extended_shape(sample_shape), dtype=self.df.dtype).normal_()
        chi2 = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * normal * torch.rsqrt(chi2 / self.df)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        df = self.df
        y = (value - self.loc) / self.scale
        log_norm = (self.scale.log() + 0.5 * df.log() + 0.5 * math.log(math.pi) + torch.lgamma(0.5 * df)
                    - torch.lgamma(0.5 * (df + 1.0)))
        return -0.5 * (df + 1.0) * torch.log1p(y ** 2.0 / df) - log_norm

    def entropy(self):
        df = self.df
        log_beta = torch.lgamma(0.5 * df) + math.lgamma(0.5) - torch.lgamma(0.5 * (df + 1))
        return (self.scale.log() + 0.5 * (df + 1) * (torch.digamma(0.5 * (df + 1)) - torch.digamma(0.5 * df))
                + 0.5 * df.log() + log_beta)
