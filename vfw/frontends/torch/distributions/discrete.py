"""Counting distributions: ``Poisson``, ``Binomial``, ``Geometric``, and ``OneHotCategorical``.

All four draw torch's numbers (``Poisson`` and ``Binomial`` through ``torch.poisson`` / ``torch.binomial``).
"""

import vfw.frontends.torch as torch
from vfw.frontends.torch.distributions import constraints
from vfw.frontends.torch.distributions.categorical import OverCategories
from vfw.frontends.torch.distributions.distribution import (
    EMPTY_SHAPE,
    Distribution,
    broadcast_all,
    lazy_property,
    logits_to_probs,
    one_param,
    probs_to_logits,
)
from vfw.frontends.torch.distributions.exponential_family import ExponentialFamily
from vfw.frontends.torch.nn import functional as F


class Poisson(ExponentialFamily):
    """The Poisson distribution with mean ``rate``.

    Parameters
    ----------
    rate : float or Tensor
        Non-negative rate.
    validate_args : bool, optional
        Check ``rate >= 0`` (and ``log_prob``'s values).
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.size(), validate_args=validate_args)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=EMPTY_SHAPE):
        with torch.no_grad():
            return torch.poisson(self.rate.expand(self._extended_shape(sample_shape)))

    def log_prob(self, value):
        """``k log(rate) - rate - log(k!)``."""
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return torch.xlogy(value, rate) - rate - torch.lgamma(value + 1)


class BinaryProbsOrLogits(Distribution):
    """A distribution given by ``probs`` in ``[0, 1]`` or their log-odds ``logits`` (the other derived)."""

    @lazy_property
    def probs(self):
        """Tensor: the success probability."""
        return logits_to_probs(self.logits, is_binary=True)

    @lazy_property
    def logits(self):
        """Tensor: the log-odds of success."""
        return probs_to_logits(self.probs, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()


class Binomial(BinaryProbsOrLogits):
    """The number of successes in ``total_count`` independent trials of probability ``probs``.

    Parameters
    ----------
    total_count : int or Tensor
        Non-negative number of trials.
    probs, logits : float or Tensor, optional
        The success probability or its log-odds (exactly one).
    validate_args : bool, optional
        Check the parameters (and ``log_prob``'s values).
    """

    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True
    _expanded_extras = ("total_count",)

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        one_param(probs, logits)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self._param = self.probs
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self._param = self.logits
        self.total_count = self.total_count.type_as(self._param)
        super().__init__(self._param.size(), validate_args=validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        """Constraint: the integers ``0 .. total_count``."""
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=EMPTY_SHAPE):
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        """``k logits - n log(1 + e^logits) + log C(n, k)``, with ``log(1 + e^l)`` kept stable."""
        if self._validate_args:
            self._validate_sample(value)
        n, logits = self.total_count, self.logits
        log_choose = torch.lgamma(n + 1) - torch.lgamma(value + 1) - torch.lgamma(n - value + 1)
        log_norm = n * (logits.clamp(min=0) + torch.log1p(torch.exp(-torch.abs(logits))))
        return value * logits - log_norm + log_choose

    def _homogeneous_count(self, what):
        count = int(self.total_count.max())
        if not self.total_count.min() == count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return count

    def entropy(self):
        """``-sum p log p`` over ``0 .. total_count`` (one total count for the whole batch)."""
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(torch.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        count = self._homogeneous_count("enumerate_support")
        values = torch.arange(1 + count, dtype=self._param.dtype).view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values


class Geometric(BinaryProbsOrLogits):
    """The number of failures before the first success in trials of probability ``probs``.

    Parameters
    ----------
    probs, logits : float or Tensor, optional
        The success probability (in ``(0, 1]``) or its log-odds (exactly one).
    validate_args : bool, optional
        Check the parameter (and ``log_prob``'s values).
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        one_param(probs, logits)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            self._param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        super().__init__(self._param.size(), validate_args=validate_args)
        if self._validate_args and probs is not None:
            valid = self.probs > 0
            if not valid.all():
                raise ValueError(f"Expected parameter probs ({type(self.probs).__name__} of shape "
                                 f"{tuple(self.probs.shape)}) of distribution {self!r} to be positive but found "
                                 f"invalid values:\n{self.probs.detach()[~valid]}")

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return torch.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=EMPTY_SHAPE):
        """``floor(log u / log(1 - p))`` for ``u`` uniform on ``[tiny, 1)`` (torch's draws)."""
        tiny = torch.finfo(self.probs.dtype).tiny
        with torch.no_grad():
            u = torch.empty(self._extended_shape(sample_shape), dtype=self.probs.dtype).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        """``k log(1 - p) + log p`` (0 for ``k = 0`` when ``p = 1``)."""
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        certain = (probs == 1) & (value == 0)
        return value * (-torch.where(certain, 0.0, probs)).log1p() + self.probs.log()

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs


class OneHotCategorical(OverCategories):
    """A ``Categorical`` whose draws are one-hot vectors of length ``K``.

    Parameters
    ----------
    probs, logits : Tensor, optional
        Category weights or log weights, shape ``(*batch, K)`` (exactly one).
    validate_args : bool, optional
        Check the parameter (and ``log_prob``'s values).
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        probs = self._categorical.probs
        return F.one_hot(probs.argmax(-1), probs.shape[-1]).to(probs)

    @property
    def variance(self):
        return self._categorical.probs * (1 - self._categorical.probs)

    def sample(self, sample_shape=EMPTY_SHAPE):
        """The ``Categorical`` draw, one-hot encoded (torch's draws)."""
        probs = self._categorical.probs
        return F.one_hot(self._categorical.sample(sample_shape), probs.shape[-1]).to(probs)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        n = self._event_shape[0]
        values = torch.eye(n, dtype=self._categorical.probs.dtype).view((n,) + (1,) * len(self._batch_shape) + (n,))
        return values.expand((n,) + tuple(self._batch_shape) + (n,)) if expand else values
