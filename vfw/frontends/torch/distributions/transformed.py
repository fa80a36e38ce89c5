"""``TransformedDistribution`` (a base distribution pushed through transforms) and the families torch builds
that way: ``LogNormal``, ``HalfNormal``, ``HalfCauchy``, ``Gumbel``."""

import math

import vfw.frontends.torch as torch
from vfw.frontends.torch._size import Size
from vfw.frontends.torch.distributions import constraints
from vfw.frontends.torch.distributions.distribution import EMPTY_SHAPE, Distribution, broadcast_all
from vfw.frontends.torch.distributions.independent import Independent
from vfw.frontends.torch.distributions.location_scale import Cauchy
from vfw.frontends.torch.distributions.normal import Normal, Uniform
from vfw.frontends.torch.distributions.transform_base import sum_rightmost
from vfw.frontends.torch.distributions.transforms import (
    AbsTransform,
    AffineTransform,
    ComposeTransform,
    ExpTransform,
    Transform,
)

_EULER_GAMMA = 0.57721566490153286060


class TransformedDistribution(Distribution):
    """The distribution of ``transforms[-1](... transforms[0](x))`` for ``x`` drawn from ``base_distribution``;
    ``log_prob`` by the change of variables formula.

    Parameters
    ----------
    base_distribution : Distribution
        The distribution before the transforms.
    transforms : Transform or list of Transform
        Applied in order.
    validate_args : bool, optional
        Check ``log_prob``'s values.
    """

    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        base_shape = base_distribution.batch_shape + base_distribution.event_shape
        base_event_dim = len(base_distribution.event_shape)
        chain = ComposeTransform(self.transforms)
        if len(base_shape) < chain.domain.event_dim:
            raise ValueError(f"base_distribution needs to have shape with size at least {chain.domain.event_dim}, "
                             f"but got {base_shape}.")
        forward_shape = Size(chain.forward_shape(base_shape))
        expanded_base_shape = Size(chain.inverse_shape(forward_shape))
        if base_shape != expanded_base_shape:
            base_distribution = base_distribution.expand(
                expanded_base_shape[:len(expanded_base_shape) - base_event_dim])
        if chain.domain.event_dim > base_event_dim:
            base_distribution = Independent(base_distribution, chain.domain.event_dim - base_event_dim)
        self.base_dist = base_distribution
        event_dim = chain.codomain.event_dim + max(base_event_dim - chain.domain.event_dim, 0)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        new = type(self).__new__(type(self)) if _instance is None else _instance
        new.__dict__.update(self.__dict__)
        shape = batch_shape + self._event_shape
        for transform in reversed(self.transforms):
            shape = transform.inverse_shape(shape)
        base = self.base_dist
        new.base_dist = base.expand(Size(shape)[:len(shape) - len(base.event_shape)])
        for name in set(self.arg_constraints) & set(self.__dict__):  # Gumbel keeps its parameters too
            value = self.__dict__[name]
            new.__dict__[name] = value.expand(batch_shape + value.shape[len(self._batch_shape):])
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def support(self):
        """Constraint: the last transform's codomain (over the event dims)."""
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self._event_shape) > support.event_dim:
            support = constraints.independent(support, len(self._event_shape) - support.event_dim)
        return support

    def sample(self, sample_shape=EMPTY_SHAPE):
        """A base draw pushed through the transforms (no history)."""
        with torch.no_grad():
            return self._pushed(self.base_dist.sample(sample_shape))

    def rsample(self, sample_shape=EMPTY_SHAPE):
        """A reparameterized base draw pushed through the transforms."""
        return self._pushed(self.base_dist.rsample(sample_shape))

    def _pushed(self, x):
        for transform in self.transforms:
            x = transform(x)
        return x

    def log_prob(self, value):
        """The base's log density at the pulled-back value minus each transform's log |det Jacobian|."""
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self._event_shape)
        total = 0.0
        y = value
        for transform in reversed(self.transforms):
            x = transform.inv(y)
            event_dim += transform.domain.event_dim - transform.codomain.event_dim
            total = total - sum_rightmost(transform.log_abs_det_jacobian(x, y),
                                          event_dim - transform.domain.event_dim)
            y = x
        return total + sum_rightmost(self.base_dist.log_prob(y), event_dim - len(self.base_dist.event_shape))

    def _monotone(self, value):
        sign = 1
        for transform in self.transforms:
            sign = sign * transform.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value):
        """The base's cdf at the pulled-back value (mirrored when the transforms decrease)."""
        for transform in reversed(self.transforms):
            value = transform.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotone(self.base_dist.cdf(value))

    def icdf(self, value):
        """The base's quantile pushed through the transforms."""
        return self._pushed(self.base_dist.icdf(self._monotone(value)))


class LogNormal(TransformedDistribution):
    """``exp(X)`` for ``X ~ Normal(loc, scale)``.

    Parameters
    ----------
    loc, scale : float or Tensor
        The underlying normal's mean and standard deviation.
    validate_args : bool, optional
        Check ``scale > 0`` (and ``log_prob``'s values).
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(), validate_args=validate_args)

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        scale2 = self.scale.pow(2)
        return scale2.expm1() * (2 * self.loc + scale2).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc


class _Folded(TransformedDistribution):
    """``|X|`` for ``X`` from a distribution symmetric about 0 (``base``): twice its density on ``value >= 0``."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, base, validate_args=None):
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return torch.zeros_like(self.scale)

    def log_prob(self, value):
        """Twice the base density on ``value >= 0``, ``-inf`` below."""
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return torch.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(_Folded):
    """``|X|`` for ``X ~ Normal(0, scale)``.

    Parameters
    ----------
    scale : float or Tensor
        The underlying normal's standard deviation.
    validate_args : bool, optional
        Check ``scale > 0`` (and ``log_prob``'s values).
    """

    def __init__(self, scale, validate_args=None):
        super().__init__(Normal(0, scale, validate_args=False), validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)


class HalfCauchy(_Folded):
    """``|X|`` for ``X ~ Cauchy(0, scale)`` (a common prior on scales); its mean and variance are infinite.

    Parameters
    ----------
    scale : float or Tensor
        The underlying Cauchy distribution's scale.
    validate_args : bool, optional
        Check ``scale > 0`` (and ``log_prob``'s values).
    """

    def __init__(self, scale, validate_args=None):
        super().__init__(Cauchy(0, scale, validate_args=False), validate_args=validate_args)

    @property
    def mean(self):
        return torch.full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self):
        return torch.full(self._extended_shape(), math.inf, dtype=self.scale.dtype)


class Gumbel(TransformedDistribution):
    """The Gumbel (type-I extreme value) distribution, drawn as ``loc - scale * log(-log(u))``.

    Parameters
    ----------
    loc, scale : float or Tensor
        Location and scale (positive).
    validate_args : bool, optional
        Check ``scale > 0`` (and ``log_prob``'s values).
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        finfo = torch.finfo(self.loc.dtype)
        base = Uniform(torch.full_like(self.loc, finfo.tiny), torch.full_like(self.loc, 1 - finfo.eps),
                       validate_args=validate_args)
        transforms = [ExpTransform().inv, AffineTransform(loc=0, scale=-torch.ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc=self.loc, scale=-self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (self.loc - value) / self.scale
        return (z - z.exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * _EULER_GAMMA

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + _EULER_GAMMA)
