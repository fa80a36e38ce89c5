"""vfw.torch matrix products and linear algebra against real torch.

Products (matmul and its relatives, the add-product family, einsum, tensordot, kron,
cross, cdist, multi_dot, vecdot), torch.linalg (inverses, determinants, solvers,
decompositions, pinv/rank/lstsq, matrix functions, norms) and the legacy torch-level names.

Decompositions are unique only up to signs of singular/eigen vectors (and of Q's columns
with R's rows): their tests compare the invariants explicitly -- singular values and
eigenvalues, reconstructions ``U diag(S) Vh``, ``Q R``, ``V diag(w) V^T``, and the
elementwise absolute values or squares of the factors -- never the raw factors.
"""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compat_tests.torch import harness
from compat_tests.torch.harness import arrays, real, vt

INF = math.inf


def plain(result):
    """``result`` with torch.return_types objects as plain tuples (the harness compares those)."""
    if isinstance(result, tuple) and hasattr(type(result), "n_fields"):
        return tuple(plain(v) for v in result)
    if isinstance(result, (list, tuple)):
        return type(result)(plain(v) for v in result)
    return result


def check(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecations of chain_matmul, torch.cholesky ... in both libraries
        return harness.check(lambda torch, *a: plain(fn(torch, *a)), *args, **kwargs)


def check_grad(fn, *args, **kwargs):
    return harness.check_grad(lambda torch, *a: plain(fn(torch, *a)), *args, **kwargs)


def square(*shape, dtype="float64", seed=0):
    """Well-conditioned square matrices (random plus a multiple of the identity)."""
    a = arrays(shape, dtype=dtype, seed=seed, low=-1, high=1)
    return (a + shape[-1] * np.eye(shape[-1])).astype(dtype)


def spd(*shape, dtype="float64", seed=0):
    """Symmetric positive-definite matrices."""
    a = arrays(shape, dtype=dtype, seed=seed, low=-1, high=1)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def sym(*shape, dtype="float64", seed=0):
    a = arrays(shape, dtype=dtype, seed=seed)
    return ((a + np.swapaxes(a, -1, -2)) / 2).astype(dtype)


# -- matmul and friends --------------------------------------------------------------------
MATMUL_SHAPES = [((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((5, 2, 3), (3,)),
                 ((3,), (5, 3, 4)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((5, 2, 3), (5, 3, 4)),
                 ((2, 1, 2, 3), (5, 3, 4)), ((0, 3), (3, 4)), ((2, 0), (0, 4)), ((0,), (0,))]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_shapes(sa, sb):
    a, b = arrays(sa, sb, seed=1)
    check(lambda torch, a, b: (torch.matmul(a, b), a @ b, a.matmul(b), torch.linalg.matmul(a, b)), a, b)
    check_grad(lambda torch, a, b: a @ b, a, b)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8",
                                   "uint8", "bool"])
def test_product_dtypes(dtype):
    np_dtype = "float32" if dtype == "bfloat16" else dtype
    a, b, v, w = arrays((2, 3), (3, 4), (3,), (3,), dtype=np_dtype, seed=2, low=-4, high=4)
    bt = b.T.copy()

    def fn(torch, a, b, v, w, bt):
        if dtype == "bfloat16":
            a, b, v, w, bt = (x.to(torch.bfloat16) for x in (a, b, v, w, bt))
        return (torch.mm(a, b), a @ b, torch.mv(a, v), torch.dot(v, w), torch.vdot(v, w), torch.inner(a, bt),
                torch.outer(v, w), torch.bmm(a[None], b[None]), torch.tensordot(a, b, 1),
                torch.einsum("ij,jk->ik", a, b))
    check(fn, a, b, v, w, bt, rtol=1e-2 if dtype == "bfloat16" else 1e-5)


def test_integer_products_wrap_around():
    a = np.full((2, 20), 100, np.int8)
    check(lambda torch, a, at: (a @ at, torch.addmv(a[:, 0], a, a[0], alpha=3)), a, a.T.copy())


@pytest.mark.parametrize("fn", [
    lambda torch, x: torch.mm(x[0], torch.ones(4, 5)),
    lambda torch, x: torch.matmul(x[0], torch.ones(4, 5)),
    lambda torch, x: torch.matmul(x[0, 0], torch.ones(4)),
    lambda torch, x: torch.matmul(torch.ones(2), torch.ones(4, 5)),
    lambda torch, x: torch.matmul(x, torch.ones(2, 4, 5)),
    lambda torch, x: torch.matmul(x, torch.ones(3, 3, 5)),
    lambda torch, x: torch.matmul(torch.tensor(1.0), x),
    lambda torch, x: torch.mm(x[0], torch.ones(3, 2, dtype=torch.float64)),
    lambda torch, x: x @ torch.ones(3, dtype=torch.float64),
    lambda torch, x: torch.mm(x[0].long(), torch.ones(3, 2)),
    lambda torch, x: torch.mm(x[0], torch.ones(3)),
    lambda torch, x: torch.mm(x, torch.ones(3, 2)),
    lambda torch, x: torch.mm(x[0], [[1.0]]),
    lambda torch, x: torch.bmm(x, torch.ones(3, 2)),
    lambda torch, x: torch.bmm(x, torch.ones(3, 3, 2)),
    lambda torch, x: torch.bmm(x, torch.ones(2, 4, 2)),
    lambda torch, x: torch.bmm(x, torch.ones(2, 3, 2, dtype=torch.float64)),
    lambda torch, x: torch.mv(x[0], torch.ones(4)),
    lambda torch, x: torch.mv(x[0], torch.ones(3, 1)),
    lambda torch, x: torch.mv(x[0], torch.ones(3, dtype=torch.float64)),
    lambda torch, x: torch.dot(x[0, 0], torch.ones(4)),
    lambda torch, x: torch.dot(x[0], x[0]),
    lambda torch, x: torch.dot(x[0, 0], torch.ones(3, dtype=torch.float64)),
    lambda torch, x: torch.vdot(x[0, 0], x[0]),
    lambda torch, x: torch.inner(x, torch.ones(4, 2)),
    lambda torch, x: torch.inner(x, torch.ones(3, dtype=torch.float64)),
    lambda torch, x: torch.outer(x[0], x[0, 0]),
    lambda torch, x: torch.matmul(x.bool(), x[0, 0].bool()),
    lambda torch, x: torch.dot(x[0, 0].bool(), x[0, 0].bool()),
    lambda torch, x: torch.mv(x[0].bool(), x[0, 0].bool()),
    lambda torch, x: torch.mm(x[0].to(torch.uint16), x[0, :, :2].to(torch.uint16)),
    lambda torch, x: x @ 3,
])
def test_product_errors(fn):
    check(fn, arrays((2, 2, 3)))


def test_product_keywords_out_and_operator_protocol():
    a, b, v = arrays((2, 3), (3, 4), (3,), seed=3)
    bt = b.T.copy()

    def fn(torch, a, b, v, bt):
        out = torch.empty(0)
        r = torch.mm(a, b, out=out)
        out2 = torch.zeros(2, 4, dtype=torch.float64)
        torch.matmul(a, b, out=out2)
        return (r is out, out, out2, torch.mm(input=a, mat2=b), torch.mv(input=a, vec=v), torch.dot(v, tensor=v),
                torch.vdot(input=v, other=v), torch.outer(v, vec2=v), torch.ger(v, v), a.ger(v[:2]),
                torch.bmm(a[None], b[None], out=torch.empty(1, 2, 4)), torch.dot(v, v, out=torch.empty(())),
                a.mm(b), a.mv(v), v.dot(v), v.vdot(v), a.inner(bt), v.outer(v), a[None].bmm(b[None]))
    check(fn, a, b, v, bt)

    def rmatmul(torch, a, b, v):
        return a.__rmatmul__(v[:2]), type(a).__rmatmul__(a, [1.0, 2.0]), type(a).__matmul__(a, 2)
    check(rmatmul, a, b, v)

    def inplace(torch, a, b, v):
        c = a.clone()
        c @= b
        return c, a
    check(inplace, a, b, v)

    def out_requires_grad(torch, a, b, v):
        return torch.mm(a.requires_grad_(), b, out=torch.empty(2, 4))
    check(out_requires_grad, a, b, v)


@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((2, 3), (4, 3)), ((2, 2, 3), (3,)), ((), (2, 3)), ((2, 3), ()),
                                   ((0, 3), (2, 3))])
