"""Gradients of the matrix decompositions and solvers (vfw.core.ops.linalg_decomp) against finite differences.

Cholesky and Eigh read one triangle of A, and their gradients are the symmetric ones
(PyTorch's convention): those are checked along symmetric perturbations E_ij + E_ji,
the only directions in which the symmetric gradient is the derivative.
"""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import Tensor, autograd, execute, run
from vfw.core.autograd import NoGradientError

RNG = np.random.default_rng(0)


def x(*shape):
    return RNG.standard_normal(shape)


def square(*shape):
    return x(*shape) + shape[-1] * np.eye(shape[-1])


def spd(*shape):
    a = x(*shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def sym(*shape):
    a = x(*shape)
    return a + np.swapaxes(a, -1, -2)


TOL = np.zeros(())
EPS = np.asarray(1e-9)


# -- Inverse, Det, SLogDet, Solve, TriangularSolve -------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3), (1, 1)])
@pytest.mark.parametrize("op", ["Inverse", "Det", "SLogDet"])
def test_inverse_and_determinants(op, shape):
    a = square(*shape)
    a[..., :1, :] *= -1  # a negative determinant too
    check_gradient(op, [a])
    check_higher_order(op, [a])


def test_inverse_third_order():
    check_higher_order("Inverse", [square(2, 2)], order=3)


def test_det_of_singular_matrices_is_the_transposed_adjugate():
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 0.0]])  # rank 2
    t = Tensor(a, requires_grad=True)
    (g,) = autograd.gradient([execute("Det", t)], [t])
    cofactors = np.array([[-6.0, 0.0, 2.0], [3.0, 0.0, -1.0], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(g.array, cofactors, atol=1e-12)
    t = Tensor(np.diag([2.0, 3.0, 0.0]), requires_grad=True)
    (g,) = autograd.gradient([execute("Det", t)], [t])
    np.testing.assert_allclose(g.array, np.diag([0.0, 0.0, 6.0]), atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_det_gradient_dtype(dtype):
    t = Tensor(square(3, 3).astype(dtype), requires_grad=True)
    (g,) = autograd.gradient([execute("Det", t)], [t])
    assert g.array.dtype == dtype
    expected = np.linalg.det(t.array.astype(np.float64)) * np.linalg.inv(t.array.astype(np.float64)).T
    np.testing.assert_allclose(g.array, expected, rtol=2e-2 if dtype == np.float16 else 1e-5)


@pytest.mark.parametrize("sa,sb", [((3, 3), (3, 2)), ((2, 3, 3), (3, 1)), ((3, 3), (2, 3, 2)),
                                   ((2, 1, 2, 2), (3, 2, 1))])
def test_solve(sa, sb):
    check_gradient("Solve", [square(*sa), x(*sb)])
    check_higher_order("Solve", [square(*sa), x(*sb)])


@pytest.mark.parametrize("sa,sb", [((3, 3), (3, 2)), ((2, 3, 3), (3, 1)), ((3, 3), (2, 3, 2))])
@pytest.mark.parametrize("upper", [0, 1])
@pytest.mark.parametrize("unit", [0, 1])
def test_triangular_solve(sa, sb, upper, unit):
    attrs = {"upper": upper, "unitriangular": unit}
    check_gradient("TriangularSolve", [square(*sa), x(*sb)], attrs)
    if unit == 0:
        check_higher_order("TriangularSolve", [square(*sa), x(*sb)], attrs)


def test_one_operand_only():
    check_gradient("Solve", [square(3, 3), x(3, 2)], wrt=[1])
    check_gradient("TriangularSolve", [square(3, 3), x(3, 2)], wrt=[0])


# -- QR, SVD, PInv ------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape,mode", [((4, 3), "reduced"), ((3, 3), "reduced"), ((3, 5), "reduced"),
                                        ((2, 4, 3), "reduced"), ((3, 3), "complete"), ((2, 3, 5), "complete")])
def test_qr(shape, mode):
    check_gradient("QR", [x(*shape)], {"mode": mode})


@pytest.mark.parametrize("shape", [(4, 3), (3, 5)])
def test_qr_second_order(shape):
    check_higher_order("QR", [x(*shape)], {"mode": "reduced"})


@pytest.mark.parametrize("mode,shape", [("r", (3, 3)), ("complete", (4, 3))])
def test_qr_modes_without_gradient(mode, shape):
    t = Tensor(x(*shape), requires_grad=True)
    r = execute("QR", t, mode=mode)[1]
    with pytest.raises(NoGradientError, match="QR"):
        autograd.gradient([r], [t])


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 3)])
def test_svd(shape):
    check_gradient("SVD", [x(*shape)], {"full_matrices": 0})
    if shape == (3, 3):
        check_gradient("SVD", [x(*shape)], {"full_matrices": 1})


@pytest.mark.parametrize("shape", [(4, 3), (3, 4)])
def test_svd_second_order(shape):
    check_higher_order("SVD", [x(*shape)], {"full_matrices": 0})


