"""Engine Eig (values, dtypes, errors, gradients by central differences), complex Solve, and the complex
gradients of Asin ... Atanh, Expm1, Log1p, Log2, Log10 (central differences of real losses)."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_loss_gradient
from vfw.core import execute, run
from vfw.core.errors import ShapeError, VfwError

RNG = np.random.default_rng(23)


def _sum(t):
    return execute("ReduceSum", t, keepdims=0)


def _abs2(t):
    r = execute("ComplexAbs", t)
    return execute("Mul", r, r)


@pytest.mark.parametrize("dtype, cdtype", [(np.float32, np.complex64), (np.float64, np.complex128),
                                           (np.complex64, np.complex64), (np.complex128, np.complex128)])
def test_eig_values_vectors_and_dtypes(dtype, cdtype):
    a = RNG.standard_normal((3, 4, 4))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * RNG.standard_normal((3, 4, 4))
    a = a.astype(dtype)
    w, v = run("Eig", a)
    assert w.dtype == cdtype and v.dtype == cdtype and w.shape == (3, 4) and v.shape == (3, 4, 4)
    tol = 1e-4 if cdtype == np.complex64 else 1e-11
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=tol)
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1.0, rtol=tol)
    want = np.linalg.eigvals(a.astype(np.complex128))
    # every eigenvalue numpy finds in complex128 is near one of Eig's, and the other way round (order aside)
    distance = np.abs(w[..., :, None] - want[..., None, :])
    assert distance.min(axis=-1).max() < 10 * tol and distance.min(axis=-2).max() < 10 * tol


def test_eig_real_spectrum_is_still_complex():
    w, v = run("Eig", np.diag([3.0, 1.0, 2.0]))
    assert w.dtype == np.complex128
    np.testing.assert_array_equal(w, [3, 1, 2])
    np.testing.assert_array_equal(v, np.eye(3))


def test_eig_errors():
    with pytest.raises(ShapeError, match="Eig"):
        run("Eig", np.ones((2, 3)))
    with pytest.raises(VfwError, match="infs or NaNs"):
        run("Eig", np.array([[np.nan, 1.0], [1.0, 1.0]]))


LOSSES = {
    "values": lambda w, v: _sum(_abs2(w)),
    "real parts": lambda w, v: _sum(execute("Mul", execute("Real", w), np.arange(3.0))),
    "vector moduli": lambda w, v: _sum(execute("Mul", execute("ComplexAbs", v), np.arange(9.0).reshape(3, 3))),
}


@pytest.mark.parametrize("loss", sorted(LOSSES))
def test_eig_gradient_real_input(loss):
    check_loss_gradient(lambda a: LOSSES[loss](*execute("Eig", a)), [(3, 3)], RNG, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("loss", sorted(LOSSES))
def test_eig_gradient_complex_input(loss):
    check_loss_gradient(lambda re, im: LOSSES[loss](*execute("Eig", execute("ComplexMake", re, im))),
                        [(3, 3), (3, 3)], RNG, rtol=1e-5, atol=1e-7)


def test_eig_phase_dependent_loss_refused():
    from vfw.core import Tensor, autograd
    # a matrix of its own, with complex eigenvalues (the shared RNG's next draw depends on the tests run before;
    # a matrix with real eigenvalues has real eigenvectors, whose real part is not phase-dependent)
    values = np.random.default_rng(1).standard_normal((3, 3))
    assert np.iscomplex(np.linalg.eigvals(values)).any()
    a = Tensor(values, requires_grad=True)
    loss = _sum(execute("Real", execute("Eig", a)[1]))
    with pytest.raises(RuntimeError, match="e\\^\\{i phi\\}"):
        autograd.gradient([loss], [a])


def test_complex_solve_and_gradient():
    a = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))
    b = RNG.standard_normal((3, 2)) + 1j * RNG.standard_normal((3, 2))
    np.testing.assert_allclose(a @ run("Solve", a, b), b, atol=1e-12)
    w = RNG.standard_normal((3, 2)) + 1j * RNG.standard_normal((3, 2))

    def loss(ar, ai, br, bi):
        x = execute("Solve", execute("ComplexMake", ar, ai), execute("ComplexMake", br, bi))
        return _sum(execute("Add", execute("Real", execute("Mul", x, w)), execute("ComplexAbs", x)))
    check_loss_gradient(loss, [(3, 3), (3, 3), (3, 2), (3, 2)], RNG, rtol=1e-5, atol=1e-7)


_UNARY = {"Asin": np.arcsin, "Acos": np.arccos, "Atan": np.arctan, "Asinh": np.arcsinh, "Acosh": np.arccosh,
          "Atanh": np.arctanh, "Expm1": np.expm1, "Log1p": lambda z: np.log(1 + z), "Log2": np.log2,
          "Log10": np.log10}


@pytest.mark.parametrize("op_type", sorted(_UNARY))
def test_complex_unary_values_and_gradients(op_type):
    z = (RNG.standard_normal((3, 4)) + 1j * RNG.standard_normal((3, 4)))
    np.testing.assert_allclose(run(op_type, z), _UNARY[op_type](z), rtol=1e-13)
    assert run(op_type, z.astype(np.complex64)).dtype == np.complex64
    weight = RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3))

    def loss(re, im):
        y = execute(op_type, execute("ComplexMake", re, im))
        return _sum(execute("Add", execute("Real", execute("Mul", y, weight)), execute("ComplexAbs", y)))
    check_loss_gradient(loss, [(2, 3), (2, 3)], RNG, rtol=1e-5, atol=1e-7)


def test_complex_log1p_small_arguments():
    z = np.array([1e-9 + 2e-9j, -3e-12 + 1e-12j, 1e-5 - 1e-5j])
    # log1p(z) = z - z^2/2 + z^3/3 - ... (three terms are exact to double precision here)
    np.testing.assert_allclose(run("Log1p", z), z - z ** 2 / 2 + z ** 3 / 3, rtol=1e-14)
    np.testing.assert_allclose(run("Log1p", z.astype(np.complex64)), z - z ** 2 / 2, rtol=1e-6)
