"""tf.nn pooling (max/avg 1-D/2-D/3-D, pool, max_pool_with_argmax) and local response normalization against
real TF 2.21: values, dtypes, errors and gradients (ties included)."""

import ml_dtypes
import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad, vtf


def grads(fn, *args, rtol=1e-5, atol=1e-6):
    """Values (or the error) and, when TF computes a result, gradients."""
    if check(fn, *args, rtol=rtol, atol=atol) is not None:
        check_grad(fn, *args, rtol=rtol, atol=atol)


def values_and_grads_where_tf_has_them(is_max, data_format, rank):
    """TF's CPU max pool gradients refuse channels-first data, and its 3-D pool gradients fail on
    data_format=None ('NoneType' object has no attribute 'decode'): values only there."""
    if (is_max and data_format is not None and data_format.startswith("NC")) or (rank == 5 and data_format is None):
        return check
    return grads


def ties(*shape, seed=0):
    """Small integer-valued floats: many windows hold their maximum more than once."""
    return np.random.default_rng(seed).integers(-2, 3, shape).astype(np.float32)


WINDOWS_2D = [  # ksize, strides, padding
    (2, 2, "VALID"), (2, 2, "SAME"), (3, 1, "SAME"), (3, 2, "SAME"), ([2, 3], [1, 2], "SAME"),
    ([1, 3, 2, 1], [1, 2, 2, 1], "VALID"), (2, 3, "SAME"), (4, 3, "SAME"), (3, 1, "VALID"),
    (2, 1, [[0, 0], [1, 1], [0, 1], [0, 0]]),
]


@pytest.mark.parametrize("ksize, strides, padding", WINDOWS_2D)
@pytest.mark.parametrize("values", [arrays((2, 7, 6, 3)), ties(2, 7, 6, 3)], ids=["distinct", "ties"])
def test_max_pool2d(ksize, strides, padding, values):
    grads(lambda tf, x: tf.nn.max_pool2d(x, ksize, strides, padding), values)


@pytest.mark.parametrize("ksize, strides, padding", WINDOWS_2D[:9])
def test_avg_pool2d(ksize, strides, padding):
    grads(lambda tf, x: tf.nn.avg_pool2d(x, ksize, strides, padding), arrays((2, 7, 6, 3)))


@pytest.mark.parametrize("pool", ["max_pool2d", "avg_pool2d"])
def test_pool2d_nchw(pool):
    # TF's CPU MaxPoolGrad refuses NCHW ("Default MaxPoolingGradOp only supports NHWC"): max pool values only
    compare = grads if pool == "avg_pool2d" else check
    x = arrays((2, 3, 7, 6))
    compare(lambda tf, x: getattr(tf.nn, pool)(x, [2, 3], 2, "SAME", data_format="NCHW"), x)
    compare(lambda tf, x: getattr(tf.nn, pool)(x, [1, 1, 3, 2], [1, 1, 1, 2], "VALID", data_format="NCHW"), x)


def test_max_pool_nchw_gradient_matches_nhwc():
    x = arrays((2, 7, 6, 3))
    grads_of = []
    for data_format, value in (("NHWC", x), ("NCHW", np.moveaxis(x, -1, 1))):
        t = vtf.constant(value)
        with vtf.GradientTape() as tape:
            tape.watch(t)
            y = vtf.nn.max_pool2d(t, [2, 3], 2, "SAME", data_format=data_format)
        grads_of.append(tape.gradient(y, t).numpy())
    np.testing.assert_array_equal(np.moveaxis(grads_of[1], 1, -1), grads_of[0])


@pytest.mark.parametrize("pool", ["max_pool1d", "avg_pool1d"])
@pytest.mark.parametrize("ksize, strides, padding, data_format", [
    (2, 2, "SAME", "NWC"), (3, 1, "VALID", "NWC"), ([3], [2], "SAME", None), (2, 2, "SAME", "NCW"),
    ([1, 3, 1], [1, 2, 1], "VALID", "NWC"),
])
def test_pool1d(pool, ksize, strides, padding, data_format):
    compare = values_and_grads_where_tf_has_them(pool.startswith("max"), data_format, 3)
    compare(lambda tf, x: getattr(tf.nn, pool)(x, ksize, strides, padding, data_format), ties(2, 9, 3))


