"""``torch.distributions.relaxed_categorical``: ``ExpRelaxedCategorical``, ``RelaxedOneHotCategorical``.

A re-export: the classes live in vfw's family files; this module gathers them with the other names torch's
module has."""

# ruff: noqa: F401  (re-exports: torch's module has these names)

from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.distributions.categorical import Categorical
from vfw.frontends.torch.distributions.distribution import Distribution, broadcast_all, clamp_probs
from vfw.frontends.torch.distributions.relaxed import ExpRelaxedCategorical, RelaxedOneHotCategorical
from vfw.frontends.torch.distributions.transformed import TransformedDistribution
from vfw.frontends.torch.distributions.transforms import ExpTransform

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]
