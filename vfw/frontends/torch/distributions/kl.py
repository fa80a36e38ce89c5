"""``kl_divergence(p, q)`` for pairs of families, and ``register_kl`` to add pairs."""

import math
import warnings

import vfw.frontends.torch as torch
from vfw.frontends.torch.distributions.categorical import Bernoulli, Categorical
from vfw.frontends.torch.distributions.dirichlet import Beta, Dirichlet
from vfw.frontends.torch.distributions.discrete import Binomial, Geometric, OneHotCategorical, Poisson
from vfw.frontends.torch.distributions.gamma import Exponential, Gamma
from vfw.frontends.torch.distributions.independent import Independent
from vfw.frontends.torch.distributions.location_scale import Cauchy, Laplace
from vfw.frontends.torch.distributions.multivariate_normal import LowRankMultivariateNormal, MultivariateNormal
from vfw.frontends.torch.distributions.normal import Normal, Uniform
from vfw.frontends.torch.distributions.transform_base import sum_rightmost
from vfw.frontends.torch.distributions.transformed import _EULER_GAMMA, Gumbel, HalfNormal, TransformedDistribution

# torch's public names of this module
__all__ = ["register_kl", "kl_divergence"]

# (p type, q type) -> fn, as registered; and the function each concrete pair of types dispatched to
_KL_REGISTRY = {}
_KL_MEMOIZE = {}


def register_kl(type_p, type_q):
    """Decorator: ``fn(p, q)`` computes ``KL(p || q)`` for ``p`` of ``type_p`` and ``q`` of ``type_q`` (or of
    subclasses of them, when no more specific pair is registered).

    Parameters
    ----------
    type_p, type_q : type
        Subclasses of :class:`Distribution`.

    Raises
    ------
    TypeError
        When ``type_p`` or ``type_q`` is not a class.
    """
    for name, value in (("type_p", type_p), ("type_q", type_q)):
        if not isinstance(value, type):
            raise TypeError(f"register_kl: expected {name} to be a Distribution subclass but got {value!r}")

    def decorate(fn):
        _KL_REGISTRY[(type_p, type_q)] = fn
        _KL_MEMOIZE.clear()  # a new pair may be more specific than what a pair of types dispatched to so far
        return fn
    return decorate


def _dispatch_kl(type_p, type_q):
    """The registered function for the most specific registered pair of base classes of ``(type_p, type_q)``,
    or ``None``.

    Pairs are ordered by how far up ``type_p``'s class hierarchy their first type is, then ``type_q``'s (and the
    other way round); when the two orders pick different functions the lookup is ambiguous: a ``RuntimeWarning``
    names the pair to register, and the first order's choice is used.
    """
    depth_p = {cls: depth for depth, cls in enumerate(type_p.__mro__)}
    depth_q = {cls: depth for depth, cls in enumerate(type_q.__mro__)}
    matches = [(base_p, base_q) for base_p, base_q in _KL_REGISTRY if base_p in depth_p and base_q in depth_q]
    if not matches:
        return None
    left_p, left_q = min(matches, key=lambda pair: (depth_p[pair[0]], depth_q[pair[1]]))
    right_p, right_q = min(matches, key=lambda pair: (depth_q[pair[1]], depth_p[pair[0]]))
    if _KL_REGISTRY[(left_p, left_q)] is not _KL_REGISTRY[(right_p, right_q)]:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})", RuntimeWarning, stacklevel=3)
    return _KL_REGISTRY[(left_p, left_q)]


