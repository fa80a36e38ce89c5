"""Identity, Linear, Bilinear and F.linear / F.bilinear against real torch."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad
from compat_tests.torch.nn.harness import check_init, check_module, check_repr


@pytest.mark.parametrize("shape", [(4, 3), (3,), (2, 5, 3), (0, 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_module(shape, bias):
    x = arrays(shape)
    check_module(lambda lib: lib.nn.Linear(3, 2, bias=bias), x)
    check_init(lambda lib: lib.nn.Linear(3, 2, bias=bias))
    check_repr(lambda lib: lib.nn.Linear(3, 2, bias=bias))


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16"])
def test_linear_dtypes(dtype):
    x = arrays((4, 3))
    check(lambda lib, x: lib.nn.Linear(3, 2, dtype=getattr(lib, dtype))(x.to(getattr(lib, dtype))), x)
    check_init(lambda lib: lib.nn.Linear(5, 4, dtype=getattr(lib, dtype)))


def test_linear_init_of_wide_and_empty_layers():
    check_init(lambda lib: lib.nn.Linear(300, 20))
    check_init(lambda lib: lib.nn.Linear(0, 3))
    check_init(lambda lib: lib.nn.Sequential(lib.nn.Linear(7, 5), lib.nn.Linear(5, 1), lib.nn.Bilinear(1, 2, 3)))


@pytest.mark.parametrize("args", [
    lambda lib: (lib.ones(4, 3), lib.ones(2, 4)),
    lambda lib: (lib.ones(4, 3), lib.ones(2, 3, dtype=lib.float64)),
    lambda lib: (lib.ones(4, 3, dtype=lib.float64), lib.ones(2, 3), lib.ones(2)),
    lambda lib: (lib.ones(4, 3), lib.ones(2, 3), lib.ones(3)),
    lambda lib: (lib.ones(4, 3), lib.ones(2, 3), lib.ones(2, dtype=lib.float64)),
    lambda lib: (lib.ones(()), lib.ones(2, 3)),
    lambda lib: (lib.ones(4, 3), lib.ones(3)),
    lambda lib: (lib.ones(4, 3, dtype=lib.int64), lib.ones(2, 3, dtype=lib.int64)),
    lambda lib: ([1.0, 2.0], lib.ones(2, 2)),
])
def test_functional_linear_errors_and_edge_cases(args):
    check(lambda lib: lib.nn.functional.linear(*args(lib)))


def test_functional_linear_gradients():
    x, w, b = arrays((5, 3), (4, 3), (4,))
    check_grad(lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), x, w, b)
    check_grad(lambda lib, x, w: lib.nn.functional.linear(x, w), x, w)
    x3 = arrays((2, 5, 3), seed=1)
    check_grad(lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), x3, w, b)
    check_grad(lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), x.astype(np.float64), w.astype(np.float64),
               b.astype(np.float64))


def test_linear_under_no_grad_and_grad_fn_names():
    def case(lib):
        m = lib.nn.Linear(3, 2)
        with lib.no_grad():
            y = m(lib.ones(2, 3))
        z = m(lib.ones(2, 3))
        return y.requires_grad, y.grad_fn is None, z.grad_fn.name(), m(lib.ones(2, 2, 3)).requires_grad
    check(case)


@pytest.mark.parametrize("shapes", [((4, 3), (4, 2)), ((3,), (2,)), ((2, 5, 3), (2, 5, 2))])
@pytest.mark.parametrize("bias", [True, False])
def test_bilinear_module(shapes, bias):
    x1, x2 = arrays(*shapes)
    check_module(lambda lib: lib.nn.Bilinear(3, 2, 4, bias=bias), x1, x2)
    check_init(lambda lib: lib.nn.Bilinear(3, 2, 4, bias=bias))
    check_repr(lambda lib: lib.nn.Bilinear(3, 2, 4, bias=bias))


@pytest.mark.parametrize("args", [
    lambda lib: (lib.ones(4, 3), lib.ones(5, 2), lib.ones(4, 3, 2)),
    lambda lib: (lib.ones(4, 2), lib.ones(4, 2), lib.ones(4, 3, 2)),
    lambda lib: (lib.ones(4, 3), lib.ones(4, 3), lib.ones(4, 3, 2)),
    lambda lib: (lib.ones(4, 3), lib.ones(4, 2), lib.ones(3, 2)),
])
def test_bilinear_errors(args):
    check(lambda lib: lib.nn.functional.bilinear(*args(lib)))


def test_identity():
    x = arrays((2, 3))
    check_module(lambda lib: lib.nn.Identity(54, unused="argument"), x)
    check_repr(lambda lib: lib.nn.Identity())
    check(lambda lib, x: lib.nn.Identity()(x) is x, x)
