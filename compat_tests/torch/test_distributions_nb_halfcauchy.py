"""NegativeBinomial and HalfCauchy against real torch.

NegativeBinomial: log_prob (the r = k = 0 corner included), moments, probs/logits, expand, reprs, argument checks
and the gradients of log_prob in total_count and the parameter; draws (a Poisson of torch's gamma rates, numpy's
Poisson sampler) checked by support and sample moments.  HalfCauchy: log_prob (-inf below 0), cdf / icdf, entropy,
the infinite moments, reparameterized draws (torch's Cauchy numbers folded) and their gradient, reprs and checks."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, vt


@pytest.mark.parametrize("given", ["probs", "logits"])
def test_negative_binomial(given):
    def fn(torch, count, param):
        param = param.sigmoid() * 0.9 if given == "probs" else param
        d = torch.distributions.NegativeBinomial(count.abs() + 0.5, **{given: param})
        k = torch.tensor([[0.0, 1.0, 4.0], [2.0, 0.0, 7.0]])
        return (d.log_prob(k), d.mean, d.mode, d.variance, d.stddev, d.probs, d.logits, d.param_shape, d.batch_shape,
                repr(d.support), repr(d), d.expand((2, 3)).log_prob(k), d.expand((2, 3)).total_count)
    check_grad(fn, *arrays((3,), (3,), seed=4), rtol=1e-5, atol=1e-5)


def test_negative_binomial_zero_count_and_checks():
    def fn(torch):
        d = torch.distributions.NegativeBinomial(torch.tensor([0.0, 2.0]), logits=torch.tensor([0.3, -1.0]))
        out = [d.log_prob(torch.tensor([0.0, 0.0])), d.log_prob(torch.tensor([[0.0, 3.0]])),
               torch.distributions.NegativeBinomial(3, probs=0.25).log_prob(torch.tensor(2.0))]
        for kwargs in ({"total_count": -1.0, "probs": 0.5}, {"total_count": 2.0, "probs": 1.0},
                       {"total_count": 2.0}, {"total_count": 2.0, "probs": 0.5, "logits": 0.1}):
            try:
                torch.distributions.NegativeBinomial(**kwargs, validate_args=True)
            except ValueError as e:
                out.append(str(e))
        try:
            torch.distributions.NegativeBinomial(2.0, probs=0.5, validate_args=True).log_prob(torch.tensor(1.5))
        except ValueError as e:
            out.append(str(e)[:60])
        return out
    check(fn)


def test_negative_binomial_draws():
    vt.manual_seed(0)
    d = vt.distributions.NegativeBinomial(vt.tensor([2.0, 5.0]), probs=vt.tensor([0.3, 0.6]))
    draws = d.sample((20000,)).numpy()
    assert draws.shape == (20000, 2) and np.all(draws == np.floor(draws)) and draws.min() >= 0
    np.testing.assert_allclose(draws.mean(0), d.mean.numpy(), rtol=0.03)
    np.testing.assert_allclose(draws.var(0), d.variance.numpy(), rtol=0.06)


def test_half_cauchy():
    def fn(torch, scale):
        torch.manual_seed(3)
        d = torch.distributions.HalfCauchy(scale.abs() + 0.2, validate_args=False)
        v = torch.tensor([[0.0, 0.5, 3.0], [-1.0, 2.0, 0.1]])
        return (d.log_prob(v), d.cdf(v.abs()), d.icdf(torch.tensor([0.1, 0.5, 0.9])), d.entropy(), d.mean, d.mode,
                d.variance, d.rsample((2,)), d.scale, d.has_rsample, repr(d), repr(d.support), d.batch_shape,
                d.expand((2, 3)).log_prob(v))
    check_grad(fn, arrays((3,), seed=5))


def test_half_cauchy_checks_and_kl():
    def fn(torch):
        out = []
        try:
            torch.distributions.HalfCauchy(torch.tensor([1.0, -1.0]), validate_args=True)
        except ValueError as e:
            out.append(str(e))
        try:
            torch.distributions.HalfCauchy(1.0, validate_args=True).log_prob(torch.tensor(-0.5))
        except ValueError as e:
            out.append(str(e))
        try:
            torch.distributions.kl_divergence(torch.distributions.HalfCauchy(1.0), torch.distributions.HalfCauchy(2.0))
        except NotImplementedError as e:
            out.append(type(e).__name__)
        return out
    check(fn)
