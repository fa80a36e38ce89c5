"""LKJCholesky and Wishart against real torch: seeded draws (torch's numbers), log_prob, entropy, moments,
gradients, expand, reprs and validation errors."""

import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import check, check_grad


def _covariance(seed, batch=()):
    rng = np.random.default_rng(seed)
    a = rng.normal(size=batch + (3, 3))
    return (a @ np.swapaxes(a, -1, -2) + 3 * np.eye(3)).astype("float32")


@pytest.mark.parametrize("sample_shape", [(), (4,)])
@pytest.mark.parametrize("dim", [2, 4])
def test_lkj_cholesky(sample_shape, dim):
    def fn(torch, concentration):
        torch.manual_seed(4)
        d = torch.distributions.LKJCholesky(dim, concentration)
        draw = d.sample(sample_shape)
        e = d.expand((3, 2))
        return (draw, d.log_prob(draw), d.batch_shape, d.event_shape, repr(d), repr(d.support),
                d.support.check(draw), e.sample().shape, e.batch_shape, d.has_rsample)
    check_grad(fn, np.array([0.5, 2.5], "float32"), rtol=1e-4, atol=1e-5)


def test_lkj_cholesky_errors():
    check(lambda torch: torch.distributions.LKJCholesky(1, 1.0))
    check(lambda torch: torch.distributions.LKJCholesky(3, torch.tensor([-1.0])))


@pytest.mark.parametrize("param", ["covariance_matrix", "precision_matrix", "scale_tril"])
@pytest.mark.parametrize("sample_shape", [(), (3,)])
def test_wishart(param, sample_shape):
    cov = _covariance(1, (2,))

    def fn(torch, cov, df):
        torch.manual_seed(9)
        given = {"covariance_matrix": cov, "precision_matrix": torch.linalg.inv(cov),
                 "scale_tril": torch.linalg.cholesky(cov)}[param]
        d = torch.distributions.Wishart(df, **{param: given})
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            draw = d.rsample(sample_shape)
        return (draw, [str(w.message) for w in caught], d.log_prob(draw.detach()), d.entropy(), d.mean, d.mode,
                d.variance, d.covariance_matrix, d.precision_matrix, d.scale_tril, d.batch_shape, d.event_shape,
                repr(d))
    # torch's backward fails after a batch of draws (its redraw loop writes a mask autograd saved): values only
    compare = check_grad if sample_shape == () else check
    compare(fn, cov, np.array([4.5, 6.0], "float32"), rtol=1e-4, atol=1e-4)


def test_wishart_expand_and_errors():
    cov = _covariance(2)

    def fn(torch, cov):
        torch.manual_seed(1)
        e = torch.distributions.Wishart(5.0, covariance_matrix=cov).expand((2,))
        return e.sample(), e.batch_shape, e.log_prob(cov)
    check(fn, cov, rtol=1e-4, atol=1e-4)
    check(lambda torch, cov: torch.distributions.Wishart(1.0, covariance_matrix=cov), cov)
    check(lambda torch, cov: torch.distributions.Wishart(4.0, covariance_matrix=cov, scale_tril=cov), cov)
    check(lambda torch, cov: torch.distributions.Wishart(4.0, covariance_matrix=cov[0]), cov)
