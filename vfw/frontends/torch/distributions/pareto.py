"""``torch.distributions.pareto``: ``Pareto``.

A re-export: the classes live in vfw's family files; this module gathers them with the other names torch's
module has."""

# ruff: noqa: F401  (re-exports: torch's module has these names)

from typing import Optional

from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.distributions.distribution import broadcast_all
from vfw.frontends.torch.distributions.gamma import Exponential
from vfw.frontends.torch.distributions.heavy_tailed import Pareto
from vfw.frontends.torch.distributions.transformed import TransformedDistribution
from vfw.frontends.torch.distributions.transforms import AffineTransform, ExpTransform

__all__ = ["Pareto"]
