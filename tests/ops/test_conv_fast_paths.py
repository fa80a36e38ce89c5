"""The stride-1 ConvTranspose path (flat shifted adds), ConvGradFilter's per-batch-item path, Conv's blocks of
output rows and its two depthwise paths (flattened planes, channels last).

ConvTranspose is compared with the scatter definition (and ONNX's reference evaluator where it works);
ConvGradFilter with Conv's gradient by central differences.
"""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient
from tests.ops.oracle import assert_same, check_op, onnx_run, rand
from tests.ops.test_conv import _ref_conv_transpose
from vfw.core import run

STRIDE1_CASES = [
    # (X shape, W shape, attrs, output's begin crop, output size): every stride is 1 (the shifted col2im)
    ((2, 4, 5, 6), (4, 3, 3, 3), {}, (0, 0), (7, 8)),
    ((2, 4, 5, 6), (4, 3, 3, 2), {"pads": [1, 0, 2, 1]}, (1, 0), (4, 6)),
    ((1, 4, 5, 6), (4, 2, 3, 3), {"group": 2, "dilations": [2, 1], "pads": [1, 1, 0, 1]}, (1, 1), (8, 6)),
    ((1, 2, 4, 5), (2, 3, 2, 3), {"dilations": [3, 2], "output_padding": [2, 1]}, (0, 0), (9, 10)),
    ((1, 2, 4, 5), (2, 3, 3, 3), {"output_shape": [7, 9]}, (0, 0), (7, 9)),  # larger than the full result
    ((2, 3, 7), (3, 2, 4), {"pads": [2, 1]}, (2,), (7,)),
    ((1, 2, 3, 4, 3), (2, 2, 2, 3, 2), {"pads": [0, 1, 1, 1, 0, 0], "dilations": [1, 1, 2]}, (0, 1, 1), (3, 5, 4)),
    ((2, 3, 4, 4), (3, 5, 1, 1), {}, (0, 0), (4, 4)),
]


