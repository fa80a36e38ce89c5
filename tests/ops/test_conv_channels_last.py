"""ChannelsLastConv, ChannelsLastConvTranspose and ChannelsLastConvGradFilter against torch (the oracle: its
conv1d/2d/3d on channels-first copies, asymmetric pads applied with F.pad, gradients by its autograd)."""

import numpy as np
import pytest

from vfw.core import ShapeError, TensorInfo, get_schema, run
from vfw.core import dtypes as dt

torch = pytest.importorskip("torch")
F = torch.nn.functional

TOL = {np.float32: (1e-4, 1e-4), np.float64: (1e-10, 1e-10), np.float16: (1e-2, 2e-2)}

CASES = [
    # X shape (N, *D, C), W shape (*K, C / group, M), attrs
    ((2, 9, 3), (3, 3, 4), {"pads": [2, 1], "strides": [2], "dilations": [3]}),
    ((2, 7, 6, 3), (3, 2, 3, 4), {"pads": [1, 0, 2, 1], "strides": [2, 1], "dilations": [1, 2]}),
    ((2, 7, 6, 4), (3, 2, 2, 6), {"group": 2, "pads": [0, 1, 1, 0], "strides": [2, 2]}),
    ((2, 7, 8, 6), (3, 3, 1, 12), {"group": 6, "pads": [1, 1, 1, 1]}),  # depthwise, multiplier 2
    ((2, 9, 4), (3, 1, 4), {"group": 4, "strides": [2], "pads": [1, 1], "dilations": [2]}),  # depthwise 1-D
    ((1, 4, 5, 4, 3), (2, 2, 3, 1, 6), {"group": 3, "strides": [1, 2, 1], "pads": [1, 0, 1, 0, 1, 1]}),
    ((2, 5, 4, 6), (1, 1, 6, 4), {}),                                  # 1x1: the columns are a view of X
    ((2, 6, 6, 3), (6, 6, 3, 2), {}),                                  # kernel as large as the input
    ((1, 4, 5, 6, 4), (2, 2, 3, 2, 6), {"group": 2, "pads": [1, 0, 1, 0, 1, 1], "strides": [1, 2, 2],
                                         "dilations": [2, 1, 1]}),
    ((2, 8, 7, 2), (2, 3, 2, 3), {"strides": [3, 2], "dilations": [2, 1], "pads": [0, 0, 1, 2]}),
]


def _torch_conv(x, w, attrs, need_grads=False, dy=None):
    """Channels-last convolution by torch: ``y``, and with ``dy`` the gradients of ``<y, dy>`` in x and w."""
    nd = w.ndim - 2
    group = attrs.get("group", 1)
    pads = attrs.get("pads", [0] * 2 * nd)
    xt = torch.tensor(np.moveaxis(x, -1, 1).astype(np.float64), requires_grad=True)
    wt = torch.tensor(np.moveaxis(w, (-1, -2), (0, 1)).astype(np.float64), requires_grad=True)
    # F.pad takes (last axis begin, last axis end, ...) pairs, last axis first
    torch_pads = [p for i in reversed(range(nd)) for p in (pads[i], pads[nd + i])]
    conv = (F.conv1d, F.conv2d, F.conv3d)[nd - 1]
    y = conv(F.pad(xt, torch_pads), wt, stride=attrs.get("strides", 1), dilation=attrs.get("dilations", 1),
             groups=group)
    y_cl = np.moveaxis(y.detach().numpy(), 1, -1)
    if dy is None:
        return y_cl
    y.backward(torch.tensor(np.moveaxis(dy, -1, 1).astype(np.float64)))
    return y_cl, np.moveaxis(xt.grad.numpy(), 1, -1), np.moveaxis(wt.grad.numpy(), (0, 1), (-1, -2))


