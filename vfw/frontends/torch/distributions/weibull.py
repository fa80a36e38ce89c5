"""``torch.distributions.weibull``: ``Weibull``.

A re-export: the classes live in vfw's family files; this module gathers them with the other names torch's
module has."""

# ruff: noqa: F401  (re-exports: torch's module has these names)

from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.distributions.distribution import broadcast_all
from vfw.frontends.torch.distributions.gamma import Exponential
from vfw.frontends.torch.distributions.heavy_tailed import Weibull
from vfw.frontends.torch.distributions.transformed import TransformedDistribution
from vfw.frontends.torch.distributions.transforms import AffineTransform, PowerTransform
from vfw.frontends.torch.distributions.utils import euler_constant

__all__ = ["Weibull"]
