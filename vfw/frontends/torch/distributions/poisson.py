"""``torch.distributions.poisson``: ``Poisson``.

A re-export: the classes live in vfw's family files; this module gathers them with the other names torch's
module has."""

# ruff: noqa: F401  (re-exports: torch's module has these names)

from numbers import Number

from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.distributions.discrete import Poisson
from vfw.frontends.torch.distributions.distribution import broadcast_all
from vfw.frontends.torch.distributions.exponential_family import ExponentialFamily

__all__ = ["Poisson"]