def test_inner_outer(sa, sb):
    a, b = arrays(sa, sb, seed=4)
    check(lambda torch, a, b: torch.inner(a, b), a, b)
    check_grad(lambda torch, a, b: torch.inner(a, b), a, b)
    check(lambda torch, a, b: torch.inner(a.long(), b), a, b)
    v, w = arrays((3,), (4,), seed=5)
    check_grad(lambda torch, v, w: (torch.outer(v, w), torch.ger(v, w)), v, w)
    check(lambda torch, v, w: (torch.outer(v.long(), w), torch.outer(v.to(torch.int8), w.to(torch.uint8)),
                               torch.outer(v > 0, w > 0), torch.outer(v.double(), w)), v, w)


def test_product_gradients():
    a, b, v, w = arrays((2, 3), (3, 4), (3,), (3,), dtype="float64", seed=6)
    check_grad(lambda torch, a, b, v, w: (torch.mm(a, b), torch.mv(a, v), torch.dot(v, w), torch.vdot(v, w),
                                          torch.bmm(a[None], b[None])), a, b, v, w)


# -- beta * input + alpha * product ------------------------------------------------------------
ADD_CASES = [
    ("addmm", (2, 4), ((2, 3), (3, 4))), ("addmm", (4,), ((2, 3), (3, 4))), ("addmm", (2, 1), ((2, 3), (3, 4))),
    ("addmm", (), ((2, 3), (3, 4))), ("addmv", (2,), ((2, 3), (3,))), ("addmv", (1,), ((2, 3), (3,))),
    ("addmv", (), ((2, 3), (3,))), ("addr", (2, 3), ((2,), (3,))), ("addr", (3,), ((2,), (3,))),
    ("addbmm", (2, 4), ((5, 2, 3), (5, 3, 4))), ("addbmm", (4,), ((5, 2, 3), (5, 3, 4))),
    ("baddbmm", (5, 2, 4), ((5, 2, 3), (5, 3, 4))), ("baddbmm", (2, 4), ((5, 2, 3), (5, 3, 4))),
]
SCALARS = [{}, {"beta": 0.5, "alpha": 2}, {"beta": 0}, {"alpha": 0, "beta": 3}, {"beta": 2.0, "alpha": -1.5}]


@pytest.mark.parametrize("name,si,sp", ADD_CASES)
@pytest.mark.parametrize("scalars", SCALARS)
def test_add_products(name, si, sp, scalars):
    x, a, b = arrays(si, *sp, dtype="float64", seed=7)
    check(lambda torch, x, a, b: (getattr(torch, name)(x, a, b, **scalars), getattr(x, name)(a, b, **scalars)),
          x, a, b)
    check_grad(lambda torch, x, a, b: getattr(torch, name)(x, a, b, **scalars), x, a, b)


@pytest.mark.parametrize("name,si,sp", ADD_CASES[::3])
@pytest.mark.parametrize("dtype", ["int64", "int32", "int8", "float16", "float32"])
@pytest.mark.parametrize("scalars", [{}, {"beta": 2, "alpha": 3}, {"beta": 2.5}, {"alpha": 1.5}, {"alpha": True}])
def test_add_products_dtypes(name, si, sp, dtype, scalars):
    if name == "addbmm" and dtype == "float16":
        return  # torch rounds half addbmm to float16 after each batch's product: values differ by an ulp or two
    x, a, b = arrays(si, *sp, dtype=dtype, seed=8, low=-3, high=3)
    check(lambda torch, x, a, b: getattr(torch, name)(x, a, b, **scalars), x, a, b)


def test_add_products_ignore_input_when_beta_is_zero():
    x, a, b = arrays((2, 4), (2, 3), (3, 4), seed=9)
    x[0, 0] = np.nan
    check(lambda torch, x, a, b: (torch.addmm(x, a, b, beta=0), torch.addmv(x[0], a, b[:, 0], beta=0),
                                  torch.addr(x[:, :3], a[:, 0], b[:, 0], beta=0),
                                  torch.baddbmm(x[None], a[None], b[None], beta=0)), x, a, b)


