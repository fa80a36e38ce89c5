"""tf.nn transposed convolutions and depthwise backprops against real TF 2.21: values, dtypes, errors and
gradients (input and filter)."""

import ml_dtypes
import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad, vtf

RTOL, ATOL = 1e-4, 1e-5  # float32 sums accumulated in another order by oneDNN


def grads(fn, *args):
    """Values (or the error) and, when TF computes a result, gradients."""
    if check(fn, *args, rtol=RTOL, atol=ATOL) is not None:
        check_grad(fn, *args, rtol=RTOL, atol=ATOL)


# -- conv2d_transpose --------------------------------------------------------------------------------
@pytest.mark.parametrize("xs, ws, output_shape, strides, padding, dilations", [
    ((2, 5, 5, 4), (3, 3, 6, 4), [2, 10, 10, 6], 2, "SAME", None),
    ((2, 5, 5, 4), (3, 3, 6, 4), [2, 9, 9, 6], 2, "SAME", None),      # the odd output: the end pad differs
    ((2, 5, 5, 4), (3, 3, 6, 4), [2, 11, 11, 6], 2, "VALID", None),
    ((2, 5, 5, 4), (3, 3, 6, 4), [2, 12, 11, 6], 2, "VALID", None),   # inputs no window reads get zero
    ((1, 4, 3, 2), (2, 2, 3, 2), [1, 8, 6, 3], [2, 2], "SAME", None),  # even kernel
    ((1, 4, 5, 2), (3, 2, 3, 2), [1, 8, 15, 3], [2, 3], "SAME", None),
    ((2, 5, 5, 4), (3, 3, 6, 4), [2, 5, 5, 6], 1, "SAME", 2),
    ((1, 5, 5, 2), (2, 3, 3, 2), [1, 6, 9, 3], 1, "VALID", [1, 2]),
    ((2, 5, 5, 4), (3, 3, 6, 4), [2, 9, 9, 6], 2, [[0, 0], [1, 1], [1, 1], [0, 0]], None),
    ((2, 5, 5, 4), (3, 3, 3, 4), [2, 10, 10, 6], 2, "SAME", None),    # 2 groups: output depth 2 x filter depth
    ((1, 3, 3, 2), (1, 1, 3, 2), [1, 3, 3, 3], 1, "VALID", None),
])
def test_conv2d_transpose(xs, ws, output_shape, strides, padding, dilations):
    grads(lambda tf, x, w: tf.nn.conv2d_transpose(x, w, output_shape, strides, padding, dilations=dilations),
          *arrays(xs, ws))


def test_conv2d_transpose_nchw_and_shape_forms():
    x, w = arrays((2, 4, 5, 5), (3, 3, 6, 4))
    grads(lambda tf, x, w: tf.nn.conv2d_transpose(x, w, [2, 6, 10, 10], 2, data_format="NCHW"), x, w)
    x = np.ascontiguousarray(np.moveaxis(x, 1, -1))
    grads(lambda tf, x, w: tf.nn.conv2d_transpose(x, w, tf.constant([2, 10, 10, 6]), 2), x, w)
    grads(lambda tf, x, w: tf.nn.conv2d_transpose(x, w, (2, 10, 10, 6), [1, 2, 2, 1]), x, w)
    grads(lambda tf, x, w: tf.nn.conv2d_transpose(x, w, np.array([2, 10, 10, 6]), 2), x, w)


@pytest.mark.parametrize("dtype", ["float64", "float16", "int32", "int64", "bool"])
def test_conv2d_transpose_dtypes(dtype):
    # integer values for every dtype: TF's float16 kernel accumulates in float16 on some CPUs (AMD EPYC) and in
    # float32 on others, which round differently; on these integers both are exact
    x, w = arrays((1, 3, 3, 2), (2, 2, 3, 2), low=-3, high=3, dtype="int32")
    tol = (1e-2, 1e-2) if dtype == "float16" else (1e-6, 1e-9)
    check(lambda tf, x, w: tf.nn.conv2d_transpose(x, w, [1, 6, 6, 3], 2), x.astype(dtype), w.astype(dtype),
          rtol=tol[0], atol=tol[1])


