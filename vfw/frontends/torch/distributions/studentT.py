"""``torch.distributions.studentT``: ``StudentT``.

A re-export: the classes live in vfw's family files; this module gathers them with the other names torch's
module has."""

# ruff: noqa: F401, N999  (re-exports: torch's module has these names)

from math import inf, nan

from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.distributions.distribution import Distribution, broadcast_all
from vfw.frontends.torch.distributions.gamma import Chi2, StudentT

__all__ = ["StudentT"]
