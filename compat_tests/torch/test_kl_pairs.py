"""Every (p, q) pair in real torch's KL registry against vfw.torch: the registry's key set, ``kl_divergence``
values on broadcast batches in float64 and float32 (``inf`` / ``nan`` positions included), gradients for the
closed forms, and torch's dispatch rules (subclass lookup, ambiguity warning, unregistered pairs)."""

import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import check, check_grad, real, vt
from vfw.frontends.torch.distributions import kl as vfw_kl

torch_kl = pytest.importorskip("torch.distributions.kl")

P_SHAPE, Q_SHAPE = (2, 3), (3,)  # p's and q's batch shapes broadcast to (2, 3)
EVENT = 3  # event size of the multivariate families


def _uniform(rng, shape, low, high):
    return rng.uniform(low, high, shape)


def _lower_cholesky(rng, shape):
    """Lower triangular ``shape + (EVENT, EVENT)`` with a positive diagonal."""
    strict = np.tril(rng.uniform(-1, 1, shape + (EVENT, EVENT)), -1)
    return strict + np.eye(EVENT) * rng.uniform(0.5, 2, shape + (EVENT,))[..., None]


def _location_scale(rng, shape):
    return [_uniform(rng, shape, -1, 1), _uniform(rng, shape, 0.5, 2)]


def _uniform_bounds(rng, shape):
    low = _uniform(rng, shape, -1, 0)
    return [low, low + _uniform(rng, shape, 0.5, 2)]


# family name -> (valid random parameters for a batch shape, build the distribution from them)
FAMILIES = {
    "Normal": (_location_scale, lambda D, lib, loc, scale: D.Normal(loc, scale)),
    "Laplace": (_location_scale, lambda D, lib, loc, scale: D.Laplace(loc, scale)),
    "Gumbel": (_location_scale, lambda D, lib, loc, scale: D.Gumbel(loc, scale)),
    "Cauchy": (_location_scale, lambda D, lib, loc, scale: D.Cauchy(loc, scale)),
    "HalfNormal": (lambda rng, s: [_uniform(rng, s, 0.5, 2)], lambda D, lib, scale: D.HalfNormal(scale)),
    "Exponential": (lambda rng, s: [_uniform(rng, s, 0.5, 2)], lambda D, lib, rate: D.Exponential(rate)),
    "Poisson": (lambda rng, s: [_uniform(rng, s, 0.5, 3)], lambda D, lib, rate: D.Poisson(rate)),
    "Gamma": (lambda rng, s: [_uniform(rng, s, 0.5, 3), _uniform(rng, s, 0.5, 2)],
              lambda D, lib, concentration, rate: D.Gamma(concentration, rate)),
    "Beta": (lambda rng, s: [_uniform(rng, s, 0.5, 3), _uniform(rng, s, 0.5, 3)],
             lambda D, lib, c1, c0: D.Beta(c1, c0)),
    "Uniform": (_uniform_bounds, lambda D, lib, low, high: D.Uniform(low, high)),
    "Pareto": (lambda rng, s: [_uniform(rng, s, 0.5, 2), _uniform(rng, s, 2.5, 4)],
               lambda D, lib, scale, alpha: D.Pareto(scale, alpha)),
    "Bernoulli": (lambda rng, s: [_uniform(rng, s, 0.1, 0.9)], lambda D, lib, probs: D.Bernoulli(probs)),
    "Geometric": (lambda rng, s: [_uniform(rng, s, 0.1, 0.9)], lambda D, lib, probs: D.Geometric(probs)),
    "ContinuousBernoulli": (lambda rng, s: [_uniform(rng, s, 0.1, 0.9)],
                            lambda D, lib, probs: D.ContinuousBernoulli(probs)),
    # p has 4 trials everywhere, q 3 or 4 (torch refuses q with more trials than p): inf where q has fewer
    "Binomial": (lambda rng, s: [_uniform(rng, s, 0.1, 0.9)],
                 lambda D, lib, probs: D.Binomial(lib.full(probs.shape, 4.0, dtype=probs.dtype) if probs.dim() == 2
                                                  else lib.tensor([3.0, 4.0, 4.0], dtype=probs.dtype), probs)),
    "Categorical": (lambda rng, s: [_uniform(rng, s + (4,), -1, 1)], lambda D, lib, logits: D.Categorical(
        logits=logits)),
    "OneHotCategorical": (lambda rng, s: [_uniform(rng, s + (4,), -1, 1)],
                          lambda D, lib, logits: D.OneHotCategorical(logits=logits)),
    "Dirichlet": (lambda rng, s: [_uniform(rng, s + (4,), 0.5, 3)], lambda D, lib, c: D.Dirichlet(c)),
    "Independent": (lambda rng, s: _location_scale(rng, s + (EVENT,)),
                    lambda D, lib, loc, scale: D.Independent(D.Normal(loc, scale), 1)),
    "TransformedDistribution": (_location_scale, lambda D, lib, loc, scale: D.TransformedDistribution(
        D.Normal(loc, scale), [D.transforms.ExpTransform()])),
    "MultivariateNormal": (lambda rng, s: [_uniform(rng, s + (EVENT,), -1, 1), _lower_cholesky(rng, s)],
                           lambda D, lib, loc, tril: D.MultivariateNormal(loc, scale_tril=tril)),
    "LowRankMultivariateNormal": (
        lambda rng, s: [_uniform(rng, s + (EVENT,), -1, 1), _uniform(rng, s + (EVENT, 1), -1, 1),
                        _uniform(rng, s + (EVENT,), 0.5, 2)],
        lambda D, lib, loc, factor, diag: D.LowRankMultivariateNormal(loc, factor, diag)),
    # the only family of torch's that reaches the Bregman fallback (the others have closed forms)
    # (through a covariance: a scale_tril's structurally zero upper entries get gradients in torch, not in vfw)
    "ExponentialFamily": (lambda rng, s: [_uniform(rng, s, 3, 5), _uniform(rng, s + (EVENT, EVENT), -1, 1)],
                          lambda D, lib, df, a: D.Wishart(df, a @ a.mT + lib.eye(EVENT, dtype=a.dtype))),
}