@pytest.mark.parametrize("fn", [
    lambda torch, x, a, b: torch.addmm(x, a, b.double()),
    lambda torch, x, a, b: torch.addmm(x.double(), a, b),
    lambda torch, x, a, b: torch.addmm(x[0, :3], a, b),
    lambda torch, x, a, b: torch.addmm(x[None], a, b),
    lambda torch, x, a, b: torch.addmm(x, a, b[:2]),
    lambda torch, x, a, b: torch.addmm(x.bool(), a.bool(), b.bool()),
    lambda torch, x, a, b: torch.addmv(x[0], a, b[:, 0].double()),
    lambda torch, x, a, b: torch.addmv(x[0, :3], a, b[:, 0]),
    lambda torch, x, a, b: torch.addr(x, a[:, 0], b[0]),
    lambda torch, x, a, b: torch.addr(x.long(), a[:, 0].long(), b[0].long(), alpha=2.5),
    lambda torch, x, a, b: torch.addr(x.long(), a[:, 0].long(), b[0].long(), beta=True),
    lambda torch, x, a, b: torch.addr(x[:, :3] > 0, a[:, 0] > 0, b[:, 0] > 0),
    lambda torch, x, a, b: torch.addr(x[:, :3] > 0, a[:, 0] > 0, b[:, 0] > 0, alpha=False),
    lambda torch, x, a, b: torch.addr(x[:, :3], a[:, 0].double(), b[:, 0]),
    lambda torch, x, a, b: torch.addbmm(x, torch.ones(3, 2, 3), torch.ones(2, 3, 4)),
    lambda torch, x, a, b: torch.addbmm(x, a[None], b[None, :2]),
    lambda torch, x, a, b: torch.addbmm(x, a, b),
    lambda torch, x, a, b: torch.baddbmm(x[None].double(), a[None], b[None]),
    lambda torch, x, a, b: torch.baddbmm(x[:, :1, None], a[None], b[None]),
])
def test_add_product_errors(fn):
    check(fn, *arrays((2, 4), (2, 3), (3, 4), seed=10))


def test_add_products_inplace_and_out():
    x, a, b = arrays((2, 4), (2, 3), (3, 4), seed=11)
    at = np.ascontiguousarray(a.T)

    def fn(torch, x, a, b, at):
        y = x.clone()
        r = y.addmm_(a, b, beta=0.5)
        z = x[0].clone()
        torch.addmv_(z, at, a[:, 0])
        w = x[:, :3].clone().addr_(a[:, 0], b[:3, 0], alpha=2)
        u = x[None].clone().baddbmm_(a[None], b[None])
        v = x.clone().addbmm_(a[None], b[None], beta=2)
        out = torch.empty(0)
        torch.addmm(x, a, b, out=out)
        return r is y, y, z, w, u, v, out, z.addmv_(at, a[:, 0]), torch.addmv(x[0], at, a[:, 0], out=torch.empty(4))
    check(fn, x, a, b, at)

    def leaf(torch, x, a, b):
        x.requires_grad_()
        return x.addmm_(a, b)
    check(leaf, x, a, b)


# -- einsum, tensordot ------------------------------------------------------------------------
EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("i,i->", [(3,), (3,)]), ("i,j->ij", [(3,), (2,)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]), ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("ij->ji", [(2, 3)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]), ("i j , j k -> i k", [(2, 3), (3, 4)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]), ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]), ("ij->", [(0, 3)]),
    ("Ab,bC->AC", [(2, 3), (3, 2)]), ("i...->...", [(2, 3, 4)]),
]


@pytest.mark.parametrize("equation,shapes", EINSUM_CASES)
def test_einsum(equation, shapes):
    ops = arrays(*shapes, dtype="float64", seed=12)
    ops = ops if isinstance(ops, list) else [ops]
    check(lambda torch, *ops: (torch.einsum(equation, *ops), torch.einsum(equation, list(ops))), *ops)
    check_grad(lambda torch, *ops: torch.einsum(equation, *ops), *ops)


def test_einsum_forms_and_errors():
    a, b = arrays((2, 3), (3, 4), seed=13)
    check(lambda torch, a, b: (torch.einsum(a, [0, 1], b, [1, 2], [0, 2]), torch.einsum(a, [0, 1], b, [1, 2]),
                               torch.einsum(a, [Ellipsis, 1], b, [1, Ellipsis]), torch.einsum("ij", a.bool()),
                               torch.einsum("ij,jk", a.long(), b.long()), torch.einsum("ij->j", a.half())), a, b)
    for fn in [lambda torch, a, b: torch.einsum("ij,jk", a, b.double()),
               lambda torch, a, b: torch.einsum("ij,kk", a, b),
               lambda torch, a, b: torch.einsum("ij->ijk", a),
               lambda torch, a, b: torch.einsum("ij,jk", a),
               lambda torch, a, b: torch.einsum("i,i", a[0] > 0, a[0] > 0),
               lambda torch, a, b: torch.einsum("ij", [a, b]),
               lambda torch, a, b: torch.einsum("ijk", a),
               lambda torch, a, b: torch.einsum()]:
        check(fn, a, b)


@pytest.mark.parametrize("sa,sb,dims", [
    ((2, 3), (3, 4), 1), ((2, 3, 4), (3, 4, 5), 2), ((2, 3), (4, 5), 0), ((2, 3, 4), (4, 3, 5), ([1, 2], [1, 0])),
    ((2, 3, 4), (4, 3, 5), [[-1], [0]]), ((3,), (3,), 1), ((2, 3, 4), (4, 3, 5), ((2,), (0,))), ((2, 3), (2, 3), 2),
])
def test_tensordot(sa, sb, dims):
    a, b = arrays(sa, sb, dtype="float64", seed=14)
    check(lambda torch, a, b: (torch.tensordot(a, b, dims), torch.tensordot(a, b, dims=dims)), a, b)
    check_grad(lambda torch, a, b: torch.tensordot(a, b, dims), a, b)


@pytest.mark.parametrize("fn", [
    lambda torch, a, b: torch.tensordot(a, b, -1),
    lambda torch, a, b: torch.tensordot(a, b, 3),
    lambda torch, a, b: torch.tensordot(a, b, ([0], [0, 1])),
    lambda torch, a, b: torch.tensordot(a, b, (1, 0)),
    lambda torch, a, b: torch.tensordot(a, b, [1, 0]),
    lambda torch, a, b: torch.tensordot(a, b, 2),
    lambda torch, a, b: torch.tensordot(a, b.double(), 1),
    lambda torch, a, b: torch.tensordot(a, b, ([5], [0])),
    lambda torch, a, b: torch.tensordot(a, b, torch.tensor(1)),
    lambda torch, a, b: torch.tensordot(a, b, 1, out=torch.empty(0)),
    lambda torch, a, b: torch.tensordot(a.long(), b.long(), 1),
])
def test_tensordot_arguments(fn):
    check(fn, *arrays((2, 3), (3, 4), seed=15))


# -- kron, cross, cdist, multi_dot, vecdot -------------------------------------------------------
@pytest.mark.parametrize("sa,sb", [((2,), (3,)), ((2, 3), (2, 2)), ((2, 3), (4,)), ((), (3,)), ((2, 1, 2), (3, 2)),
                                   ((0, 2), (2, 2))])
def test_kron(sa, sb):
    a, b = arrays(sa, sb, dtype="float64", seed=16)
    check(lambda torch, a, b: (torch.kron(a, b), a.kron(b), torch.kron(a.long(), b), torch.kron(a > 0, b > 0),
                               torch.kron(a.float(), b)), a, b)
    check_grad(lambda torch, a, b: torch.kron(a, b), a, b)


