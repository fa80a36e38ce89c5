"""Gradients of Conv and ConvTranspose: finite differences (first order) and nested VJPs (second order)."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import Tensor, autograd, execute, run
from vfw.core.errors import ShapeError
from vfw.core.ops import conv as conv_module
from vfw.core.registry import TensorInfo, get_schema

RNG = np.random.default_rng(0)


def randn(*shape):
    return RNG.standard_normal(shape)


# (X shape, W shape, attrs) for Conv; W is (M, C / group, *kernel)
CONV_CASES = [
    ((2, 3, 7), (4, 3, 3), {}),
    ((2, 3, 7), (4, 3, 3), {"strides": [2], "pads": [1, 2]}),
    ((1, 2, 8), (2, 2, 2), {"strides": [3]}),  # the last input sample is read by no window
    ((1, 2, 9), (3, 2, 3), {"dilations": [2], "strides": [2], "pads": [0, 1]}),
    ((2, 4, 5, 6), (6, 2, 3, 2), {"group": 2, "strides": [2, 1], "dilations": [1, 2], "pads": [1, 0, 0, 2]}),
    ((1, 3, 5, 5), (3, 1, 3, 3), {"group": 3, "pads": [1, 1, 1, 1]}),  # depthwise
    ((1, 2, 5, 4), (4, 1, 2, 2), {"group": 2, "strides": [2, 2]}),  # depthwise with a channel multiplier
    ((1, 2, 5, 6), (2, 2, 3, 3), {"auto_pad": "SAME_UPPER", "strides": [2, 2]}),
    ((1, 2, 5, 6), (2, 2, 2, 3), {"auto_pad": "SAME_LOWER", "strides": [2, 3]}),
    ((1, 2, 5, 6), (2, 2, 2, 3), {"auto_pad": "VALID", "strides": [2, 2], "dilations": [2, 1]}),
    ((1, 2, 4, 3, 4), (2, 2, 2, 2, 3), {"strides": [2, 1, 2], "pads": [1, 0, 1, 0, 1, 1]}),
    ((1, 4, 3, 4, 3), (2, 2, 2, 1, 2), {"group": 2, "dilations": [1, 2, 2], "auto_pad": "SAME_UPPER"}),
    ((1, 2, 6, 5), (2, 2, 1, 1), {"strides": [2, 3]}),  # 1x1 kernel, skipped rows and columns
]


@pytest.mark.parametrize("xshape, wshape, attrs", CONV_CASES)
def test_conv_first_order(xshape, wshape, attrs):
    check_gradient("Conv", [randn(*xshape), randn(*wshape), randn(wshape[0])], attrs)


def test_conv_without_bias():
    check_gradient("Conv", [randn(2, 2, 5, 4), randn(3, 2, 2, 2)], {"strides": [2, 1], "pads": [0, 1, 1, 0]})


def test_conv_window_entirely_in_padding():
    # the only window lies in the begin padding: the output is the bias and X, W get zero gradients
    check_gradient("Conv", [randn(1, 2, 1), randn(3, 2, 1), randn(3)], {"strides": [3], "pads": [2, 0]})


@pytest.mark.parametrize("xshape, wshape, attrs", [CONV_CASES[i] for i in (1, 2, 4, 5, 7, 10)])
def test_conv_second_order(xshape, wshape, attrs):
    check_higher_order("Conv", [randn(*xshape), randn(*wshape), randn(wshape[0])], attrs)


def test_conv_third_order():
    check_higher_order("Conv", [randn(1, 2, 5), randn(2, 1, 2), randn(2)], {"group": 2, "strides": [2]}, order=3)


# (X shape, W shape, attrs) for ConvTranspose; W is (C, M / group, *kernel)
CONVT_CASES = [
    ((2, 3, 4), (3, 2, 3), {}),
    ((2, 3, 4), (3, 2, 3), {"strides": [2], "pads": [1, 0], "output_padding": [1]}),
    ((1, 2, 3), (2, 2, 2), {"strides": [2], "dilations": [3], "output_padding": [2]}),  # output_padding >= stride
    ((1, 2, 4), (2, 1, 2), {"strides": [2]}),  # stride == kernel: the tiled path
    ((1, 4, 3, 4), (4, 2, 3, 2), {"group": 2, "strides": [2, 1], "dilations": [1, 2], "pads": [1, 0, 0, 2]}),
    ((1, 3, 3, 3), (3, 1, 3, 3), {"group": 3, "strides": [2, 2], "pads": [1, 1, 1, 1]}),  # depthwise
    ((1, 2, 3, 4), (2, 2, 3, 3), {"auto_pad": "SAME_UPPER", "strides": [2, 2]}),
    ((1, 2, 3, 4), (2, 2, 2, 3), {"auto_pad": "SAME_LOWER", "strides": [2, 1]}),
    ((1, 2, 3, 4), (2, 2, 2, 3), {"auto_pad": "VALID", "strides": [2, 2]}),
    ((1, 2, 3, 3), (2, 2, 3, 2), {"strides": [2, 2], "output_shape": [6, 9]}),  # larger than the full result
    ((1, 2, 3, 3), (2, 2, 3, 2), {"strides": [2, 2], "output_shape": [5, 4], "auto_pad": "SAME_LOWER"}),
    ((1, 2, 2, 3, 2), (2, 2, 2, 2, 3), {"strides": [2, 1, 2], "pads": [1, 0, 1, 0, 1, 1]}),
]


@pytest.mark.parametrize("xshape, wshape, attrs", CONVT_CASES)
def test_conv_transpose_first_order(xshape, wshape, attrs):
    group = attrs.get("group", 1)
    check_gradient("ConvTranspose", [randn(*xshape), randn(*wshape), randn(wshape[1] * group)], attrs)


def test_conv_transpose_input_lands_outside_the_output():
    # the single input sample lands at -2, cropped away: only the bias reaches the output
    check_gradient("ConvTranspose", [randn(1, 2, 1), randn(2, 2, 1), randn(2)],
                   {"strides": [3], "pads": [2, 0], "output_padding": [2]})


@pytest.mark.parametrize("xshape, wshape, attrs", [CONVT_CASES[i] for i in (1, 2, 4, 9)])
def test_conv_transpose_second_order(xshape, wshape, attrs):
    group = attrs.get("group", 1)
    check_higher_order("ConvTranspose", [randn(*xshape), randn(*wshape), randn(wshape[1] * group)], attrs)


@pytest.mark.parametrize("dtype, rtol", [(np.float32, 1e-5), (np.float16, 2e-2)])
def test_low_precision_gradients_keep_dtype(dtype, rtol):
    x, w = randn(1, 4, 6, 5), randn(4, 2, 3, 3)
    attrs = {"group": 2, "strides": [2, 1], "pads": [1, 1, 0, 1]}
    v = randn(*run("Conv", x, w, **attrs).shape)
    grads = {}
    for dt in (np.float64, dtype):
        xt, wt = Tensor(x.astype(dt), requires_grad=True), Tensor(w.astype(dt), requires_grad=True)
        y = execute("Conv", xt, wt, **attrs)
        grads[dt] = autograd.gradient(y, [xt, wt], [Tensor(v.astype(dt))])
    for lo, hi in zip(grads[dtype], grads[np.float64]):
        assert lo.dtype == dtype
        np.testing.assert_allclose(lo.array.astype(np.float64), hi.array, rtol=rtol, atol=rtol * np.abs(hi.array).max())


def test_only_requested_gradients_are_built(monkeypatch):
    ops = []

    def spy(op, *args, **kwargs):
        ops.append(op)
        return execute(op, *args, **kwargs)

    monkeypatch.setattr(conv_module, "execute", spy)
    x, w = Tensor(randn(1, 2, 5), requires_grad=True), Tensor(randn(3, 2, 3))
    b = Tensor(randn(3), requires_grad=True)
    y = execute("Conv", x, w, b, pads=[1, 1])
    gx, gb = autograd.gradient(y, [x, b])
    assert ops == ["ConvTranspose", "ReduceSum"] and gx.shape == x.shape
    np.testing.assert_allclose(gb.array, np.full(3, 5.0))


def test_conv_grad_filter_op():
    x, dy = randn(2, 4, 5, 6), randn(2, 6, 3, 7)
    attrs = {"group": 2, "strides": [2, 1], "pads": [1, 1, 0, 1], "kernel_shape": [2, 2]}
    dw = run("ConvGradFilter", x, dy, **attrs)
    # <dY, Conv(X, W)> is linear in W with gradient dW
    conv_attrs = {k: v for k, v in attrs.items() if k != "kernel_shape"}
    w = randn(6, 2, 2, 2)
    np.testing.assert_allclose(np.sum(dy * run("Conv", x, w, **conv_attrs)), np.sum(dw * w), rtol=1e-12)
    check_gradient("ConvGradFilter", [x[:1, :, :3], dy[:1, :, :2]], attrs)
    schema = get_schema("ConvGradFilter")
    infos = [TensorInfo(x.shape, np.float32), TensorInfo(dy.shape, np.float32)]
    (info,) = schema.infer(schema.bind_attrs(attrs), infos)
    assert info == TensorInfo((6, 2, 2, 2), np.float32)
    with pytest.raises(ShapeError, match="ConvGradFilter"):
        run("ConvGradFilter", x, dy[:, :, :2], **attrs)
    with pytest.raises(ShapeError, match="ConvGradFilter"):
        run("ConvGradFilter", x[:, :3], dy, **attrs)


def test_conv_grad_filter_in_batch_slices(monkeypatch):
    # a tiny column budget forces one batch item per GEMM; the sum over slices must not change
    x, dy = randn(3, 2, 4, 4), randn(3, 3, 4, 4)
    attrs = {"pads": [1, 1, 1, 1], "kernel_shape": [3, 3]}
    expected = run("ConvGradFilter", x, dy, **attrs)
    monkeypatch.setattr(conv_module, "_COLS_LIMIT", 10)
    np.testing.assert_allclose(run("ConvGradFilter", x, dy, dilations=[1, 1], **attrs), expected, rtol=1e-12)
