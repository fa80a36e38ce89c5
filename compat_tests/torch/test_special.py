"""torch.special against real torch: values (tails included), dtypes, gradients."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad

UNARY = ["expit", "erf", "erfc", "erfinv", "logit", "gammaln", "digamma", "psi", "log1p", "expm1", "exp2", "round",
         "sinc", "i0", "ndtr", "ndtri", "log_ndtr", "erfcx", "entr"]
GRID = np.array([-40.0, -12.0, -9.5, -3.0, -0.5, 0.0, 0.25, 0.5, 0.999, 1.0, 2.0, 7.5, 11.0, 30.0, np.nan])


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_unary_values(name, dtype):
    check(lambda torch, x: getattr(torch.special, name)(x), GRID.astype(dtype))


@pytest.mark.parametrize("name", ["ndtr", "ndtri", "log_ndtr", "erfcx", "entr", "expit", "gammaln"])
def test_integer_inputs_give_the_default_float(name):
    check(lambda torch, x: getattr(torch.special, name)(x), np.array([0, 1, 3], np.int64))


@pytest.mark.parametrize("name", ["ndtr", "log_ndtr", "erfcx", "expit", "erf", "gammaln", "sinc"])
def test_unary_gradients(name):
    check_grad(lambda torch, x: getattr(torch.special, name)(x), np.array([-11.0, -2.0, -0.3, 0.4, 1.5, 12.0]))


def test_entr_and_ndtri_gradients_inside_their_domain():
    check_grad(lambda torch, x: (torch.special.entr(x), torch.special.ndtri(x)), np.array([0.1, 0.5, 0.8]))


def test_binary_and_reductions():
    check(lambda torch, x, y: (torch.special.xlogy(x, y), torch.special.xlog1py(x, y),
                               torch.special.xlog1py(torch.zeros(3), torch.tensor([np.nan, -1.0, 2.0])),
                               torch.special.xlog1py(2, y), torch.special.logsumexp(x, 0),
                               torch.special.softmax(x, 0), torch.special.log_softmax(x, dim=0),
                               torch.special.multigammaln(x.abs() + 2, 3), torch.special.polygamma(1, x.abs() + 1)),
          *arrays((4,), (4,), seed=3))
    check_grad(lambda torch, x, y: torch.special.xlog1py(x, y.abs()), *arrays((4,), (4,), seed=4))


def test_out_argument():
    def fn(torch, x):
        out = torch.empty(3)
        torch.special.ndtr(x, out=out)
        return out
    check(fn, np.array([-1.0, 0.0, 1.0], np.float32))