@pytest.mark.parametrize("xs, ws, attrs, begins, out_sp", STRIDE1_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_stride1_conv_transpose_matches_scatter_definition(xs, ws, attrs, begins, out_sp, dtype):
    # the numpy scatter oracle of test_conv.py: ONNX's reference fails for groups, dilated output_padding and
    # output_shape; the plain cases are checked against it too
    group, nd = attrs.get("group", 1), len(xs) - 2
    x, w, b = rand(xs, dtype), rand(ws, dtype, seed=1), rand((ws[1] * group,), dtype, seed=2)
    want = _ref_conv_transpose(x, w, b, [1] * nd, attrs.get("dilations", [1] * nd), group, begins, out_sp)
    assert_same(run("ConvTranspose", x, w, b, **attrs), want, 1e-4, 1e-4)
    if group == 1 and "output_shape" not in attrs and "output_padding" not in attrs:
        check_op("ConvTranspose", [x, w, b], attrs, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("xs, ws, attrs, begins, out_sp", STRIDE1_CASES[:4])
def test_stride1_conv_transpose_gradients(xs, ws, attrs, begins, out_sp):
    check_gradient("ConvTranspose", [rand(xs, np.float64), rand(ws, np.float64, seed=1)], attrs)


@pytest.mark.parametrize("xs, ws, attrs", [
    ((3, 1, 6, 5), (8, 1, 2, 2), {}),  # 8 output channels > 4 window rows: one GEMM per batch item
    ((2, 2, 6, 5), (8, 1, 2, 2), {"group": 2, "strides": [2, 1], "pads": [1, 0, 0, 1]}),
    ((2, 1, 9), (6, 1, 3), {"dilations": [2]}),
])
def test_conv_filter_gradient_per_batch_item(xs, ws, attrs):
    check_gradient("Conv", [rand(xs, np.float64), rand(ws, np.float64, seed=1)], attrs, wrt=[1])


@pytest.mark.parametrize("xs, ws, attrs", [
    ((2, 3, 9, 7), (4, 3, 3, 3), {"pads": [1, 1, 1, 1]}),
    ((1, 4, 8, 6), (6, 2, 3, 2), {"group": 2, "strides": [2, 1], "pads": [1, 0, 2, 1], "dilations": [1, 2]}),
    ((1, 6, 7, 7), (6, 1, 3, 3), {"group": 6, "pads": [1, 1, 1, 1], "strides": [2, 1]}),  # depthwise, strided
    ((1, 2, 5, 4, 3), (3, 2, 2, 2, 2), {"pads": [1, 0, 0, 0, 1, 1]}),
    ((1, 3, 15), (4, 3, 3), {"dilations": [2]}),  # 1-D: a row is one pixel
])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])  # float16: the blocks are float32 (accumulation)
def test_conv_in_blocks_of_output_rows(monkeypatch, xs, ws, attrs, dtype):
    from vfw.core import make_op
    from vfw.core.ops import conv as conv_module

    blocks = []

    def spy(wr, view, y, rows, *rest):
        blocks.append(rows)
        return gemm_by_rows(wr, view, y, rows, *rest)

    gemm_by_rows = conv_module._gemm_by_rows
    monkeypatch.setattr(conv_module, "_gemm_by_rows", spy)
    # every item's columns count as large, and a block holds about 40 column elements: a few rows each
    monkeypatch.setattr(conv_module, "_ROW_BLOCK_COLS", 1)
    monkeypatch.setattr(conv_module, "_ROW_BLOCK_PIXELS", 1)
    monkeypatch.setattr(conv_module, "_ROW_BLOCK_CHANNELS", 1 << 30)
    monkeypatch.setattr(conv_module, "_CACHE_COLS", 40)
    x, w, b = rand(xs, dtype), rand(ws, dtype, seed=1), rand((ws[0],), dtype, seed=2)
    op = make_op("Conv", attrs)
    tol = 1e-4 if dtype == np.float32 else 2e-2
    check_op("Conv", [x, w, b], attrs, rtol=tol, atol=tol)
    assert_same(op(x, w, b), run("Conv", x.astype(np.float64), w.astype(np.float64), b.astype(np.float64),
                                 **attrs).astype(dtype), tol, tol)
    assert blocks and max(blocks) < run("Conv", x, w, **attrs).shape[2]  # several blocks per item
    if dtype == np.float32:  # the GEMMs write an out buffer of the compute dtype directly
        out = np.empty(op(x, w, b).shape, dtype)
        assert op(x, w, b, out=out) is out
        assert_same(out, op(x, w, b), 0, 0)


