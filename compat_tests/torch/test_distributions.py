"""torch.distributions (Normal, Uniform, Categorical, Bernoulli, kl_divergence) against real torch: seeded draws,
log_prob / entropy / moments and their gradients, shapes, reprs and the validation errors."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, real, vt


def _seeded(torch, make):
    torch.manual_seed(3)
    return make(torch)


@pytest.mark.parametrize("sample_shape", [(), (4,), (2, 3)])
def test_normal_sample_rsample_and_shapes(sample_shape):
    def fn(torch):
        d = torch.distributions.Normal(torch.zeros(2) + 1.0, torch.tensor([0.5, 2.0]))
        return (d.sample(sample_shape), d.rsample(sample_shape), d.batch_shape, d.event_shape,
                d.sample(sample_shape).requires_grad)
    check(lambda torch: _seeded(torch, fn))


def test_normal_log_prob_entropy_cdf_and_gradients():
    loc, scale, value = arrays((3, 1), (4,), (3, 4))
    check_grad(lambda torch, m, s, v: (lambda d: (d.log_prob(v), d.entropy(), d.cdf(v), d.mean, d.stddev,
                                                  d.variance, d.icdf(torch.full((3, 4), 0.3))))(
        torch.distributions.Normal(m, s.abs() + 0.1)), loc, scale, value, rtol=1e-5, atol=1e-5)


def test_normal_rsample_is_differentiable():
    def fn(torch, m, s):
        torch.manual_seed(0)
        return torch.distributions.Normal(m, s.abs() + 0.5).rsample((5,))
    check_grad(fn, *arrays((3,), (3,)))


def test_number_parameters_and_repr():
    def fn(torch):
        d = torch.distributions.Normal(0.0, 1.0)
        return (repr(d), tuple(d.batch_shape), str(d.sample().dtype),
                repr(torch.distributions.Normal(torch.zeros(2), 1.0)), repr(torch.distributions.Bernoulli(0.3)),
                repr(torch.distributions.Uniform(0, 1)))
    got = fn(vt)
    assert got == fn(real)


@pytest.mark.parametrize("given", ["probs", "logits"])
def test_categorical(given):
    def fn(torch):
        torch.manual_seed(1)
        param = torch.tensor([[0.1, 0.0, 0.9], [1.0, 2.0, 1.0]])
        d = torch.distributions.Categorical(**{given: param})
        return (d.sample(), d.sample((6,)), d.log_prob(torch.tensor([2, 1])), d.entropy(), d.probs, d.logits,
                d.batch_shape, d.param_shape, d.enumerate_support(), d.mode, repr(d))
    want, got = fn(real), fn(vt)
    assert want[-1] == got[-1]
    check(lambda torch: fn(torch)[:-1])


def test_categorical_gradients():
    check_grad(lambda torch, logits: (lambda d: (d.log_prob(torch.tensor([0, 3])), d.entropy()))(
        torch.distributions.Categorical(logits=logits)), arrays((2, 4)))


@pytest.mark.parametrize("given", ["probs", "logits"])
def test_bernoulli(given):
    def fn(torch):
        torch.manual_seed(2)
        param = torch.tensor([0.2, 0.5, 0.9]) if given == "probs" else torch.tensor([-1.0, 0.0, 2.0])
        d = torch.distributions.Bernoulli(**{given: param})
        return (d.sample(), d.sample((4,)), d.log_prob(torch.tensor([1.0, 0.0, 1.0])), d.entropy(), d.probs,
                d.logits, d.mean, d.variance, d.enumerate_support())
    check(fn)


def test_uniform():
    def fn(torch):
        torch.manual_seed(4)
        d = torch.distributions.Uniform(torch.tensor([0.0, -1.0]), torch.tensor([1.0, 3.0]))
        return (d.sample((3,)), d.rsample(), d.log_prob(torch.tensor([0.5, 2.0])), d.entropy(), d.mean,
                d.variance, d.stddev, d.cdf(torch.tensor([0.25, 2.5])))
    check(fn)


def test_kl_divergence():
    def fn(torch):
        dists = torch.distributions
        return (dists.kl_divergence(dists.Normal(torch.tensor([0.0, 1.0]), 2.0), dists.Normal(0.5, 1.0)),
                dists.kl_divergence(dists.Categorical(logits=torch.tensor([[0.0, 1.0, 2.0]])),
                                    dists.Categorical(probs=torch.tensor([0.2, 0.3, 0.5]))),
                dists.kl_divergence(dists.Bernoulli(torch.tensor([0.3, 0.6])), dists.Bernoulli(0.5)),
                dists.kl_divergence(dists.Uniform(0.0, 1.0), dists.Uniform(-1.0, 2.0)),
                dists.kl_divergence(dists.Uniform(0.0, 1.0), dists.Uniform(0.5, 2.0)))
    check(fn)


def test_kl_gradient():
    check_grad(lambda torch, m, s: torch.distributions.kl_divergence(
        torch.distributions.Normal(m, s.abs() + 0.2), torch.distributions.Normal(torch.zeros(3), 1.0)),
        *arrays((3,), (3,)))


@pytest.mark.parametrize("make", [
    lambda torch: torch.distributions.Normal(0.0, -1.0),
    lambda torch: torch.distributions.Categorical(probs=torch.tensor([0.5, -0.1])),
    lambda torch: torch.distributions.Categorical(logits=torch.zeros(3)).log_prob(torch.tensor(3)),
    lambda torch: torch.distributions.Bernoulli(1.5),
    lambda torch: torch.distributions.Bernoulli(probs=0.5, logits=0.0),
    lambda torch: torch.distributions.Normal(0.0, 1.0).log_prob(1.0),
    lambda torch: torch.distributions.Uniform(0.0, 1.0).cdf(torch.tensor(2.0)),
    lambda torch: torch.distributions.Uniform(1.0, 0.0),
    lambda torch: torch.distributions.kl_divergence(torch.distributions.Uniform(0.0, 1.0),
                                                    torch.distributions.Bernoulli(0.5)),
])
def test_invalid_arguments_raise_torchs_errors(make):
    errors = []
    for lib in (real, vt):
        with pytest.raises(Exception) as info:
            make(lib)
        errors.append(info.value)
    assert type(errors[1]) is type(errors[0]), errors
    assert str(errors[1]).split("\n")[0] == str(errors[0]).split("\n")[0]


def test_validation_can_be_turned_off():
    for lib in (real, vt):
        d = lib.distributions.Normal(0.0, 1.0, validate_args=False)
        assert np.isfinite(d.log_prob(lib.tensor(1.0)).item())
