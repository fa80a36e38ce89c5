"""``Categorical`` and ``Bernoulli``: discrete distributions given by probabilities or logits."""

import vfw.frontends.torch as torch
from vfw.frontends.torch.distributions.constraints import (
    boolean,
    integer_interval,
    real,
    real_vector,
    simplex,
    unit_interval,
)
from vfw.frontends.torch.distributions.distribution import (
    EMPTY_SHAPE,
    Distribution,
    broadcast_all,
    clamp_probs,
    lazy_property,
    one_param,
)
from vfw.frontends.torch.distributions.exponential_family import ExponentialFamily
from vfw.frontends.torch.nn import functional as F

# torch's public names of this module: ``import *`` gives no more (vfw keeps kindred classes in one file)
__all__ = ["Categorical"]


class Categorical(Distribution):
    """A distribution over ``0 .. K-1`` given by ``probs`` (normalized here) or ``logits`` (unnormalized log
    probabilities), over the last dim; the others are the batch.

    Parameters
    ----------
    probs : Tensor, optional
        Non-negative weights, shape ``(*batch, K)``.
    logits : Tensor, optional
        Log weights, shape ``(*batch, K)``.  Exactly one of ``probs`` / ``logits``.
    validate_args : bool, optional
        Check the parameter (and ``log_prob``'s values).
    """

    arg_constraints = {"probs": simplex, "logits": real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        one_param(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.ndimension() > 1 else torch.Size()
        super().__init__(batch_shape, validate_args=validate_args)

    @lazy_property
    def probs(self):
        """Tensor: the normalized probabilities."""
        return F.softmax(self.logits, dim=-1)

    @lazy_property
    def logits(self):
        """Tensor: the normalized log probabilities."""
        return torch.log(clamp_probs(self.probs))

    @property
    def support(self):
        """Constraint: the integers ``0 .. K-1``."""
        return integer_interval(0, self._num_events - 1)

    @property
    def param_shape(self):
        """torch.Size: the parameter's shape."""
        return self._param.size()

    @property
    def mean(self):
        """Tensor: undefined (NaN), as in torch."""
        return torch.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    @property
    def mode(self):
        """Tensor: the most likely category."""
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        """Tensor: undefined (NaN), as in torch."""
        return torch.full(self._extended_shape(), float("nan"), dtype=self.probs.dtype)

    def sample(self, sample_shape=EMPTY_SHAPE):
        """Categories drawn with ``torch.multinomial`` (with replacement), shape ``sample_shape + batch_shape``."""
        sample_shape = torch.Size(sample_shape)
        rows = self.probs.reshape(-1, self._num_events)
        with torch.no_grad():
            drawn = torch.multinomial(rows, sample_shape.numel(), True).T
        return drawn.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        """The normalized log probability of category ``value``."""
        if self._validate_args:
            self._validate_sample(value)
        index = value.long().unsqueeze(-1)
        index, log_pmf = torch.broadcast_tensors(index, self.logits)
        return log_pmf.gather(-1, index[..., :1]).squeeze(-1)

    def entropy(self):
        """``-sum(p * log p)`` over the categories (a zero probability adds nothing)."""
        logits = self.logits.clamp(min=torch.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        """Tensor: ``0 .. K-1`` along dim 0, expanded over the batch when ``expand``."""
        values = torch.arange(self._num_events, dtype=torch.long).view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values


class Bernoulli(ExponentialFamily):
    """A coin: 1 with probability ``probs`` (or ``sigmoid(logits)``), else 0.

    Parameters
    ----------
    probs : float or Tensor, optional
        The probability of 1.
    logits : float or Tensor, optional
        Its log-odds.  Exactly one of ``probs`` / ``logits``.
    validate_args : bool, optional
        Check the parameter (and ``log_prob``'s values).
    """

    arg_constraints = {"probs": unit_interval, "logits": real}
    support = boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        one_param(probs, logits)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            self._param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    @lazy_property
    def probs(self):
        """Tensor: the probability of 1."""
        return torch.sigmoid(self.logits)

    @lazy_property
    def logits(self):
        """Tensor: the log-odds."""
        clamped = clamp_probs(self.probs)
        return torch.log(clamped) - torch.log1p(-clamped)

    @property
    def param_shape(self):
        """torch.Size: the parameter's shape."""
        return self._param.size()

    @property
    def mean(self):
        """Tensor: ``probs``."""
        return self.probs

    @property
    def mode(self):
        """Tensor: 1 where ``probs > 0.5``, NaN where it is 0.5, else 0."""
        mode = (self.probs >= 0.5).to(self.probs)
        return mode.masked_fill(self.probs == 0.5, float("nan"))

    @property
    def variance(self):
        """Tensor: ``p (1 - p)``."""
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=EMPTY_SHAPE):
        """Draws from ``torch.bernoulli(probs)`` expanded to ``sample_shape + batch_shape`` (no history)."""
        with torch.no_grad():
            return torch.bernoulli(self.probs.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        """``value * log p + (1 - value) * log(1 - p)``, computed from the logits."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = torch.broadcast_tensors(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        """``-(p log p + (1 - p) log(1 - p))``."""
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        """Tensor: ``[0., 1.]`` along dim 0, expanded over the batch when ``expand``."""
        values = torch.arange(2, dtype=self._param.dtype).view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values


class OverCategories(Distribution):
    """A distribution over ``K`` categories whose parameters are a :class:`Categorical`'s (``probs`` or ``logits``,
    shape ``(*batch, K)``), held in ``self._categorical``: its batch shape, one event dim of ``K``."""

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape, _instance)
        new._categorical = self._categorical.expand(batch_shape)
        return new

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def param_shape(self):
        return self._categorical.param_shape
