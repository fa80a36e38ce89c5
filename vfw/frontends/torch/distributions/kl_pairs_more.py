"""The ``kl_divergence`` pairs torch registers across the scalar families (``Normal``, ``Laplace``, ``Gumbel``,
``Gamma``, ``Exponential``, ``Uniform``, ``Beta``), ``Bernoulli`` / ``Poisson``, the pairs that are ``inf``
because the first distribution puts mass outside the second's support, and the Bregman-divergence fallback
between two members of one exponential family.

Every continuous closed form is ``KL(p || q) = -H(p) + CE(p, q)``: the cross entropy ``CE(p, q) = -E_p[log q(X)]``
of each ``q`` family needs only a few expectations under ``p`` (mean, variance, ``E[log X]``, ...), so one helper
per ``q`` family serves every ``p``.
"""

import math

import vfw.frontends.torch as torch
from vfw.frontends.torch.distributions.categorical import Bernoulli
from vfw.frontends.torch.distributions.dirichlet import Beta
from vfw.frontends.torch.distributions.discrete import Binomial, Poisson
from vfw.frontends.torch.distributions.exponential_family import ExponentialFamily
from vfw.frontends.torch.distributions.gamma import Exponential, Gamma
from vfw.frontends.torch.distributions.kl import register_kl
from vfw.frontends.torch.distributions.kl_more import _infinite, _infinite_where
from vfw.frontends.torch.distributions.location_scale import Laplace
from vfw.frontends.torch.distributions.normal import Normal, Uniform
from vfw.frontends.torch.distributions.transform_base import sum_rightmost
from vfw.frontends.torch.distributions.transformed import _EULER_GAMMA, Gumbel

_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


# ---- cross entropies -E_p[log q(X)] of each q family, from expectations under p ----

def _normal_cross_entropy(mean, variance, q):
    """``log(sigma sqrt(2 pi)) + E[(X - mu)^2] / (2 sigma^2)`` with ``E[(X - mu)^2] = Var X + (E X - mu)^2``."""
    return _HALF_LOG_2PI + q.scale.log() + (variance + (mean - q.loc).pow(2)) / (2 * q.scale.pow(2))


def _exponential_cross_entropy(mean, q):
    """``-log(rate) + rate E[X]``."""
    return q.rate * mean - q.rate.log()


def _gamma_cross_entropy(mean, mean_log, q):
    """``log Gamma(a) - a log(b) - (a - 1) E[log X] + b E[X]`` for ``q = Gamma(a, b)``."""
    a, b = q.concentration, q.rate
    return torch.lgamma(a) - a * b.log() - (a - 1) * mean_log + b * mean


def _gumbel_cross_entropy(mean, shifted_mgf, q):
    """``log(s) + (E[X] - m) / s + E[exp((m - X) / s)]`` for ``q = Gumbel(m, s)``; callers give the last
    expectation, ``exp(m / s)`` times the moment generating function of ``p`` at ``-1 / s``."""
    return q.scale.log() + (mean - q.loc) / q.scale + shifted_mgf


def _beta_cross_entropy(mean_log, mean_log1m, q):
    """``log B(a, b) - (a - 1) E[log X] - (b - 1) E[log(1 - X)]`` for ``q = Beta(a, b)``."""
    a, b = q.concentration1, q.concentration0
    log_beta = torch.lgamma(a) + torch.lgamma(b) - torch.lgamma(a + b)
    return log_beta - (a - 1) * mean_log - (b - 1) * mean_log1m


# ---- expectations under p that the cross entropies need ----

def _beta_mean_log(p):
    """``E[log X]`` for ``X ~ Beta(a, b)``: ``digamma(a) - digamma(a + b)``."""
    return torch.digamma(p.concentration1) - torch.digamma(p.concentration1 + p.concentration0)


def _uniform_mean_log(low, high):
    """``E[log X]`` for ``X`` uniform on ``[low, high]``, ``0 <= low``: ``[x log x - x]_low^high / (high - low)``
    (``xlogy`` keeps an end at 0 finite)."""
    return (torch.xlogy(high, high) - torch.xlogy(low, low)) / (high - low) - 1


def _uniform_gumbel_mgf(p, q):
    """``E[exp((m - X) / s)]`` for ``X`` uniform on ``[low, high]``: ``s (e^((m - low)/s) - e^((m - high)/s))
    / (high - low)``."""
    return q.scale * (torch.exp((q.loc - p.low) / q.scale) - torch.exp((q.loc - p.high) / q.scale)) / (
        p.high - p.low)


# ---- Bernoulli / Poisson ----

@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    """``sum_k p(k) log(p(k) / q(k))`` over ``k in {0, 1}`` with ``q(0) = e^-rate``, ``q(1) = rate e^-rate``."""
    probs = p.probs
    return torch.xlogy(probs, probs) + torch.xlogy(1 - probs, 1 - probs) - probs * q.rate.log() + q.rate


# ---- Beta || . ----

@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    return -p.entropy() + _exponential_cross_entropy(p.mean, q)


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    return -p.entropy() + _gamma_cross_entropy(p.mean, _beta_mean_log(p), q)


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    return -p.entropy() + _normal_cross_entropy(p.mean, p.variance, q)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    """``-H(p) + log(high - low)``; ``inf`` where ``[low, high]`` misses part of ``[0, 1]``."""
    result = -p.entropy() + (q.high - q.low).log()
    return _infinite_where((q.low > 0) | (q.high < 1), result)


