"""``torch.distributions.fishersnedecor``: ``FisherSnedecor``.

A re-export: the classes live in vfw's family files; this module gathers them with the other names torch's
module has."""

# ruff: noqa: F401  (re-exports: torch's module has these names)

from math import nan

from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.distributions.distribution import Distribution, broadcast_all
from vfw.frontends.torch.distributions.gamma import Gamma
from vfw.frontends.torch.distributions.heavy_tailed import FisherSnedecor

__all__ = ["FisherSnedecor"]