@pytest.mark.parametrize("case", [
    lambda tf, x, w: tf.nn.conv2d_transpose(x, w, [2, 10, 10, 5], 2),             # 5 vs filter depth 6
    lambda tf, x, w: tf.nn.conv2d_transpose(x, w, [2, 10, 10, 6], 2, "same"),
    lambda tf, x, w: tf.nn.conv2d_transpose(x, w, [2, 10, 10, 6], [1, 2, 2]),
    lambda tf, x, w: tf.nn.conv2d_transpose(x, w, [2, 10, 10, 6], 2, data_format="NWHC"),
    lambda tf, x, w: tf.nn.conv2d_transpose(x, tf.cast(w, tf.float64), [2, 10, 10, 6], 2),
    lambda tf, x, w: tf.nn.conv2d_transpose(x, w, [2, 10, 10, 6], 2, [[0, 0], [1, 1], [1, 1]]),
])
def test_conv2d_transpose_arguments(case):
    check(case, *arrays((2, 5, 5, 4), (3, 3, 6, 4)), rtol=RTOL, atol=ATOL)


def test_conv2d_transpose_shape_mismatches():
    # TF's oneDNN kernels answer these with AbortedError ("could not create a primitive descriptor"); its
    # reference kernels, which vfw follows, with InvalidArgumentError
    x, w = arrays((2, 5, 5, 4), (3, 3, 6, 4))
    for output_shape, padding, message in [([2, 11, 11, 6], "SAME", "doesn't match computed"),
                                           ([2, 10, 10, 6], "VALID", "doesn't match computed"),
                                           ([3, 10, 10, 6], "SAME", "same batch size"),
                                           ([10, 10, 6], "SAME", "4-dimensional")]:
        with pytest.raises(vtf.errors.InvalidArgumentError, match=message):
            vtf.nn.conv2d_transpose(x, w, output_shape, 2, padding)
    with pytest.raises(vtf.errors.InvalidArgumentError, match="out_depth"):
        vtf.nn.conv2d_transpose(x, w[..., :3], [2, 10, 10, 6], 2)


def test_conv2d_transpose_is_the_input_gradient_of_conv2d():
    x, w, g = arrays((2, 9, 8, 3), (3, 2, 3, 4), (2, 5, 4, 4))
    x, w, g = vtf.constant(x), vtf.constant(w), vtf.constant(g)
    with vtf.GradientTape() as tape:
        tape.watch(x)
        y = vtf.nn.conv2d(x, w, 2, "SAME")
    grad = tape.gradient(y, x, output_gradients=g)
    np.testing.assert_allclose(vtf.nn.conv2d_transpose(g, w, [2, 9, 8, 3], 2).numpy(), grad.numpy(), rtol=1e-6)


# -- conv1d / conv3d / conv_transpose -------------------------------------------------------------------
@pytest.mark.parametrize("xs, ws, output_shape, strides, padding, data_format, dilations", [
    ((3, 5, 4), (3, 6, 4), [3, 10, 6], 2, "SAME", "NWC", None),
    ((3, 5, 4), (3, 6, 4), [3, 11, 6], [2], "VALID", None, None),
    ((3, 5, 4), (2, 6, 4), [3, 5, 6], [1, 1, 1], "SAME", "NWC", 2),
    ((3, 4, 5), (3, 6, 4), [3, 6, 10], 2, "SAME", "NCW", None),
])
def test_conv1d_transpose(xs, ws, output_shape, strides, padding, data_format, dilations):
    grads(lambda tf, x, w: tf.nn.conv1d_transpose(x, w, output_shape, strides, padding, data_format, dilations),
          *arrays(xs, ws))


@pytest.mark.parametrize("xs, ws, output_shape, strides, padding, data_format", [
    ((1, 2, 3, 3, 4), (2, 3, 3, 5, 4), [1, 4, 6, 6, 5], 2, "SAME", "NDHWC"),
    ((1, 2, 3, 3, 4), (2, 3, 3, 5, 4), [1, 3, 7, 7, 5], [1, 2, 2], "VALID", "NDHWC"),
    ((1, 2, 3, 3, 4), (2, 2, 2, 5, 4), [1, 2, 3, 3, 5], [1, 1, 1, 1, 1], "SAME", "NDHWC"),
    ((1, 4, 2, 3, 3), (2, 3, 3, 5, 4), [1, 5, 4, 6, 6], 2, "SAME", "NCDHW"),
])
def test_conv3d_transpose(xs, ws, output_shape, strides, padding, data_format):
    grads(lambda tf, x, w: tf.nn.conv3d_transpose(x, w, output_shape, strides, padding, data_format),
          *arrays(xs, ws))


