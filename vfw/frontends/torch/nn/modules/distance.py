"""PairwiseDistance, CosineSimilarity."""

from vfw.frontends.torch.nn.functional import _distance as F
from vfw.frontends.torch.nn.modules.module import Module

__all__ = ["PairwiseDistance", "CosineSimilarity"]


class PairwiseDistance(Module):
    """``||x1 - x2 + eps||_p`` over the last dim.

    Parameters
    ----------
    p : float
        The norm's exponent (kept as the attribute ``norm``).
    eps : float
        Added to the difference (avoids a zero norm).
    keepdim : bool
        Keep the reduced dim (size 1).

    Shape: inputs ``(N, D)`` or ``(D,)`` (broadcast), output ``(N,)`` or ``()`` (``(N, 1)`` / ``(1,)`` with
    ``keepdim``).
    """

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """``x1 . x2 / (max(||x1||, eps) * max(||x2||, eps))`` along ``dim``.

    Parameters
    ----------
    dim : int
        The dim the similarity is computed along.
    eps : float
        Lower bound of each norm.

    Shape: inputs ``(*1, D, *2)`` (broadcast), output ``(*1, *2)``.
    """

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)