def test_max_pool1d_explicit_padding():
    grads(lambda tf, x: tf.nn.max_pool1d(x, 3, 2, [[0, 0], [1, 2], [0, 0]]), arrays((2, 9, 3)))


@pytest.mark.parametrize("pool", ["max_pool3d", "avg_pool3d"])
@pytest.mark.parametrize("ksize, strides, padding, data_format", [
    (2, 2, "SAME", "NDHWC"), ([2, 3, 2], [1, 2, 2], "VALID", "NDHWC"), (3, 1, "SAME", None),
    (2, 2, "SAME", "NCDHW"),
])
def test_pool3d(pool, ksize, strides, padding, data_format):
    compare = values_and_grads_where_tf_has_them(pool.startswith("max"), data_format, 5)
    compare(lambda tf, x: getattr(tf.nn, pool)(x, ksize, strides, padding, data_format), ties(1, 4, 5, 6, 2))


@pytest.mark.parametrize("pool", ["max_pool", "avg_pool"])
@pytest.mark.parametrize("shape, data_format", [((2, 9, 3), None), ((2, 7, 6, 3), None), ((2, 3, 7, 6), "NCHW"),
                                                ((1, 4, 5, 6, 2), None), ((1, 2, 4, 5, 6), "NCDHW"),
                                                ((7, 3), None), ((1, 1, 2, 3, 4, 2), None)])
def test_rank_generic_pools(pool, shape, data_format):
    compare = values_and_grads_where_tf_has_them(pool == "max_pool", data_format, len(shape))
    compare(lambda tf, x: getattr(tf.nn, pool)(x, 2, 2, "SAME", data_format), arrays(shape))


@pytest.mark.parametrize("case", [
    lambda tf, x: tf.nn.max_pool(x[None], 2, 2, [[0, 0]] * 5),
    lambda tf, x: tf.nn.max_pool(x, 2, 2, [[0, 0], [1, 1], [1, 1], [0, 0]]),
    lambda tf, x: tf.nn.max_pool2d(x, [2, 3, 1], 1, "VALID"),
    lambda tf, x: tf.nn.max_pool2d(x, [2, 2, 2, 1], 1, "VALID"),
    lambda tf, x: tf.nn.max_pool2d(x, 2, [2, 1, 1, 1], "VALID"),
    lambda tf, x: tf.nn.max_pool2d(x, 2, 0, "VALID"),
    lambda tf, x: tf.nn.max_pool2d(x, 0, 1, "VALID"),
    lambda tf, x: tf.nn.max_pool2d(x, 2, 1, [[0, 0], [2, 1], [0, 1], [0, 0]]),
    lambda tf, x: tf.nn.max_pool2d(x, 2, 1, [[1, 0], [1, 1], [0, 1], [0, 0]]),
    lambda tf, x: tf.nn.max_pool2d(x, 2, 1, "same"),
    lambda tf, x: tf.nn.max_pool2d(x, 2, 1, "SAME", data_format="NWHC"),
    lambda tf, x: tf.nn.max_pool2d(x, 6, 1, "SAME"),
    lambda tf, x: tf.nn.max_pool2d(x, [1, 1, 1, 2], [1, 1, 1, 2], "VALID"),   # pooling across channels
    lambda tf, x: tf.nn.max_pool2d(x, [1, 1, 1, 2], [1, 1, 1, 1], "VALID"),
    lambda tf, x: tf.nn.max_pool2d(x, [1, 2, 2, 2], [1, 1, 1, 2], "VALID"),
    lambda tf, x: tf.nn.max_pool2d(x[0], 2, 2, "SAME"),
    lambda tf, x: tf.nn.avg_pool2d(x, 2, 1, [[0, 0], [1, 1], [0, 1], [0, 0]]),
    lambda tf, x: tf.nn.avg_pool2d(x, [2, 2, 2, 1], 1, "VALID"),
    lambda tf, x: tf.nn.avg_pool2d(x, 2, 0, "VALID"),
    lambda tf, x: tf.nn.avg_pool2d(x, 6, 1, "SAME"),
    lambda tf, x: tf.nn.avg_pool2d(x, 6, 1, "VALID"),
    lambda tf, x: tf.nn.max_pool3d(x[None], 2, 2, [[0, 0]] * 5),
])
def test_pool_arguments(case):
    check(case, arrays((2, 5, 5, 4)))


