"""torch.linalg.cond / vander / tensorinv / tensorsolve / householder_product and the removed torch.lstsq /
torch.matrix_rank against real torch 2.13."""

import numpy as np
import pytest

from compat_tests.torch.harness import arrays, check, check_grad

A = (arrays((3, 3), seed=31) + 3 * np.eye(3, dtype=np.float32)).astype(np.float32)
BATCH = arrays((2, 4, 4), seed=32) + 4 * np.eye(4, dtype=np.float32)

CASES = [
    ("cond_default", lambda t, a, b: t.linalg.cond(a)),
    ("cond_orders", lambda t, a, b: [t.linalg.cond(b, p) for p in ("fro", "nuc", 1, -1, 2, -2, float("inf"),
                                                                      -float("inf"))]),
    ("cond_rectangular", lambda t, a, b: t.linalg.cond(a[:2])),
    ("cond_rectangular_fro", lambda t, a, b: t.linalg.cond(a[:2], "fro")),
    ("cond_singular", lambda t, a, b: (t.linalg.cond(a * 0, 1), t.linalg.cond(a * 0, float("inf")))),
    ("cond_bad_order", lambda t, a, b: t.linalg.cond(a, 3)),
    ("vander", lambda t, a, b: t.linalg.vander(a[0])),
    ("vander_int_batch", lambda t, a, b: t.linalg.vander(t.tensor([[1, 2], [3, 4]]))),
    ("vander_N", lambda t, a, b: t.linalg.vander(a[:, 0], N=5)),
    ("vander_N1", lambda t, a, b: t.linalg.vander(a[0], N=1)),
    ("tensorinv", lambda t, a, b: t.linalg.tensorinv(b.reshape(2, 4, 2, 2).permute(0, 2, 1, 3).reshape(4, 2, 2),
                                                     ind=1)),
    ("tensorinv_ind2", lambda t, a, b: t.linalg.tensorinv(b.reshape(2, 2, 2, 2, 2)[0], ind=2)),
    ("tensorinv_not_square", lambda t, a, b: t.linalg.tensorinv(a[:2], ind=1)),
    ("tensorinv_ind0", lambda t, a, b: t.linalg.tensorinv(a, ind=0)),
    ("tensorsolve", lambda t, a, b: t.linalg.tensorsolve(b[0].reshape(2, 2, 4), a[:2, :2])),
    ("tensorsolve_dims", lambda t, a, b: t.linalg.tensorsolve(b[1].reshape(4, 2, 2), a[:2, 1:], dims=(0,))),
    ("tensorsolve_mismatch", lambda t, a, b: t.linalg.tensorsolve(b[1].reshape(4, 2, 2), a[:2])),
    ("householder", lambda t, a, b: t.linalg.householder_product(a[:, :2], a[0, :2] * 0.3 + 1)),
    ("householder_batch", lambda t, a, b: t.linalg.householder_product(b[:, :, :3], b[:, 0, :2])),
    ("householder_wide", lambda t, a, b: t.linalg.householder_product(a[:2], a[0, :2])),
    ("lstsq_removed", lambda t, a, b: t.lstsq(a, a)),
    ("matrix_rank_removed", lambda t, a, b: t.matrix_rank(a)),
]


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_linalg_extras(name, fn):
    check(fn, A, BATCH, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("fn", [
    lambda t, a: t.linalg.cond(a),
    lambda t, a: t.linalg.vander(a[0], N=4),
    lambda t, a: t.linalg.tensorinv(a.reshape(3, 3), ind=1),
    lambda t, a: t.linalg.householder_product(a[:, :2], a[1, :2]),
], ids=["cond", "vander", "tensorinv", "householder"])
def test_linalg_extras_gradients(fn):
    check_grad(fn, A.astype(np.float64), rtol=1e-6, atol=1e-8)


def test_cond_gradient_by_finite_differences():
    """torch 2.13's own backward of cond(A, p) for p other than 2/-2 fails (it writes into inv_ex's output)."""
    import vfw.torch as vt
    a = A.astype(np.float64)
    for p in ("fro", 1, float("inf"), "nuc"):
        x = vt.tensor(a, requires_grad=True)
        vt.linalg.cond(x, p).backward()
        numeric = np.zeros_like(a)
        for index in np.ndindex(a.shape):
            step = np.zeros_like(a)
            step[index] = 1e-6
            numeric[index] = (vt.linalg.cond(vt.tensor(a + step), p).item()
                              - vt.linalg.cond(vt.tensor(a - step), p).item()) / 2e-6
        np.testing.assert_allclose(x.grad.numpy(), numeric, rtol=1e-5, atol=1e-7)


def test_removed_messages_match():
    import torch as real
    import vfw.torch as vt
    for name in ("lstsq", "matrix_rank"):
        messages = []
        for lib in (real, vt):
            with pytest.raises(RuntimeError) as info:
                getattr(lib, name)(lib.ones(2, 2), lib.ones(2, 2)) if name == "lstsq" else lib.matrix_rank(
                    lib.ones(2, 2))
            messages.append(str(info.value))
        assert messages[0] == messages[1]
