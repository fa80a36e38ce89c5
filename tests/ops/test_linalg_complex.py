"""Complex Inverse, Det and SLogDet in the engine: values against numpy, dtypes, and gradients of real losses
against central differences (the complex matrices built from real leaves with ComplexMake)."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_loss_gradient
from vfw.core import Tensor, autograd, execute, run
from vfw.core.errors import DTypeError

RNG = np.random.default_rng(31)


def _complex(shape, dtype=np.complex128):
    return (RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)).astype(dtype)


def _sum(t):
    return execute("ReduceSum", t, keepdims=0)


def _real_loss(z, weight):
    """A real loss that depends on both parts and the phase of ``z``: sum(Re(z w) + |z|)."""
    return _sum(execute("Add", execute("Real", execute("Mul", z, weight)), execute("ComplexAbs", z)))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_values_and_dtypes(dtype):
    a = _complex((2, 3, 3), dtype)
    tol = 1e-4 if dtype == np.complex64 else 1e-12
    inverse = run("Inverse", a)
    assert inverse.dtype == dtype
    np.testing.assert_allclose(a @ inverse, np.broadcast_to(np.eye(3), a.shape), atol=tol)
    det = run("Det", a)
    assert det.dtype == dtype and det.shape == (2,)
    want = np.linalg.det(a.astype(np.complex128))
    np.testing.assert_allclose(det, want, rtol=tol)
    sign, logabs = run("SLogDet", a)
    assert sign.dtype == dtype and logabs.dtype == np.dtype(dtype).type(0).real.dtype
    np.testing.assert_allclose(sign, want / np.abs(want), rtol=tol)
    np.testing.assert_allclose(logabs, np.log(np.abs(want)), rtol=tol)


def test_complex_singular_slogdet():
    a = np.array([[1, 2j], [1, 2j]])
    sign, logabs = run("SLogDet", a)
    assert sign == 0 and logabs == -np.inf


def test_inverse_gradient():
    weight = _complex((3, 3))
    check_loss_gradient(lambda re, im: _real_loss(execute("Inverse", execute("ComplexMake", re, im)), weight),
                        [(3, 3), (3, 3)], RNG)


def test_det_gradient():
    weight = _complex((2,))
    check_loss_gradient(lambda re, im: _real_loss(execute("Det", execute("ComplexMake", re, im)), weight),
                        [(2, 3, 3), (2, 3, 3)], RNG)


def test_det_gradient_singular_complex():
    # a rank-deficient complex matrix: the gradient is the conjugate cofactor matrix (taken from the minors)
    u, v = _complex((3, 2)), _complex((2, 3))
    a = u @ v
    cofactors = np.array([[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(a, i, 0), j, 1)) for j in range(3)]
                          for i in range(3)])
    leaf = Tensor(a, requires_grad=True)
    weight = np.asarray(0.5 - 2j)
    (grad,) = autograd.gradient([execute("Real", execute("Mul", execute("Det", leaf), weight))], [leaf])
    # L = Re(w det A): gA = conj(w d det/dA) = conj(w) conj(cofactors)
    np.testing.assert_allclose(grad.array, np.conj(weight * cofactors), atol=1e-12)


def test_slogdet_gradient_both_outputs():
    sign_weight, logabs_weight = _complex((2,)), RNG.standard_normal(2)

    def loss(re, im):
        sign, logabs = execute("SLogDet", execute("ComplexMake", re, im))
        return execute("Add", _sum(execute("Real", execute("Mul", sign, sign_weight))),
                       _sum(execute("Mul", logabs, logabs_weight)))
    check_loss_gradient(loss, [(2, 3, 3), (2, 3, 3)], RNG)


@pytest.mark.parametrize("op_type", ["Inverse", "Det"])
def test_real_gradients_unchanged(op_type):
    # conj is the identity on real tensors: the real formulas still hold
    check_loss_gradient(lambda a: _sum(execute("Mul", execute(op_type, a), execute(op_type, a))), [(3, 3)], RNG)


def test_real_slogdet_gradient():
    check_loss_gradient(lambda a: _sum(execute("SLogDet", execute("Add", a, np.eye(3) * 4))[1]), [(3, 3)], RNG)


def test_complex_gather_gradient_scatters_along_an_axis():
    # Gather along a non-leading axis differentiates through ScatterElements(reduction='add'), complex too
    # (tf.linalg.trace's gradient takes this path)
    weight = _complex((3, 2))
    positions = np.array([2, 0], np.int64)
    check_loss_gradient(lambda re, im: _real_loss(execute("Gather", execute("ComplexMake", re, im), positions, axis=1),
                                                  weight), [(3, 4), (3, 4)], RNG)
    data = _complex((2, 3))
    updates = _complex((2, 2))
    index = np.array([[0, 0], [2, 1]], np.int64)
    want = data.copy()
    np.add.at(want, (np.arange(2)[:, None], index), updates)
    np.testing.assert_array_equal(run("ScatterElements", data, index, updates, axis=1, reduction="add"), want)
    with pytest.raises(DTypeError, match="reduction='max' is not defined for complex128"):
        run("ScatterElements", data, index, updates, axis=1, reduction="max")
