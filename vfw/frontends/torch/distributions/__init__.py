"""``torch.distributions``: ``Normal``, ``Uniform``, ``Categorical``, ``Bernoulli`` with torch's sampling (same
draws from the same seed), ``log_prob``, ``entropy`` and ``kl_divergence``."""

from vfw.frontends.torch.distributions.categorical import Bernoulli, Categorical
from vfw.frontends.torch.distributions.distribution import Distribution
from vfw.frontends.torch.distributions.kl import kl_divergence, register_kl
from vfw.frontends.torch.distributions.normal import Normal, Uniform

__all__ = ["Bernoulli", "Categorical", "Distribution", "Normal", "Uniform", "kl_divergence", "register_kl"]