@pytest.mark.parametrize("sa,sb,dim", [((3,), (3,), -1), ((2, 3), (2, 3), -1), ((2, 3), (1, 3), 1),
                                       ((3, 2), (3, 2), 0), ((4, 3, 5), (4, 3, 5), -2), ((0, 3), (0, 3), -1)])
def test_cross(sa, sb, dim):
    a, b = arrays(sa, sb, dtype="float64", seed=17)
    check(lambda torch, a, b: (torch.linalg.cross(a, b, dim=dim), torch.cross(a, b, dim=dim),
                               torch.cross(a, b), a.cross(b), torch.linalg.cross(a.long(), b.long(), dim=dim)), a, b)
    check_grad(lambda torch, a, b: torch.linalg.cross(a, b, dim=dim), a, b)


@pytest.mark.parametrize("fn", [
    lambda torch, a, b: torch.linalg.cross(a, b[0]),
    lambda torch, a, b: torch.linalg.cross(a, b.double()),
    lambda torch, a, b: torch.linalg.cross(a > 0, b > 0),
    lambda torch, a, b: torch.linalg.cross(a[:, :2], b[:, :2]),
    lambda torch, a, b: torch.linalg.cross(a, b, dim=3),
    lambda torch, a, b: torch.cross(a[:, :2], b[:, :2]),
    lambda torch, a, b: torch.linalg.cross(a, b, dim=0),
])
def test_cross_errors(fn):
    check(fn, *arrays((2, 3), (2, 3), seed=18))


@pytest.mark.parametrize("p", [2.0, 1.0, 0.0, 3.0, 0.5, INF])
@pytest.mark.parametrize("sa,sb", [((3, 4), (5, 4)), ((2, 3, 4), (5, 4)), ((2, 3, 4), (1, 5, 4)), ((0, 4), (2, 4)),
                                   ((3, 0), (2, 0))])
def test_cdist(p, sa, sb):
    a, b = arrays(sa, sb, dtype="float64", seed=19)
    check(lambda torch, a, b: (torch.cdist(a, b, p=p), torch.cdist(a.float(), b.float(), p)), a, b)
    if a.size and b.size:
        check_grad(lambda torch, a, b: torch.cdist(a, b, p=p), a, b)


def test_cdist_zero_distance_gradient_and_errors():
    a = arrays((3, 2), dtype="float64", seed=20)
    check_grad(lambda torch, a: torch.cdist(a, a.detach()), a)
    for fn in [lambda torch, a: torch.cdist(a.long(), a.long()), lambda torch, a: torch.cdist(a, a.float()),
               lambda torch, a: torch.cdist(a, a[:, :1]), lambda torch, a: torch.cdist(a[0], a[0]),
               lambda torch, a: torch.cdist(a, a, p=-1), lambda torch, a: torch.cdist(a.half(), a.half())]:
        check(fn, a)


@pytest.mark.parametrize("shapes", [[(3,), (3, 4), (4,)], [(3,), (3, 4)], [(2, 3), (3, 4), (4, 5), (5, 1)],
                                    [(2, 3), (3,)]])
def test_multi_dot(shapes):
    ops = arrays(*shapes, dtype="float64", seed=21)
    check(lambda torch, *ops: (torch.linalg.multi_dot(ops), torch.linalg.multi_dot(list(ops), out=torch.empty(0,
                                                                                   dtype=torch.float64))), *ops)
    check_grad(lambda torch, *ops: torch.linalg.multi_dot(ops), *ops)


def test_chain_matmul_and_multi_dot_errors():
    a, b, c = arrays((2, 3), (3, 4), (4, 2), seed=22)
    check(lambda torch, a, b, c: (torch.chain_matmul(a, b, c), torch.chain_matmul(a)), a, b, c)
    for fn in [lambda torch, a, b, c: torch.linalg.multi_dot([a]), lambda torch, a, b, c: torch.chain_matmul(a[0], b),
               lambda torch, a, b, c: torch.linalg.multi_dot([a, b.double()]),
               lambda torch, a, b, c: torch.linalg.multi_dot([a[None], b]),
               lambda torch, a, b, c: torch.linalg.multi_dot([a, b[None], c]),
               lambda torch, a, b, c: torch.linalg.multi_dot([a, c])]:
        check(fn, a, b, c)


@pytest.mark.parametrize("sa,sb,dim", [((3,), (3,), -1), ((2, 3), (3,), -1), ((2, 3), (2, 1), 0), ((2, 3), (2, 3), 1),
                                       ((0, 3), (3,), -1)])
def test_vecdot(sa, sb, dim):
    a, b = arrays(sa, sb, dtype="float64", seed=23)
    check(lambda torch, a, b: (torch.linalg.vecdot(a, b, dim=dim), torch.linalg.vecdot(a.float(), b.float(), dim=dim)),
          a, b)
    check_grad(lambda torch, a, b: torch.linalg.vecdot(a, b, dim=dim), a, b)
    for fn in [lambda torch, a, b: torch.linalg.vecdot(a.long(), b.long()),
               lambda torch, a, b: torch.linalg.vecdot(a, b.float())]:
        check(fn, a, b)
    if len(sa) > 1:  # torch accepts any dim for two vectors (it ignores it)
        check(lambda torch, a, b: torch.linalg.vecdot(a, b, dim=4), a, b)


# -- inverses, determinants, solvers ------------------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1), (0, 0), (2, 0, 0), (2, 1, 2, 2)])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_inverse_and_determinants(shape, dtype):
    a = square(*shape, dtype=dtype, seed=24)
    a[..., :1, :] *= -1  # negative determinants too

    def fn(torch, a):
        return (torch.linalg.inv(a), torch.inverse(a), a.inverse(), torch.linalg.det(a), torch.det(a), a.det(),
                torch.linalg.slogdet(a), torch.slogdet(a), a.slogdet(), torch.logdet(a), a.logdet(),
                torch.linalg.inv_ex(a))
    check(fn, a, rtol=1e-4 if dtype == "float32" else 1e-5)
    if a.size:
        check(lambda torch, p: torch.logdet(p), spd(*shape, seed=25))
        check_grad(lambda torch, a, p: (torch.linalg.inv(a), torch.linalg.det(a), torch.linalg.slogdet(a)[1],
                                        torch.logdet(p)), square(*shape, seed=25), spd(*shape, seed=25))


