"""``torch.distributions.wishart``: ``Wishart``.

A re-export: the classes live in vfw's family files; this module gathers them with the other names torch's
module has."""

# ruff: noqa: F401  (re-exports: torch's module has these names)

from math import nan
from numbers import Number

from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.distributions.distribution import lazy_property
from vfw.frontends.torch.distributions.exponential_family import ExponentialFamily
from vfw.frontends.torch.distributions.matrix_families import Wishart

__all__ = ["Wishart"]
