"""``RelaxedBernoulli`` and ``RelaxedOneHotCategorical``: the concrete / Gumbel-softmax relaxations, continuous
and reparameterizable, sharpening towards the discrete distributions as ``temperature`` goes to 0."""

import vfw.frontends.torch as torch
from vfw.frontends.torch.distributions import constraints
from vfw.frontends.torch.distributions.categorical import OverCategories
from vfw.frontends.torch.distributions.discrete import BinaryProbsOrLogits
from vfw.frontends.torch.distributions.distribution import (
    EMPTY_SHAPE,
    broadcast_all,
    clamp_probs,
    one_param,
)
from vfw.frontends.torch.distributions.transformed import TransformedDistribution
from vfw.frontends.torch.distributions.transforms import ExpTransform, SigmoidTransform


class LogitRelaxedBernoulli(BinaryProbsOrLogits):
    """The logit of a ``RelaxedBernoulli`` draw: ``(logits + logit(u)) / temperature`` for uniform ``u``.

    Parameters
    ----------
    temperature : Tensor
        Positive relaxation temperature.
    probs, logits : float or Tensor, optional
        The probability of 1 or its log-odds (exactly one).
    validate_args : bool, optional
        Check the parameter (and ``log_prob``'s values).
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True
    _expanded_extras = ("temperature",)

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        one_param(probs, logits)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            self._param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            self._param = self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    def rsample(self, sample_shape=EMPTY_SHAPE):
        """Logistic noise from torch's ``rand`` draws, added to the logits and divided by the temperature."""
        probs = clamp_probs(self.probs.expand(self._extended_shape(sample_shape)))
        u = clamp_probs(torch.rand(probs.shape, dtype=probs.dtype))
        return (u.log() - (-u).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        """The logistic density with location ``logits / temperature`` and scale ``1 / temperature``."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        shifted = logits - value.mul(self.temperature)
        return self.temperature.log() + shifted - 2 * shifted.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """A relaxed coin on ``(0, 1)``: ``sigmoid`` of a ``LogitRelaxedBernoulli`` draw.

    Parameters
    ----------
    temperature : Tensor
        Positive relaxation temperature.
    probs, logits : float or Tensor, optional
        The probability of 1 or its log-odds (exactly one).
    validate_args : bool, optional
        Check the parameter (and ``log_prob``'s values).
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs


class ExpRelaxedCategorical(OverCategories):
    """The log of a ``RelaxedOneHotCategorical`` draw: ``log_softmax((logits + gumbels) / temperature)``.

    Parameters
    ----------
    temperature : Tensor
        Positive relaxation temperature.
    probs, logits : Tensor, optional
        Category weights or log weights, shape ``(*batch, K)`` (exactly one).
    validate_args : bool, optional
        Check the parameter (and ``log_prob``'s values).
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        super().__init__(probs, logits, validate_args=validate_args)

    def rsample(self, sample_shape=EMPTY_SHAPE):
        """Gumbel noise ``-log(-log u)`` from torch's ``rand`` draws."""
        shape = self._extended_shape(sample_shape)
        u = clamp_probs(torch.rand(shape, dtype=self.logits.dtype))
        scores = (self.logits - (-u.log()).log()) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        """The concrete density of ``exp(value)``, written for the log-space draw."""
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = torch.full_like(self.temperature, float(k)).lgamma() - self.temperature.log().mul(-(k - 1))
        score = logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """A relaxed one-hot vector on the simplex: ``exp`` of an ``ExpRelaxedCategorical`` draw.

    Parameters
    ----------
    temperature : Tensor
        Positive relaxation temperature.
    probs, logits : Tensor, optional
        Category weights or log weights, shape ``(*batch, K)`` (exactly one).
    validate_args : bool, optional
        Check the parameter (and ``log_prob``'s values).
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
