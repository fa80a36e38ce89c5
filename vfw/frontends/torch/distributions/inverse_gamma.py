"""``torch.distributions.inverse_gamma``: ``InverseGamma``.

A re-export: the classes live in vfw's family files; this module gathers them with the other names torch's
module has."""

# ruff: noqa: F401  (re-exports: torch's module has these names)

from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.distributions.gamma import Gamma
from vfw.frontends.torch.distributions.heavy_tailed import InverseGamma
from vfw.frontends.torch.distributions.transformed import TransformedDistribution
from vfw.frontends.torch.distributions.transforms import PowerTransform

__all__ = ["InverseGamma"]