def test_determinant_gradients_of_singular_matrices():
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 0.0]])
    check(lambda torch, a: torch.linalg.det(a), a)
    # The gradient against finite differences, which are exact here (det is linear in each entry): torch's own
    # gradient at this rank-2 matrix depends on its LAPACK's rounding (the cofactors on Intel Xeons, zeros on AMD
    # EPYCs, where its SVD finds the third singular value 6e-16 rather than 0).
    t = vt.from_numpy(a).requires_grad_()
    vt.linalg.det(t).backward()
    steps = np.eye(9).reshape(9, 3, 3)
    numeric = [(np.linalg.det(a + e) - np.linalg.det(a - e)) / 2 for e in steps]
    np.testing.assert_allclose(t.grad.numpy(), np.reshape(numeric, (3, 3)), atol=1e-12)
    # Left out: torch's gradient of det at diag(2, 3, 0) is 0, though d det / d A[2, 2] = 6 there.
    check(lambda torch, a: (torch.linalg.det(a), torch.linalg.slogdet(a), torch.logdet(a)), np.zeros((2, 2)))


@pytest.mark.parametrize("fn", [
    lambda torch, a: torch.linalg.inv(a),
    lambda torch, a: torch.inverse(a[None]),
    lambda torch, a: torch.linalg.solve(a, torch.ones(3, dtype=torch.float64)),
    lambda torch, a: torch.linalg.matrix_power(a, -2),
    lambda torch, a: torch.linalg.cholesky(a),
    lambda torch, a: torch.linalg.cholesky(-torch.eye(3)),
    lambda torch, a: torch.cholesky(torch.eye(3) - 2),
])
def test_linalg_errors_are_linalg_errors(fn):
    a = np.zeros((3, 3))
    check(fn, a)
    with pytest.raises(vt.linalg.LinAlgError) as info, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn(vt, vt.from_numpy(a))
    assert isinstance(info.value, RuntimeError)


def test_ex_variants_report_info():
    a = np.stack([np.eye(3), np.zeros((3, 3)), np.array([[1.0, 2, 3], [2, 4, 6], [1, 1, 1]])])
    check(lambda torch, a: (torch.linalg.inv_ex(a).info, torch.linalg.solve_ex(a, a).info,
                            torch.linalg.inv_ex(a[:1]), torch.linalg.solve_ex(a[0], a[0])), a)
    p = np.stack([spd(3, 3, seed=26), -np.eye(3), np.diag([1.0, 2.0, -3.0])])
    check(lambda torch, p: (torch.linalg.cholesky_ex(p).info, torch.linalg.cholesky_ex(p, upper=True).info,
                            torch.linalg.cholesky_ex(p[:1])), p)
    for fn in [lambda torch, a: torch.linalg.inv_ex(a, check_errors=True),
               lambda torch, a: torch.linalg.cholesky_ex(a, check_errors=True)]:
        check(fn, a)


@pytest.mark.parametrize("fn", [
    lambda torch, a: torch.linalg.inv(a.long()),
    lambda torch, a: torch.linalg.inv(a.half()),
    lambda torch, a: torch.linalg.det(a.half()),
    lambda torch, a: torch.linalg.det(a.long()),
    lambda torch, a: torch.linalg.inv(a[:, :2]),
    lambda torch, a: torch.linalg.inv(a[0]),
    lambda torch, a: torch.linalg.det(a[:2]),
    lambda torch, a: torch.linalg.eigh(a.half()),
    lambda torch, a: torch.linalg.eigh(a, UPLO="X"),
    lambda torch, a: torch.linalg.qr(a, mode="x"),
    lambda torch, a: torch.linalg.svd(a.long()),
    lambda torch, a: torch.linalg.cholesky(a[:, :2]),
    lambda torch, a: torch.linalg.matrix_rank(a.long()),
    lambda torch, a: torch.linalg.solve(a, a.float()),
    lambda torch, a: torch.linalg.solve(a, a[:2]),
    lambda torch, a: torch.linalg.solve(a, a[:2], left=False),
    lambda torch, a: torch.linalg.solve_triangular(a, a[0], upper=True),
    lambda torch, a: torch.linalg.solve_triangular(a, a[:2], upper=True),
    lambda torch, a: torch.linalg.lstsq(a, a[:2]),
    lambda torch, a: torch.linalg.lstsq(a, a, driver="xx"),
    lambda torch, a: torch.linalg.pinv(a[:2], hermitian=True),
    lambda torch, a: torch.matrix_power(a[:2], 2),
    lambda torch, a: torch.matrix_power(a.long(), -1),
    lambda torch, a: torch.matrix_power(a > 0, 2),
    lambda torch, a: torch.matrix_exp(a.long()),
])
def test_decomposition_argument_errors(fn):
    check(fn, square(3, 3, seed=27))


@pytest.mark.parametrize("sa,sb", [((3, 3), (3, 2)), ((3, 3), (3,)), ((2, 3, 3), (3,)), ((2, 3, 3), (2, 3)),
                                   ((2, 3, 3), (4, 1, 3, 2)), ((3, 3), (2, 3, 1)), ((0, 0), (0, 2))])
@pytest.mark.parametrize("left", [True, False])
def test_solve(sa, sb, left):
    a, b = square(*sa, seed=28), arrays(sb, dtype="float64", seed=29)
    if not left and len(sb) > 1:
        b = np.swapaxes(b, -1, -2).copy()
    check(lambda torch, a, b: (torch.linalg.solve(a, b, left=left), torch.linalg.solve_ex(a, b, left=left)), a, b)
    vector = len(sb) == 1 or sb == sa[:-1]
    if a.size and (left or not vector):  # a vector B is a column: X A = B has no solution for it
        check_grad(lambda torch, a, b: torch.linalg.solve(a, b, left=left), a, b)


@pytest.mark.parametrize("sa,sb", [((3, 3), (3, 2)), ((2, 3, 3), (3, 4)), ((3, 3), (2, 3, 1))])
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unitriangular", [False, True])
def test_solve_triangular(sa, sb, upper, left, unitriangular):
    a, b = square(*sa, seed=30), arrays(sb, dtype="float64", seed=31)
    if not left:
        b = np.swapaxes(b, -1, -2).copy()

    def fn(torch, a, b):
        return torch.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unitriangular)
    check(fn, a, b)
    check_grad(fn, a, b)
    if left:
        check(lambda torch, a, b: torch.triangular_solve(b, a, upper=upper, transpose=unitriangular), a, b)
        check_grad(lambda torch, a, b: torch.triangular_solve(b, a, upper=upper, transpose=unitriangular)[0], a, b)


def test_solve_triangular_with_a_zero_on_the_diagonal():
    a = np.triu(square(3, 3, seed=32))
    a[1, 1] = 0
    check(lambda torch, a: torch.linalg.solve_triangular(a, torch.ones(3, 1, dtype=torch.float64), upper=True), a)


