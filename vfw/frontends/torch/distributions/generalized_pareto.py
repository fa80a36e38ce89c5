"""``torch.distributions.generalized_pareto``: ``GeneralizedPareto``.

A re-export: the classes live in vfw's family files; this module gathers them with the other names torch's
module has."""

# ruff: noqa: F401  (re-exports: torch's module has these names)

from math import inf, nan
from numbers import Number, Real

from vfw.frontends.torch.distributions.distribution import Distribution, broadcast_all
from vfw.frontends.torch.distributions.heavy_tailed import GeneralizedPareto

__all__ = ["GeneralizedPareto"]
