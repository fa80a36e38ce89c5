"""LU factorization (torch.linalg.lu_factor(_ex) / lu / lu_solve, torch.lu_unpack, torch.lu, torch.lu_solve)
against real torch 2.13."""

import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad

SQUARE = arrays((4, 4), seed=41)
BATCH = arrays((3, 3, 3), seed=42)
WIDE, TALL = arrays((3, 5), seed=43), arrays((5, 3), seed=44)
RHS = arrays((4, 2), seed=45)

CASES = [
    ("factor", lambda t, a: t.linalg.lu_factor(a)),
    ("factor_batch", lambda t, a: t.linalg.lu_factor(t.tensor(BATCH))),
    ("factor_wide", lambda t, a: t.linalg.lu_factor(t.tensor(WIDE))),
    ("factor_tall", lambda t, a: t.linalg.lu_factor(t.tensor(TALL))),
    ("factor_float64", lambda t, a: t.linalg.lu_factor(a.double())),
    ("factor_ex", lambda t, a: t.linalg.lu_factor_ex(a)),
    ("factor_ex_singular", lambda t, a: t.linalg.lu_factor_ex(t.tensor([[1.0, 2], [2, 4]]))),
    ("factor_singular", lambda t, a: t.linalg.lu_factor(t.tensor([[1.0, 2], [2, 4]]))),
    ("factor_no_pivot", lambda t, a: t.linalg.lu_factor(a, pivot=False)),
    ("factor_int", lambda t, a: t.linalg.lu_factor(a.long())),
    ("factor_1d", lambda t, a: t.linalg.lu_factor(a[0])),
    ("lu", lambda t, a: t.linalg.lu(a)),
    ("lu_batch", lambda t, a: t.linalg.lu(t.tensor(BATCH))),
    ("lu_wide", lambda t, a: t.linalg.lu(t.tensor(WIDE))),
    ("lu_tall", lambda t, a: t.linalg.lu(t.tensor(TALL))),
    ("unpack", lambda t, a: t.lu_unpack(*t.linalg.lu_factor(a))),
    ("unpack_parts", lambda t, a: (t.lu_unpack(*t.linalg.lu_factor(a), unpack_data=False),
                                   t.lu_unpack(*t.linalg.lu_factor(a), unpack_pivots=False))),
    ("solve", lambda t, a: t.linalg.lu_solve(*t.linalg.lu_factor(a), t.tensor(RHS))),
    ("solve_adjoint", lambda t, a: t.linalg.lu_solve(*t.linalg.lu_factor(a), t.tensor(RHS), adjoint=True)),
    ("solve_right", lambda t, a: t.linalg.lu_solve(*t.linalg.lu_factor(a), t.tensor(RHS.T))[0:0].shape),
    ("solve_right_values", lambda t, a: t.linalg.lu_solve(*t.linalg.lu_factor(a), t.tensor(RHS.T), left=False)),
    ("solve_right_adjoint", lambda t, a: t.linalg.lu_solve(*t.linalg.lu_factor(a), t.tensor(RHS.T), left=False,
                                                           adjoint=True)),
    ("deprecated_lu", lambda t, a: t.lu(a)),
    ("deprecated_lu_infos", lambda t, a: tuple(t.lu(a, get_infos=True))),
    ("deprecated_lu_solve", lambda t, a: t.lu_solve(t.tensor(RHS), *t.linalg.lu_factor(a))),
]


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_lu(name, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(fn, SQUARE, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("fn", [
    lambda t, a: t.linalg.lu_factor(a).LU,
    lambda t, a: t.linalg.lu(a)[1:],
    lambda t, a, b: t.linalg.lu_solve(*t.linalg.lu_factor(a), b),
    lambda t, a, b: t.linalg.lu_solve(*t.linalg.lu_factor(a), b.T, left=False, adjoint=True),
], ids=["factor", "lu", "solve", "solve_right_adjoint"])
def test_lu_gradients(fn):
    a, b = SQUARE.astype(np.float64), RHS.astype(np.float64)
    if fn.__code__.co_argcount == 2:
        check_grad(fn, a, rtol=1e-6, atol=1e-8)
    else:
        check_grad(fn, a, b, rtol=1e-6, atol=1e-8)


def test_lu_reconstructs_batches():
    import vfw.torch as vt
    a = vt.tensor(arrays((5, 6, 6), seed=46))
    P, L, U = vt.linalg.lu(a)
    np.testing.assert_allclose((P @ L @ U).numpy(), a.numpy(), atol=1e-5)
