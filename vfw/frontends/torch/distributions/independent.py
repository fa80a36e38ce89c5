"""``Independent`` (batch dims reinterpreted as event dims) and ``MixtureSameFamily``."""

import vfw.frontends.torch as torch
from vfw.frontends.torch._size import Size
from vfw.frontends.torch.distributions import constraints
from vfw.frontends.torch.distributions.categorical import Categorical
from vfw.frontends.torch.distributions.distribution import EMPTY_SHAPE, Distribution
from vfw.frontends.torch.distributions.transform_base import sum_rightmost

# torch's public names of this module: ``import *`` gives no more (vfw keeps kindred classes in one file)
__all__ = ["Independent"]


class Independent(Distribution):
    """``base_distribution`` with its ``reinterpreted_batch_ndims`` rightmost batch dims made event dims, so
    that ``log_prob`` sums over them (a diagonal Normal as one multivariate distribution).

    Parameters
    ----------
    base_distribution : Distribution
        The distribution to reinterpret.
    reinterpreted_batch_ndims : int
        How many rightmost batch dims become event dims.
    validate_args : bool, optional
        Check ``log_prob``'s values.
    """

    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        if reinterpreted_batch_ndims > len(base_distribution.batch_shape):
            raise ValueError(f"Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), actual "
                             f"{reinterpreted_batch_ndims} vs {len(base_distribution.batch_shape)}")
        self.base_dist, self.reinterpreted_batch_ndims = base_distribution, reinterpreted_batch_ndims
        shape = base_distribution.batch_shape + base_distribution.event_shape
        event_dim = reinterpreted_batch_ndims + len(base_distribution.event_shape)
        cut = len(shape) - event_dim
        super().__init__(shape[:cut], shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        new = type(self).__new__(type(self)) if _instance is None else _instance
        new.base_dist = self.base_dist.expand(batch_shape + self._event_shape[:self.reinterpreted_batch_ndims])
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self):
        return False if self.reinterpreted_batch_ndims > 0 else self.base_dist.has_enumerate_support

    @property
    def support(self):
        """Constraint: the base's support, over the reinterpreted dims too."""
        if self.reinterpreted_batch_ndims:
            return constraints.independent(self.base_dist.support, self.reinterpreted_batch_ndims)
        return self.base_dist.support

    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def mode(self):
        return self.base_dist.mode

    @property
    def variance(self):
        return self.base_dist.variance

    def sample(self, sample_shape=EMPTY_SHAPE):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=EMPTY_SHAPE):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        """The base's log density summed over the reinterpreted dims."""
        return sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        """The base's entropy summed over the reinterpreted dims."""
        return sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand=True):
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_dist}, {self.reinterpreted_batch_ndims})"


class MixtureSameFamily(Distribution):
    """A mixture of components of one family: the last batch dim of ``component_distribution`` indexes the
    components, weighted by the ``Categorical`` ``mixture_distribution``.

    Parameters
    ----------
    mixture_distribution : Categorical
        The component weights, batch shape broadcastable to the components' batch (without its last dim).
    component_distribution : Distribution
        The components, batch shape ``(*batch, K)``.
    validate_args : bool, optional
        Check ``log_prob``'s values.

    Notes
    -----
    ``sample`` draws the component indices first, then one draw of every component, as torch, so the numbers
    match torch's when the component family's sampler does.
    """

    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution need to be an instance of torch.distributions.Distribution")
        self.mixture_distribution, self.component_distribution = mixture_distribution, component_distribution
        mixture_batch, component_batch = mixture_distribution.batch_shape, component_distribution.batch_shape[:-1]
        for size1, size2 in zip(reversed(mixture_batch), reversed(component_batch)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mixture_batch}) is not compatible with "
                                 f"`component_distribution.batch_shape`({component_batch})")
        mixture_count = mixture_distribution.logits.shape[-1]
        component_count = component_distribution.batch_shape[-1]
        if mixture_count != component_count:
            raise ValueError(f"`mixture_distribution component` ({mixture_count}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({component_count})")
        self._num_component = mixture_count
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(component_batch, component_distribution.event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = Size(batch_shape)
        new = type(self).__new__(type(self)) if _instance is None else _instance
        new.component_distribution = self.component_distribution.expand(batch_shape + (self._num_component,))
        new.mixture_distribution = self.mixture_distribution.expand(batch_shape)
        new._num_component, new._event_ndims = self._num_component, self._event_ndims
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def support(self):
        """Constraint: the components' support."""
        return constraints.MixtureSameFamilyConstraint(self.component_distribution.support)

    def _pad(self, value):
        """``value`` with a component dim before its event dims."""
        return value.unsqueeze(-1 - self._event_ndims)

    def _mixture_weights(self):
        """The mixture probabilities shaped to broadcast against the components' ``(*batch, K, *event)``."""
        probs = self.mixture_distribution.probs
        batch_pad = 0 if len(self.mixture_distribution.batch_shape) == 1 else \
            len(self._batch_shape) - len(self.mixture_distribution.batch_shape)
        return probs.reshape(probs.shape[:-1] + (1,) * batch_pad + probs.shape[-1:] + (1,) * self._event_ndims)

    @property
    def mean(self):
        """Tensor: the weighted mean of the components' means."""
        return (self._mixture_weights() * self.component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self):
        """Tensor: by the law of total variance, mean of variances plus variance of means."""
        weights, components = self._mixture_weights(), self.component_distribution
        within = (weights * components.variance).sum(-1 - self._event_ndims)
        between = (weights * (components.mean - self._pad(self.mean)).pow(2)).sum(-1 - self._event_ndims)
        return within + between

    def cdf(self, x):
        """The weighted sum of the components' ``cdf``."""
        return (self.component_distribution.cdf(self._pad(x)) * self.mixture_distribution.probs).sum(-1)

    def log_prob(self, x):
        """``logsumexp`` over the components of their log density plus the log weight."""
        if self._validate_args:
            self._validate_sample(x)
        log_weights = torch.log_softmax(self.mixture_distribution.logits, dim=-1)
        return torch.logsumexp(self.component_distribution.log_prob(self._pad(x)) + log_weights, dim=-1)

    def sample(self, sample_shape=EMPTY_SHAPE):
        """Component indices, then one draw of each component, gathered: shape
        ``sample_shape + batch_shape + event_shape``."""
        with torch.no_grad():
            gather_dim = len(sample_shape) + len(self._batch_shape)
            chosen = self.mixture_distribution.sample(sample_shape)
            drawn = self.component_distribution.sample(sample_shape)
            index = chosen.reshape(chosen.shape + (1,) * (self._event_ndims + 1))
            index = index.repeat((1,) * chosen.dim() + (1,) + tuple(self._event_shape))
            return torch.gather(drawn, gather_dim, index).squeeze(gather_dim)

    def __repr__(self):
        return f"MixtureSameFamily(\n  {self.mixture_distribution},\n  {self.component_distribution})"
