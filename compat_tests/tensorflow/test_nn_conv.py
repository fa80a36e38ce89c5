"""tf.nn convolutions (conv1d/2d/3d, convolution, atrous_conv2d, depthwise_conv2d, separable_conv2d) against
real TF 2.21: values, dtypes, shapes, errors and input/filter gradients."""

import ml_dtypes
import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad, vtf

RTOL, ATOL = 1e-4, 1e-5  # float32 sums of up to ~100 products, accumulated in another order by oneDNN


def grads(fn, *args):
    """Values (or the error) and, when TF computes a result, gradients (float32 accumulation tolerances)."""
    if check(fn, *args, rtol=RTOL, atol=ATOL) is not None:
        check_grad(fn, *args, rtol=RTOL, atol=ATOL)


def nchw(x):
    return np.ascontiguousarray(np.moveaxis(x, -1, 1))


# -- conv2d ---------------------------------------------------------------------------------------
CONV2D_CASES = [
    # input shape, filter shape, strides, padding, dilations
    ((2, 7, 6, 3), (3, 3, 3, 4), 1, "SAME", None),
    ((2, 7, 6, 3), (3, 3, 3, 4), 1, "VALID", None),
    ((1, 8, 8, 2), (2, 2, 2, 3), 2, "SAME", None),   # even kernel, stride 2: TF's pad goes at the end
    ((1, 7, 9, 2), (4, 2, 2, 3), [2, 3], "SAME", None),
    ((1, 6, 7, 2), (2, 4, 2, 3), [1, 3, 2, 1], "SAME", None),
    ((1, 5, 5, 2), (3, 3, 2, 2), 3, "SAME", None),    # stride larger than the kernel
    ((1, 9, 8, 2), (3, 2, 2, 3), 1, "SAME", 2),
    ((1, 9, 8, 2), (3, 2, 2, 3), 1, "VALID", [2, 3]),
    ((1, 9, 9, 2), (2, 2, 2, 3), 2, "SAME", 2),        # strides and dilations together (Conv2D allows it)
    ((1, 6, 5, 2), (3, 3, 2, 3), 1, [[0, 0], [1, 2], [0, 1], [0, 0]], None),
    ((1, 6, 5, 2), (2, 3, 2, 3), 2, [[0, 0], [3, 0], [1, 1], [0, 0]], None),
    ((2, 5, 5, 4), (3, 3, 2, 6), 1, "SAME", None),    # grouped: input depth a multiple of the filter's
    ((2, 5, 5, 6), (1, 1, 2, 3), 1, "VALID", None),   # 3 groups of 1x1
    ((3, 4, 4, 5), (1, 1, 5, 2), 1, "VALID", None),   # 1x1 (the columns are a view of the input)
    ((1, 4, 4, 3), (4, 4, 3, 2), 1, "VALID", None),   # kernel as large as the input
]


@pytest.mark.parametrize("xs, ws, strides, padding, dilations", CONV2D_CASES)
def test_conv2d(xs, ws, strides, padding, dilations):
    grads(lambda tf, x, w: tf.nn.conv2d(x, w, strides, padding, dilations=dilations), *arrays(xs, ws))


@pytest.mark.parametrize("xs, ws, strides, padding, dilations", CONV2D_CASES[:10])
def test_conv2d_nchw(xs, ws, strides, padding, dilations):
    x, w = arrays(xs, ws)
    if isinstance(strides, list) and len(strides) == 4:
        strides = [1, 1] + strides[1:3]
    if isinstance(padding, list):
        padding = [padding[0], padding[3], padding[1], padding[2]]
        # TF's gradient of an explicitly padded NCHW Conv2D falls back to a kernel that refuses NCHW: values only
        check(lambda tf, x, w: tf.nn.conv2d(x, w, strides, padding, "NCHW", dilations), nchw(x), w, rtol=RTOL,
              atol=ATOL)
        return
    grads(lambda tf, x, w: tf.nn.conv2d(x, w, strides, padding, "NCHW", dilations), nchw(x), w)