@pytest.mark.parametrize("case", [
    lambda tf: tf.nn.conv_transpose(tf.ones([2, 5, 5, 4]), tf.ones([3, 3, 6, 4]), [2, 10, 10, 6], 2),
    lambda tf: tf.nn.conv_transpose(tf.ones([3, 5, 4]), tf.ones([3, 6, 4]), [3, 10, 6], 2),
    lambda tf: tf.nn.conv_transpose(tf.ones([1, 2, 3, 3, 4]), tf.ones([2, 3, 3, 5, 4]), [1, 4, 6, 6, 5], 2),
    lambda tf: tf.nn.conv_transpose(tf.ones([2, 5, 5, 4]), tf.ones([3, 3, 6, 4]), [2, 10, 10, 6, 1, 1], 2),
    lambda tf: tf.nn.conv_transpose(tf.ones([2, 5, 5, 4]), tf.ones([3, 3, 6, 4]), 7, 2),
    lambda tf: tf.nn.conv1d_transpose(tf.ones([3, 5, 4]), tf.ones([3, 6, 4]), [3, 10, 6], 2, data_format="NHWC"),
    lambda tf: tf.nn.conv3d_transpose(tf.ones([1, 2, 3, 3, 4]), tf.ones([2, 3, 3, 5, 4]), [1, 4, 6, 6, 5], 2,
                                      [[0, 0]] * 5),
    lambda tf: tf.nn.conv3d_transpose(tf.ones([1, 2, 3, 3, 4], tf.int32), tf.ones([2, 3, 3, 5, 4], tf.int32),
                                      [1, 4, 6, 6, 5], 2),
])
def test_conv_transpose_dispatch_and_arguments(case):
    check(case)


# -- atrous_conv2d_transpose ------------------------------------------------------------------------------
@pytest.mark.parametrize("xs, output_shape, rate, padding", [
    ((2, 5, 5, 4), [2, 5, 5, 6], 2, "SAME"),
    ((2, 5, 5, 4), [2, 9, 9, 6], 2, "VALID"),
    ((2, 5, 6, 4), [2, 11, 12, 6], 3, "VALID"),
    ((2, 5, 5, 4), [2, 5, 5, 6], 1, "SAME"),
    ((2, 5, 5, 4), [2, 5, 5, 6], 0, "SAME"),
    ((2, 5, 5, 4), [2, 5, 5, 6], 2, "FULL"),
    ((2, 5, 5, 4), [2, 5, 5, 5], 2, "SAME"),
    ((2, 5, 5, 3), [2, 5, 5, 6], 2, "SAME"),
])
def test_atrous_conv2d_transpose(xs, output_shape, rate, padding):
    grads(lambda tf, x, w: tf.nn.atrous_conv2d_transpose(x, w, output_shape, rate, padding), *arrays(xs, (3, 3, 6, 4)))


# -- depthwise backprops ----------------------------------------------------------------------------------
@pytest.mark.parametrize("strides, padding", [([1, 1, 1, 1], "SAME"), ([1, 2, 2, 1], "SAME"), ([1, 2, 1, 1], "VALID"),
                                              ([1, 1, 1, 1], [[0, 0], [1, 0], [2, 1], [0, 0]])])
def test_depthwise_backprops(strides, padding):
    x, w = arrays((2, 6, 7, 3), (3, 3, 3, 2))
    y = vtf.nn.depthwise_conv2d(x, w, strides, padding)
    dy = arrays(tuple(y.shape.as_list()), seed=1)
    check(lambda tf, w, dy: tf.nn.depthwise_conv2d_backprop_input([2, 6, 7, 3], w, dy, strides, padding), w, dy,
          rtol=RTOL, atol=ATOL)
    check(lambda tf, x, dy: tf.nn.depthwise_conv2d_backprop_filter(x, [3, 3, 3, 2], dy, strides, padding), x, dy,
          rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("case", [
    lambda tf, x, w, dy: tf.nn.depthwise_conv2d_backprop_input([2, 6, 7, 3], w, dy, 1, "SAME"),
    lambda tf, x, w, dy: tf.nn.depthwise_conv2d_backprop_input([2, 6, 7, 4], w, dy, [1, 1, 1, 1], "SAME"),
    lambda tf, x, w, dy: tf.nn.depthwise_conv2d_backprop_filter(x, [3, 3, 3, 2], dy, [1, 1, 1, 1], "same"),
])
def test_depthwise_backprop_arguments(case):
    check(case, *arrays((2, 6, 7, 3), (3, 3, 3, 2), (2, 6, 7, 6)), rtol=RTOL, atol=ATOL)


def test_half_precision_transpose():
    x, w = arrays((1, 3, 3, 2), (2, 2, 3, 2))
    for dtype in (np.float16, ml_dtypes.bfloat16):
        check(lambda tf, x, w: tf.nn.conv2d_transpose(x, w, [1, 6, 6, 3], 2), x.astype(dtype), w.astype(dtype),
              rtol=3e-2, atol=5e-2)