def test_max_pool_with_window_longer_than_the_input():
    # TF's MaxPool crashes the process here (AvgPool and TF's reference kernels give an empty result)
    y = vtf.nn.max_pool2d(arrays((2, 5, 5, 4)), 6, 1, "VALID")
    assert y.shape.as_list() == [2, 0, 0, 4]


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16", "int32", "int64", "uint8", "int8", "int16",
                                   "uint16", "uint32", "bool"])
@pytest.mark.parametrize("pool", ["max_pool2d", "avg_pool2d", "max_pool3d", "avg_pool3d"])
def test_pool_dtypes(pool, dtype):
    x = arrays((1, 4, 5, 6, 2), low=-3, high=3)
    x = x[0] if pool.endswith("2d") else x
    np_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype
    check(lambda tf, x: getattr(tf.nn, pool)(x, 2, 2, "SAME"), np.round(x).astype(np_dtype), rtol=1e-2, atol=1e-2)


# -- pool() ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("pooling_type", ["MAX", "AVG"])
@pytest.mark.parametrize("shape, kwargs", [
    ((2, 7, 6, 3), dict(window_shape=[2, 2], strides=[2, 2], padding="SAME")),
    ((2, 7, 6, 3), dict(window_shape=[3, 2], padding="SAME")),
    ((2, 7, 6, 3), dict(window_shape=[2, 2], padding="VALID", dilations=[2, 2])),
    ((2, 7, 6, 3), dict(window_shape=[2, 3], padding="VALID", dilations=[2, 1])),
    ((2, 9, 3), dict(window_shape=[3], padding="VALID", dilations=[3])),
    ((2, 3, 9), dict(window_shape=[2], strides=[2], padding="SAME", data_format="NCW")),
    ((1, 4, 5, 6, 2), dict(window_shape=[2, 2, 2], padding="VALID", dilations=[1, 2, 2])),
    ((2, 3, 7, 6), dict(window_shape=[2, 2], padding="VALID", data_format="NCHW", dilations=[2, 1])),
    ((2, 7, 6, 3), dict(window_shape=[2, 2], padding="SAME", dilations=[2, 2])),
    ((2, 7, 6, 3), dict(window_shape=[2, 2], strides=[2, 1], padding="VALID", dilations=[2, 2])),
    ((2, 7, 6, 3), dict(window_shape=[2, 2], strides=[3, 1], padding="VALID")),
    ((2, 7, 6, 3), dict(window_shape=[2], padding="VALID")),
    ((2, 7, 6, 3), dict(window_shape=[2, 2], padding="VALID", dilations=[0, 1])),
    ((2, 7, 6, 3), dict(window_shape=[2, 2], strides=[1], padding="VALID")),
    ((2, 9, 3), dict(window_shape=[2], padding="VALID", data_format="NHWC")),
])
def test_pool(pooling_type, shape, kwargs):
    compare = values_and_grads_where_tf_has_them(pooling_type == "MAX", kwargs.get("data_format"), len(shape))
    compare(lambda tf, x: tf.nn.pool(x, pooling_type=pooling_type, **kwargs), ties(*shape))


@pytest.mark.parametrize("case", [
    lambda tf, x: tf.nn.pool(x, [2, 2], "MIN"),
    lambda tf, x: tf.nn.pool(x, [2, 2], "max"),
    lambda tf, x: tf.nn.pool(x, 2, "MAX"),
    lambda tf, x: tf.nn.pool(x, [2, 2, 2, 2], "MAX"),
])
def test_pool_arguments_of_pool(case):
    check(case, arrays((2, 5, 5, 4)))


