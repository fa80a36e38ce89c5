"""Gamma-based families (Gamma, Chi2, Beta, Dirichlet, StudentT) against real torch: densities, cdf, entropies,
moments and their gradients exactly; draws (not torch's numbers: torch uses its own rejection sampler) by shape,
support and sample moments; the reparameterized gradient against the implicit derivative computed with mpmath."""

import math

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, real, vt


def _positive(x):
    return x.abs() + 0.4


FAMILIES = {  # name -> (make from parameter tensors, parameter shapes, values in the support)
    "Gamma": (lambda D, a, b: D.Gamma(_positive(a), _positive(b)), [(2, 3), (3,)], np.array([0.1, 1.0, 2.5])),
    "Chi2": (lambda D, a, b: D.Chi2(_positive(a) * 3), [(3,), (3,)], np.array([0.1, 1.0, 2.5])),
    "Beta": (lambda D, a, b: D.Beta(_positive(a), _positive(b)), [(3,), (2, 3)], np.array([0.1, 0.5, 0.95])),
    "Dirichlet": (lambda D, a, b: D.Dirichlet(_positive(a)), [(2, 3), (3,)],
                  np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])),
    "StudentT": (lambda D, a, b: D.StudentT(_positive(a) * 3, b, _positive(b)), [(3,), (3,)],
                 np.array([-1.0, 0.2, 3.0])),
}


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_moments_log_prob_entropy_and_gradients(name):
    make, shapes, value = FAMILIES[name]

    def fn(torch, a, b):
        d = make(torch.distributions, a, b)
        v = torch.tensor(value.astype("float32"))
        out = (d.mean, d.mode, d.variance, d.stddev, d.log_prob(v), d.entropy(), d.batch_shape, d.event_shape,
               d.has_rsample, repr(d.support), repr(d))
        return out
    check_grad(fn, *arrays(*shapes, seed=1), rtol=1e-5, atol=1e-5)


def test_gamma_cdf_and_its_gradient_in_rate():
    # torch has no derivative of the incomplete gamma function in its first argument: the concentration is fixed
    check_grad(lambda torch, rate, value: torch.distributions.Gamma(torch.tensor([0.5, 2.0, 7.0]), rate.abs() + 0.2)
               .cdf(value.abs()), *arrays((3,), (2, 3), seed=4), rtol=1e-5, atol=1e-5)


def test_gamma_cdf_gradient_in_concentration_raises_as_torch():
    for lib in (real, vt):
        concentration = lib.tensor([1.5], requires_grad=True)
        with pytest.raises(NotImplementedError):
            lib.distributions.Gamma(concentration, 1.0).cdf(lib.tensor([1.0])).sum().backward()


def test_student_t_moments_by_degrees_of_freedom():
    check(lambda torch: (lambda d: (d.mean, d.variance))(
        torch.distributions.StudentT(torch.tensor([0.5, 1.0, 1.5, 2.0, 3.0]), 1.0, 2.0)))


@pytest.mark.parametrize("name", sorted(FAMILIES))
@pytest.mark.parametrize("sample_shape", [(), (2, 3)])
def test_draw_shapes_dtypes_and_support(name, sample_shape):
    make, shapes, _ = FAMILIES[name]

    def fn(torch, a, b):
        d = make(torch.distributions, a, b)
        drawn, reparam = d.sample(sample_shape), d.rsample(sample_shape)
        return (drawn.shape, drawn.dtype, reparam.shape, drawn.requires_grad, bool(d.support.check(drawn).all()),
                bool(d.support.check(reparam).all()), d.expand((4,) + tuple(d.batch_shape)).sample().shape)
    check(fn, *arrays(*shapes, seed=2))


@pytest.mark.parametrize("make, mean, variance", [
    (lambda D: D.Gamma(torch_tensor([0.3, 2.0, 9.0]), 2.0), [0.15, 1.0, 4.5], [0.075, 0.5, 2.25]),
    (lambda D: D.Chi2(torch_tensor([1.0, 4.0])), [1.0, 4.0], [2.0, 8.0]),
    (lambda D: D.Beta(torch_tensor([0.5, 2.0]), torch_tensor([0.5, 5.0])), [0.5, 2 / 7], [0.125, 10 / 392]),
    (lambda D: D.Dirichlet(torch_tensor([1.0, 2.0, 3.0])), [1 / 6, 1 / 3, 0.5], [5 / 252, 8 / 252, 9 / 252]),
    (lambda D: D.StudentT(torch_tensor([5.0]), 1.0, 2.0), [1.0], [20 / 3]),
])
def test_sample_moments(make, mean, variance):
    vt.manual_seed(0)
    draws = make(vt.distributions).sample((40000,)).numpy().astype(np.float64)
    mean, variance = np.array(mean), np.array(variance)
    # 6 standard errors of the sample mean (the fourth moments bound the variance's spread: use 10% there)
    np.testing.assert_allclose(draws.mean(0), mean, atol=6 * np.sqrt(variance.max() / len(draws)))
    np.testing.assert_allclose(draws.var(0), variance, rtol=0.1)


