"""keras.ops windows, i0, correlate, corrcoef, trapezoid, vander, kron, geomspace against real Keras 3.15.1."""

import numpy as np
import pytest

from compat_tests.keras.building_blocks_harness import same
from compat_tests.keras.test_ops import check, sample

V = np.array([1.0, -2.0, 0.5, 3.0, 4.5], "float32")
W = np.array([0.5, 1.0, -1.0], "float32")
M = sample("float32", (3, 5), seed=3)

CASES = [
    *(lambda ops, n=n, w=w: getattr(ops, w)(n) for n in (0, 1, 2, 5, 8) for w in ("bartlett", "blackman", "hamming",
                                                                                   "hanning")),
    lambda ops: ops.kaiser(7, 5.0), lambda ops: ops.kaiser(1, 2.0), lambda ops: ops.kaiser(6, 0.0),
    lambda ops: ops.i0(M), lambda ops: ops.i0(np.array([0, 1, 3])), lambda ops: ops.i0(np.array([1, 2], "int64")),
    lambda ops: ops.i0(M.astype("float64")),
    lambda ops: ops.correlate(V, W), lambda ops: ops.correlate(V, W, mode="same"),
    lambda ops: ops.correlate(V, W, mode="full"), lambda ops: ops.correlate(W, V, mode="same"),
    lambda ops: ops.correlate(V[:4], W[:2], mode="same"), lambda ops: ops.correlate(np.arange(4), np.arange(2)),
    lambda ops: ops.correlate(np.arange(4, dtype="int64"), np.arange(2, dtype="int64"), mode="full"),
    lambda ops: ops.correlate(V, W, mode="bad"),
    lambda ops: ops.corrcoef(M), lambda ops: ops.corrcoef(np.arange(12).reshape(3, 4) ** 2),
    lambda ops: ops.corrcoef(M.astype("float64")),
    lambda ops: ops.trapezoid(M), lambda ops: ops.trapezoid(M, dx=0.5, axis=0),
    lambda ops: ops.trapezoid(M, x=np.cumsum(np.abs(M), axis=1)), lambda ops: ops.trapezoid(M, x=V),
    lambda ops: ops.trapezoid(np.arange(6).reshape(2, 3)),
    lambda ops: ops.vander(V), lambda ops: ops.vander(V, 3, increasing=True), lambda ops: ops.vander(np.arange(4)),
    lambda ops: ops.kron(M[:2, :2], W), lambda ops: ops.kron(np.arange(4).reshape(2, 2), np.eye(2, dtype="int32")),
    lambda ops: ops.kron(W, M), lambda ops: ops.kron(np.ones((2, 1, 2), "float16"), M[:2, :3]),
    lambda ops: ops.geomspace(1, 1000, 4), lambda ops: ops.geomspace(-2.0, -32.0, 5, endpoint=False),
    lambda ops: ops.geomspace(2, 64, 6, dtype="float64"), lambda ops: ops.geomspace(np.array([1.0, 10.0]), 100.0, 3),
    lambda ops: ops.geomspace(np.array([1.0, 10.0]), 100.0, 3, axis=1),
]


@pytest.mark.parametrize("make", CASES)
def test_signal_functions(make):
    check(make, rtol=1e-5, atol=1e-5)


def test_gradients():
    def fn(lib):
        ops = lib.keras.ops
        x, y = lib.tf.constant(M), lib.tf.constant(W)
        with lib.tf.GradientTape() as tape:
            tape.watch([x, y])
            out = (ops.sum(ops.correlate(x[0], y, mode="full") ** 2) + ops.sum(ops.corrcoef(x) ** 2)
                   + ops.sum(ops.trapezoid(x, x=ops.cumsum(ops.abs(x), axis=1)) ** 2)
                   + ops.sum(ops.kron(x, y)) + ops.sum(ops.i0(x)) + ops.sum(ops.vander(y, 4)))
        return tape.gradient(out, [x, y])

    same(fn, rtol=1e-4, atol=1e-4)


SQUARE = sample("float32", (2, 4, 4), seed=11)
DIST = [
    lambda ops: ops.cdist(M, M[:2]), lambda ops: ops.cdist(SQUARE, SQUARE[:, :3]),
    lambda ops: ops.cdist(M[0], M), lambda ops: ops.cdist(M, M[:, :3]),
    lambda ops: ops.lu_factor(SQUARE), lambda ops: ops.lu_factor(SQUARE[0].astype("float64")),
    lambda ops: ops.linalg.lu_factor(SQUARE[1]),
]


@pytest.mark.parametrize("make", DIST)
def test_cdist_and_lu_factor(make):
    check(make, rtol=1e-5, atol=1e-5)
