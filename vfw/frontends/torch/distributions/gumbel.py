"""``torch.distributions.gumbel``: ``Gumbel``.

A re-export: the classes live in vfw's family files; this module gathers them with the other names torch's
module has."""

# ruff: noqa: F401  (re-exports: torch's module has these names)

from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.distributions.distribution import broadcast_all
from vfw.frontends.torch.distributions.normal import Uniform
from vfw.frontends.torch.distributions.transformed import Gumbel, TransformedDistribution
from vfw.frontends.torch.distributions.transforms import AffineTransform, ExpTransform
from vfw.frontends.torch.distributions.utils import euler_constant

__all__ = ["Gumbel"]
