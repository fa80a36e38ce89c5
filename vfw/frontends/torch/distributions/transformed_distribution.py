"""``torch.distributions.transformed_distribution``: ``TransformedDistribution``.

A re-export: the classes live in vfw's family files; this module gathers them with the other names torch's
module has."""

# ruff: noqa: F401  (re-exports: torch's module has these names)

from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.distributions.distribution import Distribution
from vfw.frontends.torch.distributions.independent import Independent
from vfw.frontends.torch.distributions.transformed import TransformedDistribution
from vfw.frontends.torch.distributions.transforms import ComposeTransform, Transform

__all__ = ["TransformedDistribution"]
