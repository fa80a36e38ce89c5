"""keras.ops.associative_scan against Keras 3.15.1: sums, products (reversed), maxima along another axis, a linear
recurrence over a tuple of arrays and a dict structure, for even and odd lengths; bit-identical values (same
combination tree) and Keras' errors."""

import numpy as np
import pytest

from compat_tests.keras.core_harness import REAL, VFW


def scans(keras, n):
    ops = keras.ops
    x = np.random.default_rng(n).normal(size=(n, 3)).astype(np.float32)
    results = [ops.associative_scan(ops.add, x), ops.associative_scan(ops.multiply, x, reverse=True),
               ops.associative_scan(ops.maximum, x.T, axis=1)]
    results += list(ops.associative_scan(lambda a, b: (a[0] * b[0], b[0] * a[1] + b[1]), (x[:, 0], x[:, 1])))
    results.append(ops.associative_scan(lambda a, b: {"s": a["s"] + b["s"]}, {"s": x})["s"])
    return [np.asarray(r) for r in results]


@pytest.mark.parametrize("n", [1, 2, 5, 8, 13])
def test_scans_match_keras(n):
    for ours, real in zip(scans(VFW.keras, n), scans(REAL.keras, n)):
        assert ours.dtype == real.dtype and ours.shape == real.shape
        np.testing.assert_array_equal(ours, real)


@pytest.mark.parametrize("f, elems", [(None, np.ones(3, np.float32)),
                                      ("add", (np.ones(3, np.float32), np.ones(4, np.float32)))])
def test_errors_match_keras(f, elems):
    kinds = []
    for lib in (REAL, VFW):
        function = getattr(lib.keras.ops, f) if f else f
        with pytest.raises(Exception) as caught:
            lib.keras.ops.associative_scan(function, elems)
        kinds.append(type(caught.value))
    assert kinds[0] is kinds[1]
