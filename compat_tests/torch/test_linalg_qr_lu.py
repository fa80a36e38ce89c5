"""torch.geqrf / orgqr / ormqr (functions and methods) and the Tensor.lu / Tensor.lu_solve methods against real
torch 2.13."""

import warnings

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad, real, vt

TALL, SQUARE, WIDE = arrays((5, 3), (4, 4), (3, 5), dtype="float64", seed=21)
BATCH = arrays((2, 4, 3), dtype="float64", seed=22)


@pytest.mark.parametrize("a", [TALL, SQUARE, WIDE, BATCH, TALL.astype(np.float32), np.zeros((0, 3))],
                         ids=["tall", "square", "wide", "batch", "float32", "empty"])
def test_geqrf(a):
    check(lambda t, a: t.geqrf(a), a)
    check(lambda t, a: a.geqrf(), a)
    for lib in (real, vt):
        if a.size:
            assert lib.geqrf(lib.from_numpy(a.copy())).a.stride()[-2:] == (1, a.shape[-2])


def test_geqrf_errors_and_no_derivative():
    check(lambda t, a: t.geqrf(a), np.ones(3))
    check(lambda t, a: t.geqrf(a.long()), SQUARE)
    for lib in (real, vt):
        a, tau = lib.geqrf(lib.from_numpy(SQUARE.copy()).requires_grad_())
        assert a.requires_grad and tau.requires_grad
        with pytest.raises(RuntimeError, match="the derivative for 'geqrf' is not implemented"):
            a.sum().backward()


def _tau(a):
    """Reflector scales for ``a``'s columns (one set per matrix)."""
    return np.broadcast_to(np.linspace(0.5, 1.5, a.shape[-1]), a.shape[:-2] + (a.shape[-1],)).copy()


@pytest.mark.parametrize("a", [TALL, SQUARE, BATCH], ids=["tall", "square", "batch"])
def test_orgqr(a):
    def fn(t, a):
        reflectors, tau = t.geqrf(a)
        return t.orgqr(reflectors, tau), reflectors.orgqr(tau)
    check(fn, a)
    check_grad(lambda t, a, tau: t.orgqr(a, tau), a, _tau(a))


@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("a", [TALL, SQUARE, BATCH], ids=["tall", "square", "batch"])
def test_ormqr(left, transpose, a):
    m = a.shape[-2]
    other = arrays(a.shape[:-2] + ((m, 2) if left else (3, m)), dtype="float64", seed=23)

    def fn(t, a, other):
        reflectors, tau = t.geqrf(a)
        return t.ormqr(reflectors, tau, other, left, transpose)
    check(fn, a, other)
    tau = _tau(a)
    check_grad(lambda t, a, tau, other: t.ormqr(a, tau, other, left=left, transpose=transpose), a, tau, other)
    check_grad(lambda t, a, tau, other: a.ormqr(tau, other, left, transpose), a, tau, other)


def test_ormqr_shape_errors():
    check(lambda t, a, o: t.ormqr(*t.geqrf(a), o), TALL, np.ones((3, 2)))
    check(lambda t, a, o: t.ormqr(*t.geqrf(a), o, left=False), TALL, np.ones((2, 3)))


def test_lu_methods():
    rhs = arrays((4, 2), dtype="float64", seed=24)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(lambda t, a: a.lu(), SQUARE)
        check(lambda t, a: a.lu(get_infos=True), SQUARE)
        check_grad(lambda t, a, b: b.lu_solve(*t.linalg.lu_factor(a)), SQUARE, rhs)
