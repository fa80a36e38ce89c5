"""Gradients of MatMul, Gemm and Einsum (vfw.core.ops.linalg) against finite differences."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import Tensor, autograd, execute
from vfw.core.autograd import NoGradientError

RNG = np.random.default_rng(0)


def x(*shape):
    return RNG.standard_normal(shape)


# -- MatMul -----------------------------------------------------------------------------------------------------
MATMUL_SHAPES = [
    ((3, 4), (4, 5)),
    ((4,), (4,)),  # dot product
    ((4,), (4, 5)),  # vector @ matrix
    ((3, 4), (4,)),  # matrix @ vector
    ((2, 3, 4), (4, 5)),  # batch @ matrix (a linear layer)
    ((2, 3, 4), (4,)),
    ((4,), (2, 4, 5)),
    ((3, 4), (2, 4, 5)),  # matrix @ batch
    ((2, 1, 3, 4), (5, 4, 2)),  # broadcast batch dims on both sides
    ((1, 3, 4), (2, 4, 2)),
    ((2, 2, 3, 4), (2, 2, 4, 1)),
    ((1, 4), (4, 1)),
]


@pytest.mark.parametrize(("sa", "sb"), MATMUL_SHAPES)
def test_matmul(sa, sb):
    check_gradient("MatMul", [x(*sa), x(*sb)])


@pytest.mark.parametrize(("sa", "sb"), MATMUL_SHAPES)
def test_matmul_second_order(sa, sb):
    check_higher_order("MatMul", [x(*sa), x(*sb)])


@pytest.mark.parametrize(("sa", "sb"), [((2, 3), (3, 2)), ((2, 2, 3), (3,))])
def test_matmul_third_order(sa, sb):
    check_higher_order("MatMul", [x(*sa), x(*sb)], order=3)


@pytest.mark.parametrize("wrt", [[0], [1]])
def test_matmul_one_operand(wrt):
    check_gradient("MatMul", [x(2, 3, 4), x(4, 2)], wrt=wrt)


def test_matmul_empty_inner_dim_gives_empty_and_zero_gradients():
    a, b = Tensor(np.zeros((2, 0)), requires_grad=True), Tensor(np.zeros((0, 3)), requires_grad=True)
    ga, gb = autograd.gradient(execute("MatMul", a, b), [a, b])
    assert ga.shape == (2, 0) and gb.shape == (0, 3)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_matmul_low_precision(dtype):
    a64, b64, w64 = x(2, 3, 4), x(4, 2), x(2, 3, 2)
    results = []
    for dt in (np.float64, dtype):
        a, b = Tensor(a64.astype(dt), requires_grad=True), Tensor(b64.astype(dt), requires_grad=True)
        grads = autograd.gradient(execute("MatMul", a, b), [a, b], [Tensor(w64.astype(dt))])
        assert all(g.dtype == dt for g in grads)
        results.append([g.array.astype(np.float64) for g in grads])
    tol = 1e-5 if dtype == np.float32 else 1e-2
    for lo, hi in zip(results[1], results[0]):
        np.testing.assert_allclose(lo, hi, rtol=tol, atol=tol)


# -- Gemm -------------------------------------------------------------------------------------------------------
def gemm_inputs(trans_a, trans_b, c_shape, m=3, k=4, n=5):
    a = x(k, m) if trans_a else x(m, k)
    b = x(n, k) if trans_b else x(k, n)
    return [a, b] + ([] if c_shape is None else [x(*c_shape)])


@pytest.mark.parametrize("trans_a", [0, 1])
@pytest.mark.parametrize("trans_b", [0, 1])
@pytest.mark.parametrize("c_shape", [None, (), (1,), (5,), (3, 1), (1, 5), (3, 5), (1, 1)])
@pytest.mark.parametrize(("alpha", "beta"), [(1.0, 1.0), (0.7, -1.3)])
def test_gemm(trans_a, trans_b, c_shape, alpha, beta):
    check_gradient("Gemm", gemm_inputs(trans_a, trans_b, c_shape),
                   {"transA": trans_a, "transB": trans_b, "alpha": alpha, "beta": beta})


def test_gemm_beta_zero_gives_c_a_zero_gradient():
    # beta=0 means C is not read (NaN in it does not propagate), and its gradient is zero.
    a, b = Tensor(x(3, 4), requires_grad=True), Tensor(x(4, 2), requires_grad=True)
    c = Tensor(np.full((3, 2), np.nan), requires_grad=True)
    ga, gb, gc = autograd.gradient(execute("Gemm", a, b, c, beta=0.0), [a, b, c])
    np.testing.assert_array_equal(gc.array, np.zeros((3, 2)))
    np.testing.assert_allclose(ga.array, np.ones((3, 2)) @ b.array.T)
    np.testing.assert_allclose(gb.array, a.array.T @ np.ones((3, 2)))
    check_gradient("Gemm", [x(3, 4), x(4, 2), x(2)], {"beta": 0.0, "alpha": 2.0})


@pytest.mark.parametrize("trans_a", [0, 1])
@pytest.mark.parametrize("trans_b", [0, 1])
@pytest.mark.parametrize("c_shape", [None, (2,), (3, 2)])
def test_gemm_second_order(trans_a, trans_b, c_shape):
    check_higher_order("Gemm", gemm_inputs(trans_a, trans_b, c_shape, m=3, k=2, n=2),
                       {"transA": trans_a, "transB": trans_b, "alpha": 0.7, "beta": -1.3})


def test_gemm_third_order():
    check_higher_order("Gemm", gemm_inputs(1, 1, (1, 2), m=2, k=3, n=2), {"transA": 1, "transB": 1, "alpha": 1.5},
                       order=3)


def test_gemm_float32():
    a, b, c = (Tensor(v.astype(np.float32), requires_grad=True) for v in gemm_inputs(1, 0, (5,)))
    grads = autograd.gradient(execute("Gemm", a, b, c, transA=1, alpha=0.5, beta=2.0), [a, b, c])
    assert [g.dtype for g in grads] == [np.float32] * 3
    np.testing.assert_allclose(grads[2].array, np.full(5, 6.0))  # beta * (sum over M=3 rows of ones)


# -- Einsum -----------------------------------------------------------------------------------------------------
EINSUMS = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),  # matrix product
    ("ij,jk", [(2, 3), (3, 4)]),  # implicit output
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),  # full sum: the label is in no other term, restored by Expand
    ("ij->i", [(2, 3)]),
    ("i,j->ij", [(2,), (3,)]),  # outer product
    ("i,i->", [(4,), (4,)]),
    ("ij,ij,j->i", [(2, 3), (2, 3), (3,)]),  # three operands
    ("ii->i", [(3, 3)]),  # diagonal
    ("ii", [(3, 3)]),  # trace (implicit)
    ("ii->", [(3, 3)]),
    ("iij->j", [(3, 3, 2)]),
    ("iji->j", [(2, 3, 2)]),
    ("ii,i->", [(3, 3), (3,)]),
    ("ij,jj->i", [(2, 3), (3, 3)]),  # diagonal of the second operand
    ("iii->", [(2, 2, 2)]),
    ("ij,k->ijk", [(2, 3), (2,)]),
    ("ijk,k->", [(2, 3, 4), (4,)]),
    ("...", [(2, 3)]),
    ("...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 2)]),  # ellipsis of different ranks, size-1 broadcast
    ("i...,i...->...", [(2, 1, 3), (2, 4, 1)]),
    ("...i,i->...", [(2, 3, 4), (4,)]),
    ("i...j,j->i...", [(2, 3, 1, 4), (4,)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("...,...->...", [(3, 1), (1, 2)]),
    ("ab...,b->a...", [(2, 3), (3,)]),  # an ellipsis standing for no dims
    ("Ab,bA->A", [(2, 3), (3, 2)]),  # upper-case labels
]


@pytest.mark.parametrize(("equation", "shapes"), EINSUMS)
def test_einsum(equation, shapes):
    check_gradient("Einsum", [x(*s) for s in shapes], {"equation": equation})


@pytest.mark.parametrize(("equation", "shapes"), [
    ("ij,jk->ik", [(2, 3), (3, 2)]), ("ii->i", [(3, 3)]), ("...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 2)]),
    ("ij,ij,j->i", [(2, 3), (2, 3), (3,)]), ("ij->", [(2, 3)]),
])
def test_einsum_second_order(equation, shapes):
    check_higher_order("Einsum", [x(*s) for s in shapes], {"equation": equation})


def test_einsum_same_tensor_twice():
    t = Tensor(x(3), requires_grad=True)
    (g,) = autograd.gradient(execute("Einsum", t, t, equation="i,i->"), [t])
    np.testing.assert_allclose(g.array, 2 * t.array)


def test_einsum_float32_and_constant_operand():
    a = Tensor(x(2, 3).astype(np.float32), requires_grad=True)
    b = x(3, 4).astype(np.float32)  # a plain array: a constant
    (g,) = autograd.gradient(execute("Einsum", a, b, equation="ij,jk->ik"), [a])
    assert g.dtype == np.float32
    np.testing.assert_allclose(g.array, np.ones((2, 4)) @ b.T, rtol=1e-6)


def test_einsum_out_of_labels_raises():
    # 50 named size-1 dims and a 3-dim ellipsis need 53 labels: more than the 52 letters einsum has.
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX"
    t = Tensor(np.ones((1,) * 50 + (2, 2, 2)), requires_grad=True)
    y = execute("Einsum", t, equation=letters + "...->...")
    with pytest.raises(NoGradientError, match="Einsum: too many labels"):
        autograd.gradient(y, [t])