def kl_divergence(p, q):
    """``KL(p || q)``, batched: a tensor of the broadcast batch shape.

    Parameters
    ----------
    p, q : Distribution

    Raises
    ------
    NotImplementedError
        When no function is registered for the pair (nor for a pair of their base classes).
    """
    types = (type(p), type(q))
    if types not in _KL_MEMOIZE:
        _KL_MEMOIZE[types] = _dispatch_kl(*types)
    fn = _KL_MEMOIZE[types]
    if fn is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
                                  f"{type(q).__name__}")
    return fn(p, q)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    ratio = (p.scale / q.scale).pow(2)
    shift = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (ratio + shift - 1 - ratio.log())


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    terms = p.probs * (p.logits - q.logits)
    terms[(q.probs == 0).expand_as(terms)] = math.inf
    terms[(p.probs == 0).expand_as(terms)] = 0
    return terms.sum(-1)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    ones = torch.nn.functional.softplus(-q.logits) - torch.nn.functional.softplus(-p.logits)
    zeros = torch.nn.functional.softplus(q.logits) - torch.nn.functional.softplus(p.logits)
    return p.probs * ones + (1 - p.probs) * zeros


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    result[(q.low > p.low) | (q.high < p.high)] = math.inf
    return result


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    a1, b1, a2, b2 = p.concentration1, p.concentration0, q.concentration1, q.concentration0
    log_beta_ratio = (torch.lgamma(a2) + torch.lgamma(b2) - torch.lgamma(a2 + b2)
                      - torch.lgamma(a1) - torch.lgamma(b1) + torch.lgamma(a1 + b1))
    return (log_beta_ratio + (a1 - a2) * torch.digamma(a1) + (b1 - b2) * torch.digamma(b1)
            + (a2 - a1 + b2 - b1) * torch.digamma(a1 + b1))


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    a1, r1, a2, r2 = p.concentration, p.rate, q.concentration, q.rate
    return ((a1 - a2) * torch.digamma(a1) - torch.lgamma(a1) + torch.lgamma(a2)
            + a2 * (torch.log(r1) - torch.log(r2)) + a1 * (r2 - r1) / r1)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    c1, c2 = p.concentration, q.concentration
    total1 = c1.sum(-1)
    log_norm = torch.lgamma(total1) - torch.lgamma(c1).sum(-1) - torch.lgamma(c2.sum(-1)) + torch.lgamma(c2).sum(-1)
    return log_norm + ((c1 - c2) * (torch.digamma(c1) - torch.digamma(total1).unsqueeze(-1))).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return ratio - 1 - torch.log(ratio)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    distance = torch.abs(p.loc - q.loc)
    return -torch.log(scale_ratio) + distance / q.scale + scale_ratio * torch.exp(-distance / p.scale) - 1


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (torch.log(p.rate) - torch.log(q.rate)) - (p.rate - q.rate)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return kl_divergence(p._categorical, q._categorical)


def _gaussian_kl(loc_p, tril_p, loc_q, tril_q):
    """``(tr(S_q^-1 S_p) + |L_q^-1 (m_q - m_p)|^2 - n) / 2 + log det L_q - log det L_p`` for covariances
    ``S = L L^T``, batches broadcast."""
    n = loc_p.shape[-1]
    batch = torch.broadcast_shapes(tril_p.shape[:-2], tril_q.shape[:-2], loc_p.shape[:-1], loc_q.shape[:-1])
    tril_p, tril_q = tril_p.expand(batch + (n, n)), tril_q.expand(batch + (n, n))
    whitened = torch.linalg.solve_triangular(tril_q, tril_p, upper=False)
    trace = whitened.pow(2).sum((-2, -1))
    shift = torch.linalg.solve_triangular(tril_q, (loc_q - loc_p).expand(batch + (n,)).unsqueeze(-1), upper=False)
    distance = shift.squeeze(-1).pow(2).sum(-1)
    log_det_ratio = (tril_q.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                     - tril_p.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    return 0.5 * (trace + distance - n) + log_det_ratio


def _scale_tril(d):
    return d._unbroadcasted_scale_tril if isinstance(d, MultivariateNormal) else d.scale_tril


@register_kl(MultivariateNormal, MultivariateNormal)
@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
@register_kl(LowRankMultivariateNormal, MultivariateNormal)
@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_mvn_mvn(p, q):
    if p.event_shape != q.event_shape:
        kinds = "Multivariate Normals" if type(p) is type(q) is MultivariateNormal else \
            "(Low Rank) Multivariate Normals"
        raise ValueError(f"KL-divergence between two {kinds} with different event shapes cannot be computed")
    return _gaussian_kl(p.loc, _scale_tril(p), q.loc, _scale_tril(q))


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist),
                         len(p.event_shape) - len(p.base_dist.event_shape))


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    return torch.log(((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)) / (4 * p.scale * q.scale))


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    """``-H(p) - log q - E_p[k] log(1 - q)``."""
    return -p.entropy() - torch.log(q.probs) - (1 / p.probs - 1) * torch.log1p(-q.probs)


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    """``log(b_q / b_p) + (m_p - m_q) / b_q + gamma (b_p / b_q - 1) + exp((m_q - m_p) / b_q) Gamma(1 + b_p / b_q)
    - 1``."""
    ratio = p.scale / q.scale
    shift = (p.loc - q.loc) / q.scale
    return (-torch.log(ratio) + shift + _EULER_GAMMA * (ratio - 1) + torch.exp(torch.lgamma(1 + ratio) - shift)
            - 1)


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    """Per trial KL times the trial count; ``inf`` where ``p`` has more trials than ``q``."""
    if (p.total_count < q.total_count).any():
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    per_trial = p.probs * (p.logits - q.logits) + torch.log1p(-p.probs) - torch.log1p(-q.probs)
    return torch.where(p.total_count > q.total_count, math.inf, p.total_count * per_trial)
