"""Poisson, Binomial, Geometric and OneHotCategorical against real torch: log_prob / entropy / moments and their
gradients, enumerate_support, expand, reprs and errors; Geometric and OneHotCategorical draws are torch's numbers,
Poisson and Binomial draws (numpy's samplers) are checked by support and sample moments."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, real, vt


def test_poisson():
    def fn(torch, rate):
        d = torch.distributions.Poisson(rate.abs() + 0.5)
        k = torch.tensor([[0.0, 1.0, 4.0], [2.0, 0.0, 7.0]])
        return d.log_prob(k), d.mean, d.mode, d.variance, d.batch_shape, repr(d.support), repr(d), \
            d.expand((2, 3)).log_prob(k)
    check_grad(fn, arrays((3,), seed=1))


@pytest.mark.parametrize("given", ["probs", "logits"])
def test_binomial(given):
    def fn(torch, param):
        param = param.sigmoid() if given == "probs" else param
        d = torch.distributions.Binomial(torch.tensor(5.0), **{given: param})
        k = torch.tensor([[0.0, 1.0, 5.0], [2.0, 3.0, 4.0]])
        return (d.log_prob(k), d.entropy(), d.mean, d.mode, d.variance, d.probs, d.logits, d.enumerate_support(),
                d.enumerate_support(False), repr(d.support), d.param_shape, d.expand((2, 3)).log_prob(k))
    check_grad(fn, arrays((3,), seed=2), rtol=1e-5, atol=1e-5)


def test_binomial_per_element_counts_and_inhomogeneous_errors():
    def fn(torch):
        d = torch.distributions.Binomial(torch.tensor([3.0, 10.0]), torch.tensor([0.2, 0.7]))
        out = [d.log_prob(torch.tensor([1.0, 9.0])), d.mean, d.mode]
        for method in (d.entropy, d.enumerate_support):
            try:
                method()
            except NotImplementedError as e:
                out.append(str(e))
        return out
    check(fn)


@pytest.mark.parametrize("given", ["probs", "logits"])
def test_geometric(given):
    def fn(torch, param):
        torch.manual_seed(6)
        param = param.sigmoid() if given == "probs" else param
        d = torch.distributions.Geometric(**{given: param})
        k = torch.tensor([[0.0, 1.0, 5.0], [2.0, 3.0, 4.0]])
        return (d.log_prob(k), d.entropy(), d.mean, d.mode, d.variance, d.sample(), d.sample((4,)), repr(d.support),
                d.expand((2, 3)).sample())
    check_grad(fn, arrays((3,), seed=3), rtol=1e-5, atol=1e-5)


def test_geometric_certain_success():
    check(lambda torch: torch.distributions.Geometric(torch.tensor([1.0, 0.5])).log_prob(torch.tensor([0.0, 0.0])))


@pytest.mark.parametrize("given", ["probs", "logits"])
def test_one_hot_categorical(given):
    def fn(torch, param):
        torch.manual_seed(8)
        param = param.softmax(-1) if given == "probs" else param
        d = torch.distributions.OneHotCategorical(**{given: param})
        value = torch.eye(4)[torch.tensor([1, 3])]
        return (d.log_prob(value), d.entropy(), d.mean, d.mode, d.variance, d.probs, d.logits, d.sample(),
                d.sample((3,)), d.enumerate_support(), d.enumerate_support(False), d.batch_shape, d.event_shape,
                repr(d), repr(d.support), d.expand((3, 2)).sample())
    check_grad(fn, arrays((2, 4), seed=4), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("make, mean, variance", [
    (lambda D, t: D.Poisson(t.tensor([0.5, 4.0, 30.0])), [0.5, 4.0, 30.0], [0.5, 4.0, 30.0]),
    (lambda D, t: D.Binomial(t.tensor([10.0, 3.0]), t.tensor([0.3, 0.9])), [3.0, 2.7], [2.1, 0.27]),
    (lambda D, t: D.Geometric(t.tensor([0.2, 0.7])), [4.0, 3 / 7], [20.0, (3 / 7) / 0.7]),
])
def test_sample_moments_and_support(make, mean, variance):
    vt.manual_seed(0)
    d = make(vt.distributions, vt)
    draws = d.sample((40000,))
    assert bool(d.support.check(draws).all())
    assert draws.dtype == vt.float32 and not draws.requires_grad
    draws = draws.numpy().astype(np.float64)
    mean, variance = np.array(mean), np.array(variance)
    np.testing.assert_allclose(draws.mean(0), mean, atol=6 * np.sqrt(variance.max() / len(draws)))
    np.testing.assert_allclose(draws.var(0), variance, rtol=0.1)


@pytest.mark.parametrize("make", [
    lambda D, t: D.Poisson(-1.0),
    lambda D, t: D.Poisson(1.0).log_prob(t.tensor(0.5)),
    lambda D, t: D.Binomial(5, t.tensor(1.5)),
    lambda D, t: D.Binomial(t.tensor(-1.0), t.tensor(0.5)),
    lambda D, t: D.Binomial(2.5, t.tensor(0.5)),
    lambda D, t: D.Binomial(3, t.tensor(0.5)).log_prob(t.tensor(4.0)),
    lambda D, t: D.Binomial(3),
    lambda D, t: D.Geometric(t.tensor([0.0, 0.5])),
    lambda D, t: D.Geometric(probs=0.5, logits=0.0),
    lambda D, t: D.Geometric(0.5).log_prob(t.tensor(-1.0)),
    lambda D, t: D.OneHotCategorical(t.tensor([0.5, -0.5])),
    lambda D, t: D.OneHotCategorical(t.tensor([0.5, 0.5])).log_prob(t.tensor([1.0, 1.0])),
    lambda D, t: D.OneHotCategorical(t.tensor([0.5, 0.5])).log_prob(t.tensor([1.0, 0.0, 0.0])),
])
def test_invalid_arguments_raise_torchs_errors(make):
    errors = []
    for lib in (real, vt):
        with pytest.raises(Exception) as info:
            make(lib.distributions, lib)
        errors.append(info.value)
    assert type(errors[1]) is type(errors[0]), errors
    assert str(errors[1]).split("\n")[0] == str(errors[0]).split("\n")[0]