# -- max_pool_with_argmax -----------------------------------------------------------------------------------
@pytest.mark.parametrize("ksize, strides, padding", [(2, 2, "VALID"), (2, 2, "SAME"), (3, 1, "SAME"),
                                                     ([1, 3, 2, 1], [1, 2, 1, 1], "SAME"), ([2, 3], [2, 2], "VALID")])
@pytest.mark.parametrize("include_batch_in_index", [False, True])
def test_max_pool_with_argmax(ksize, strides, padding, include_batch_in_index):
    grads(lambda tf, x: tf.nn.max_pool_with_argmax(x, ksize, strides, padding,
                                                   include_batch_in_index=include_batch_in_index), ties(2, 7, 6, 3))


@pytest.mark.parametrize("case", [
    lambda tf, x: tf.nn.max_pool_with_argmax(x, 2, 2, "SAME", output_dtype=tf.int32),
    lambda tf, x: tf.nn.max_pool_with_argmax(x, 2, 2, "SAME", output_dtype=tf.float32),
    lambda tf, x: tf.nn.max_pool_with_argmax(tf.cast(x, tf.float64), 2, 2, "SAME"),
    lambda tf, x: tf.nn.max_pool_with_argmax(tf.cast(x, tf.int32), 2, 2, "SAME"),
    lambda tf, x: tf.nn.max_pool_with_argmax(tf.cast(x, tf.uint8), 2, 2, "SAME"),
    lambda tf, x: tf.nn.max_pool_with_argmax(tf.cast(x, tf.float16), 2, 2, "SAME"),
    lambda tf, x: tf.nn.max_pool_with_argmax(tf.cast(x, tf.bool), 2, 2, "SAME"),
    lambda tf, x: tf.nn.max_pool_with_argmax(x, 2, 2, "SAME", data_format="NCHW"),
    lambda tf, x: tf.nn.max_pool_with_argmax(x, 2, 2, [[0, 0], [1, 1], [1, 1], [0, 0]]),
    lambda tf, x: tf.nn.max_pool_with_argmax(x[0], 2, 2, "VALID"),
    lambda tf, x: tf.nn.max_pool_with_argmax(x, [2, 2, 2, 1], 2, "VALID"),
])
def test_max_pool_with_argmax_arguments(case):
    check(case, np.abs(ties(2, 5, 5, 3)))


# -- LRN ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [{}, dict(depth_radius=1), dict(depth_radius=2, bias=2.0, alpha=0.5, beta=0.75),
                                    dict(depth_radius=0, beta=1), dict(depth_radius=100, alpha=1e-2),
                                    dict(depth_radius=1 << 28, alpha=1e-3), dict(depth_radius=1.7),
                                    dict(depth_radius=vtf.constant(1)), dict(bias=2)])
def test_lrn(kwargs):
    kwargs = {k: (1 if hasattr(v, "numpy") else v) for k, v in kwargs.items()}
    grads(lambda tf, x: tf.nn.local_response_normalization(x, **kwargs), arrays((2, 3, 4, 7)), rtol=1e-4, atol=1e-5)


def test_lrn_radius_as_a_tensor():
    grads(lambda tf, x: tf.nn.lrn(x, tf.constant(2)), arrays((2, 3, 4, 7)), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("case", [
    lambda tf, x: tf.nn.lrn(tf.cast(x, tf.float16)),
    lambda tf, x: tf.nn.lrn(tf.cast(x, tf.float64)),
    lambda tf, x: tf.nn.lrn(tf.cast(x, tf.bfloat16)),
    lambda tf, x: tf.nn.lrn(tf.cast(x, tf.int32)),
    lambda tf, x: tf.nn.lrn(x[0]),
    lambda tf, x: tf.nn.lrn(x[None]),
    lambda tf, x: tf.nn.lrn(x, -1),
    lambda tf, x: tf.nn.lrn(x, "1"),
    lambda tf, x: tf.nn.lrn(x, 1, tf.constant(2.0)),
    lambda tf, x: tf.nn.lrn(x.numpy()),
])
def test_lrn_arguments(case):
    check(case, arrays((2, 3, 4, 5)), rtol=1e-3, atol=1e-3)
