"""``torch.distributions.bernoulli``: ``Bernoulli``.

A re-export: the classes live in vfw's family files; this module gathers them with the other names torch's
module has."""

# ruff: noqa: F401  (re-exports: torch's module has these names)

from math import nan
from numbers import Number

from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.distributions.categorical import Bernoulli
from vfw.frontends.torch.distributions.distribution import (
    broadcast_all,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)
from vfw.frontends.torch.distributions.exponential_family import ExponentialFamily
from vfw.frontends.torch.nn.functional import binary_cross_entropy_with_logits

__all__ = ["Bernoulli"]
