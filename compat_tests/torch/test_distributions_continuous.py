"""Continuous families whose draws are torch's own (Exponential, Laplace, Cauchy, Gumbel, LogNormal, HalfNormal,
MultivariateNormal) against real torch: seeded sample/rsample, moments, log_prob/cdf/icdf/entropy and their
gradients, shapes, expand, reprs and validation errors."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, real, vt


def _positive(x):
    return x.abs() + 0.3


FAMILIES = {  # name -> (make from parameter tensors, parameter shapes, values in the support)
    "Exponential": (lambda D, a, b: D.Exponential(_positive(a)), [(3,), (3,)], np.array([0.1, 1.0, 2.5])),
    "Laplace": (lambda D, a, b: D.Laplace(a, _positive(b)), [(2, 3), (3,)], np.array([-1.0, 0.2, 3.0])),
    "Cauchy": (lambda D, a, b: D.Cauchy(a, _positive(b)), [(3,), (2, 1)], np.array([-1.0, 0.2, 3.0])),
    "Gumbel": (lambda D, a, b: D.Gumbel(a, _positive(b)), [(3,), (3,)], np.array([-1.0, 0.2, 3.0])),
    "LogNormal": (lambda D, a, b: D.LogNormal(a, _positive(b)), [(3,), (3,)], np.array([0.1, 1.0, 2.5])),
    "HalfNormal": (lambda D, a, b: D.HalfNormal(_positive(a)), [(3,), (3,)], np.array([0.1, 1.0, 2.5])),
}
WITH_CDF = {"Exponential", "Laplace", "Cauchy", "HalfNormal"}


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_moments_log_prob_entropy_and_gradients(name):
    make, shapes, value = FAMILIES[name]

    def fn(torch, a, b):
        d = make(torch.distributions, a, b)
        v = torch.tensor(value.astype("float32"))
        out = (d.mean, d.mode, d.variance, d.stddev, d.log_prob(v), d.entropy(), d.batch_shape, d.event_shape,
               d.has_rsample, repr(d.support))
        if name in WITH_CDF:
            out += (d.cdf(v), d.icdf(torch.tensor([0.1, 0.5, 0.9])))
        return out
    check_grad(fn, *arrays(*shapes, seed=1), rtol=1e-5, atol=1e-5)


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
    check_grad(fn, *arrays(*shapes, seed=3), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_expand(name):
    make, shapes, _ = FAMILIES[name]

    def fn(torch, a, b):
        torch.manual_seed(5)
        d = make(torch.distributions, a, b)
        e = d.expand((4,) + tuple(d.batch_shape))
        return e.batch_shape, e.sample(), e.mean, e.entropy()
    check(fn, *arrays(*shapes, seed=4), rtol=1e-5, atol=1e-5)


def test_reprs():
    def fn(torch):
        D = torch.distributions
        return [repr(d) for d in (D.Exponential(2.0), D.Laplace(0.0, 1.0), D.Cauchy(torch.zeros(3), 1.0),
                                  D.Gumbel(1.0, 2.0), D.LogNormal(0.0, 1.0), D.HalfNormal(torch.ones(2)),
                                  D.MultivariateNormal(torch.zeros(2), torch.eye(2)))]
    assert fn(vt) == fn(real)


@pytest.mark.parametrize("make", [
    lambda D, t: D.Exponential(-1.0),
    lambda D, t: D.Exponential(1.0).log_prob(t.tensor(-1.0)),
    lambda D, t: D.Laplace(0.0, 0.0),
    lambda D, t: D.Cauchy(t.tensor([0.0, float("nan")]), 1.0),
    lambda D, t: D.Gumbel(0.0, -2.0),
    lambda D, t: D.LogNormal(0.0, -1.0),
    lambda D, t: D.LogNormal(0.0, 1.0).log_prob(t.tensor(-1.0)),
    lambda D, t: D.HalfNormal(-1.0),
    lambda D, t: D.HalfNormal(1.0).log_prob(t.tensor(-1.0)),
    lambda D, t: D.MultivariateNormal(t.zeros(2)),
    lambda D, t: D.MultivariateNormal(t.zeros(2), t.eye(2), scale_tril=t.eye(2)),
    lambda D, t: D.MultivariateNormal(t.tensor(0.0), t.eye(2)),
    lambda D, t: D.MultivariateNormal(t.zeros(2), t.ones(2)),
    lambda D, t: D.MultivariateNormal(t.zeros(2), t.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda D, t: D.MultivariateNormal(t.zeros(2), scale_tril=t.tensor([[1.0, 1.0], [0.0, 1.0]])),
    lambda D, t: D.MultivariateNormal(t.zeros(2), t.eye(2)).log_prob(t.zeros(3)),
    lambda D, t: D.Normal(t.zeros(2), 1.0).log_prob(t.zeros(3)),
])
def test_invalid_arguments_raise_torchs_errors(make):
    errors = []
    for lib in (real, vt):
        with pytest.raises(Exception) as info:
            make(lib.distributions, lib)
        errors.append(info.value)
    assert type(errors[1]) is type(errors[0]), errors
    assert str(errors[1]).split("\n")[0] == str(errors[0]).split("\n")[0]


@pytest.mark.parametrize("given", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_multivariate_normal(given):
    def fn(torch, loc, a, value):
        matrix = a @ a.mT + 0.5 * torch.eye(3)
        if given == "scale_tril":
            matrix = torch.linalg.cholesky(matrix)
        d = torch.distributions.MultivariateNormal(loc, **{given: matrix})
        return (d.log_prob(value), d.entropy(), d.mean, d.mode, d.variance, d.covariance_matrix,
                d.precision_matrix, d.scale_tril, d.batch_shape, d.event_shape, repr(d.support))
    check_grad(fn, *arrays((2, 3), (3, 3), (4, 1, 3), seed=5), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("sample_shape", [(), (5,), (2, 3)])
def test_multivariate_normal_draws(sample_shape):
    def fn(torch, loc, a):
        torch.manual_seed(11)
        d = torch.distributions.MultivariateNormal(loc, scale_tril=torch.tril(a) + 2 * torch.eye(3))
        return d.sample(sample_shape), d.rsample(sample_shape), d.expand((4, 2)).sample()
    check_grad(fn, *arrays((2, 3), (3, 3), seed=6), rtol=1e-5, atol=1e-5)


ALL_FAMILIES = [
    lambda D, t: D.Exponential(t.ones(2)), lambda D, t: D.Laplace(0.0, t.ones(2)), lambda D, t: D.Cauchy(0.0, 1.0),
    lambda D, t: D.Gumbel(0.0, 1.0), lambda D, t: D.LogNormal(0.0, 1.0), lambda D, t: D.HalfNormal(1.0),
    lambda D, t: D.Gamma(1.0, 2.0), lambda D, t: D.Chi2(t.ones(3)), lambda D, t: D.Beta(1.0, 2.0),
    lambda D, t: D.Dirichlet(t.ones(2, 3)), lambda D, t: D.StudentT(3.0), lambda D, t: D.Poisson(t.ones(2)),
    lambda D, t: D.Binomial(4, t.tensor([0.5])), lambda D, t: D.Geometric(logits=t.zeros(2)),
    lambda D, t: D.OneHotCategorical(t.ones(3) / 3), lambda D, t: D.MultivariateNormal(t.zeros(2), t.eye(2)),
    lambda D, t: D.RelaxedBernoulli(t.tensor(0.5), t.tensor([0.3])),
    lambda D, t: D.RelaxedOneHotCategorical(t.tensor(0.5), t.ones(3) / 3),
    lambda D, t: D.Independent(D.Normal(t.zeros(2, 3), 1.0), 1),
    lambda D, t: D.MixtureSameFamily(D.Categorical(t.ones(2) / 2), D.Normal(t.zeros(2), 1.0)),
    lambda D, t: D.Uniform(0.0, t.ones(2)), lambda D, t: D.Normal(t.zeros(2), 1.0),
    lambda D, t: D.Categorical(logits=t.zeros(2, 3)), lambda D, t: D.Bernoulli(t.tensor([0.2, 0.7])),
]


@pytest.mark.parametrize("make", ALL_FAMILIES)
def test_class_attributes_shapes_and_reprs(make):
    def fn(torch):
        d = make(torch.distributions, torch)
        constraints = {name: repr(c) for name, c in d.arg_constraints.items()}
        return (constraints, d.has_rsample, d.has_enumerate_support, repr(d), repr(d.support), tuple(d.batch_shape),
                tuple(d.event_shape), tuple(d.sample().shape), tuple(d.sample((2,)).shape),
                tuple(d.expand((3,) + tuple(d.batch_shape)).batch_shape))
    assert fn(vt) == fn(real)


def test_low_rank_multivariate_normal():
    def fn(torch, loc, factor, diag, value):
        torch.manual_seed(17)
        d = torch.distributions.LowRankMultivariateNormal(loc, factor, diag.abs() + 0.5)
        return (d.log_prob(value), d.entropy(), d.mean, d.variance, d.covariance_matrix, d.precision_matrix,
                d.scale_tril, d.rsample((2,)), d.sample(), d.batch_shape, d.event_shape, repr(d),
                d.expand((3, 2)).sample())
    check_grad(fn, *arrays((2, 4), (4, 2), (4,), (3, 1, 4), seed=9), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("make", [
    lambda D, t: D.LowRankMultivariateNormal(t.tensor(0.0), t.ones(3, 2), t.ones(3)),
    lambda D, t: D.LowRankMultivariateNormal(t.zeros(3), t.ones(3), t.ones(3)),
    lambda D, t: D.LowRankMultivariateNormal(t.zeros(3), t.ones(2, 2), t.ones(3)),
    lambda D, t: D.LowRankMultivariateNormal(t.zeros(3), t.ones(3, 2), t.ones(2)),
    lambda D, t: D.LowRankMultivariateNormal(t.zeros(3), t.zeros(3, 2), -t.ones(3)),
])
def test_low_rank_errors(make):
    errors = []
    for lib in (real, vt):
        with pytest.raises(Exception) as info:
            make(lib.distributions, lib)
        errors.append(info.value)
    assert type(errors[1]) is type(errors[0]), errors
    assert str(errors[1]).split("\n")[0] == str(errors[0]).split("\n")[0]


def test_low_rank_non_positive_capacitance_raises_a_runtime_error():
    for lib in (real, vt):
        with pytest.raises(RuntimeError):
            lib.distributions.LowRankMultivariateNormal(lib.zeros(3), lib.ones(3, 2), -lib.ones(3))


def test_exponential_family_entropy_from_natural_parameters():
    """A normal written as an exponential family: the generic entropy equals torch's closed form."""
    def fn(torch, loc, scale):
        class NaturalNormal(torch.distributions.ExponentialFamily):
            arg_constraints = {}

            def __init__(self, loc, scale):
                self.loc, self.scale = loc, scale
                super().__init__(loc.shape, validate_args=False)

            @property
            def _natural_params(self):
                return self.loc / self.scale ** 2, -0.5 / self.scale ** 2

            def _log_normalizer(self, eta1, eta2):
                return -eta1 ** 2 / (4 * eta2) - 0.5 * torch.log(-2 * eta2)

            @property
            def _mean_carrier_measure(self):
                return -0.5 * np.log(2 * np.pi)

        s = scale.abs() + 0.5
        return (NaturalNormal(loc, s).entropy(), torch.distributions.Normal(loc, s).entropy(),
                isinstance(torch.distributions.Gamma(1.0, 1.0), torch.distributions.ExponentialFamily))
    want, got = check(fn, *arrays((3,), (3,), seed=12), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[0].detach().numpy(), got[1].detach().numpy(), rtol=1e-5)