# -- Cholesky, QR, SVD, eigh ----------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1), (0, 0)])
def test_cholesky(shape):
    a = spd(*shape, seed=33)
    check(lambda torch, a: (torch.linalg.cholesky(a), torch.linalg.cholesky(a, upper=True), torch.cholesky(a),
                            torch.cholesky(a, upper=True), a.cholesky(), torch.linalg.cholesky_ex(a),
                            torch.linalg.cholesky(a.float())), a)
    b = arrays(shape[:-1] + (2,), dtype="float64", seed=34)
    check(lambda torch, a, b: (torch.cholesky_solve(b, torch.linalg.cholesky(a)),
                               torch.cholesky_solve(b, torch.linalg.cholesky(a, upper=True), upper=True),
                               torch.cholesky_inverse(torch.linalg.cholesky(a)),
                               b.cholesky_solve(torch.linalg.cholesky(a)),
                               torch.cholesky_inverse(torch.linalg.cholesky(a, upper=True), upper=True)), a, b)
    if a.size:
        # The gradient is symmetric (torch's convention: the derivative along symmetric perturbations).
        check_grad(lambda torch, a: (torch.linalg.cholesky(a), torch.linalg.cholesky(a, upper=True)), a)
        check_grad(lambda torch, a, b: torch.cholesky_solve(b, torch.linalg.cholesky(a)), a, b)


def test_cholesky_reads_one_triangle():
    a = spd(3, 3, seed=35)
    a[0, 2] += 5.0  # the upper triangle is no longer the lower's mirror
    check(lambda torch, a: (torch.linalg.cholesky(a), torch.linalg.cholesky(a, upper=True),
                            torch.linalg.eigh(a)[0], torch.linalg.eigh(a, UPLO="U")[0], torch.linalg.eigvalsh(a, "U")),
          a)


def _qr_invariants(torch, q, r):
    """Q R, and |Q|, |R|: unique however the signs of Q's columns (and R's rows) are chosen."""
    return q @ r, q.abs(), r.abs()


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 3), (2, 3, 5), (0, 3), (3, 0)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(shape, mode):
    a = arrays(shape, dtype="float64", seed=36)

    def fn(torch, a):
        q, r = torch.linalg.qr(a, mode=mode)
        if mode == "r":
            return q, r.abs()
        return _qr_invariants(torch, q, r)
    check(fn, a)
    check(lambda torch, a: _qr_invariants(torch, *torch.qr(a, some=mode != "complete")), a)
    check(lambda torch, a: _qr_invariants(torch, *torch.linalg.qr(a.float())), a)
    differentiable = mode == "reduced" or (mode == "complete" and shape[-2] <= shape[-1])
    if a.size and differentiable:
        # Q * Q and R * R do not depend on the signs either; their gradients do not.
        check_grad(lambda torch, a: [(f * f) for f in torch.linalg.qr(a, mode=mode)], a)
    elif a.size:
        check(lambda torch, a: torch.autograd.grad(torch.linalg.qr(a.requires_grad_(), mode=mode)[1].sum(), a), a)


def _svd_invariants(torch, u, s, vh, k):
    """Singular values, the reconstruction from the first k singular triplets, |U| and |Vh| (columns/rows up to k)."""
    u, vh = u[..., :k], vh[..., :k, :]
    return s, torch.einsum("...ik,...k,...kj->...ij", u, s, vh), u.abs(), vh.abs()


@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 3), (2, 1, 3, 5), (0, 3), (3, 0)])
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd(shape, full_matrices):
    a = arrays(shape, dtype="float64", seed=37)
    k = min(shape[-2:])

    def fn(torch, a):
        u, s, vh = torch.linalg.svd(a, full_matrices=full_matrices)
        return u.shape, vh.shape, _svd_invariants(torch, u, s, vh, k), torch.linalg.svdvals(a)
    check(fn, a)
    check(lambda torch, a: _svd_invariants(torch, *torch.linalg.svd(a.float(), full_matrices), k), a, rtol=1e-4)

    def legacy(torch, a):
        u, s, v = torch.svd(a, some=not full_matrices)
        k_ = min(a.shape[-2:])
        return (u.shape, v.shape, s, torch.einsum("...ik,...k,...jk->...ij", u[..., :k_], s, v[..., :k_]),
                u[..., :k_].abs(), v[..., :k_].abs(), torch.svd(a, compute_uv=False))
    check(legacy, a)
    if a.size:
        # S, U * U and Vh * Vh are sign-invariant functions of A with informative gradients.
        check_grad(lambda torch, a: [(s if i == 1 else (s[..., :, :k] if i == 0 else s[..., :k, :]) ** 2) for i, s in
                                     enumerate(torch.linalg.svd(a, full_matrices=full_matrices))], a)
        check_grad(lambda torch, a: torch.linalg.svdvals(a), a)


def test_svd_gradient_of_singular_values_with_repeated_values():
    # Only S is used: the U/V terms (which would divide by s_i^2 - s_j^2 = 0) drop out, as in torch.
    check_grad(lambda torch, a: torch.linalg.svdvals(a), np.diag([2.0, 2.0, 1.0]))
    check_grad(lambda torch, a: torch.linalg.eigvalsh(a), np.diag([2.0, 2.0, 1.0]))


def _eigh_invariants(torch, w, v):
    """Eigenvalues, V diag(w) V^T and |V| (unique for distinct eigenvalues)."""
    return w, torch.einsum("...ik,...k,...jk->...ij", v, w, v), v.abs()


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1), (0, 0)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(shape, uplo):
    a = sym(*shape, seed=38)
    check(lambda torch, a: (_eigh_invariants(torch, *torch.linalg.eigh(a, UPLO=uplo)),
                            torch.linalg.eigvalsh(a, UPLO=uplo), torch.linalg.eigvalsh(a.float(), uplo)), a)
    if a.size:
        # w and V * V do not depend on the eigenvectors' signs.
        check_grad(lambda torch, a: (lambda w, v: (w, v * v))(*torch.linalg.eigh(a, UPLO=uplo)), a)
        check_grad(lambda torch, a: torch.linalg.eigvalsh(a, UPLO=uplo), a)