@pytest.mark.parametrize("xs, ws, attrs", [
    ((1, 8, 12, 12), (24, 8, 1, 1), {}),  # 1x1 over X itself: X copied with a row of ones
    ((3, 4, 10, 9), (6, 4, 1, 1), {}),  # the same, batched
    ((1, 4, 14, 13), (8, 4, 3, 3), {"pads": [1, 1, 1, 1]}),  # one item: columns copied, the GEMM writes Y
    ((4, 3, 12, 12), (5, 3, 3, 3), {"pads": [1, 0, 2, 1], "strides": [2, 1]}),  # a batch slice, batch-inner
    ((2, 2, 12, 12), (16, 2, 2, 2), {}),  # more output rows than column rows: one GEMM per item
    ((2, 6, 10, 10), (9, 2, 3, 3), {"group": 3, "dilations": [2, 1], "pads": [2, 2, 1, 1]}),
    ((1, 3, 9, 6, 7), (4, 3, 2, 3, 2), {}),  # 3-D
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_conv_bias_as_gemm_column(monkeypatch, xs, ws, attrs, dtype):
    """Where the outputs far outnumber the weights, the bias rides in the GEMM (a column of the weights against a
    row of ones below the columns): the results are ONNX's, with and without ``out``."""
    from vfw.core import make_op
    from vfw.core.ops import conv as conv_module

    widened = []

    def spy(wr, b):
        widened.append(wr.shape)
        return with_bias(wr, b)

    with_bias = conv_module._with_bias
    monkeypatch.setattr(conv_module, "_with_bias", spy)
    x, w, b = rand(xs, dtype), rand(ws, dtype, seed=1), rand((ws[0],), dtype, seed=2)
    tol = 1e-4 if dtype != np.float16 else 2e-2
    expected = onnx_run("Conv", [x, w, b], attrs)[0]
    op = make_op("Conv", attrs)
    assert_same(op(x, w, b), expected, tol, tol)
    assert widened  # the bias went into the GEMM
    out = np.empty(expected.shape, dtype)
    result = op(x, w, b, out=out)
    assert_same(result, expected, tol, tol)
    assert (result is out) == (dtype != np.float16)  # half precision computes in float32, then casts


def _depthwise_route(monkeypatch, xs, ws, attrs, dtype, bias, channels_last):
    """A new Conv op (plans are cached per op) on the depthwise route chosen, against ONNX's reference evaluator;
    returns the plans it ran."""
    from vfw.core import make_op
    from vfw.core.ops import _depthwise

    plans = []

    def spy(x, w, b, plan, out=None):
        plans.append(plan)
        return depthwise(x, w, b, plan, out)

    depthwise = _depthwise.depthwise
    monkeypatch.setattr("vfw.core.ops.conv.depthwise", spy)
    monkeypatch.setattr(_depthwise, "_channels_last_wins", lambda *args: channels_last)
    x, w = rand(xs, dtype), rand(ws, dtype, seed=1)
    inputs = [x, w] + ([rand((ws[0],), dtype, seed=2)] if bias else [])
    tol = 1e-4 if dtype == np.float32 else 2e-2
    op = make_op("Conv", attrs)
    assert_same(op(*inputs), onnx_run("Conv", inputs, attrs)[0], tol, tol)
    out = np.empty(op(*inputs).shape, dtype)
    assert op(*inputs, out=out) is out
    assert_same(out, op(*inputs), 0, 0)
    return plans


@pytest.mark.parametrize("xs, ws, attrs", [
    ((1, 6, 7, 7), (6, 1, 3, 3), {"group": 6, "pads": [1, 1, 1, 1]}),
    ((3, 5, 6, 8), (10, 1, 3, 2), {"group": 5, "pads": [0, 1, 2, 0]}),  # two output channels per input channel
    ((2, 4, 9, 7), (4, 1, 3, 3), {"group": 4, "dilations": [2, 3], "pads": [2, 3, 2, 3]}),
    ((1, 7, 5, 6), (7, 1, 5, 5), {"group": 7, "auto_pad": "SAME_UPPER"}),
    ((2, 3, 6, 6), (3, 1, 2, 2), {"group": 3}),  # no padding
])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("bias", [True, False])
def test_depthwise_conv_in_channel_blocks(monkeypatch, xs, ws, attrs, dtype, bias):
    from vfw.core.ops import _depthwise

    monkeypatch.setattr(_depthwise, "_BLOCK", 40)  # a channel or two per block
    plans = _depthwise_route(monkeypatch, xs, ws, attrs, dtype, bias, channels_last=False)
    assert plans and all(type(p) is _depthwise.DepthwisePlan and p.block < xs[1] for p in plans)  # several blocks


@pytest.mark.parametrize("xs, ws, attrs", [
    ((1, 6, 7, 7), (6, 1, 3, 3), {"group": 6, "pads": [1, 1, 1, 1]}),
    ((2, 6, 9, 8), (6, 1, 3, 3), {"group": 6, "pads": [1, 1, 1, 1], "strides": [2, 2]}),
    ((3, 5, 6, 8), (10, 1, 3, 2), {"group": 5, "pads": [0, 1, 2, 0], "strides": [1, 2]}),  # two per channel
    ((2, 4, 9, 7), (4, 1, 3, 3), {"group": 4, "dilations": [2, 3], "pads": [2, 3, 2, 3], "strides": [2, 1]}),
    ((1, 7, 5, 6), (7, 1, 5, 5), {"group": 7, "auto_pad": "SAME_UPPER", "strides": [2, 2]}),
    ((2, 3, 6, 6), (3, 1, 2, 2), {"group": 3}),  # no padding
])
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("bias", [True, False])
def test_depthwise_conv_channels_last(monkeypatch, xs, ws, attrs, dtype, bias):
    from vfw.core.ops import _depthwise

    plans = _depthwise_route(monkeypatch, xs, ws, attrs, dtype, bias, channels_last=True)
    assert plans and all(type(p) is _depthwise.ChannelsLastPlan for p in plans)
