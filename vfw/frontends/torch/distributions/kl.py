"""``kl_divergence(p, q)`` for pairs of families, and ``register_kl`` to add pairs."""

import math

import vfw.frontends.torch as torch
from vfw.frontends.torch.distributions.categorical import Bernoulli, Categorical
from vfw.frontends.torch.distributions.normal import Normal, Uniform

_KL = {}


def register_kl(type_p, type_q):
    """Decorator: ``fn(p, q)`` computes ``KL(p || q)`` for ``p`` of ``type_p`` and ``q`` of ``type_q``."""
    def decorate(fn):
        _KL[(type_p, type_q)] = fn
        return fn
    return decorate


def kl_divergence(p, q):
    """``KL(p || q)``, batched.

    Raises
    ------
    NotImplementedError
        When no function is registered for the pair (nor for a pair of their base classes).
    """
    for type_p in type(p).__mro__:
        for type_q in type(q).__mro__:
            if (type_p, type_q) in _KL:
                return _KL[(type_p, type_q)](p, q)
    raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
                              f"{type(q).__name__}")


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