# -- pinv, rank, lstsq, matrix functions ----------------------------------------------------------
@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 3), (0, 3)])
def test_pinv_and_rank(shape):
    a = arrays(shape, dtype="float64", seed=39)
    low_rank = a.copy()
    if shape[-1]:
        low_rank[..., -1] = low_rank[..., 0]

    def fn(torch, a, b):
        return (torch.linalg.pinv(a), torch.pinverse(a), a.pinverse(), torch.linalg.pinv(b),
                torch.linalg.pinv(a, atol=0.5), torch.linalg.pinv(a, rtol=0.3), torch.linalg.pinv(a.float()),
                torch.linalg.matrix_rank(a), torch.linalg.matrix_rank(b), torch.linalg.matrix_rank(a, atol=1.0),
                torch.linalg.matrix_rank(a, rtol=0.5), torch.linalg.matrix_rank(a, 0.5),
                torch.linalg.matrix_rank(a.float()))
    check(fn, a, low_rank)
    if a.size:
        check_grad(lambda torch, a: torch.linalg.pinv(a), a)


def test_pinv_hermitian_and_tensor_tolerances():
    a = sym(2, 3, 3, seed=40)
    check(lambda torch, a: (torch.linalg.pinv(a, hermitian=True), torch.linalg.matrix_rank(a, hermitian=True),
                            torch.linalg.pinv(a, rtol=torch.tensor([0.1, 0.9], dtype=torch.float64)),
                            torch.linalg.pinv(a, atol=torch.tensor(0.5, dtype=torch.float64))), a)
    check_grad(lambda torch, a: torch.linalg.pinv(a, hermitian=True), a)


@pytest.mark.parametrize("sa,sb", [((5, 3), (5, 2)), ((5, 3), (5,)), ((2, 5, 3), (2, 5, 2)), ((3, 5), (3, 2))])
@pytest.mark.parametrize("driver", [None, "gelsy", "gelsd", "gelss", "gels"])
def test_lstsq(sa, sb, driver):
    a, b = arrays(sa, sb, dtype="float64", seed=41)
    if driver == "gels" and sa[-2] < sa[-1]:
        return  # torch's 'gels' solves the underdetermined case differently (not a minimum-norm solution)
    check(lambda torch, a, b: torch.linalg.lstsq(a, b, driver=driver), a, b)
    check_grad(lambda torch, a, b: torch.linalg.lstsq(a, b, driver=driver).solution, a, b)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -1, -3])
@pytest.mark.parametrize("shape", [(3, 3), (2, 2, 2)])
def test_matrix_power(n, shape):
    a = square(*shape, seed=42) / shape[-1]
    check(lambda torch, a: (torch.linalg.matrix_power(a, n), torch.matrix_power(a, n), a.matrix_power(n)), a)
    check_grad(lambda torch, a: torch.linalg.matrix_power(a, n), a)
    if n >= 0:
        check(lambda torch, a: (torch.matrix_power(a.long(), n), torch.matrix_power(a.to(torch.int8), n)),
              arrays(shape, dtype="int64", seed=43, low=-3, high=3))


@pytest.mark.parametrize("scale", [0.0, 0.1, 1.0, 10.0])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (1, 1), (0, 0)])
def test_matrix_exp(scale, shape):
    a = arrays(shape, dtype="float64", seed=44) * scale
    check(lambda torch, a: (torch.linalg.matrix_exp(a), torch.matrix_exp(a), a.matrix_exp(),
                            torch.matrix_exp(a.float())), a, rtol=1e-4)
    if a.size and scale:
        check_grad(lambda torch, a: torch.linalg.matrix_exp(a), a)


# -- norms --------------------------------------------------------------------------------------------
VECTOR_ORDS = [2, 1, INF, -INF, 0, 3, 0.5, -1, -2.5]


