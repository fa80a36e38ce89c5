"""Weibull, Pareto, GeneralizedPareto, Kumaraswamy, InverseGamma, FisherSnedecor, ContinuousBernoulli,
VonMises, LogisticNormal and OneHotCategoricalStraightThrough against real torch: moments, log_prob / cdf /
icdf / entropy and their gradients, seeded draws (torch's numbers), rsample gradients, expand, reprs and
validation errors."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad


def _positive(x):
    return x.abs() + 0.5


FAMILIES = {  # name -> (make from two parameter tensors, their shapes, values in the support)
    "Weibull": (lambda D, a, b: D.Weibull(_positive(a), _positive(b) + 0.6), [(3,), (3,)], [0.2, 1.0, 2.5]),
    "Pareto": (lambda D, a, b: D.Pareto(_positive(a) * 0.1, _positive(b) + 2.1), [(3,), (2, 3)], [0.8, 1.0, 2.5]),
    "GeneralizedPareto": (lambda D, a, b: D.GeneralizedPareto(a * 0.1, _positive(b), b * 0.2), [(3,), (3,)],
                          [0.3, 0.5, 0.9]),
    "Kumaraswamy": (lambda D, a, b: D.Kumaraswamy(_positive(a) + 0.5, _positive(b) + 0.5), [(3,), (3,)],
                    [0.1, 0.5, 0.9]),
    "InverseGamma": (lambda D, a, b: D.InverseGamma(_positive(a) + 2.1, _positive(b)), [(3,), (3,)],
                     [0.1, 1.0, 2.5]),
    "FisherSnedecor": (lambda D, a, b: D.FisherSnedecor(_positive(a) + 2.5, _positive(b) + 4.5), [(3,), (3,)],
                       [0.1, 1.0, 2.5]),
    # float64: near p = 1/2 the closed forms cancel badly, and float32 results differ by torch's last-bit log errors
    "ContinuousBernoulli": (lambda D, a, b: D.ContinuousBernoulli(probs=(a.double() * 0.2 + 0.5).clamp(0.05, 0.95)),
                            [(3,), (3,)], [0.1, 0.5, 0.9]),
    "ContinuousBernoulliLogits": (lambda D, a, b: D.ContinuousBernoulli(logits=a.double()), [(3,), (3,)],
                                  [0.1, 0.5, 0.9]),
    "LogisticNormal": (lambda D, a, b: D.LogisticNormal(a, _positive(b)), [(2,), (2,)], [0.2, 0.3, 0.5]),
}
WITH_CDF = {"Weibull", "Pareto", "GeneralizedPareto", "ContinuousBernoulli", "ContinuousBernoulliLogits"}
NO_MODE = {"ContinuousBernoulli", "ContinuousBernoulliLogits"}  # torch gives no mode
NO_MOMENTS = {"LogisticNormal"}  # torch gives no moments nor entropy
NO_ENTROPY = {"FisherSnedecor"}


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_moments_log_prob_entropy_and_gradients(name):
    make, shapes, value = FAMILIES[name]

    def fn(torch, a, b):
        d = make(torch.distributions, a, b)
        v = torch.tensor(value, dtype=d.mean.dtype if name not in NO_MOMENTS else torch.float32)
        out = (d.log_prob(v), d.batch_shape, d.event_shape, d.has_rsample, repr(d))
        if name not in NO_MOMENTS:
            out += (d.mean, d.variance, d.stddev, repr(d.support))
        if name not in NO_ENTROPY | NO_MOMENTS:
            out += (d.entropy(),)
        if name not in NO_MODE | NO_MOMENTS:
            out += (d.mode,)
        if name in WITH_CDF:
            out += (d.cdf(v), d.icdf(torch.tensor([0.1, 0.5, 0.9])))
        return out
    check_grad(fn, *arrays(*shapes, seed=1), rtol=1e-5, atol=1e-5)


def test_continuous_bernoulli_taylor_region():
    def fn(torch, probs):
        d = torch.distributions.ContinuousBernoulli(probs=probs)
        v = torch.tensor([0.2, 0.7, 0.999])
        return d.mean, d.variance, d.entropy(), d.log_prob(v), d.cdf(v), d.icdf(v)
    check_grad(fn, np.array([0.4995, 0.5, 0.5008], "float32"), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", sorted(FAMILIES))
@pytest.mark.parametrize("sample_shape", [(), (4,), (2, 3)])
def test_seeded_draws_are_torchs(name, sample_shape):
    make, shapes, _ = FAMILIES[name]

    def fn(torch, a, b):
        torch.manual_seed(7)
        d = make(torch.distributions, a, b)
        return d.sample(sample_shape), d.rsample(sample_shape), d.sample(sample_shape).requires_grad
    check(fn, *arrays(*shapes, seed=2), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_rsample_gradients(name):
    make, shapes, _ = FAMILIES[name]

    def fn(torch, a, b):
        torch.manual_seed(3)
        return make(torch.distributions, a, b).rsample((5,))
    # gamma-based draws: the implicit reparameterization gradient is exact here, torch's approximate (~1e-4)
    rtol = 2e-3 if name in {"InverseGamma", "FisherSnedecor"} else 1e-4
    check_grad(fn, *arrays(*shapes, seed=3), rtol=rtol, atol=1e-5)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_expand(name):
    make, shapes, value = FAMILIES[name]

    def fn(torch, a, b):
        torch.manual_seed(5)
        d = make(torch.distributions, a, b)
        e = d.expand((4,) + tuple(d.batch_shape))
        return e.batch_shape, e.event_shape, e.sample(), e.log_prob(torch.tensor(value))
    check(fn, *arrays(*shapes, seed=4), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("sample_shape", [(), (50,)])
def test_von_mises(dtype, sample_shape):
    loc = np.array([0.5, -2.0, 3.0], dtype)
    concentration = np.array([0.3, 2.0, 8.0], dtype)

    def fn(torch, loc, concentration):
        torch.manual_seed(11)
        d = torch.distributions.VonMises(loc, concentration)
        v = torch.tensor([0.1, -1.0, 2.9], dtype=loc.dtype)
        e = d.expand((2, 3))
        return (d.sample(sample_shape), d.log_prob(v), d.mean, d.mode, d.variance, repr(d), d.has_rsample,
                e.sample(), e.batch_shape, torch.rand(2))
    check_grad(fn, loc, concentration, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("sample_shape", [(), (3,)])
def test_one_hot_straight_through(sample_shape):
    def fn(torch, logits, weights):
        torch.manual_seed(2)
        d = torch.distributions.OneHotCategoricalStraightThrough(logits=logits)
        draw = d.rsample(sample_shape)
        return draw, (draw * weights).sum(), d.has_rsample, d.log_prob(draw), d.entropy(), d.mean
    check_grad(fn, *arrays((2, 4), (2, 4), seed=6), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make", [
    lambda D, t: D.Weibull(t([1.0, -1.0]), t([1.0, 1.0])),
    lambda D, t: D.Pareto(t([1.0]), t([0.0])),
    lambda D, t: D.GeneralizedPareto(t([0.0]), t([-1.0]), t([0.1])),
    lambda D, t: D.Kumaraswamy(t([1.0]), t([-0.5])),
    lambda D, t: D.InverseGamma(t([0.0]), t([1.0])),
    lambda D, t: D.FisherSnedecor(t([1.0]), t([-1.0])),
    lambda D, t: D.ContinuousBernoulli(probs=t([1.5]), validate_args=True),
    lambda D, t: D.ContinuousBernoulli(t([0.5]), t([0.0])),
    lambda D, t: D.VonMises(t([0.0]), t([0.0])),
    lambda D, t: D.LogisticNormal(t([0.0]), t([-1.0])),
    lambda D, t: D.Pareto(t([2.0]), t([1.0])).log_prob(t([1.0])),
    lambda D, t: D.Kumaraswamy(t([1.0]), t([1.0])).log_prob(t([1.5])),
    lambda D, t: D.Weibull(t([1.0]), t([1.0])).log_prob(t([[1.0, 2.0]]).mT.expand(2, 3)),
])
def test_validation_errors(make):
    check(lambda torch: make(torch.distributions, torch.tensor))
