"""tf.nn moments, sufficient statistics, batch normalization, bias_add and embedding_lookup against real TF."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import LIBS, arrays, assert_same, check, check_grad, convert, to_numpy

DTYPES = ["float32", "float64", "float16", "bfloat16", "int32", "int64", "int8", "uint8", "bool"]
X = np.array([[-1.0, 0, 2], [3, -4, 5]], np.float32)


def check_values_and_grads(fn, *args, **kwargs):
    """``check`` (errors included), then ``check_grad`` when real TF computed a result."""
    if check(fn, *args, **kwargs) is not None:
        check_grad(fn, *args, **kwargs)


# -- moments -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("axes", [[0], 0, [0, 1], [1], [-1], [0, 2], (1, 2)], ids=repr)
@pytest.mark.parametrize("keepdims", [False, True])
def test_moments(axes, keepdims):
    check_values_and_grads(lambda tf, x: tf.nn.moments(x, axes, keepdims=keepdims), arrays((2, 3, 4)), rtol=1e-4)


@pytest.mark.parametrize("dtype", DTYPES)
def test_moment_dtypes(dtype):
    x = np.array([[1, 2], [4, 7]], np.float32)
    check(lambda tf, x: tf.nn.moments(tf.cast(x, dtype), [0]), x)
    check(lambda tf, x: tf.nn.weighted_moments(tf.cast(x, dtype), [0], tf.cast(x, dtype)), x)
    check(lambda tf, x: tf.nn.sufficient_statistics(tf.cast(x, dtype), [0]), x)
    check(lambda tf, x: tf.nn.normalize_moments(tf.cast(2, dtype), tf.cast(x, dtype), tf.cast(x, dtype), None), x)
    check(lambda tf, x: tf.nn.batch_normalization(tf.cast(x, dtype), 1.0, 4.0, None, None, 0.1), x)
    check(lambda tf, x: tf.nn.bias_add(tf.cast(x, dtype), tf.cast([1, 2], dtype)), x)
    check(lambda tf, x: tf.nn.embedding_lookup(tf.cast(x, dtype), [1, 0]), x)


def test_moments_shift_and_half():
    check(lambda tf, x: tf.nn.moments(x, [0], shift=1.0), X)
    check_grad(lambda tf, x: tf.nn.moments(x, [0]), X.astype(np.float16))
    check(lambda tf, x: tf.nn.moments(x, tf.constant([0, 1])), X)


@pytest.mark.parametrize("case", [dict(shift=None), dict(shift=1.0), dict(shift=None, keepdims=True),
                                  dict(shift="tensor")])
@pytest.mark.parametrize("axes", [[0], [0, 1]])
def test_sufficient_statistics_and_normalize_moments(case, axes):
    def stats(tf, x):
        shift = tf.constant([0.5, 1.0, 2.0]) if case["shift"] == "tensor" else case["shift"]
        if shift is not None and len(axes) > 1:
            shift = 1.5
        count, mean_ss, var_ss, shift = tf.nn.sufficient_statistics(x, axes, shift=shift,
                                                                     keepdims=case.get("keepdims", False))
        return count, mean_ss, var_ss, shift, tf.nn.normalize_moments(count, mean_ss, var_ss, shift)
    check_values_and_grads(stats, X, rtol=1e-4)


def test_normalize_moments_python_values():
    check(lambda tf: tf.nn.normalize_moments(2.0, [1.0, 2], [3.0, 4], shift=1.0))
    check(lambda tf: tf.nn.normalize_moments(2.0, [1.0, 2], [3.0, 4], None))


@pytest.mark.parametrize("weights", ["rows", "zeros", "ints", "full", "scalar"])
@pytest.mark.parametrize("axes", [[0], [1], [0, 1]])
@pytest.mark.parametrize("keepdims", [False, True])
def test_weighted_moments(weights, axes, keepdims):
    w = {"rows": np.array([[1.0], [0.5]], np.float32), "zeros": np.zeros((2, 1), np.float32),
         "ints": np.array([1, 2, 3], np.int32), "full": arrays((2, 3), seed=3, low=0, high=2),
         "scalar": np.float32(2.0)}[weights]
    check_values_and_grads(lambda tf, x, w: tf.nn.weighted_moments(x, axes, w, keepdims=keepdims), X, w, rtol=1e-4)


# -- batch normalization ---------------------------------------------------------------------------
@pytest.mark.parametrize("with_offset", [False, True])
@pytest.mark.parametrize("with_scale", [False, True])
def test_batch_normalization(with_offset, with_scale):
    x, mean, variance, offset, scale = arrays((4, 3), (3,), (3,), (3,), (3,))
    variance = np.abs(variance) + 0.1

    def bn(tf, x, mean, variance, offset, scale):
        return tf.nn.batch_normalization(x, mean, variance, offset if with_offset else None,
                                         scale if with_scale else None, 1e-3)
    check_values_and_grads(bn, x, mean, variance, offset, scale, rtol=1e-4)


def test_batch_normalization_python_arguments():
    check(lambda tf, x: tf.nn.batch_normalization(x, 1.0, 4.0, 2, 3.0, 0.1), X)
    check(lambda tf, x: tf.nn.batch_normalization(x, [1.0, 2, 3], [1.0, 1, 4], None, None, 0.0), X)
    check(lambda tf, x: tf.nn.batch_normalization(x, tf.constant([1.0, 2, 3]), tf.constant([1.0, 1, 4]), None, None,
                                                  0.0), X)
    check(lambda tf, x: tf.nn.batch_normalization(x, tf.constant(1.0, tf.float64), 1.0, None, None, 0.0), X)


@pytest.mark.parametrize("scale_after", [False, True])
def test_batch_norm_with_global_normalization(scale_after):
    x, mean, variance, beta, gamma = arrays((2, 3), (3,), (3,), (3,), (3,))
    check_values_and_grads(lambda tf, *a: tf.nn.batch_norm_with_global_normalization(
        a[0], a[1], a[2], a[3], a[4], 0.1, scale_after), x, mean, np.abs(variance) + 0.5, beta, gamma, rtol=1e-4)
    check(lambda tf, x: tf.nn.batch_norm_with_global_normalization(x, [1.0, 2, 3], [1.0, 1, 4], [0.0, 1, 0],
                                                                   [2.0, 2, 2], 0.1, True), X)


# -- bias_add ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", [
    ((2, 3), (3,), None), ((2, 3), (2,), None), ((2, 3), (2,), "NCHW"), ((2, 3), (2,), "NCW"), ((2, 3), (3,), "NWC"),
    ((2, 3), (3,), "XYZ"), ((3,), (3,), None), ((2, 3), (1, 3), None), ((2, 3, 4, 5), (3,), "NCHW"),
    ((2, 3, 4, 5), (3,), "NCDHW"), ((2, 3, 4, 5), (5,), "NHWC"), ((2, 3, 4, 5, 6), (3,), "NCDHW"),
])
def test_bias_add(case):
    shape, bias_shape, data_format = case
    check_values_and_grads(lambda tf, x, b: tf.nn.bias_add(x, b, data_format=data_format), *arrays(shape, bias_shape))


def test_bias_add_conversions():
    check(lambda tf, x: tf.nn.bias_add(x, [1, 2, 3]), X)
    check(lambda tf, x: tf.nn.bias_add(x, tf.constant([1, 2, 3])), X)
    check(lambda tf, x: tf.nn.bias_add(x, tf.constant([1.0, 2, 3], tf.float64)), X)


# -- embedding_lookup -------------------------------------------------------------------------------------
def check_lookup(fn, *params):
    """``check``, then the gradients of the float params compared as dense tensors (TF's are IndexedSlices)."""
    if check(fn, *params) is None:
        return
    results = []
    for lib in LIBS:
        inputs = convert(lib, params)
        with lib.GradientTape() as tape:
            for p in inputs:
                tape.watch(p)
            out = fn(lib, *inputs)
            weights = np.random.default_rng(0).standard_normal(tuple(out.shape.as_list())).astype(np.float32)
            loss = lib.reduce_sum(out * lib.constant(weights))
        results.append([lib.convert_to_tensor(g) for g in tape.gradient(loss, list(inputs))])
    assert_same(to_numpy(results[0]), to_numpy(results[1]), 1e-4, 1e-5, "grads")


@pytest.mark.parametrize("ids", [[1, 0, 1], [[1], [0]], 1, [2], [-1], [], np.array([0, 1], np.int64)], ids=repr)
@pytest.mark.parametrize("max_norm", [None, 1.0, 10.0])
def test_embedding_lookup(ids, max_norm):
    check_lookup(lambda tf, p: tf.nn.embedding_lookup(p, ids, max_norm=max_norm), X)


@pytest.mark.parametrize("shards", [[(2, 3), (2, 3)], [(3, 2), (1, 2)], [(2, 2), (1, 2), (1, 2)], [(2, 2), (2, 2),
                                                                                                     (1, 2)]])
@pytest.mark.parametrize("ids", [[0, 1, 2, 3], [3, 0], [2, 3], [4]], ids=repr)
def test_embedding_lookup_shards(shards, ids):
    params = [arrays(s, seed=i) for i, s in enumerate(shards)]
    check_lookup(lambda tf, *p: tf.nn.embedding_lookup(list(p), ids), *params)


def test_embedding_lookup_arguments():
    check(lambda tf, p: tf.nn.embedding_lookup(p, [1.0]), X)
    check(lambda tf: tf.nn.embedding_lookup([], [1]))
    check(lambda tf: tf.nn.embedding_lookup(tf.ones([3]), [1, 2], max_norm=0.5))
    check(lambda tf: tf.nn.embedding_lookup(tf.constant([[1, 2], [3, 4]]), [1]))
    check(lambda tf: tf.nn.embedding_lookup(tf.constant([[1, 2], [3, 4]]), [1], max_norm=1.0))
    check(lambda tf, p: tf.nn.embedding_lookup(p, tf.constant([[0, 1]], tf.int64)), X)
    check(lambda tf, p: tf.nn.embedding_lookup((X, X), [3, 0]), X)  # a tuple is one (stacked) tensor
    check_lookup(lambda tf, p: tf.nn.embedding_lookup(p, [0, 0, 1], max_norm=2.0),
                 np.array([[3.0, 4.0], [0.0, 0.0]], np.float32))
