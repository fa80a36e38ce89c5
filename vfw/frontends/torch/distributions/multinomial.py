"""``Multinomial``: counts of ``total_count`` independent draws over ``K`` categories.

Draws are torch's: ``total_count`` categorical draws per sample (torch's ``multinomial`` stream, the draw index
outermost), counted per category.
"""

import math

import vfw.frontends.torch as torch
from vfw.frontends.torch.distributions import constraints
from vfw.frontends.torch.distributions.categorical import OverCategories
from vfw.frontends.torch.distributions.discrete import Binomial
from vfw.frontends.torch.distributions.distribution import EMPTY_SHAPE

__all__ = ["Multinomial"]


class Multinomial(OverCategories):
    """The distribution of the category counts of ``total_count`` independent categorical draws.

    Parameters
    ----------
    total_count : int
        Number of draws (one for the whole batch).
    probs, logits : Tensor, optional
        Category weights or log weights, shape ``(*batch, K)`` (exactly one).
    validate_args : bool, optional
        Check the parameter (and ``log_prob``'s values).

    Notes
    -----
    Without validation ``log_prob`` scores any count vector, its number of draws being the counts' sum (as torch).
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        super().__init__(probs, logits, validate_args=validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=EMPTY_SHAPE):
        """Category counts, shape ``sample_shape + batch_shape + (K,)``, in the probabilities' dtype."""
        sample_shape = torch.Size(sample_shape)
        with torch.no_grad():
            # draw index first, as torch draws them: the same stream gives the same counts
            drawn = self._categorical.sample(torch.Size((self.total_count,)) + sample_shape)
            drawn = drawn.movedim(0, -1)
            counts = torch.zeros(self._extended_shape(sample_shape), dtype=drawn.dtype)
            counts.scatter_add_(-1, drawn, torch.ones_like(drawn))
        return counts.to(self.probs.dtype)

    def log_prob(self, value):
        """``log(n!) - sum log(x_i!) + sum x_i log p_i`` with ``n = sum x_i`` (``0 * log 0`` taken as 0)."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = torch.broadcast_tensors(self.logits, value)
        # a category of probability 0 drawn 0 times contributes nothing (not 0 * -inf)
        logits = torch.where((value == 0) & (logits == -float("inf")), 0.0, logits)
        return torch.lgamma(value.sum(-1) + 1) - torch.lgamma(value + 1).sum(-1) + (logits * value).sum(-1)

    def entropy(self):
        """``n H(p) - log(n!) + sum_i E[log(x_i!)]``, each count ``x_i`` being Binomial(n, p_i)."""
        n = self.total_count
        per_category = Binomial(n, self.probs)
        counts = per_category.enumerate_support(expand=False)
        weights = per_category.log_prob(counts).exp()
        expected_log_factorials = (weights * torch.lgamma(counts + 1)).sum(0).sum(-1)
        return n * self._categorical.entropy() - math.lgamma(n + 1) + expected_log_factorials
