"""The ``kl_divergence`` pairs torch registers for ``ContinuousBernoulli`` and ``Pareto``: closed forms, and
``inf`` where the first distribution puts mass outside the second's support."""

import math

import vfw.frontends.torch as torch
from vfw.frontends.torch.distributions.dirichlet import Beta
from vfw.frontends.torch.distributions.gamma import Exponential, Gamma
from vfw.frontends.torch.distributions.heavy_tailed import Pareto
from vfw.frontends.torch.distributions.kl import register_kl
from vfw.frontends.torch.distributions.location_scale import Laplace
from vfw.frontends.torch.distributions.normal import Normal, Uniform
from vfw.frontends.torch.distributions.transformed import Gumbel
from vfw.frontends.torch.distributions.unit_interval import ContinuousBernoulli


def _infinite_where(condition, result):
    return torch.where(condition, math.inf, result)


def _cross_entropy_with_continuous_bernoulli(p, q):
    """``-E_p[log q(X)]`` for ``q`` continuous Bernoulli and ``p`` on ``[0, 1]``."""
    return -p.mean * q.logits - torch.log1p(-q.probs) - q._log_normalizer_of_probs()


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    return (p.mean * (p.logits - q.logits) + p._log_normalizer_of_probs() + torch.log1p(-p.probs)
            - q._log_normalizer_of_probs() - torch.log1p(-q.probs))


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return -p.entropy() + _cross_entropy_with_continuous_bernoulli(p, q)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    result = -p.entropy() + _cross_entropy_with_continuous_bernoulli(p, q)
    return _infinite_where((p.high >= 1) | (p.low <= 0), result)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() - torch.log(q.rate) + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    log_normalizer = 0.5 * (math.log(2.0 * math.pi) + torch.square(q.loc / q.scale)) + torch.log(q.scale)
    second_moment = (p.variance + torch.square(p.mean) - 2.0 * q.loc * p.mean) / (2.0 * torch.square(q.scale))
    return -p.entropy() + log_normalizer + second_moment


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    return _infinite_where((q.low >= 0) | (q.high <= 1), result)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    return _infinite_where(p.scale < q.scale, result)


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    product = p.scale * q.rate
    result = (p.alpha / product).log() - p.alpha.reciprocal() + p.alpha * product / (p.alpha - 1) - 1
    return _infinite_where(p.alpha <= 1, result)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    mean_log = p.scale.log() + p.alpha.reciprocal()  # E_p[log X]
    result = (p.alpha.log() - mean_log + q.concentration.lgamma() - q.concentration * q.rate.log()
              + (1 - q.concentration) * mean_log + q.rate * p.alpha * p.scale / (p.alpha - 1) - 1)
    return _infinite_where(p.alpha <= 1, result)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    mean_over_alpha = p.scale / (p.alpha - 1)
    log_ratio = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    spread = p.alpha * mean_over_alpha.pow(2) / (p.alpha - 2) + (p.alpha * mean_over_alpha - q.loc).pow(2)
    result = log_ratio - p.alpha.reciprocal() + spread / (2 * q.scale.pow(2)) - 1
    return _infinite_where(p.alpha <= 2, result)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    width = p.high - p.low
    log_norm = (q.alpha * q.scale.pow(q.alpha) * width).log()
    mean_log = (torch.xlogy(p.high, p.high) - torch.xlogy(p.low, p.low) - width) / width  # E_p[log X]
    return _infinite_where(p.low < q.scale, mean_log * (q.alpha + 1) - log_norm)


def _infinite(parameter_name):
    def kl(p, q):
        return torch.full_like(getattr(p, parameter_name), math.inf)
    return kl


for _p_type, _q_type, _name in [(Beta, Pareto, "concentration1"), (ContinuousBernoulli, Pareto, "probs"),
                                (Exponential, Pareto, "rate"), (Exponential, ContinuousBernoulli, "rate"),
                                (Gamma, Pareto, "concentration"), (Gamma, ContinuousBernoulli, "concentration"),
                                (Gumbel, Pareto, "loc"), (Gumbel, ContinuousBernoulli, "loc"),
                                (Laplace, Pareto, "loc"), (Laplace, ContinuousBernoulli, "loc"),
                                (Normal, Pareto, "loc"), (Normal, ContinuousBernoulli, "loc"),
                                (Pareto, Uniform, "scale"), (Pareto, ContinuousBernoulli, "scale"),
                                (Pareto, Beta, "scale")]:
    register_kl(_p_type, _q_type)(_infinite(_name))