# ---- Exponential || . ----

@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    mean_log = -_EULER_GAMMA - p.rate.log()  # E[log X] for X ~ Exponential(rate)
    return -p.entropy() + _gamma_cross_entropy(p.mean, mean_log, q)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    rate_scale = p.rate * q.scale  # E[exp(-X / s)] = rate s / (rate s + 1)
    shifted_mgf = torch.exp(q.loc / q.scale) * rate_scale / (rate_scale + 1)
    return -p.entropy() + _gumbel_cross_entropy(p.mean, shifted_mgf, q)


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    return -p.entropy() + _normal_cross_entropy(p.mean, p.variance, q)


# ---- Gamma || . ----

@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() + _exponential_cross_entropy(p.mean, q)


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    # E[exp(-X / s)] = (b s / (b s + 1))^a for X ~ Gamma(a, b)
    rate_scale = p.rate * q.scale
    log_mgf = p.concentration * (rate_scale.log() - torch.log1p(rate_scale))
    return -p.entropy() + _gumbel_cross_entropy(p.mean, torch.exp(q.loc / q.scale + log_mgf), q)


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    return -p.entropy() + _normal_cross_entropy(p.mean, p.variance, q)


# ---- Gumbel, Laplace, Normal || . ----

@register_kl(Gumbel, Normal)
@register_kl(Laplace, Normal)
def _kl_location_scale_normal(p, q):
    return -p.entropy() + _normal_cross_entropy(p.mean, p.variance, q)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    # E[exp(-X / s)] = exp(-mu / s + sigma^2 / (2 s^2)) for X ~ Normal(mu, sigma)
    log_mgf = (q.loc - p.loc) / q.scale + (p.scale / q.scale).pow(2) / 2
    return -p.entropy() + _gumbel_cross_entropy(p.loc, torch.exp(log_mgf), q)


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    """``-H(p) + log(2 b) + E|X - m| / b`` with ``E|X - m| = sigma sqrt(2 / pi) exp(-d^2 / (2 sigma^2))
    + d erf(d / (sigma sqrt 2))`` for ``d = mu - m`` (the mean of a folded normal)."""
    shift = p.loc - q.loc
    standardized = shift / p.scale
    mean_abs = (p.scale * math.sqrt(2 / math.pi) * torch.exp(-standardized.pow(2) / 2)
                + shift * torch.erf(standardized / math.sqrt(2)))
    return -p.entropy() + (2 * q.scale).log() + mean_abs / q.scale


# ---- Uniform || . ----

@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    """``inf`` where ``[low, high]`` leaves ``[0, 1]``; ``E[log(1 - X)]`` is ``E[log Y]`` for ``Y = 1 - X`` uniform
    on ``[1 - high, 1 - low]``."""
    cross_entropy = _beta_cross_entropy(_uniform_mean_log(p.low, p.high), _uniform_mean_log(1 - p.high, 1 - p.low), q)
    return _infinite_where((p.high > 1) | (p.low < 0), -p.entropy() + cross_entropy)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    return _infinite_where(p.low < 0, -p.entropy() + _exponential_cross_entropy(p.mean, q))


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    cross_entropy = _gamma_cross_entropy(p.mean, _uniform_mean_log(p.low, p.high), q)
    return _infinite_where(p.low < 0, -p.entropy() + cross_entropy)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    return -p.entropy() + _gumbel_cross_entropy(p.mean, _uniform_gumbel_mgf(p, q), q)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    return -p.entropy() + _normal_cross_entropy(p.mean, p.variance, q)


# ---- p puts mass where q has none: inf everywhere, shaped like one of p's parameters ----

for _p_type, _q_types, _name in [(Exponential, (Uniform, Beta), "rate"), (Gamma, (Uniform, Beta), "concentration"),
                                 (Gumbel, (Uniform, Gamma, Exponential, Beta), "loc"),
                                 (Laplace, (Uniform, Gamma, Exponential, Beta), "loc"),
                                 (Normal, (Uniform, Gamma, Exponential, Beta), "loc"),
                                 (Poisson, (Binomial, Bernoulli), "rate")]:
    for _q_type in _q_types:
        register_kl(_p_type, _q_type)(_infinite(_name))


# ---- one exponential family: the Bregman divergence of its log normalizer ----

@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """``A(eta_q) - A(eta_p) - <eta_q - eta_p, grad A(eta_p)>`` for natural parameters ``eta`` and log normalizer
    ``A``; ``grad A`` comes from autograd on detached copies of ``p``'s natural parameters, as torch does (so the
    result carries gradients to ``q``'s parameters only), each inner product summed over the event dims.

    Raises
    ------
    NotImplementedError
        When ``p`` and ``q`` are different families.
    """
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot be "
                                  "computed using Bregman divergences")
    p_natural = [param.detach().requires_grad_() for param in p._natural_params]
    q_natural = q._natural_params
    p_log_normalizer = p._log_normalizer(*p_natural)
    mean_statistics = torch.autograd.grad(p_log_normalizer.sum(), p_natural, create_graph=True)
    result = q._log_normalizer(*q_natural) - p_log_normalizer
    event_dims = len(q.event_shape)
    for p_param, q_param, statistic in zip(p_natural, q_natural, mean_statistics):
        result = result - sum_rightmost((q_param - p_param) * statistic, event_dims)
    return result
