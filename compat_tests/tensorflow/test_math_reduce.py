"""tf.math reductions, argmax/argmin, count_nonzero, scans and top-k against real TF: axes handling and errors,
dtypes (wrapping integer sums, truncating integer means), empty inputs, NaN, and gradients (ties, zeros)."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad

REDUCTIONS = ["reduce_sum", "reduce_mean", "reduce_prod", "reduce_max", "reduce_min", "reduce_logsumexp",
              "reduce_euclidean_norm", "reduce_variance", "reduce_std"]
DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16",
          "uint32", "uint64", "bool", "string"]
AXES = [None, 0, 1, -1, -2, [0, 1], [1, 0], [], (0,), 2, -3, [0, 0], [0, -2], 1.0, [[0]], "tensor"]


def _axis(tf, axis):
    return tf.constant([1]) if axis == "tensor" else axis


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("axis", AXES, ids=repr)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_axes(name, axis, keepdims):
    x = arrays((2, 3), low=0.5, high=3.0)
    check(lambda tf, x: getattr(tf.math, name)(x, _axis(tf, axis), keepdims=keepdims), x, rtol=2e-5)


@pytest.mark.parametrize("name", REDUCTIONS + ["reduce_any", "reduce_all", "count_nonzero", "zero_fraction"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_reduction_dtypes(name, dtype):
    def case(tf):
        if dtype == "string":
            x = tf.constant([["a", ""], ["b", "c"]])
        else:
            x = tf.cast(tf.constant([[100, 0], [3, 120]]), dtype)
        return getattr(tf.math, name)(x) if name == "zero_fraction" else getattr(tf.math, name)(x, 0)
    check(case, rtol=1e-3)


@pytest.mark.parametrize("name", REDUCTIONS + ["reduce_any", "reduce_all", "count_nonzero"])
def test_empty_and_scalar_inputs(name):
    for make in [lambda tf: tf.zeros([0]), lambda tf: tf.zeros([0], tf.int32), lambda tf: tf.zeros([0], tf.uint8),
                 lambda tf: tf.zeros([2, 0]), lambda tf: tf.constant(3.0), lambda tf: tf.zeros([0], tf.bool)]:
        check(lambda tf, make=make: getattr(tf.math, name)(make(tf)))
        check(lambda tf, make=make: getattr(tf.math, name)(make(tf), 0))


def test_special_values():
    x = np.array([[1.0, np.nan, 3.0], [np.inf, 2.0, -np.inf], [-np.inf, -np.inf, -np.inf]], np.float32)
    for name in REDUCTIONS:
        check(lambda tf, x, name=name: getattr(tf.math, name)(x, 1), x)
    check(lambda tf: tf.reduce_mean(tf.constant([-1, -2])))
    check(lambda tf: tf.reduce_mean(tf.constant([100, 100], tf.int8)))
    check(lambda tf: tf.reduce_mean(tf.constant([200, 100], tf.uint8)))
    check(lambda tf: tf.reduce_sum(tf.constant([100, 100], tf.int8)))
    check(lambda tf: tf.reduce_prod(tf.constant([16, 16, 3], tf.int8)))
    check(lambda tf: tf.math.reduce_euclidean_norm(tf.constant([3, 4], tf.uint8)))
    check(lambda tf: [tf.reduce_sum([1, 2]), tf.reduce_sum(3.0), tf.reduce_all([True, False]),
                      tf.reduce_any([[False], [True]], 1)])


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("axis", [None, 0, 1, [0, 1]], ids=repr)
def test_reduction_gradients(name, axis):
    x = arrays((3, 4), low=0.5, high=3.0, seed=2)
    check_grad(lambda tf, x: getattr(tf.math, name)(x, axis), x)
    check_grad(lambda tf, x: getattr(tf.math, name)(x, axis, keepdims=True), x.astype(np.float64))


def test_reduction_gradients_at_ties_and_zeros():
    ties = np.array([[1.0, 2.0, 2.0], [3.0, 3.0, 3.0]], np.float32)
    zeros = np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]], np.float32)
    for name in ["reduce_max", "reduce_min"]:
        check_grad(lambda tf, x, name=name: getattr(tf.math, name)(x, 1), ties)
        check_grad(lambda tf, x, name=name: getattr(tf.math, name)(x), ties)
    for name in ["reduce_prod", "reduce_euclidean_norm", "reduce_std", "reduce_logsumexp"]:
        check_grad(lambda tf, x, name=name: getattr(tf.math, name)(x, 1), zeros)
    check_grad(lambda tf, x: tf.reduce_logsumexp(x, 1), np.array([[-np.inf, -np.inf], [np.inf, 1.0]], np.float32))


# -- argmax / argmin -----------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_arg_dtypes(name, dtype):
    def case(tf):
        x = tf.constant([["b", "a"]]) if dtype == "string" else tf.cast(tf.constant([[3, 1, 3], [0, 5, 2]]), dtype)
        return getattr(tf.math, name)(x, 1)
    check(case)


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("args", [dict(), dict(axis=1), dict(axis=-1), dict(axis=2), dict(axis=-3), dict(axis=[1]),
                                  dict(axis="tensor"), dict(output_type="int32"), dict(output_type="int16"),
                                  dict(output_type="uint16"), dict(output_type="float32")], ids=repr)
def test_arg_arguments(name, args):
    x = arrays((3, 4))

    def case(tf, x):
        kwargs = dict(args)
        if kwargs.get("axis") == "tensor":
            kwargs["axis"] = tf.constant(1, tf.int64)
        if "output_type" in kwargs:
            kwargs["output_type"] = getattr(tf, kwargs["output_type"])
        return getattr(tf, name)(x, **kwargs)
    check(case, x)


def test_arg_special_cases():
    for name in ["argmax", "argmin"]:
        check(lambda tf, name=name: getattr(tf, name)(tf.constant([1.0, np.nan, 2.0, np.nan, 0.0])))
        check(lambda tf, name=name: getattr(tf, name)(tf.constant([3.0, 1.0, 3.0, 1.0])))
        check(lambda tf, name=name: getattr(tf, name)(tf.zeros([0])))
        check(lambda tf, name=name: getattr(tf, name)(tf.constant(1.0)))
        check(lambda tf, name=name: getattr(tf, name)(tf.constant([[True, False], [False, True]]), 1))


def test_argmax_has_no_gradient():
    def case(tf, x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.cast(tf.argmax(x), tf.float32) + tf.cast(tf.math.count_nonzero(x), tf.float32)
        return tape.gradient(y, x)
    check(case, arrays((4,)))


def test_count_nonzero_and_zero_fraction():
    i = np.array([[0, 4], [0, 1]], np.int32)
    check(lambda tf, i: [tf.math.count_nonzero(i, 1), tf.math.count_nonzero(i, keepdims=True, dtype=tf.int32),
                         tf.math.count_nonzero(i, 0, dtype=tf.float32), tf.math.count_nonzero(tf.constant([np.nan])),
                         tf.math.zero_fraction(i), tf.math.zero_fraction(tf.zeros([0])),
                         tf.math.count_nonzero(tf.constant(["", "a"]))], i)


def test_monotonicity():
    for values in ([1, 1, 2], [1, 2, 3], [[1, 2], [3, 4]], [], [3], [2.0, 1.0], [1.0, np.nan]):
        check(lambda tf, v=values: [tf.math.is_non_decreasing(v), tf.math.is_strictly_increasing(v)])
    check(lambda tf: tf.math.is_non_decreasing([True, False]))


# -- scans ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["cumsum", "cumprod", "cumulative_logsumexp"])
@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_scans_and_gradients(name, exclusive, reverse, axis):
    x = arrays((3, 4), low=-1.5, high=1.5, seed=4)
    check_grad(lambda tf, x: getattr(tf.math, name)(x, axis, exclusive=exclusive, reverse=reverse), x)


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "cumulative_logsumexp"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_scan_dtypes(name, dtype):
    def case(tf):
        x = tf.constant(["a", "b"]) if dtype == "string" else tf.cast(tf.constant([[100, 3], [200, 2]]), dtype)
        return getattr(tf.math, name)(x, 0)
    check(case, rtol=1e-3)


@pytest.mark.parametrize("name", ["cumsum", "cumprod", "cumulative_logsumexp"])
@pytest.mark.parametrize("axis", [2, -3, [1], 1.0, "tensor", "int64"], ids=repr)
def test_scan_axes(name, axis):
    def case(tf, x):
        a = tf.constant(1) if axis == "tensor" else tf.constant(-1, tf.int64) if axis == "int64" else axis
        return getattr(tf.math, name)(x, a)
    check(case, arrays((2, 3)))
    check(lambda tf: getattr(tf.math, name)(tf.constant(1.0)))


def test_scan_special_values_and_gradients_at_zero():
    check(lambda tf: tf.math.cumulative_logsumexp(tf.constant([-np.inf, 2.0, np.inf, 1.0])))
    check(lambda tf: [tf.cumsum([1, 2]), tf.math.cumsum(tf.constant([200, 100], tf.uint8))])
    for exclusive in (False, True):
        for reverse in (False, True):
            check_grad(lambda tf, x, e=exclusive, r=reverse: tf.math.cumprod(x, exclusive=e, reverse=r),
                       np.array([2.0, 0.0, 3.0, 0.0, 1.5], np.float32))


# -- top_k / in_top_k ----------------------------------------------------------------------------
@pytest.mark.parametrize("k", [0, 1, 2, 3, 4, -1, 1.0, "tensor"], ids=repr)
@pytest.mark.parametrize("sorted_", [True, False])
def test_top_k(k, sorted_):
    x = np.array([[1.0, 5.0, 2.0], [3.0, 1.0, 3.0]], np.float32)

    def case(tf, x):
        kk = tf.constant(2) if k == "tensor" else k
        result = tf.math.top_k(x, k=kk, sorted=sorted_)
        values, indices = result.values.numpy(), result.indices.numpy()
        if not sorted_:  # TF leaves the order of an unsorted result unspecified: compare in index order
            order = np.argsort(indices, axis=-1)
            values, indices = np.take_along_axis(values, order, -1), np.take_along_axis(indices, order, -1)
        return [values, indices, type(result).__name__, result._fields]
    check(case, x)


def test_top_k_cases():
    check(lambda tf: tf.math.top_k(tf.constant([1.0, np.nan, 2.0]), k=2))
    check(lambda tf: tf.math.top_k(tf.constant([5.0, 1.0, 7.0, 2.0, 6.0, 3.0]), k=3, sorted=False))
    check(lambda tf: tf.math.top_k(tf.constant(1.0), k=1))
    check(lambda tf: tf.math.top_k(tf.constant([True]), k=1))
    for dtype in ["int32", "uint8", "float16", "int64", "float64"]:
        check(lambda tf, dtype=dtype: tf.math.top_k(tf.cast(tf.constant([3, 1, 2]), dtype), k=2))
    for index_type in ["int16", "int32", "int64", "float32"]:
        check(lambda tf, t=index_type: tf.math.top_k(tf.constant([3, 1, 2]), k=2, index_type=getattr(tf, t)))
    check_grad(lambda tf, x: tf.math.top_k(x, k=2).values, np.array([[2.0, 2.0, 1.0], [0.5, 3.0, 1.0]], np.float32))
    check_grad(lambda tf, x: tf.math.top_k(x, k=2, sorted=False).values, arrays((2, 5)))


@pytest.mark.parametrize("case", [
    lambda tf: tf.math.in_top_k(tf.constant([0, 1]), tf.constant([[1.0, 2.0], [2.0, 1.0]]), 1),
    lambda tf: tf.math.in_top_k(tf.constant([0, 1]), tf.constant([[1.0, 1.0], [2.0, 2.0]]), 1),
    lambda tf: tf.math.in_top_k(tf.constant([0, 5]), tf.constant([[1.0, 1.0], [2.0, 2.0]]), 1),
    lambda tf: tf.math.in_top_k(tf.constant([-1, 1]), tf.constant([[1.0, 1.0], [2.0, 2.0]]), 1),
    lambda tf: tf.math.in_top_k(tf.constant([0, 1]), tf.constant([[np.nan, 1.0], [2.0, 2.0]]), 1),
    lambda tf: tf.math.in_top_k(tf.constant([0, 0]), tf.constant([[1.0, np.nan], [2.0, np.inf]]), 1),
    lambda tf: tf.math.in_top_k(tf.constant([0, 2]), tf.constant([[1.0, 3.0, 2.0], [2.0, 1.0, 3.0]]), 2),
    lambda tf: tf.math.in_top_k(tf.constant([0, 2]), tf.constant([[1.0, 3.0, 2.0], [2.0, 1.0, 3.0]]), tf.constant(2)),
    lambda tf: tf.math.in_top_k(tf.constant([0, 2]), tf.constant([[1.0, 3.0, 2.0], [2.0, 1.0, 3.0]]), 0),
    lambda tf: tf.math.in_top_k(tf.constant([0, 2]), tf.constant([[1.0, 3.0, 2.0], [2.0, 1.0, 3.0]]), 5),
    lambda tf: tf.math.in_top_k(tf.constant([0]), tf.constant([[1.0, 3.0, 2.0], [2.0, 1.0, 3.0]]), 1),
    lambda tf: tf.math.in_top_k(tf.constant([0]), tf.constant([1.0, 3.0, 2.0]), 1),
    lambda tf: tf.math.in_top_k(tf.constant([0]), tf.constant([[1.0, 3.0]], tf.float16), 1),
    lambda tf: tf.math.in_top_k(tf.constant([0, 1], tf.int64), tf.constant([[1.0, 1.0], [2.0, 2.0]]), 1),
    lambda tf: tf.math.in_top_k(targets=tf.constant([1]), predictions=tf.constant([[1.0, 3.0]]), k=1),
])
def test_in_top_k(case):
    check(case)


@pytest.mark.parametrize("case", [
    lambda tf: tf.math.invert_permutation([3, 4, 0, 2, 1]),
    lambda tf: tf.math.invert_permutation([3, 3, 0]),
    lambda tf: tf.math.invert_permutation([0, 1, 1]),
    lambda tf: tf.math.invert_permutation([3, 1, 0]),
    lambda tf: tf.math.invert_permutation([[0]]),
    lambda tf: tf.math.invert_permutation(tf.constant([1, 0], tf.int64)),
    lambda tf: tf.math.invert_permutation([1.0, 0.0]),
    lambda tf: tf.math.invert_permutation(tf.zeros([0], tf.int32)),
    lambda tf: tf.math.approx_max_k(tf.constant([[1.0, 5.0, 2.0], [3.0, 1.0, 3.0]]), 2),
    lambda tf: tf.math.approx_max_k(tf.constant([[1.0, 5.0, 2.0]]), 1, reduction_dimension=0),
    lambda tf: tf.math.approx_min_k(tf.constant([[1.0, 5.0, 2.0]]), 2),
    lambda tf: tf.math.approx_max_k(tf.constant([[1, 5, 2]]), 2),
    lambda tf: tf.approx_top_k(tf.constant([[1.0, 5.0, 2.0]]), 2),
    lambda tf: tf.math.lbeta([[1.0, 2.0], [3.0, 4.0]]),
    lambda tf: tf.math.lbeta([1.0, 2.0, 0.5]),
    lambda tf: tf.math.lbeta(tf.zeros([2, 0])),
    lambda tf: tf.math.lbeta([1, 2]),
    lambda tf: tf.math.lbeta(2.0),
])
def test_permutations_approx_top_k_and_lbeta(case):
    check(case)


def test_lbeta_and_approx_top_k_gradients():
    check_grad(lambda tf, x: tf.math.lbeta(x), arrays((2, 3), low=0.5, high=3.0))
    check_grad(lambda tf, x: tf.math.approx_max_k(x, 2).values, arrays((2, 5)))
