"""tf.math segment reductions, bincount, confusion_matrix, polyval and tf.clip_by_* against real TF: values,
empty segments, id validation errors, dtypes and gradients (ties, zeros, clipping boundaries)."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad

SORTED = ["segment_sum", "segment_mean", "segment_prod", "segment_max", "segment_min"]
UNSORTED = ["unsorted_segment_sum", "unsorted_segment_mean", "unsorted_segment_prod", "unsorted_segment_max",
            "unsorted_segment_min", "unsorted_segment_sqrt_n"]
DTYPES = ["float16", "float32", "float64", "int8", "int32", "int64", "uint8", "uint16", "bool"]


@pytest.mark.parametrize("name", SORTED)
@pytest.mark.parametrize("ids", [[0, 0, 2, 2], [1, 1, 3, 3], [0, 1, 2, 3], [0, 0, 0, 0], [0, 1, 0, 1],
                                 [-1, 0, 0, 1], [0, 0, 1], [[0, 0], [1, 1]], [0.0, 0.0, 1.0, 1.0], "int64"],
                         ids=repr)
def test_sorted_segments(name, ids):
    data = arrays((4, 2), low=0.5, high=3.0)

    def case(tf, data):
        segment_ids = tf.constant([0, 0, 1, 1], tf.int64) if ids == "int64" else ids
        return getattr(tf.math, name)(data, segment_ids)
    check(case, data)


@pytest.mark.parametrize("name", UNSORTED)
@pytest.mark.parametrize("ids_and_num", [([0, 2, 0, -1], 3), ([0, 2, 0, 2], 4), ([0, 5, 0, 1], 3),
                                         ([[0, 1], [1, 0]], 2), ([0, 1, 0], 2), ([0, 1, 0, 1], "tensor"),
                                         ([0, 1, 0, 1], 2.0), ([0, 1, 0, 1], -1), ([0, 1, 0, 1], 0),
                                         ([0, 1, 0, 1], [2])], ids=repr)
def test_unsorted_segments(name, ids_and_num):
    ids, num = ids_and_num
    data = arrays((4, 2), low=0.5, high=3.0)

    def case(tf, data):
        n = tf.constant(2) if num == "tensor" else num
        source = tf.reshape(data, [2, 2, 2]) if np.ndim(ids) == 2 and hasattr(tf, "reshape") else data
        return getattr(tf.math, name)(source, ids, n)
    check(case, data)


@pytest.mark.parametrize("name", SORTED + UNSORTED)
@pytest.mark.parametrize("dtype", DTYPES)
def test_segment_dtypes(name, dtype):
    def case(tf):
        data = tf.cast(tf.constant([[3, 1], [2, 5], [4, 4]]), dtype)
        ids = tf.constant([0, 0, 2])
        return getattr(tf.math, name)(data, ids) if name in SORTED else getattr(tf.math, name)(data, ids, 4)
    check(case, rtol=1e-3)


def test_empty_segments():
    for name in SORTED:
        check(lambda tf, name=name: getattr(tf.math, name)(tf.zeros([0, 2]), tf.zeros([0], tf.int32)))
        check(lambda tf, name=name: getattr(tf.math, name)(tf.constant([1, 2]), [1, 1]))
    for name in UNSORTED:
        check(lambda tf, name=name: getattr(tf.math, name)(tf.zeros([0, 2]), tf.zeros([0], tf.int32), 2))


@pytest.mark.parametrize("name", SORTED + UNSORTED)
def test_segment_gradients(name):
    data = arrays((5, 3), low=0.5, high=3.0, seed=5)
    if name in SORTED:
        check_grad(lambda tf, data: getattr(tf.math, name)(data, [0, 0, 1, 3, 3]), data)
    else:
        check_grad(lambda tf, data: getattr(tf.math, name)(data, [2, 0, 2, -1, 0], 4), data)


@pytest.mark.parametrize("name", ["segment_max", "segment_min", "segment_prod", "unsorted_segment_max",
                                  "unsorted_segment_min", "unsorted_segment_prod"])
def test_segment_gradients_at_ties_and_zeros(name):
    data = np.array([[2.0, 0.0], [2.0, 1.0], [1.0, 0.0], [0.0, 0.0]], np.float32)
    if name in SORTED:
        check_grad(lambda tf, data: getattr(tf.math, name)(data, [0, 0, 0, 1]), data)
    else:
        check_grad(lambda tf, data: getattr(tf.math, name)(data, [1, 1, 1, 0], 3), data)


# -- bincount and confusion matrix ---------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [dict(), dict(minlength=6), dict(maxlength=2), dict(minlength=2, maxlength=3),
                                    dict(weights="float"), dict(weights="int"), dict(dtype="float32"),
                                    dict(dtype="float64"), dict(dtype="int64"), dict(dtype="bool"),
                                    dict(binary_output=True), dict(weights="short")], ids=repr)
@pytest.mark.parametrize("arr", [[1, 1, 3], [[1, 1], [3, 0]], [], [1.0, 1.0], [1, -1, 3], "int64"], ids=repr)
def test_bincount(arr, kwargs):
    shape = (3,) if arr == "int64" else np.shape(arr)
    weights = {"float": np.arange(1.0, np.prod(shape) + 1.0, dtype=np.float32).reshape(shape),
               "int": np.arange(np.prod(shape), dtype=np.int32).reshape(shape)}

    def case(tf):
        values = tf.constant([1, 1, 3], tf.int64) if arr == "int64" else \
            tf.constant(arr, tf.int32 if arr == [] else None)
        args = dict(kwargs)
        if args.get("weights") in weights:
            args["weights"] = tf.constant(weights[args["weights"]])
        elif args.get("weights") == "short":
            args["weights"] = [1.0]
        if "dtype" in args:
            args["dtype"] = getattr(tf, args["dtype"])
        return tf.math.bincount(values, **args)
    check(case)


def test_bincount_rows():
    arr = np.array([[1, 1], [3, 0]], np.int32)
    w = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    check(lambda tf, a, w: [tf.math.bincount(a, axis=-1), tf.math.bincount(a, axis=0),
                            tf.math.bincount(a, weights=w, axis=-1), tf.math.bincount(a, binary_output=True, axis=-1),
                            tf.math.bincount(a, minlength=5, axis=-1)], arr, w)


def test_bincount_weights_have_no_gradient():
    def case(tf, w):
        with tf.GradientTape() as tape:
            tape.watch(w)
            counts = tf.math.bincount(tf.constant([0, 1, 1]), weights=w)
        return tape.gradient(counts, w)
    check(case, np.array([1.0, 2.0, 3.0], np.float32))


@pytest.mark.parametrize("case", [
    lambda tf: tf.math.confusion_matrix([1, 2, 4], [2, 2, 4]),
    lambda tf: tf.math.confusion_matrix([1, 2, 4], [2, 2, 4], num_classes=6),
    lambda tf: tf.math.confusion_matrix([1, 2, 4], [2, 2, 4], num_classes=3),
    lambda tf: tf.math.confusion_matrix([1, 2, 1], [5, 2, 1], num_classes=3),
    lambda tf: tf.math.confusion_matrix([1, 2, 4], [2, 2, 4], weights=[1.0, 2.0, 3.0]),
    lambda tf: tf.math.confusion_matrix([1, 2, 4], [2, 2, 4], dtype=tf.float32),
    lambda tf: tf.math.confusion_matrix([1, 2, 4], [2, 2, 4], weights=[0.5, 2.0, 3.0], dtype=tf.float64),
    lambda tf: tf.math.confusion_matrix([1, -2, 4], [2, 2, 4]),
    lambda tf: tf.math.confusion_matrix([1, 2], [2, 2, 4]),
    lambda tf: tf.math.confusion_matrix([1.0, 2.0], [2.0, 2.0]),
    lambda tf: tf.math.confusion_matrix(tf.constant([1, 2], tf.int64), tf.constant([2, 2], tf.int64)),
    lambda tf: tf.math.confusion_matrix([], []),
])
def test_confusion_matrix(case):
    check(case)


# -- polyval -------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", [
    lambda tf, x: tf.math.polyval([1.0, 2.0, 3.0], x),
    lambda tf, x: tf.math.polyval([], x),
    lambda tf, x: tf.math.polyval([2.0], x),
    lambda tf, x: tf.math.polyval([1, 2], tf.constant([1, 2])),
    lambda tf, x: tf.math.polyval([1, 2], x),
    lambda tf, x: tf.math.polyval(tf.constant([1.0, 2.0]), x),
    lambda tf, x: tf.math.polyval([1.0, 2.0], [1.0, 2.0]),
    lambda tf, x: tf.math.polyval([x, 2.0, x], x),
])
def test_polyval(case):
    check(case, arrays((3,)))


def test_polyval_gradients():
    check_grad(lambda tf, a, b, x: tf.math.polyval([a, b, a], x), np.float32(2.0), np.float32(3.0), arrays((4,)))


# -- clipping ------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", [
    lambda tf, x: tf.clip_by_value(x, 0.0, 1.0),
    lambda tf, x: tf.clip_by_value(x, 1.0, 0.0),
    lambda tf, x: tf.clip_by_value(x, tf.constant([0.0, 0.5, -1.0]), 1.0),
    lambda tf, x: tf.clip_by_value(x, tf.zeros([2, 2, 3]), 1.0),
    lambda tf, x: tf.clip_by_value(x, tf.constant(0), 1.0),
    lambda tf, x: tf.clip_by_value(tf.constant([1, 5, -3]), 0, 3),
    lambda tf, x: tf.clip_by_value(tf.constant([1, 5, -3]), 0.5, 3),
    lambda tf, x: tf.clip_by_value(tf.constant([True]), False, True),
    lambda tf, x: tf.clip_by_value(tf.constant([np.nan, 1.0]), 0.0, 0.5),
    lambda tf, x: tf.clip_by_value(tf.constant([1, 200], tf.uint8), 2, 100),
    lambda tf, x: tf.clip_by_value([1.0, 5.0], 0.0, 3.0),
    lambda tf, x: tf.clip_by_norm(x, 2.0),
    lambda tf, x: tf.clip_by_norm(x, 2.0, axes=[1]),
    lambda tf, x: tf.clip_by_norm(x, 2.0, axes=0),
    lambda tf, x: tf.clip_by_norm(x, 200.0),
    lambda tf, x: tf.clip_by_norm(x, tf.constant([2.0, 3.0, 4.0])),
    lambda tf, x: tf.clip_by_norm(tf.constant([3, 4]), 2),
    lambda tf, x: tf.clip_by_norm(tf.zeros([3]), 1.0),
    lambda tf, x: tf.clip_by_norm(tf.constant([3.0, 4.0], tf.float64), 2.0),
    lambda tf, x: tf.clip_by_global_norm([x, tf.constant([3.0, 4.0])], 2.0),
    lambda tf, x: tf.clip_by_global_norm([x, None], 2.0),
    lambda tf, x: tf.clip_by_global_norm([x], 2.0, use_norm=tf.constant(10.0)),
    lambda tf, x: tf.clip_by_global_norm([x], 200.0),
    lambda tf, x: tf.clip_by_global_norm(x, 2.0),
    lambda tf, x: tf.clip_by_global_norm((x,), 2.0),
    lambda tf, x: tf.clip_by_global_norm([tf.constant([np.inf, 1.0])], 2.0),
    lambda tf, x: tf.clip_by_global_norm([tf.constant([3.0, 4.0], tf.float64)], 2.0),
    lambda tf, x: tf.clip_by_global_norm([tf.constant([3.0, 4.0], tf.float64), tf.constant([1.0])], 2.0),
    lambda tf, x: tf.clip_by_global_norm([tf.constant([3, 4])], 2.0),
])
def test_clipping(case):
    check(case, arrays((2, 3), low=-3.0, high=3.0), rtol=2e-5)


def test_clipping_gradients():
    x = np.array([[-1.0, 0.0, 0.5, 1.0, 2.0], [3.0, -0.5, 0.25, 1.0, 0.0]], np.float32)
    check_grad(lambda tf, x: tf.clip_by_value(x, 0.0, 1.0), x)
    check_grad(lambda tf, x, lo, hi: tf.clip_by_value(x, lo, hi), x, np.float32(0.0), np.float32(1.0))
    check_grad(lambda tf, x: tf.clip_by_norm(x, 2.0), x)
    check_grad(lambda tf, x: tf.clip_by_norm(x, 2.0, axes=[1]), x)
    check_grad(lambda tf, x: tf.clip_by_norm(x, 200.0), x)
    check_grad(lambda tf, x: tf.clip_by_norm(x, 1.0), np.zeros((2, 2), np.float32))
    check_grad(lambda tf, x, y: tf.clip_by_global_norm([x, y], 2.0), x, arrays((3,)))
    check_grad(lambda tf, x, y: tf.clip_by_global_norm([x, y], 200.0), x, arrays((3,)))
    check_grad(lambda tf, x, n: tf.clip_by_global_norm([x], 2.0, use_norm=n), x, np.array(5.0, np.float32))
    check(lambda tf, x: tf.clip_by_global_norm([x], 2.0, use_norm=np.float32(5.0)), x)
