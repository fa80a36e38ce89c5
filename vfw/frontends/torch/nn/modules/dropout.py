"""Dropout modules: Dropout, Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout.

They drop in training mode only (``module.train()``, the default) and are the identity
after ``module.eval()``; the numerics are ``nn.functional``'s.
"""

from vfw.frontends.torch.nn.functional import _dropout as F
from vfw.frontends.torch.nn.modules.module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]


class _DropoutNd(Module):
    """Shared constructor: the drop probability ``p`` (in [0, 1], else ValueError) and ``inplace``.

    Subclasses name the functional they apply in training mode.
    """

    function = None

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        F.check_probability(p)
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return type(self).function(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zero each element with probability ``p`` in training and scale the rest by ``1 / (1 - p)``.

    Parameters
    ----------
    p : float
        Drop probability.
    inplace : bool
        Write the result into the input.

    Shape: input ``(*)``, output ``(*)``.
    """

    function = staticmethod(F.dropout)


class Dropout1d(_DropoutNd):
    """Zero whole channels with probability ``p`` in training. Shape: ``(N, C, L)`` or ``(C, L)``."""

    function = staticmethod(F.dropout1d)


class Dropout2d(_DropoutNd):
    """Zero whole channels with probability ``p`` in training. Shape: ``(N, C, H, W)`` (or ``(N, C, L)``)."""

    function = staticmethod(F.dropout2d)


class Dropout3d(_DropoutNd):
    """Zero whole channels with probability ``p`` in training. Shape: ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""

    function = staticmethod(F.dropout3d)


class AlphaDropout(_DropoutNd):
    """Dropout for SELU networks: keeps the activations' mean and variance. Shape: ``(*)``."""

    function = staticmethod(F.alpha_dropout)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels. Shape: ``(N, C, *)``."""

    function = staticmethod(F.feature_alpha_dropout)