# [low, high] covering [0, 1] only in column 0
MIXED_Q_UNIT_COVER = [np.array([[-0.5, 0.1, -0.2], [0.0, 0.3, -0.1]]), np.array([[1.5, 1.2, 0.9], [1.0, 1.1, 0.8]])]
MIXED_P_UNIT = [np.array([[-0.1, 0.2, 0.3], [0.1, 0.4, 0.05]]), np.array([[0.5, 0.9, 1.2], [0.7, 0.95, 0.6]])]
MIXED_P_SIGN = [np.array([[-0.2, 0.3, 0.5], [0.1, 0.6, -0.8]]), np.array([[0.7, 1.3, 2.5], [1.1, 0.9, 0.4]])]

# pairs whose support conditions need parameters on both sides of the boundary: (p params, q params); None
# keeps the family's default
OVERRIDES = {
    ("Beta", "Uniform"): (None, MIXED_Q_UNIT_COVER),
    ("ContinuousBernoulli", "Uniform"): (None, MIXED_Q_UNIT_COVER),
    ("Uniform", "Beta"): (MIXED_P_UNIT, None),
    ("Uniform", "ContinuousBernoulli"): (MIXED_P_UNIT, None),
    ("Uniform", "Exponential"): (MIXED_P_SIGN, None),
    ("Uniform", "Gamma"): (MIXED_P_SIGN, None),
    ("Uniform", "Pareto"): (MIXED_P_SIGN, [np.array([0.05, 0.2, 0.4]), np.array([1.5, 2.0, 3.0])]),
    ("Pareto", "Exponential"): ([np.full(P_SHAPE, 0.8), np.array([[0.7, 1.5, 2.0], [1.0, 3.0, 0.9]])], None),
    ("Pareto", "Gamma"): ([np.full(P_SHAPE, 0.8), np.array([[0.7, 1.5, 2.0], [1.0, 3.0, 0.9]])], None),
    ("Pareto", "Normal"): ([np.full(P_SHAPE, 0.8), np.array([[1.7, 2.5, 3.0], [2.0, 4.0, 1.9]])], None),
}



def _library_keys(registry):
    """The registry's pairs of the library's own classes (tests register pairs of their own subclasses)."""
    return sorted((p.__name__, q.__name__) for p, q in registry
                  if p.__module__.startswith("torch.distributions") and q.__module__.startswith("torch.distributions"))


# torch masks its result with a condition on q alone for these, which fails on a q of a smaller batch
# (IndexError; vfw broadcasts): q gets p's batch shape
FULL_BATCH_Q = {("Bernoulli", "Bernoulli"), ("Beta", "Uniform")}

TORCH_KEYS = _library_keys(torch_kl._KL_REGISTRY)

# the closed forms and fallback this file's pairs check gradients for (parameters all finite by default)
GRADIENT_PAIRS = [
    ("Bernoulli", "Poisson"), ("Beta", "Exponential"), ("Beta", "Gamma"), ("Beta", "Normal"),
    ("Exponential", "Gamma"), ("Exponential", "Gumbel"), ("Exponential", "Normal"), ("Gamma", "Exponential"),
    ("Gamma", "Gumbel"), ("Gamma", "Normal"), ("Gumbel", "Normal"), ("Laplace", "Normal"), ("Normal", "Gumbel"),
    ("Normal", "Laplace"), ("Uniform", "Gumbel"), ("Uniform", "Normal"), ("Uniform", "Beta"),
    ("Uniform", "Gamma"), ("Uniform", "Exponential"), ("Beta", "Uniform"), ("ExponentialFamily", "ExponentialFamily"),
]


