"""kl_divergence for the registered pairs against real torch: values (broadcast batches), gradients in both
arguments' parameters, and the errors for unregistered or incompatible pairs."""

import pytest

from compat_tests.torch.harness import arrays, check_grad, real, vt

EYE3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]


def _pos(x):
    return x.abs() + 0.3


PAIRS = {  # name -> make (p, q) from two parameter tensors of shape (2, 3)
    "Beta": lambda D, a, b: (D.Beta(_pos(a), _pos(b)), D.Beta(_pos(b), 1.5)),
    "Gamma": lambda D, a, b: (D.Gamma(_pos(a), _pos(b)), D.Gamma(2.0, _pos(a))),
    "Dirichlet": lambda D, a, b: (D.Dirichlet(_pos(a)), D.Dirichlet(_pos(b))),
    "Exponential": lambda D, a, b: (D.Exponential(_pos(a)), D.Exponential(_pos(b))),
    "Laplace": lambda D, a, b: (D.Laplace(a, _pos(b)), D.Laplace(b, _pos(a))),
    "Poisson": lambda D, a, b: (D.Poisson(_pos(a)), D.Poisson(_pos(b))),
    "Bernoulli": lambda D, a, b: (D.Bernoulli(logits=a), D.Bernoulli(b.sigmoid())),
    "Categorical": lambda D, a, b: (D.Categorical(logits=a), D.Categorical(b.softmax(-1))),
    "OneHotCategorical": lambda D, a, b: (D.OneHotCategorical(logits=a), D.OneHotCategorical(logits=b)),
    "Normal": lambda D, a, b: (D.Normal(a, _pos(b)), D.Normal(b, 1.0)),
    "Uniform": lambda D, a, b: (D.Uniform(a - 3.0, a + 3.0), D.Uniform(a - 4.0, a + 5.0)),
    "Independent": lambda D, a, b: (D.Independent(D.Normal(a, _pos(b)), 1), D.Independent(D.Normal(b, 2.0), 1)),
    "Cauchy": lambda D, a, b: (D.Cauchy(a, _pos(b)), D.Cauchy(b, _pos(a))),
    "Geometric": lambda D, a, b: (D.Geometric(logits=a), D.Geometric(b.sigmoid())),
    "HalfNormal": lambda D, a, b: (D.HalfNormal(_pos(a)), D.HalfNormal(_pos(b))),
    "Gumbel": lambda D, a, b: (D.Gumbel(a, _pos(b)), D.Gumbel(b, _pos(a))),
    "Binomial": lambda D, a, b: (D.Binomial(a.new_tensor([[3.0], [5.0]]), logits=a), D.Binomial(
        a.new_tensor([[3.0], [4.0]]), b.sigmoid())),
    "LogNormal": lambda D, a, b: (D.LogNormal(a, _pos(b)), D.LogNormal(b, _pos(a))),
    "MultivariateNormal": lambda D, a, b: (
        D.MultivariateNormal(a, scale_tril=a.new_tensor([[1.0, 0.0, 0.0], [0.5, 2.0, 0.0], [-0.3, 0.2, 0.7]])
                             * _pos(b[0]).unsqueeze(-1)),
        D.MultivariateNormal(b[1], covariance_matrix=a.mT @ a + a.new_tensor(EYE3))),
    "LowRank": lambda D, a, b: (D.LowRankMultivariateNormal(a, a.unsqueeze(-1), _pos(b)),
                                D.LowRankMultivariateNormal(b, a.unsqueeze(-1) * 0.5, _pos(a))),
    "LowRankMultivariateNormal": lambda D, a, b: (D.LowRankMultivariateNormal(a, a.unsqueeze(-1), _pos(b)),
                                                  D.MultivariateNormal(b, a.mT @ a + 2 * a.new_tensor(EYE3))),
    "MultivariateNormalLowRank": lambda D, a, b: (D.MultivariateNormal(b, a.mT @ a + 2 * a.new_tensor(EYE3)),
                                                  D.LowRankMultivariateNormal(a, a.unsqueeze(-1), _pos(b))),
}


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_kl_values_and_gradients(name):
    def fn(torch, a, b):
        p, q = PAIRS[name](torch.distributions, a, b)
        return torch.distributions.kl_divergence(p, q)
    check_grad(fn, *arrays((2, 3), (2, 3), seed=1), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("make", [
    lambda D, t: (D.Geometric(0.5), D.Poisson(1.0)),
    lambda D, t: (D.StudentT(1.0), D.StudentT(2.0)),
    lambda D, t: (D.Binomial(3, t.tensor(0.5)), D.Binomial(4, t.tensor(0.5))),
    lambda D, t: (D.Independent(D.Normal(t.zeros(2, 3), 1.0), 1), D.Independent(D.Normal(t.zeros(2, 3), 1.0), 2)),
    lambda D, t: (D.MultivariateNormal(t.zeros(2), t.eye(2)), D.MultivariateNormal(t.zeros(3), t.eye(3))),
    lambda D, t: (D.LogNormal(0.0, 1.0), D.TransformedDistribution(D.Normal(0.0, 1.0),
                                                                   [D.transforms.SigmoidTransform()])),
])
def test_unsupported_pairs_raise_as_torch(make):
    errors = []
    for lib in (real, vt):
        p, q = make(lib.distributions, lib)
        with pytest.raises(Exception) as info:
            lib.distributions.kl_divergence(p, q)
        errors.append(info.value)
    assert type(errors[1]) is type(errors[0]), errors


def test_register_kl_adds_a_pair():
    D = vt.distributions

    class Shifted(D.Normal):
        pass

    @D.register_kl(Shifted, D.Exponential)
    def _kl(p, q):
        return p.loc * 0 + 42.0

    assert D.kl_divergence(Shifted(vt.zeros(2), 1.0), D.Exponential(1.0)).tolist() == [42.0, 42.0]
    # a subclass without its own registration uses its base class's
    assert abs(D.kl_divergence(Shifted(0.0, 1.0), D.Normal(1.0, 1.0)).item() - 0.5) < 1e-6
