"""``torch.nn.utils.parametrizations``: ``weight_norm`` as a parametrization (``original0`` the magnitude,
``original1`` the direction)."""

from vfw.frontends.torch.nn.modules.module import Module
from vfw.frontends.torch.nn.utils import parametrize
from vfw.frontends.torch.nn.utils.weight_norm import _norm_except_dim

__all__ = ["weight_norm"]


class _WeightNorm(Module):
    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_v * (weight_g / _norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Parametrize ``module.<name>`` as ``g * v / ||v||`` (the norm over all dims but ``dim``; None: whole).

    Returns
    -------
    Module
        ``module``.
    """
    return parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