def _parameters(pair, dtype, seed=0):
    rng = np.random.default_rng(seed)
    p_override, q_override = OVERRIDES.get(pair, (None, None))
    p_params = p_override or FAMILIES[pair[0]][0](rng, P_SHAPE)
    q_params = q_override or FAMILIES[pair[1]][0](rng, P_SHAPE if pair in FULL_BATCH_Q else Q_SHAPE)
    return [a.astype(dtype) for a in p_params], [a.astype(dtype) for a in q_params]


def _kl_of(pair):
    def fn(lib, p_params, q_params):
        D = lib.distributions
        p = FAMILIES[pair[0]][1](D, lib, *p_params)
        q = FAMILIES[pair[1]][1](D, lib, *q_params)
        return D.kl_divergence(p, q)
    return fn


def test_registry_keys_equal_torchs():
    assert len(TORCH_KEYS) == 87
    assert _library_keys(vfw_kl._KL_REGISTRY) == TORCH_KEYS


def test_every_key_has_a_case():
    assert {name for pair in TORCH_KEYS for name in pair} <= FAMILIES.keys()


@pytest.mark.parametrize("dtype, rtol, atol", [("float64", 1e-5, 1e-8), ("float32", 1e-4, 1e-5)])
@pytest.mark.parametrize("pair", TORCH_KEYS, ids="||".join)
def test_kl_values(pair, dtype, rtol, atol):
    result = check(_kl_of(pair), *_parameters(pair, dtype), rtol=rtol, atol=atol)
    assert result is not None, "torch raised: the case does not exercise the pair"


@pytest.mark.parametrize("pair", GRADIENT_PAIRS, ids="||".join)
def test_kl_gradients(pair):
    p_params, q_params = _parameters(pair, "float64", seed=1)
    if pair in OVERRIDES:  # keep to the finite region: q covering [0, 1], p inside [0, 1]
        p_params, q_params = ([np.array([[0.1, 0.2, 0.3], [0.05, 0.4, 0.5]]), np.array([[0.5, 0.9, 0.6],
                                                                                         [0.7, 0.95, 0.8]])]
                              if pair[0] == "Uniform" else p_params,
                              [np.full(P_SHAPE, -0.5), np.full(P_SHAPE, 1.5)] if pair[1] == "Uniform"
                              else q_params)
    check_grad(_kl_of(pair), p_params, q_params, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("make", [
    lambda D, t: (D.Normal(0.0, 1.0), D.Bernoulli(0.3)),  # different exponential families: no Bregman form
    lambda D, t: (D.Chi2(t.tensor([3.0, 4.0])), D.Chi2(t.tensor(2.0))),  # Gamma || Gamma, not the fallback
    lambda D, t: (D.Poisson(t.tensor([1.0, 2.0])), D.Binomial(3, t.tensor(0.5))),
    lambda D, t: (D.Geometric(0.5), D.Poisson(1.0)),
])
def test_dispatch_through_base_classes(make):
    check(lambda lib: lib.distributions.kl_divergence(*make(lib.distributions, lib)))


def _subclass_cases(D):
    class BaseP(D.Normal):
        pass

    class DerivedP(BaseP):
        pass

    class BaseQ(D.Normal):
        pass

    class DerivedQ(BaseQ):
        pass

    D.register_kl(BaseP, DerivedQ)(lambda p, q: p.loc * 0 + 1)
    D.register_kl(DerivedP, BaseQ)(lambda p, q: p.loc * 0 + 2)
    return BaseP, DerivedP, BaseQ, DerivedQ


def test_ambiguous_pairs_warn_and_pick_as_torch():
    picks = []
    for lib in (real, vt):
        BaseP, DerivedP, BaseQ, DerivedQ = _subclass_cases(lib.distributions)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ambiguous = lib.distributions.kl_divergence(DerivedP(0.0, 1.0), DerivedQ(0.0, 1.0))
        messages = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
        unambiguous = lib.distributions.kl_divergence(BaseP(0.0, 1.0), DerivedQ(0.0, 1.0))
        fallback = lib.distributions.kl_divergence(DerivedP(0.0, 1.0), lib.distributions.Normal(1.0, 1.0))
        picks.append((float(ambiguous), messages, float(unambiguous), float(fallback)))
        # a more specific registration breaks the tie, and replaces the memoized choice
        lib.distributions.register_kl(DerivedP, DerivedQ)(lambda p, q: p.loc * 0 + 3)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            picks.append(float(lib.distributions.kl_divergence(DerivedP(0.0, 1.0), DerivedQ(0.0, 1.0))))
    assert picks[2:] == picks[:2]
    assert picks[0][1] == ["Ambiguous kl_divergence(DerivedP, DerivedQ). Please register_kl(DerivedP, DerivedQ)"]


def test_register_kl_rejects_non_classes():
    for lib in (real, vt):
        with pytest.raises(TypeError):
            lib.distributions.register_kl("Normal", lib.distributions.Normal)
