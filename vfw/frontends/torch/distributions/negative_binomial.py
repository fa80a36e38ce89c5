"""``NegativeBinomial``: the number of successes before ``total_count`` failures, each trial succeeding with
probability ``probs`` (over-dispersed counts: the gamma-Poisson mixture).

Draws are Poisson draws of gamma-distributed rates, both torch's samplers replayed, so the counts are torch's
numbers.
"""

import vfw.frontends.torch as torch
from vfw.frontends.torch.distributions import constraints
from vfw.frontends.torch.distributions.discrete import BinaryProbsOrLogits
from vfw.frontends.torch.distributions.distribution import EMPTY_SHAPE, broadcast_all, lazy_property, one_param
from vfw.frontends.torch.distributions.gamma import Gamma
from vfw.frontends.torch.nn import functional as F

# torch's public names of this module: ``import *`` gives no more (vfw keeps kindred classes in one file)
__all__ = ["NegativeBinomial"]


class NegativeBinomial(BinaryProbsOrLogits):
    """Counts of successes before ``total_count`` failures in trials of success probability ``probs``.

    Parameters
    ----------
    total_count : float or Tensor
        Non-negative number of failures (need not be an integer).
    probs, logits : float or Tensor, optional
        The success probability in ``[0, 1)`` or its log-odds (exactly one).
    validate_args : bool, optional
        Check the parameters (and ``log_prob``'s values).

    Notes
    -----
    The mean is ``total_count * p / (1 - p)`` (``total_count * exp(logits)``), the variance
    ``mean / (1 - p)``.
    """

    arg_constraints = {"total_count": constraints.greater_than_eq(0), "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer
    _expanded_extras = ("total_count",)

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        one_param(probs, logits)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self._param = self.probs
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self._param = self.logits
        self.total_count = self.total_count.type_as(self._param)
        super().__init__(self._param.size(), validate_args=validate_args)

    @property
    def mean(self):
        return self.total_count * torch.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / torch.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        # The Poisson rate of the mixture: Gamma(total_count, (1 - p) / p).
        return Gamma(self.total_count, torch.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape=EMPTY_SHAPE):
        with torch.no_grad():
            return torch.poisson(self._gamma.sample(sample_shape))

    def log_prob(self, value):
        """``log C(k + r - 1, k) + r log(1 - p) + k log p`` with the log-probabilities from ``logits``."""
        if self._validate_args:
            self._validate_sample(value)
        r = self.total_count
        unnormalized = r * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        log_norm = torch.lgamma(r + value) - torch.lgamma(1.0 + value) - torch.lgamma(r)
        # r = k = 0 is the certain count 0: lgamma's poles cancel to log 1.
        log_norm = log_norm.masked_fill(r + value == 0, 0.0)
        return unnormalized + log_norm
