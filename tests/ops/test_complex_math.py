"""Complex elementwise math in the engine (Exp ... Tanh, Reciprocal, Sigmoid, Sign, Pow, ReduceProd, Equal):
values against numpy, gradients (conjugate-Wirtinger, as torch) against central differences of real losses."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_loss_gradient
from vfw.core import Tensor, autograd, execute, run
from vfw.core.errors import DTypeError

RNG = np.random.default_rng(5)  # this module's own stream: other modules' data stays as they draw it


def _complex(shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def _sum(t):
    return execute("ReduceSum", t, keepdims=0)


def _make(re, im):
    return execute("ComplexMake", re, im)


def _check(loss, shapes, rtol=1e-5, atol=1e-7):
    """Engine gradient of the real scalar ``loss(*leaves)`` w.r.t. real float64 leaves vs central differences."""
    check_loss_gradient(loss, shapes, RNG, rtol=rtol, atol=atol)

_UNARY = {
    "Exp": np.exp, "Log": np.log, "Sqrt": np.sqrt, "Sin": np.sin, "Cos": np.cos, "Tan": np.tan,
    "Sinh": np.sinh, "Cosh": np.cosh, "Tanh": np.tanh, "Reciprocal": np.reciprocal,
    "Sigmoid": lambda z: 1 / (1 + np.exp(-z)), "Sign": lambda z: np.where(z == 0, 0, z / np.where(z == 0, 1, abs(z))),
}
# a fixed complex weight: the losses depend on the real and imaginary parts of the result unevenly
_W = _complex((2, 3))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
@pytest.mark.parametrize("op_type", sorted(_UNARY))
def test_unary_values_match_numpy(op_type, dtype):
    z = _complex((4, 5), dtype)
    z[0, 0] = 0  # Sign's and Reciprocal's special point
    got = run(op_type, z)
    assert got.dtype == dtype
    with np.errstate(divide="ignore", invalid="ignore"):  # log(0) and 1/0 are the IEEE values asserted
        want = _UNARY[op_type](z.astype(np.complex128))
    np.testing.assert_allclose(got, want, rtol=2e-6 if dtype == np.complex64 else 1e-13, atol=1e-6)


def _weighted_loss(y):
    """A real loss reading both parts of the complex ``y``: sum(Re(y * W)) + sum(|y|)."""
    w = np.resize(_W, y.array.shape)
    return _sum(execute("Add", execute("Real", execute("Mul", y, w)), execute("ComplexAbs", y)))


@pytest.mark.parametrize("op_type", sorted(_UNARY))
def test_unary_gradients(op_type):
    _check(lambda re, im: _weighted_loss(execute(op_type, _make(re, im))), [(2, 3), (2, 3)])


def test_sign_gradient_is_zero_at_zero():
    z = Tensor(np.array([0j, 3 + 4j]), requires_grad=True)
    (g,) = autograd.gradient([_sum(execute("Real", execute("Mul", execute("Sign", z), np.array([1 + 2j, 1 + 2j]))))],
                             [z])
    assert g.array[0] == 0
    # s = z/|z| at 3+4i; d Re((1+2i) s) in the direction i*s is Re((1+2i) i s) / |z|, radially 0
    s = (3 + 4j) / 5
    assert np.isclose(np.real(np.conj(g.array[1]) * s), 0)
    assert np.isclose(np.real(np.conj(g.array[1]) * 1j * s), np.real((1 + 2j) * 1j * s) / 5)


def test_pow_values_and_types():
    x, y = _complex((3, 4)), _complex((4,))
    np.testing.assert_allclose(run("Pow", x, y), x ** y, rtol=1e-13)
    np.testing.assert_allclose(run("Pow", x, np.array(3.0)), x ** 3, rtol=1e-13)
    assert run("Pow", x.astype(np.complex64), np.array(2, np.int64)).dtype == np.complex64
    with pytest.raises(DTypeError, match="complex base"):
        run("Pow", np.ones(3), y[:3])


def test_pow_gradients():
    _check(lambda a, b, c, d: _weighted_loss(execute("Pow", _make(a, b), _make(c, d))), [(2, 3)] * 4,
           rtol=1e-5, atol=1e-7)
    # a real exponent takes the real part of its complex gradient
    _check(lambda a, b, c: _weighted_loss(execute("Pow", _make(a, b), execute("Cast", c, to=np.dtype(np.complex128)))),
           [(2, 3)] * 3, rtol=1e-5, atol=1e-7)
    _check(lambda a, b: _weighted_loss(execute("Pow", _make(a, b), np.array(2.5))), [(2, 3)] * 2, rtol=1e-5, atol=1e-7)


def test_reduce_prod_values_and_gradient():
    z = _complex((3, 4))
    np.testing.assert_allclose(run("ReduceProd", z, np.array([1])), z.prod(1, keepdims=True), rtol=1e-13)

    def loss(re, im):
        zeros = np.ones((2, 3))
        zeros[0, 1] = 0  # one zero in row 0: its gradient is the product of the others
        z = execute("Mul", _make(re, im), zeros.astype(np.complex128))
        return _weighted_loss(execute("ReduceProd", z, np.array([1]), keepdims=1))
    _check(loss, [(2, 3), (2, 3)], rtol=1e-5, atol=1e-7)


def test_equal_compares_complex():
    a = np.array([1 + 2j, 1 + 2j, 3j])
    np.testing.assert_array_equal(run("Equal", a, np.array([1 + 2j, 1 - 2j, 3j])), [True, False, True])


@pytest.mark.parametrize("op_type", ["Erf", "Erfc", "Lgamma", "Relu"])
def test_real_only_ops_still_refuse_complex(op_type):
    with pytest.raises(DTypeError, match="complex128"):
        run(op_type, _complex((2,)))