def _rand(shape, dtype, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("xs, ws, attrs", CASES)
def test_forward_and_both_gradients_match_torch(xs, ws, attrs, dtype):
    x, w = _rand(xs, dtype, 0), _rand(ws, dtype, 1)
    y = run("ChannelsLastConv", x, w, **attrs)
    assert y.dtype == dtype
    dy = _rand(y.shape, dtype, 2)
    expected_y, expected_dx, expected_dw = _torch_conv(x, w, attrs, dy=dy)
    rtol, atol = TOL[dtype]
    np.testing.assert_allclose(y.astype(np.float64), expected_y, rtol=rtol, atol=atol)
    dx = run("ChannelsLastConvTranspose", dy, w, np.array(xs, np.int64), **attrs)
    dw = run("ChannelsLastConvGradFilter", x, dy, kernel_shape=list(ws[:-2]), **attrs)
    assert dx.dtype == dw.dtype == dtype and dx.shape == xs and dw.shape == ws
    np.testing.assert_allclose(dx.astype(np.float64), expected_dx, rtol=rtol, atol=atol * 4)
    np.testing.assert_allclose(dw.astype(np.float64), expected_dw, rtol=rtol, atol=atol * 10)


def test_bfloat16_accumulates_in_float32():
    x, w = _rand((2, 6, 5, 3), np.float32, 0), _rand((3, 3, 3, 4), np.float32, 1)
    xb, wb = x.astype(dt.bfloat16), w.astype(dt.bfloat16)
    y = run("ChannelsLastConv", xb, wb, pads=[1, 1, 1, 1])
    assert y.dtype == dt.bfloat16
    expected = _torch_conv(xb.astype(np.float32), wb.astype(np.float32), {"pads": [1, 1, 1, 1]})
    np.testing.assert_array_equal(y, expected.astype(np.float32).astype(dt.bfloat16))


def test_tensorflow_output_sizes_allow_empty_outputs():
    # (n + pads - extent + stride) / stride truncated toward zero: a window one longer than the input gives
    # no windows, two longer (stride 1) is an error
    x = _rand((2, 5, 5, 3), np.float32, 0)
    assert run("ChannelsLastConv", x, _rand((6, 6, 3, 4), np.float32, 1)).shape == (2, 0, 0, 4)
    assert run("ChannelsLastConv", x, _rand((7, 2, 3, 4), np.float32, 1), strides=[3, 1]).shape == (2, 0, 4, 4)
    with pytest.raises(ShapeError, match="negative"):
        run("ChannelsLastConv", x, _rand((7, 7, 3, 4), np.float32, 1))
    dx = run("ChannelsLastConvTranspose", np.zeros((2, 0, 0, 4), np.float32), _rand((6, 6, 3, 4), np.float32, 1),
             np.array([2, 5, 5, 3]))
    np.testing.assert_array_equal(dx, np.zeros((2, 5, 5, 3), np.float32))
    assert run("ChannelsLastConv", x[:0], _rand((3, 3, 3, 4), np.float32, 1)).shape == (0, 3, 3, 4)


def test_positions_no_window_reads_get_zero_gradient():
    # stride 3 over 8 pixels with a 2-tap kernel: windows at 0, 3 (and 6); pixels 2 and 5 are never read
    x, w = _rand((1, 8, 1), np.float64, 0), _rand((2, 1, 1), np.float64, 1)
    dy = np.ones((1, 3, 1))
    dx = run("ChannelsLastConvTranspose", dy, w, np.array([1, 8, 1]), strides=[3])
    assert dx[0, [2, 5], 0].tolist() == [0.0, 0.0]
    np.testing.assert_allclose(dx, _torch_conv(x, w, {"strides": [3]}, dy=dy)[1])


def test_large_columns_work_in_batch_slices(monkeypatch):
    from vfw.core import make_op
    from vfw.core.ops import conv_channels_last

    monkeypatch.setattr(conv_channels_last, "_COLS_LIMIT", 500)  # a few batch items per slice
    x, w = _rand((5, 6, 5, 4), np.float64, 0), _rand((3, 3, 2, 4), np.float64, 1)
    attrs = {"group": 2, "pads": [1, 1, 1, 1], "strides": [1, 2]}
    y = make_op("ChannelsLastConv", attrs)(x, w)
    dy = _rand(y.shape, np.float64, 2)
    expected = _torch_conv(x, w, attrs, dy=dy)
    dx = make_op("ChannelsLastConvTranspose", attrs)(dy, w, np.array(x.shape))
    dw = make_op("ChannelsLastConvGradFilter", dict(attrs, kernel_shape=[3, 3]))(x, dy)
    for got, want in zip((y, dx, dw), expected):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_out_buffer_and_non_contiguous_input():
    x, w = _rand((2, 4, 6, 3), np.float32, 0), _rand((3, 3, 3, 2), np.float32, 1)
    out = np.empty((2, 4, 6, 2), np.float32)
    y = run("ChannelsLastConv", x, w, out=out, pads=[1, 1, 1, 1])
    assert y is out
    np.testing.assert_allclose(out, _torch_conv(x, w, {"pads": [1, 1, 1, 1]}), rtol=1e-4, atol=1e-4)
    strided = np.moveaxis(np.ascontiguousarray(np.moveaxis(x, -1, 1)), 1, -1)  # channels-first memory
    np.testing.assert_array_equal(run("ChannelsLastConv", strided, w, pads=[1, 1, 1, 1]), out)


@pytest.mark.parametrize("op, inputs, attrs, message", [
    ("ChannelsLastConv", [(2, 5, 5, 4), (3, 3, 3, 2)], {}, "reads 3"),
    ("ChannelsLastConv", [(2, 5, 5, 4), (3, 3, 2, 3)], {"group": 2}, "divisible by number of groups"),
    ("ChannelsLastConv", [(2, 5, 4), (3, 3, 4, 2)], {}, "rank 4"),
    ("ChannelsLastConv", [(2, 5, 5, 4), (3, 4, 2)], {}, "rank 3"),
    ("ChannelsLastConvGradFilter", [(2, 5, 5, 4), (2, 4, 4, 3)], {"kernel_shape": [3, 3]}, "output shape"),
    ("ChannelsLastConvGradFilter", [(2, 5, 5, 3), (2, 3, 3, 2)], {"kernel_shape": [3, 3], "group": 2},
     "divisible by group"),
])
def test_shape_errors(op, inputs, attrs, message):
    with pytest.raises(ShapeError, match=message):
        run(op, *[np.zeros(s, np.float32) for s in inputs], **attrs)
    with pytest.raises(ShapeError, match="not the convolution output"):
        run("ChannelsLastConvTranspose", np.zeros((2, 4, 4, 2), np.float32), np.zeros((3, 3, 4, 2), np.float32),
            np.array([2, 5, 5, 4]))


def test_shape_inference_matches_kernels():
    x, w = _rand((2, 7, 6, 4), np.float32, 0), _rand((3, 2, 2, 6), np.float32, 1)
    attrs = {"group": 2, "pads": [0, 1, 1, 0], "strides": [2, 2], "dilations": [1, 1]}
    y = run("ChannelsLastConv", x, w, **attrs)
    info = get_schema("ChannelsLastConv").infer(attrs, [TensorInfo(x.shape, x.dtype), TensorInfo(w.shape, w.dtype)])
    assert info[0].shape == y.shape
    shape_info = TensorInfo((4,), dt.int64, np.array(x.shape))
    info = get_schema("ChannelsLastConvTranspose").infer(
        attrs, [TensorInfo(y.shape, y.dtype), TensorInfo(w.shape, w.dtype), shape_info])
    assert info[0].shape == x.shape
    info = get_schema("ChannelsLastConvGradFilter").infer(
        dict(attrs, kernel_shape=[3, 2]), [TensorInfo(x.shape, x.dtype), TensorInfo(y.shape, y.dtype)])
    assert info[0].shape == w.shape


@pytest.mark.parametrize("xs, ws, attrs", [CASES[1], CASES[2], CASES[3], CASES[6]])
def test_bias_is_added_per_output_channel(xs, ws, attrs):
    x, w, b = _rand(xs, np.float32, 0), _rand(ws, np.float32, 1), _rand(ws[-1:], np.float32, 2)
    y = run("ChannelsLastConv", x, w, b, **attrs)
    np.testing.assert_allclose(y, _torch_conv(x, w, attrs) + b.astype(np.float64), rtol=1e-4, atol=1e-4)
    with pytest.raises(ShapeError, match="bias of shape"):
        run("ChannelsLastConv", x, w, np.zeros(ws[-1] + 1, np.float32), **attrs)
