"""``torch.distributions.one_hot_categorical``: ``OneHotCategorical``, ``OneHotCategoricalStraightThrough``.

A re-export: the classes live in vfw's family files; this module gathers them with the other names torch's
module has."""

# ruff: noqa: F401  (re-exports: torch's module has these names)

from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.distributions.categorical import Categorical
from vfw.frontends.torch.distributions.discrete import OneHotCategorical
from vfw.frontends.torch.distributions.distribution import Distribution
from vfw.frontends.torch.distributions.straight_through import OneHotCategoricalStraightThrough

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]
