"""``torch.distributions.half_normal``: ``HalfNormal``.

A re-export: the classes live in vfw's family files; this module gathers them with the other names torch's
module has."""

# ruff: noqa: F401  (re-exports: torch's module has these names)

from math import inf

from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.distributions.normal import Normal
from vfw.frontends.torch.distributions.transformed import HalfNormal, TransformedDistribution
from vfw.frontends.torch.distributions.transforms import AbsTransform

__all__ = ["HalfNormal"]
