"""``torch.distributions.logistic_normal``: ``LogisticNormal``.

A re-export: the classes live in vfw's family files; this module gathers them with the other names torch's
module has."""

# ruff: noqa: F401  (re-exports: torch's module has these names)

from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.distributions.independent import Independent
from vfw.frontends.torch.distributions.normal import Normal
from vfw.frontends.torch.distributions.transformed import TransformedDistribution
from vfw.frontends.torch.distributions.transforms import StickBreakingTransform
from vfw.frontends.torch.distributions.unit_interval import LogisticNormal

__all__ = ["LogisticNormal"]
