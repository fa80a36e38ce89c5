"""``OneHotCategoricalStraightThrough``: one-hot draws with the straight-through gradient estimator."""

from vfw.frontends.torch.distributions.discrete import OneHotCategorical
from vfw.frontends.torch.distributions.distribution import EMPTY_SHAPE


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """A ``OneHotCategorical`` whose ``rsample`` is its one-hot draw in value and has the gradient of
    ``probs`` (Bengio et al., 2013).

    Parameters
    ----------
    probs, logits : Tensor, optional
        Category weights or log weights, shape ``(*batch, K)`` (exactly one).
    validate_args : bool, optional
        Check the parameter (and ``log_prob``'s values).
    """

    has_rsample = True

    def rsample(self, sample_shape=EMPTY_SHAPE):
        """``sample + (probs - probs.detach())``: torch's draw, differentiable as ``probs``."""
        draw = self.sample(sample_shape)
        probs = self._categorical.probs
        return draw + (probs - probs.detach())
