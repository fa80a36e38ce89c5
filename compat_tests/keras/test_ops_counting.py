"""keras.ops bincount, digitize, histogram, unique, argpartition, unravel_index, nan-quantiles, gcd, lcm, ldexp,
nextafter, view, isreal, get_item and vectorize against real Keras 3.15.1 (vectorize's mapped case against
numpy.vectorize: Keras' TF backend refuses it)."""

import numpy as np
import pytest

from compat_tests.keras.building_blocks_harness import same
from compat_tests.keras.test_ops import check, sample

INTS = np.array([[3, 1, 4, 1], [5, 9, 2, 6], [5, 3, 5, 8]], "int32")
F = sample("float32", (3, 4), seed=5)
NAN = np.array([[1.0, np.nan, 3.0, 2.0], [np.nan, np.nan, np.nan, np.nan], [4.0, -2.0, 0.5, np.nan]], "float32")
DUP = np.array([[1.0, 2.0], [3.0, 4.0], [1.0, 2.0], [0.0, 5.0]], "float32")

CASES = [
    lambda ops: ops.bincount(INTS[0]), lambda ops: ops.bincount(INTS[0], minlength=7),
    lambda ops: ops.bincount(INTS[0], weights=F[0]), lambda ops: ops.bincount(INTS, weights=INTS.astype("int64")),
    lambda ops: ops.bincount(INTS.astype("int64")), lambda ops: ops.bincount(INTS[0].astype("uint8"), weights=F[0]),
    lambda ops: ops.bincount(INTS[1], weights=F[0].astype("float16")),
    lambda ops: ops.digitize(F, [-1.0, 0.0, 0.5, 2.0]), lambda ops: ops.digitize(INTS, [2, 5]),
    lambda ops: ops.digitize(np.array([0.1, 0.5, 0.5000001], "float64"), [0.5]),
    lambda ops: ops.digitize(INTS.astype("int8"), np.array([1, 4, 6])),
    lambda ops: ops.histogram(F.reshape(-1)), lambda ops: ops.histogram(F.reshape(-1), bins=4, range=(-1.0, 1.0)),
    lambda ops: ops.histogram(np.array([0.0, 1.0, 1.0, 2.0, 3.0], "float64"), bins=3),
    lambda ops: ops.histogram(F), lambda ops: ops.histogram(F.reshape(-1), bins=0),
    lambda ops: ops.histogram(F.reshape(-1), bins=-1), lambda ops: ops.histogram(F.reshape(-1), bins=2.0),
    lambda ops: ops.histogram(F.reshape(-1), range=(1.0, 0.0)), lambda ops: ops.histogram(F.reshape(-1), range=[0, 1]),
    lambda ops: ops.unique(INTS), lambda ops: ops.unique(INTS, sorted=False),
    lambda ops: ops.unique(INTS, return_index=True, return_inverse=True, return_counts=True),
    lambda ops: ops.unique(INTS, sorted=False, return_index=True, return_inverse=True, return_counts=True),
    lambda ops: ops.unique(INTS, size=10, fill_value=-1, return_index=True, return_counts=True),
    lambda ops: ops.unique(INTS, size=3, return_counts=True),
    lambda ops: ops.unique(DUP, axis=0, return_inverse=True, return_counts=True, return_index=True),
    lambda ops: ops.unique(DUP.T, axis=1),
    lambda ops: ops.argpartition(np.array([5, 1, 4, 2, 3]), 2), lambda ops: ops.argpartition(INTS, 2, axis=None),
    lambda ops: ops.argpartition(np.array([-3, -1, -7, 2]), 1),
    lambda ops: ops.unravel_index(np.array([1, 5, 11]), (3, 4)),
    lambda ops: ops.unravel_index(np.array([1, 5, 11], "int64"), (2, 3, 2)),
    lambda ops: ops.unravel_index(np.array([[1, 5], [7, 11]]), (3, 4)),
    lambda ops: ops.nanquantile(NAN, 0.3, axis=1), lambda ops: ops.nanquantile(NAN, [0.1, 0.5, 1.0]),
    lambda ops: ops.nanquantile(NAN, 0.5), lambda ops: ops.nanquantile(NAN, 0.25, axis=0, keepdims=True),
    lambda ops: ops.nanquantile(NAN.astype("float64"), 0.7, axis=1),
    *(lambda ops, m=m: ops.nanquantile(NAN, 0.4, axis=1, method=m) for m in ("lower", "higher", "nearest",
                                                                             "midpoint")),
    lambda ops: ops.nanpercentile(NAN, 40, axis=1), lambda ops: ops.nanpercentile(NAN, [10, 90]),
    lambda ops: ops.nanmedian(NAN, axis=1), lambda ops: ops.nanmedian(NAN), lambda ops: ops.nanmedian(F, axis=0),
    lambda ops: ops.nanmedian(NAN, axis=()),
    lambda ops: ops.nanquantile(np.arange(12.0).reshape(2, 3, 2), 0.5, axis=(0, 2)),
    lambda ops: ops.gcd(np.array([12, -18, 0, 7]), np.array([8, 12, 5, 0])),
    lambda ops: ops.gcd(np.array([12, 18], "uint8"), np.array([[8], [6]], "int16")), lambda ops: ops.gcd(F, F),
    lambda ops: ops.lcm(np.array([4, -6, 0, 7]), np.array([6, 4, 5, 3])), lambda ops: ops.lcm(F, INTS),
    lambda ops: ops.lcm(np.array([0, 3], "int64"), np.array([0, 5], "int64")),
    lambda ops: ops.ldexp(F, np.array([1, -2, 3, 0])), lambda ops: ops.ldexp(np.array([0.0, np.inf, 1.5]), 3),
    lambda ops: ops.ldexp(np.array([1, 2]), np.array([2, 3])), lambda ops: ops.ldexp(F, F),
    lambda ops: ops.ldexp(F.astype("float16"), np.array([1, 2, 3, 4], "int8")),
    lambda ops: ops.nextafter(F, np.zeros(4, "float32")), lambda ops: ops.nextafter(np.float64(1.0), 2.0),
    lambda ops: ops.nextafter(np.array([1, 2]), np.array([3, 0])),
    lambda ops: ops.view(F, "int32"), lambda ops: ops.view(F, "float16"), lambda ops: ops.view(F, "float64"),
    lambda ops: ops.view(np.arange(6, dtype="int16").reshape(2, 3), "int32"), lambda ops: ops.view(INTS, "uint8"),
    lambda ops: ops.view(np.float32(1.0), "int32"), lambda ops: ops.view(F, None),
    lambda ops: ops.isreal(F), lambda ops: ops.isreal(INTS),
    lambda ops: ops.get_item(F, 1), lambda ops: ops.get_item(F, (slice(0, 2), 3)),
    lambda ops: ops.get_item(F, (Ellipsis, None, slice(None, None, -1))),
]