def test_conv2d_extra_batch_dims_and_numpy_inputs():
    x, w = arrays((2, 3, 5, 5, 2), (3, 3, 2, 3))
    grads(lambda tf, x, w: tf.nn.conv2d(x, w, 1, "SAME"), x, w)
    check(lambda tf: tf.nn.conv2d(x[0], w, 2, "VALID"), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16", "int32"])
def test_conv2d_dtypes(dtype):
    x, w = arrays((2, 5, 5, 3), (3, 3, 3, 2), low=-3, high=3, dtype="int32" if dtype == "int32" else "float32")
    np_dtype = ml_dtypes.bfloat16 if dtype == "bfloat16" else dtype
    x, w = x.astype(np_dtype), w.astype(np_dtype)
    # half precision sums rounded once (vfw) or as oneDNN accumulates: a few units in the last place
    tol = {"float16": (1e-2, 1e-2), "bfloat16": (3e-2, 5e-2)}.get(dtype, (1e-6, 1e-9))
    check(lambda tf, x, w: tf.nn.conv2d(x, w, 2, "SAME"), x, w, rtol=tol[0], atol=tol[1])


@pytest.mark.parametrize("dtype", ["int64", "uint8", "bool", "complex64", "int8"])
def test_conv2d_refused_dtypes(dtype):
    x, w = arrays((1, 3, 3, 2), (2, 2, 2, 1), low=0, high=2, dtype="int32")
    check(lambda tf, x, w: tf.nn.conv2d(x, w, 1, "SAME"), x.astype(dtype), w.astype(dtype))


@pytest.mark.parametrize("case", [
    lambda tf, x, w: tf.nn.conv2d(x, tf.cast(w, tf.float64), 1, "SAME"),
    lambda tf, x, w: tf.nn.conv2d(x, w[:, :, :3], 1, "SAME"),           # 4 channels vs filter depth 3
    lambda tf, x, w: tf.nn.conv2d(x, w[:, :, :2, :5], 1, "SAME"),       # 2 groups, 5 output channels
    lambda tf, x, w: tf.nn.conv2d(x, w[0], 1, "SAME"),                  # filter of rank 3
    lambda tf, x, w: tf.nn.conv2d(x, w, [1, 2, 1], "SAME"),
    lambda tf, x, w: tf.nn.conv2d(x, w, 0, "SAME"),
    lambda tf, x, w: tf.nn.conv2d(x, w, -1, "SAME"),
    lambda tf, x, w: tf.nn.conv2d(x, w, [2, 1, 1, 1], "SAME"),
    lambda tf, x, w: tf.nn.conv2d(x, w, 1, "SAME", dilations=0),
    lambda tf, x, w: tf.nn.conv2d(x, w, 1, "SAME", dilations=[2, 1, 1, 1]),
    lambda tf, x, w: tf.nn.conv2d(x, w, 1, "VALID", dilations=3),       # window longer than the input
    lambda tf, x, w: tf.nn.conv2d(x, w, 1, "same"),
    lambda tf, x, w: tf.nn.conv2d(x, w, 1, "FULL"),
    lambda tf, x, w: tf.nn.conv2d(x, w, 1, "EXPLICIT"),
    lambda tf, x, w: tf.nn.conv2d(x, w, 1, [1, 2, 0, 1]),
    lambda tf, x, w: tf.nn.conv2d(x, w, 1, [[1, 2], [0, 1], [0, 0]]),
    lambda tf, x, w: tf.nn.conv2d(x, w, 1, [[0, 0], [1], [0, 1], [0, 0]]),
    lambda tf, x, w: tf.nn.conv2d(x, w, 1, "SAME", data_format="NWHC"),
    lambda tf, x, w: tf.nn.conv2d(x, w, 1.0, "SAME"),
    lambda tf, x, w: tf.nn.conv2d(x, w, np.int64(2), "SAME"),
    lambda tf, x, w: tf.nn.conv2d(x, w, tf.constant(2), "SAME"),
])
def test_conv2d_arguments(case):
    check(case, *arrays((1, 5, 5, 4), (3, 3, 4, 6)), rtol=RTOL, atol=ATOL)


def test_conv2d_where_onednn_differs_from_tensorflow_s_reference_kernels():
    # TF's oneDNN kernels (the default build) mishandle these; vfw follows TF's reference kernels
    x, w = arrays((1, 5, 5, 4), (6, 6, 4, 2))
    y = vtf.nn.conv2d(x, w, 1, "VALID")  # a window one longer than the input: no output positions
    assert y.shape.as_list() == [1, 0, 0, 2] and y.dtype == vtf.float32
    assert vtf.nn.conv2d(x[:0], w[:3, :3], 1, "SAME").shape.as_list() == [0, 5, 5, 2]
    with pytest.raises(vtf.errors.InvalidArgumentError, match="explicit_paddings must be nonnegative"):
        vtf.nn.conv2d(x, w, 1, [[0, 0], [-1, 2], [0, 1], [0, 0]])
    with pytest.raises(vtf.errors.InvalidArgumentError, match="batch or depth dimensions"):
        vtf.nn.conv2d(x, w, 1, [[1, 0], [1, 2], [0, 1], [0, 0]])
    with pytest.raises(vtf.errors.InvalidArgumentError, match="4-dimensional"):
        vtf.nn.conv2d(x[0], w, 1, "SAME")


def test_conv2d_same_padding_matches_explicit_end_padding():
    # SAME with an even kernel and stride 2 on 8 pixels: 3 pad pixels, 1 before and 2 after
    x, w = arrays((1, 8, 8, 1), (4, 4, 1, 1))
    same = vtf.nn.conv2d(x, w, 2, "SAME").numpy()
    explicit = vtf.nn.conv2d(x, w, 2, [[0, 0], [1, 2], [1, 2], [0, 0]]).numpy()
    np.testing.assert_array_equal(same, explicit)


# -- conv1d / conv3d --------------------------------------------------------------------------------
@pytest.mark.parametrize("xs, ws, stride, padding, data_format, dilations", [
    ((2, 9, 3), (3, 3, 4), 1, "SAME", "NWC", None),
    ((2, 9, 3), (4, 3, 4), 2, "SAME", "NWC", None),
    ((2, 9, 3), (3, 3, 4), [1, 2, 1], "VALID", "NWC", None),
    ((2, 9, 3), (3, 3, 4), 1, "SAME", None, 2),
    ((2, 3, 9), (3, 3, 4), 2, "SAME", "NCW", None),
    ((2, 4, 9), (3, 2, 4), 1, "VALID", "NCW", [1, 1, 2]),
    ((2, 2, 9, 3), (3, 3, 4), 1, "SAME", "NWC", None),   # extra batch dim
    ((2, 9, 4), (3, 2, 4), 1, "SAME", "NWC", None),      # grouped
])
def test_conv1d(xs, ws, stride, padding, data_format, dilations):
    grads(lambda tf, x, w: tf.nn.conv1d(x, w, stride, padding, data_format, dilations), *arrays(xs, ws))


@pytest.mark.parametrize("case", [
    lambda tf, x, w: tf.nn.conv1d(x, w, 1, [[0, 0], [1, 1], [0, 0]]),
    lambda tf, x, w: tf.nn.conv1d(x, w, 1, "SAME", data_format="NHWC"),
    lambda tf, x, w: tf.nn.conv1d(x, w, 1, "SAME", data_format="NDHWC"),
    lambda tf, x, w: tf.nn.conv1d(x, w, [1, 1], "SAME"),
    lambda tf, x, w: tf.nn.conv1d(x, w[:, :2], 1, "VALID"),
])
def test_conv1d_arguments(case):
    check(case, *arrays((2, 6, 3), (3, 3, 2)), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("xs, ws, strides, padding, data_format, dilations", [
    ((1, 4, 5, 6, 2), (2, 3, 2, 2, 3), [1, 1, 1, 1, 1], "SAME", "NDHWC", None),
    ((1, 5, 5, 6, 2), (3, 2, 2, 2, 3), [1, 2, 1, 2, 1], "SAME", "NDHWC", None),
    ((1, 5, 5, 6, 2), (2, 2, 2, 2, 3), [1, 1, 1, 1, 1], "VALID", "NDHWC", [1, 2, 1, 2, 1]),
    ((1, 2, 4, 5, 6), (2, 2, 3, 2, 3), [1, 1, 2, 1, 1], "SAME", "NCDHW", None),
    ((2, 1, 4, 4, 4, 2), (2, 2, 2, 2, 2), [1, 1, 1, 1, 1], "VALID", "NDHWC", None),
])
def test_conv3d(xs, ws, strides, padding, data_format, dilations):
    # (TF's Conv3D gradient fails on data_format=None: the format is given)
    grads(lambda tf, x, w: tf.nn.conv3d(x, w, strides, padding, data_format, dilations), *arrays(xs, ws))


@pytest.mark.parametrize("case", [
    lambda tf, x, w: tf.nn.conv3d(x, w, 1, "SAME"),
    lambda tf, x, w: tf.nn.conv3d(x, w, [1, 1, 1], "SAME"),
    lambda tf, x, w: tf.nn.conv3d(x, w, [1] * 5, [[0, 0], [1, 1], [0, 0], [1, 1], [0, 0]]),
    lambda tf, x, w: tf.nn.conv3d(x, w[:, :, :, :2], [1] * 5, "SAME"),      # Conv3D has no groups
    lambda tf, x, w: tf.nn.conv3d(x, w, [1] * 5, "SAME", data_format="NHWC"),
    lambda tf, x, w: tf.nn.conv3d(tf.cast(x, tf.int32), tf.cast(w, tf.int32), [1] * 5, "SAME"),
    lambda tf, x, w: tf.nn.conv3d(tf.cast(x, tf.float64), tf.cast(w, tf.float64), [1] * 5, "SAME"),
    lambda tf, x, w: tf.nn.convolution(x, w, padding="VALID", strides=2),   # a 3-D convolution by filter rank
    lambda tf, x, w: tf.nn.conv3d(x, w, [2, 1, 1, 1, 1], "SAME"),
])
def test_conv3d_arguments(case):
    check(case, *arrays((1, 3, 4, 4, 4), (2, 2, 2, 4, 2)), rtol=RTOL, atol=ATOL)


# -- convolution / atrous_conv2d ----------------------------------------------------------------------
@pytest.mark.parametrize("xs, ws, kwargs", [
    ((1, 6, 7, 2), (3, 3, 2, 3), {}),
    ((1, 6, 7, 2), (3, 3, 2, 3), dict(padding="SAME", strides=2)),
    ((1, 9, 8, 2), (3, 3, 2, 3), dict(padding="SAME", dilations=2)),
    ((1, 9, 8, 2), (2, 3, 2, 3), dict(padding="VALID", dilations=[3, 2])),
    ((2, 9, 3), (3, 3, 2), dict(padding="SAME", dilations=2)),
    ((2, 9, 3), (3, 3, 2), dict(padding="VALID", strides=[2])),
    ((1, 5, 5, 6, 2), (2, 2, 2, 2, 3), dict(padding="SAME", dilations=2)),
    ((1, 4, 5, 6, 2), (2, 2, 2, 2, 3), dict(padding="SAME", strides=[1, 2, 2], data_format="NDHWC")),
    ((1, 2, 6, 7), (3, 3, 2, 3), dict(padding="SAME", data_format="NCHW")),
    ((1, 2, 9, 8), (3, 3, 2, 3), dict(padding="SAME", data_format="NCHW", dilations=2)),
    ((2, 1, 6, 7, 2), (3, 3, 2, 3), dict(padding="SAME")),   # extra batch dim
])
def test_convolution(xs, ws, kwargs):
    grads(lambda tf, x, w: tf.nn.convolution(x, w, **kwargs), *arrays(xs, ws))


@pytest.mark.parametrize("case", [
    lambda tf, x, w: tf.nn.convolution(x, w, padding="SAME", strides=2, dilations=2),
    lambda tf, x, w: tf.nn.convolution(x, w, padding=[[0, 0], [1, 1], [1, 1], [0, 0]]),
    lambda tf, x, w: tf.nn.convolution(x, w, padding="SAME", dilations=0),
    lambda tf, x, w: tf.nn.convolution(x, w, padding="SAME", dilations=[2, 2, 2]),
    lambda tf, x, w: tf.nn.convolution(x, w, padding="SAME", data_format="channels_last"),
    lambda tf, x, w: tf.nn.convolution(tf.zeros([1, 3, 3, 3, 3, 2]), tf.zeros([1, 1, 1, 1, 2, 2]), padding="SAME"),
    lambda tf, x, w: tf.nn.convolution(x, w[0, 0, 0], padding="SAME"),
])
def test_convolution_arguments(case):
    check(case, *arrays((1, 6, 6, 2), (3, 3, 2, 3)), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("rate, padding", [(1, "SAME"), (2, "SAME"), (2, "VALID"), (3, "SAME"), (0, "SAME"),
                                           (2, "FULL")])
def test_atrous_conv2d(rate, padding):
    grads(lambda tf, x, w: tf.nn.atrous_conv2d(x, w, rate, padding), *arrays((2, 9, 8, 2), (3, 2, 2, 3)))


# -- depthwise / separable ------------------------------------------------------------------------------
@pytest.mark.parametrize("xs, ws, strides, padding, data_format, dilations", [
    ((2, 6, 7, 3), (3, 3, 3, 2), [1, 1, 1, 1], "SAME", None, None),
    ((2, 6, 7, 3), (2, 2, 3, 1), [1, 2, 2, 1], "SAME", None, None),
    ((2, 6, 7, 3), (3, 2, 3, 2), [1, 2, 1, 1], "VALID", None, None),    # unequal strides (oneDNN allows)
    ((1, 8, 9, 2), (3, 3, 2, 2), [1, 1, 1, 1], "SAME", None, [2, 2]),
    ((1, 8, 9, 2), (2, 3, 2, 3), [1, 1, 1, 1], "VALID", None, [2, 1]),
    ((1, 6, 5, 2), (3, 3, 2, 2), [1, 1, 1, 1], [[0, 0], [1, 1], [0, 2], [0, 0]], None, None),
    ((2, 3, 6, 7), (3, 3, 3, 2), [1, 1, 2, 2], "SAME", "NCHW", None),
])
def test_depthwise_conv2d(xs, ws, strides, padding, data_format, dilations):
    grads(lambda tf, x, w: tf.nn.depthwise_conv2d(x, w, strides, padding, data_format, dilations), *arrays(xs, ws))


@pytest.mark.parametrize("case", [
    lambda tf, x, w: tf.nn.depthwise_conv2d(x, w, 2, "SAME"),
    lambda tf, x, w: tf.nn.depthwise_conv2d(x, w, [2, 2], "SAME"),
    lambda tf, x, w: tf.nn.depthwise_conv2d(x, w[:, :, :3], [1, 1, 1, 1], "SAME"),
    lambda tf, x, w: tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME", dilations=[0, 1]),
    lambda tf, x, w: tf.nn.depthwise_conv2d(tf.cast(x, tf.int32), tf.cast(w, tf.int32), [1, 1, 1, 1], "SAME"),
    lambda tf, x, w: tf.nn.depthwise_conv2d(tf.cast(x, tf.float64), tf.cast(w, tf.float64), [1, 1, 1, 1], "SAME"),
    lambda tf, x, w: tf.nn.depthwise_conv2d(x, tf.cast(w, tf.float64), [1, 1, 1, 1], "SAME"),
    lambda tf, x, w: tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "same"),
])
def test_depthwise_conv2d_arguments(case):
    check(case, *arrays((2, 5, 5, 4), (3, 3, 4, 2)), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("strides, padding, dilations", [([1, 1, 1, 1], "SAME", None), ([1, 2, 2, 1], "VALID", None),
                                                         ([1, 1, 1, 1], "SAME", [2, 2]),
                                                         ([1, 1, 1, 1], [[0, 0], [1, 1], [1, 1], [0, 0]], None)])
def test_separable_conv2d(strides, padding, dilations):
    grads(lambda tf, x, d, p: tf.nn.separable_conv2d(x, d, p, strides, padding, dilations=dilations),
          *arrays((2, 6, 7, 3), (3, 3, 3, 2), (1, 1, 6, 4)))


@pytest.mark.parametrize("case", [
    lambda tf, x, d, p: tf.nn.separable_conv2d(x, d, p[:, :, :5], [1, 1, 1, 1], "SAME"),
    lambda tf, x, d, p: tf.nn.separable_conv2d(x, d, tf.zeros([2, 1, 6, 4]), [1, 1, 1, 1], "SAME"),
    lambda tf, x, d, p: tf.nn.separable_conv2d(x, d, p[0], [1, 1, 1, 1], "SAME"),
])
def test_separable_conv2d_arguments(case):
    check(case, *arrays((2, 5, 5, 3), (3, 3, 3, 2), (1, 1, 6, 4)))