@pytest.mark.parametrize("ord", VECTOR_ORDS)
@pytest.mark.parametrize("shape,dim", [((5,), None), ((2, 3, 4), None), ((2, 3, 4), 1), ((2, 3, 4), (0, 2)),
                                       ((2, 3, 4), [-1, 0, 1]), ((2, 3, 4), ()), ((), None), ((0, 3), 1)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_vector_norm(ord, shape, dim, keepdim):
    x = arrays(shape, dtype="float64", seed=45)

    def fn(torch, x):
        return (torch.linalg.vector_norm(x, ord, dim, keepdim), torch.linalg.vector_norm(x.float(), ord=ord, dim=dim),
                torch.linalg.vector_norm(x.float(), ord, dim, keepdim, dtype=torch.float64),
                torch.linalg.norm(x, ord, dim if isinstance(dim, int) else None, keepdim) if len(shape) == 1 else None)
    check(fn, x)
    if x.size:
        check_grad(lambda torch, x: torch.linalg.vector_norm(x, ord, dim, keepdim), x)


def test_vector_norm_special_values_and_errors():
    x = np.array([[0.0, 3.0, -4.0], [0.0, 0.0, 0.0]])
    for p in (2, 1, 3, 0.5, INF):
        check_grad(lambda torch, x, p=p: torch.linalg.vector_norm(x, p, dim=1), x)
    check(lambda torch, x: torch.linalg.vector_norm(x.half(), 2), x)
    for fn in [lambda torch, x: torch.linalg.vector_norm(x.long()),
               lambda torch, x: torch.linalg.vector_norm(x.long(), dtype=torch.float32),
               lambda torch, x: torch.linalg.vector_norm(x, dtype=torch.float16),
               lambda torch, x: torch.linalg.vector_norm(x.half(), dtype=torch.float32),
               lambda torch, x: torch.linalg.vector_norm(x, ord="fro"),
               lambda torch, x: torch.linalg.vector_norm(x, dim=(0, 0)),
               lambda torch, x: torch.linalg.vector_norm(x, dim=2),
               lambda torch, x: torch.linalg.vector_norm(x[:0], INF),
               lambda torch, x: torch.linalg.vector_norm(x[:0], INF, dim=0),
               lambda torch, x: torch.linalg.vector_norm(x[:0], -INF, dim=1),
               lambda torch, x: torch.linalg.vector_norm(x, out=torch.empty(0, dtype=torch.float64))]:
        check(fn, x)


MATRIX_ORDS = ["fro", "nuc", 1, -1, 2, -2, INF, -INF]


@pytest.mark.parametrize("ord", MATRIX_ORDS)
@pytest.mark.parametrize("shape,dim", [((3, 4), (-2, -1)), ((2, 3, 4), (-2, -1)), ((2, 3, 4), (0, 2)),
                                       ((2, 3, 4), (2, 0)), ((0, 3), (0, 1))])
@pytest.mark.parametrize("keepdim", [False, True])
def test_matrix_norm(ord, shape, dim, keepdim):
    x = arrays(shape, dtype="float64", seed=46)
    check(lambda torch, x: (torch.linalg.matrix_norm(x, ord, dim, keepdim), torch.linalg.norm(x, ord, dim, keepdim),
                            torch.linalg.matrix_norm(x.float(), ord=ord, dim=dim, keepdim=keepdim),
                            torch.linalg.matrix_norm(x.float(), ord, dim, dtype=torch.float64)), x)
    if x.size:
        check_grad(lambda torch, x: torch.linalg.matrix_norm(x, ord, dim, keepdim), x)


@pytest.mark.parametrize("fn", [
    lambda torch, x: torch.linalg.norm(x),
    lambda torch, x: torch.linalg.norm(x, dim=1),
    lambda torch, x: torch.linalg.norm(x, dim=[0, 2]),
    lambda torch, x: torch.linalg.norm(x, 3, dim=(2,), keepdim=True),
    lambda torch, x: torch.linalg.norm(x[0], "fro"),
    lambda torch, x: torch.linalg.norm(x[0], 2),
    lambda torch, x: torch.linalg.norm(x[0], -INF),
    lambda torch, x: torch.linalg.norm(x[0, 0], 2),
    lambda torch, x: torch.linalg.norm(x, dtype=torch.float64),
    lambda torch, x: torch.linalg.norm(x, 2),
    lambda torch, x: torch.linalg.norm(x[0, 0], "fro"),
    lambda torch, x: torch.linalg.norm(x, "fro", dim=1),
    lambda torch, x: torch.linalg.norm(x, 3, dim=(1, 2)),
    lambda torch, x: torch.linalg.norm(x, dim=(0, 1, 2)),
    lambda torch, x: torch.linalg.norm(x.long()),
    lambda torch, x: torch.linalg.matrix_norm(x, 3),
    lambda torch, x: torch.linalg.matrix_norm(x, "abc"),
    lambda torch, x: torch.linalg.matrix_norm(x, dim=(1, 1)),
    lambda torch, x: torch.linalg.matrix_norm(x, dim=(1,)),
    lambda torch, x: torch.linalg.matrix_norm(x[0, 0]),
    lambda torch, x: torch.linalg.matrix_norm(x.long()),
    lambda torch, x: torch.linalg.matrix_norm(x.half(), 2),
    lambda torch, x: torch.linalg.matrix_norm(x.half()),
    lambda torch, x: torch.linalg.matrix_norm(x.half(), 1),
])
def test_norm_dispatch_and_errors(fn):
    check(fn, arrays((2, 3, 4), seed=47))


def test_diagonal():
    x = arrays((2, 3, 4), seed=48)
    check(lambda torch, x: (torch.linalg.diagonal(x), torch.linalg.diagonal(x, offset=1),
                            torch.linalg.diagonal(x, offset=-1, dim1=0, dim2=2), torch.linalg.diagonal(x, offset=5),
                            torch.linalg.diagonal(x > 0, dim1=2, dim2=1), torch.linalg.diagonal(x.long(), offset=-2)),
          x)
    check_grad(lambda torch, x: torch.linalg.diagonal(x, offset=1, dim1=0, dim2=-1), x)
    check(lambda torch, x: torch.linalg.diagonal(x, dim1=1, dim2=-2), x)


def test_linalg_namespace():
    import vfw.torch.linalg as linalg

    assert linalg is vt.linalg
    assert issubclass(vt.linalg.LinAlgError, RuntimeError)
    missing = [n for n in ("inv", "det", "slogdet", "solve", "solve_triangular", "svd", "svdvals", "qr", "cholesky",
                           "eigh", "eigvalsh", "pinv", "matrix_rank", "matrix_power", "norm", "vector_norm",
                           "matrix_norm", "cross", "multi_dot", "vecdot", "diagonal", "lstsq", "matrix_exp", "inv_ex",
                           "cholesky_ex", "solve_ex", "matmul") if not hasattr(linalg, n)]
    assert not missing
    assert real.linalg.svd.__name__ and vt.linalg.svd.__doc__


@pytest.mark.parametrize("fn,make", [
    (lambda torch, a: torch.linalg.inv(a), square),
    (lambda torch, a: torch.linalg.det(a), square),
    (lambda torch, a: torch.logdet(a), spd),
    (lambda torch, a: torch.linalg.solve(a, a[..., :1] * 2), square),
    (lambda torch, a: torch.linalg.cholesky(a), spd),
    (lambda torch, a: torch.linalg.eigvalsh(a), sym),
    (lambda torch, a: torch.linalg.svdvals(a), square),
    (lambda torch, a: torch.linalg.pinv(a), square),
    (lambda torch, a: torch.linalg.matrix_norm(a, "nuc"), square),
    (lambda torch, a: torch.linalg.vector_norm(a, 3), square),
    (lambda torch, a: a @ a @ a, square),
    (lambda torch, a: torch.addmm(a, a, a, beta=0.5, alpha=2), square),
])
def test_second_order_gradients(fn, make):
    def second(torch, a):
        a.requires_grad_()
        (g,) = torch.autograd.grad(fn(torch, a).sum(), a, create_graph=True)
        (gg,) = torch.autograd.grad((g * g).sum(), a)
        return g, gg
    check(second, make(2, 3, 3, seed=49))


def test_out_arguments():
    a, b = square(3, 3, seed=50), arrays((3, 2), dtype="float64", seed=51)

    def fn(torch, a, b):
        outs = [torch.empty(0, dtype=torch.float64) for _ in range(8)]
        torch.linalg.inv(a, out=outs[0])
        torch.linalg.det(a, out=outs[1])
        torch.linalg.solve(a, b, out=outs[2])
        torch.linalg.cholesky(a @ torch.linalg.inv(a) * 2, out=outs[3])
        torch.linalg.vector_norm(a, out=outs[4])
        torch.linalg.matrix_norm(a, "nuc", out=outs[5])
        torch.linalg.pinv(b, out=outs[6])
        torch.linalg.svdvals(a, out=outs[7])
        return outs
    check(fn, a, b)


@given(st.data())
@settings(max_examples=60, deadline=None)
def test_matmul_broadcasting_hypothesis(data):
    """Random ranks (1-4) and batch dims (broadcasting 1s, and mismatches that must raise)."""
    rank_a, rank_b = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))
    batch = data.draw(st.lists(st.integers(1, 3), min_size=2, max_size=2))
    k = data.draw(st.integers(0, 3))
    shape_a = [data.draw(st.sampled_from([1, b])) for b in batch][:max(rank_a - 2, 0)] + \
        ([data.draw(st.integers(1, 3))] if rank_a > 1 else []) + [k]
    shape_b = [data.draw(st.sampled_from([1, b])) for b in batch][:max(rank_b - 2, 0)] + \
        [data.draw(st.sampled_from([k, k + 1]))] + ([data.draw(st.integers(1, 3))] if rank_b > 1 else [])
    a, b = arrays(tuple(shape_a), tuple(shape_b), seed=52)
    check(lambda torch, a, b: torch.matmul(a, b), a, b)