@pytest.mark.parametrize("make", CASES)
def test_counting_functions(make):
    check(make, rtol=1e-5, atol=1e-6)


def test_gradients():
    def fn(lib):
        ops = lib.keras.ops
        x = lib.tf.constant(NAN)
        y = lib.tf.constant(F)
        with lib.tf.GradientTape() as tape:
            tape.watch([x, y])
            out = ops.sum(ops.nanquantile(x, 0.3, axis=1)[::2])
            out = out + ops.sum(ops.get_item(y, (1, slice(1, 3)))) + ops.sum(ops.ldexp(y, np.array([1, 2, 3, 4])))
        return tape.gradient(out, [x, y])

    same(fn, rtol=1e-5, atol=1e-6)


def test_where_keras_fails_results_match_numpy():
    # Keras' TF backend raises for these (1-D q with an axis; an unknown method: UnboundLocalError) or mixes
    # rows (argpartition of rank > 1): vfw gives numpy's results.
    from vfw.tensorflow import keras

    ops = keras.ops
    np.testing.assert_allclose(ops.nanquantile(NAN, [0.1, 0.5, 1.0], axis=1),
                               np.nanquantile(NAN, [0.1, 0.5, 1.0], axis=1), rtol=1e-6)
    np.testing.assert_allclose(ops.nanpercentile(NAN, [10, 90], axis=-1, keepdims=True),
                               np.nanpercentile(NAN, [10, 90], axis=-1, keepdims=True), rtol=1e-6)
    with pytest.raises(ValueError, match="method"):
        ops.nanquantile(NAN, 0.4, axis=1, method="bad")
    for kth, axis in ((1, -1), (0, 0), (2, 1)):
        order = np.asarray(ops.argpartition(INTS, kth, axis=axis))
        parted = np.take_along_axis(INTS, order, axis=axis)
        expected = np.partition(INTS, kth, axis=axis)
        np.testing.assert_array_equal(np.sort(order, axis=axis), np.sort(np.argsort(INTS, axis=axis), axis=axis))
        np.testing.assert_array_equal(np.take(parted, [kth], axis=axis), np.take(expected, [kth], axis=axis))


def test_vectorize_unmapped_cases_match_keras():
    check(lambda ops: ops.vectorize(lambda a: a * 2)(3.0))
    check(lambda ops: ops.vectorize(lambda a: a * 2)([[1.0]]))


def test_vectorize_maps_like_numpy():
    from vfw.tensorflow import keras

    x = F
    y = np.array([1.0, -1.0, 2.0, 0.5], "float32")
    out = keras.ops.vectorize(lambda a, b: a * b + 1)(x, y)
    np.testing.assert_allclose(out, np.vectorize(lambda a, b: a * b + 1)(x, y), rtol=1e-6)
    rows = keras.ops.vectorize(lambda r, w: keras.ops.sum(r * w), signature="(n),(n)->()")(x, y)
    np.testing.assert_allclose(rows, (x * y).sum(axis=1), rtol=1e-5)
    scaled = keras.ops.vectorize(lambda a, k: a * k, excluded={1})(x, 3.0)
    np.testing.assert_allclose(scaled, x * 3.0, rtol=1e-6)
