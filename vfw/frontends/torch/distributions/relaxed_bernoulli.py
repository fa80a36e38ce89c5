"""``torch.distributions.relaxed_bernoulli``: ``LogitRelaxedBernoulli``, ``RelaxedBernoulli``.

A re-export: the classes live in vfw's family files; this module gathers them with the other names torch's
module has."""

# ruff: noqa: F401  (re-exports: torch's module has these names)

from numbers import Number

from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.distributions.distribution import (
    Distribution,
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)
from vfw.frontends.torch.distributions.relaxed import LogitRelaxedBernoulli, RelaxedBernoulli
from vfw.frontends.torch.distributions.transformed import TransformedDistribution
from vfw.frontends.torch.distributions.transforms import SigmoidTransform

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]