def torch_tensor(values):
    return vt.tensor(values)


def _implicit_gamma_slope(alpha, x):
    """``dx/dalpha`` of a Gamma(alpha, 1) draw ``x``: ``-(dP/dalpha) / p(x)`` in 30-digit arithmetic."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 30
    d_cdf = mp.diff(lambda a: mp.gammainc(a, 0, x, regularized=True), alpha)
    density = mp.exp((alpha - 1) * mp.log(x) - x - mp.loggamma(alpha))
    return float(-d_cdf / density)


def test_gamma_rsample_gradient_is_the_implicit_derivative():
    vt.manual_seed(1)
    concentration = vt.tensor([0.2, 1.0, 3.5, 40.0], dtype=vt.float64, requires_grad=True)
    rate = vt.tensor([1.0, 2.0, 0.5, 3.0], dtype=vt.float64, requires_grad=True)
    x = vt.distributions.Gamma(concentration, rate).rsample()
    x.sum().backward()
    unit = (x * rate).detach().numpy()
    want = [_implicit_gamma_slope(a, u) / r for a, u, r in zip([0.2, 1.0, 3.5, 40.0], unit, [1.0, 2.0, 0.5, 3.0])]
    np.testing.assert_allclose(concentration.grad.numpy(), want, rtol=1e-7)
    np.testing.assert_allclose(rate.grad.numpy(), -x.detach().numpy() / rate.detach().numpy(), rtol=1e-12)
    # torch's own gradient formula (an approximation) agrees to its accuracy
    torch_slope = real._standard_gamma_grad(real.tensor([0.2, 1.0, 3.5, 40.0], dtype=real.float64),
                                            real.tensor(unit)).numpy()
    np.testing.assert_allclose(concentration.grad.numpy() * np.array([1.0, 2.0, 0.5, 3.0]), torch_slope, rtol=2e-4)


@pytest.mark.parametrize("name", ["Beta", "Dirichlet"])
def test_simplex_rsample_gradient_is_unbiased(name):
    """The mean of ``d draw / d concentration`` over many draws is ``d mean / d concentration``."""
    vt.manual_seed(2)
    a = vt.tensor([1.5, 3.0], dtype=vt.float64, requires_grad=True)
    n = 20000
    d = vt.distributions.Beta(a[0], a[1]) if name == "Beta" else vt.distributions.Dirichlet(a)
    first = d.rsample((n,)) if name == "Beta" else d.rsample((n,))[:, 0]
    first.mean().backward()
    total = 4.5
    np.testing.assert_allclose(a.grad.numpy(), [3.0 / total ** 2, -1.5 / total ** 2], atol=0.01)


def test_student_t_rsample_gradients_in_loc_and_scale():
    vt.manual_seed(3)
    loc, scale = (vt.tensor([0.5, -1.0], requires_grad=True) for _ in range(2))
    d = vt.distributions.StudentT(vt.tensor([3.0, 7.0]), loc, scale.abs())
    x = d.rsample((3,))
    x.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [3.0, 3.0])
    standardized = ((x - loc) / scale.abs()).detach().sum(0).numpy()
    np.testing.assert_allclose(scale.grad.numpy(), standardized * np.sign([0.5, -1.0]), rtol=1e-5)


@pytest.mark.parametrize("make", [
    lambda D, t: D.Gamma(0.0, 1.0),
    lambda D, t: D.Gamma(1.0, -1.0),
    lambda D, t: D.Gamma(1.0, 1.0).log_prob(t.tensor(-1.0)),
    lambda D, t: D.Chi2(-1.0),
    lambda D, t: D.Beta(-1.0, 1.0),
    lambda D, t: D.Beta(t.tensor([1.0]), t.tensor([-1.0])),
    lambda D, t: D.Beta(2.0, 2.0).log_prob(t.tensor(1.5)),
    lambda D, t: D.Dirichlet(t.tensor(1.0)),
    lambda D, t: D.Dirichlet(t.tensor([1.0, 0.0])),
    lambda D, t: D.Dirichlet(t.tensor([1.0, 1.0])).log_prob(t.tensor([0.5, 0.6])),
    lambda D, t: D.StudentT(-1.0),
    lambda D, t: D.StudentT(1.0, 0.0, 0.0),
])
def test_invalid_arguments_raise_torchs_errors(make):
    errors = []
    for lib in (real, vt):
        with pytest.raises(Exception) as info:
            make(lib.distributions, lib)
        errors.append(info.value)
    assert type(errors[1]) is type(errors[0]), errors
    assert str(errors[1]).split("\n")[0] == str(errors[0]).split("\n")[0]


def test_gamma_cdf_matches_the_incomplete_gamma_function():
    d = vt.distributions.Gamma(vt.tensor([0.5, 3.0]), vt.tensor([2.0, 0.5]))
    got = d.cdf(vt.tensor([0.3, 4.0])).numpy()
    want = [math.erf(math.sqrt(0.6)), 1 - math.exp(-2.0) * (1 + 2.0 + 2.0)]
    np.testing.assert_allclose(got, want, rtol=1e-5)
