"""``torch.distributions.half_cauchy``: ``HalfCauchy``.

A re-export: the classes live in vfw's family files; this module gathers them with the other names torch's
module has."""

# ruff: noqa: F401  (re-exports: torch's module has these names)

from math import inf

from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.distributions.location_scale import Cauchy
from vfw.frontends.torch.distributions.transformed import HalfCauchy, TransformedDistribution
from vfw.frontends.torch.distributions.transforms import AbsTransform

__all__ = ["HalfCauchy"]
