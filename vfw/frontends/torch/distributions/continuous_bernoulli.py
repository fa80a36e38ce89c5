"""``torch.distributions.continuous_bernoulli``: ``ContinuousBernoulli``.

A re-export: the classes live in vfw's family files; this module gathers them with the other names torch's
module has."""

# ruff: noqa: F401  (re-exports: torch's module has these names)

from numbers import Number

from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.distributions.distribution import (
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)
from vfw.frontends.torch.distributions.exponential_family import ExponentialFamily
from vfw.frontends.torch.distributions.unit_interval import ContinuousBernoulli
from vfw.frontends.torch.nn.functional import binary_cross_entropy_with_logits

__all__ = ["ContinuousBernoulli"]