@pytest.mark.parametrize("shape", [(5, 3), (3, 5)])
def test_svd_full_matrices_ignores_the_extra_vectors(shape):
    # The columns of U (rows of Vh) past min(m, n) are an arbitrary basis: not differentiable, and
    # ignored as in torch. S alone is checked against finite differences; with weights only on the
    # first k vectors the gradient equals the reduced SVD's.
    a = x(*shape)
    check_gradient("SVD", [a], {"full_matrices": 1}, outputs=[1])
    k = min(shape)
    full = run("SVD", a, full_matrices=1)
    weights = [x(*o.shape) for o in full]
    weights[0][:, k:] = 0
    weights[2][k:, :] = 0
    grads = []
    for full_matrices, ws in ((1, weights), (0, [weights[0][:, :k], weights[1], weights[2][:k]])):
        t = Tensor(a, requires_grad=True)
        outs = execute("SVD", t, full_matrices=full_matrices)
        grads.append(autograd.gradient(list(outs), [t], [Tensor(w) for w in ws])[0].array)
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10, atol=1e-12)


def test_values_only_gradients_with_repeated_values():
    # With only S (or w) used, the vector terms (1 / (s_j^2 - s_i^2) = inf here) drop out. Equal
    # weights on the repeated values make the result independent of the basis LAPACK picks.
    a = np.diag([2.0, 2.0, 1.0])
    for op, weights in (("SVD", [1.0, 1.0, 3.0]), ("Eigh", [3.0, 1.0, 1.0])):
        t = Tensor(a, requires_grad=True)
        values = execute(op, t)[1 if op == "SVD" else 0]
        (g,) = autograd.gradient([values], [t], [Tensor(np.array(weights))])
        np.testing.assert_allclose(g.array, np.diag([1.0, 1.0, 3.0]), atol=1e-12)


@pytest.mark.parametrize("a", [x(4, 3), x(3, 5), x(2, 3, 3), np.eye(3)])
def test_pinv(a):
    # Full-rank inputs: the rank is locally constant, so the pseudo-inverse is differentiable.
    check_gradient("PInv", [a, TOL, EPS], wrt=[0])
    check_higher_order("PInv", [a, TOL, EPS], wrt=[0])


def test_pinv_hermitian():
    # The kernel reads A's lower triangle; the gradient is the general pseudo-inverse's (as torch's),
    # which is the derivative along symmetric perturbations.
    a = sym(3, 3)
    weights = [x(3, 3)]
    attrs = {"hermitian": 1}
    t = Tensor(a, requires_grad=True)
    (g,) = autograd.gradient([execute("PInv", t, TOL, EPS, **attrs)], [t], [Tensor(weights[0])])
    f = lambda arr: float(np.sum(run("PInv", arr, TOL, EPS, **attrs) * weights[0]))  # noqa: E731
    _check_symmetric(f, g.array, a, symmetric=False)


# -- Cholesky and Eigh: symmetric gradients -------------------------------------------------------
def _weighted(op, attrs, weights):
    def f(a):
        outs = run(op, a, **attrs)
        outs = outs if isinstance(outs, tuple) else (outs,)
        return sum(float(np.sum(o * w)) for o, w in zip(outs, weights))

    return f


def _engine_grad(op, attrs, weights, a, create_graph=False):
    t = Tensor(a, requires_grad=True)
    outs = execute(op, t, **attrs)
    outs = list(outs) if isinstance(outs, tuple) else [outs]
    (g,) = autograd.gradient(outs, [t], [Tensor(w) for w in weights], create_graph=create_graph)
    return t, g


def _check_symmetric(f, grad, a, eps=1e-6, rtol=1e-6, symmetric=True):
    """``grad`` (symmetric unless told) against central differences of ``f`` along every E_ij + E_ji."""
    if symmetric:
        np.testing.assert_allclose(grad, np.swapaxes(grad, -1, -2), atol=1e-12)
    n = a.shape[-1]
    for index in np.ndindex(a.shape[:-2]):
        for i in range(n):
            for j in range(i + 1):
                e = np.zeros_like(a)
                e[index + (i, j)] = e[index + (j, i)] = 1
                numeric = (f(a + eps * e) - f(a - eps * e)) / (2 * eps)
                np.testing.assert_allclose(np.sum(grad * e), numeric, rtol=rtol, atol=1e-8)


SYMMETRIC_CASES = [("Cholesky", {"upper": 0}, spd), ("Cholesky", {"upper": 1}, spd), ("Eigh", {"UPLO": "L"}, sym),
                   ("Eigh", {"UPLO": "U"}, sym)]


@pytest.mark.parametrize("op,attrs,make", SYMMETRIC_CASES)
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1)])
def test_symmetric_first_order(op, attrs, make, shape):
    a = make(*shape)
    outs = run(op, a, **attrs)
    weights = [x(*o.shape) for o in (outs if isinstance(outs, tuple) else (outs,))]
    _, g = _engine_grad(op, attrs, weights, a)
    _check_symmetric(_weighted(op, attrs, weights), g.array, a)


@pytest.mark.parametrize("op,attrs,make", SYMMETRIC_CASES)
def test_symmetric_second_order(op, attrs, make):
    # F(A) = <v, grad <w, op(A)>>: its engine gradient (create_graph) against differences of F.
    a = make(3, 3)
    outs = run(op, a, **attrs)
    weights = [x(*o.shape) for o in (outs if isinstance(outs, tuple) else (outs,))]
    v = sym(3, 3)

    def second(arr, create_graph):
        t, g = _engine_grad(op, attrs, weights, arr, create_graph)
        total = execute("ReduceSum", execute("Mul", g, Tensor(v)), np.zeros(0, np.int64), keepdims=0)
        return t, total

    t, total = second(a, True)
    (gg,) = autograd.gradient([total], [t])
    _check_symmetric(lambda arr: float(second(arr, False)[1].array), gg.array, a, eps=1e-5, rtol=1e-5)
