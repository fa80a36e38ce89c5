import itertools

import numpy as np
import pytest

from tests.ops.oracle import assert_same, check_op, onnx_run, rand, vfw_run
from vfw.core import OpAttributeError, ShapeError, TensorInfo, get_schema, run
from vfw.core import dtypes as dt

FLOATS = [np.float32, np.float64, np.float16]
TOL = {np.float32: (1e-4, 1e-4), np.float64: (1e-10, 1e-10), np.float16: (1e-2, 2e-2)}

CONV_CASES = [
    # (X shape, W shape, bias, attrs)
    ((2, 3, 9), (4, 3, 3), True, {"pads": [2, 1], "strides": [2], "dilations": [3]}),
    ((2, 3, 9), (4, 3, 4), False, {"auto_pad": "SAME_LOWER", "strides": [2]}),
    ((2, 3, 7, 6), (4, 3, 3, 2), True, {"pads": [1, 0, 2, 1], "strides": [2, 1], "dilations": [1, 2]}),
    ((2, 4, 7, 6), (6, 2, 3, 2), False, {"group": 2, "auto_pad": "SAME_UPPER", "strides": [2, 2]}),
    ((2, 4, 7, 6), (8, 1, 3, 2), True, {"group": 4, "auto_pad": "SAME_LOWER", "strides": [2, 2]}),
    ((2, 6, 7, 8), (6, 1, 3, 3), True, {"group": 6, "pads": [1, 1, 1, 1], "kernel_shape": [3, 3]}),  # depthwise
    ((1, 4, 7), (8, 1, 3), False, {"group": 4, "auto_pad": "VALID"}),
    ((2, 6, 5, 4), (4, 6, 1, 1), True, {}),
    ((2, 3, 6, 6), (2, 3, 6, 6), False, {}),  # kernel as large as the input
    ((1, 4, 4, 5, 6), (6, 2, 2, 3, 2), True, {"group": 2, "pads": [1, 0, 1, 0, 1, 1], "strides": [1, 2, 2],
                                              "dilations": [2, 1, 1]}),
    ((1, 2, 4, 5, 5), (3, 2, 3, 2, 2), False, {"auto_pad": "SAME_UPPER", "strides": [2, 1, 2]}),
    ((2, 3, 7, 6), (4, 3, 3, 2), True, {"auto_pad": "SAME_UPPER", "dilations": [2, 3]}),
    ((2, 3, 7, 6), (4, 3, 2, 2), True, {"auto_pad": "SAME_LOWER", "dilations": [2, 1], "strides": [3, 2]}),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("xs, ws, bias, attrs", CONV_CASES)
def test_conv_matches_onnx(xs, ws, bias, attrs, dtype):
    inputs = [rand(xs, dtype), rand(ws, dtype, seed=1)] + ([rand((ws[0],), dtype, seed=2)] if bias else [])
    check_op("Conv", inputs, attrs, rtol=TOL[dtype][0], atol=TOL[dtype][1])


def test_conv_bfloat16_accumulates_in_float32():
    x, w = rand((2, 3, 6, 5), np.float32), rand((4, 3, 3, 3), np.float32, seed=1)
    xb, wb = x.astype(dt.bfloat16), w.astype(dt.bfloat16)
    y = run("Conv", xb, wb, pads=[1, 1, 1, 1])
    assert y.dtype == dt.bfloat16
    expected = run("Conv", xb.astype(np.float32), wb.astype(np.float32), pads=[1, 1, 1, 1])
    assert_same(y.astype(np.float32), expected.astype(dt.bfloat16).astype(np.float32))


def test_conv_empty_batch_and_out_buffer():
    w = rand((4, 3, 3, 3), seed=1)
    y = run("Conv", np.zeros((0, 3, 5, 5), np.float32), w)
    assert y.shape == (0, 4, 3, 3) and y.dtype == np.float32
    x, b = rand((2, 3, 5, 5)), rand((4,), seed=2)
    out = np.empty((2, 4, 5, 5), np.float32)
    y = run("Conv", x, w, b, out=out, pads=[1, 1, 1, 1])
    assert y is out
    assert_same(out, onnx_run("Conv", [x, w, b], {"pads": [1, 1, 1, 1]})[0], 1e-4, 1e-4)


def test_conv_large_columns_work_in_batch_slices(monkeypatch):
    from vfw.core import make_op
    from vfw.core.ops import conv as conv_module

    monkeypatch.setattr(conv_module, "_COLS_LIMIT", 200)  # 3*9*16 = 432 column elements per item
    op = make_op("Conv", {"pads": [1, 1, 1, 1], "strides": [2, 2]})
    x, w, b = rand((5, 3, 8, 8)), rand((4, 3, 3, 3), seed=1), rand((4,), seed=2)
    expected = onnx_run("Conv", [x, w, b], {"pads": [1, 1, 1, 1], "strides": [2, 2]})[0]
    assert_same(op(x, w, b), expected, 1e-4, 1e-4)
    out = np.empty(expected.shape, np.float32)
    assert op(x, w, b, out=out) is out
    assert_same(out, expected, 1e-4, 1e-4)


def test_conv_reuses_op_across_shapes():
    from vfw.core import get_op

    op = get_op("Conv", {"pads": [1, 1, 1, 1], "strides": [2, 2]})
    w = rand((4, 3, 3, 3), seed=1)
    for shape in [(1, 3, 5, 5), (2, 3, 8, 7), (1, 3, 5, 5)]:
        x = rand(shape)
        assert_same(op(x, w), onnx_run("Conv", [x, w], {"pads": [1, 1, 1, 1], "strides": [2, 2]})[0], 1e-4, 1e-4)


# ------------------------------------------------------------------------------------------ ConvTranspose


CONVT_CASES = [
    ((2, 3, 4, 5), (3, 2, 3, 3), True, {"strides": [2, 2]}),
    ((2, 3, 4, 5), (3, 2, 3, 3), False, {"strides": [2, 2], "pads": [1, 0, 1, 1], "dilations": [1, 2]}),
    ((2, 3, 5), (3, 2, 4), True, {"strides": [3], "output_padding": [2]}),
    ((2, 3, 4, 5), (3, 2, 3, 2), False, {"strides": [2, 3], "output_padding": [1, 2], "auto_pad": "VALID"}),
    ((2, 3, 4, 5), (3, 2, 3, 3), False, {"strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    ((2, 3, 4, 5), (3, 2, 3, 3), False, {"strides": [2, 2], "auto_pad": "SAME_LOWER"}),
    ((2, 3, 4, 5), (3, 2, 4, 4), False, {"strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    ((2, 3, 4, 5), (3, 2, 3, 3), True, {"strides": [2, 2], "output_shape": [8, 9], "auto_pad": "SAME_UPPER"}),
    ((2, 3, 4, 5), (3, 2, 3, 3), False, {"strides": [2, 2], "output_shape": [7, 10], "auto_pad": "SAME_LOWER"}),
    ((1, 2, 3, 4, 3), (2, 2, 2, 3, 2), True, {"strides": [2, 1, 2], "pads": [0, 1, 1, 1, 0, 0]}),
    ((2, 3, 4, 4), (3, 1, 1, 1), False, {}),
    ((2, 3, 4, 5), (3, 2, 2, 3), True, {"strides": [2, 3]}),  # stride == kernel: taps tile the output
    ((1, 2, 3, 4, 2), (2, 2, 2, 1, 3), False, {"strides": [2, 1, 3]}),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("xs, ws, bias, attrs", CONVT_CASES)
def test_conv_transpose_matches_onnx(xs, ws, bias, attrs, dtype):
    inputs = [rand(xs, dtype), rand(ws, dtype, seed=1)] + ([rand((ws[1],), dtype, seed=2)] if bias else [])
    check_op("ConvTranspose", inputs, attrs, rtol=TOL[dtype][0], atol=TOL[dtype][1])


def _ref_conv_transpose(x, w, b, strides, dilations, group, pads_begin, out_sp):
    """Scatter definition: every input pixel adds its weighted kernel into the full output, then crop."""
    n, c = x.shape[:2]
    mg, kernel = w.shape[1], w.shape[2:]
    cg = c // group
    full = [(i - 1) * s + (k - 1) * d + 1 for i, s, k, d in zip(x.shape[2:], strides, kernel, dilations)]
    size = [max(f, p + o) for f, p, o in zip(full, pads_begin, out_sp)]
    y = np.zeros((n, mg * group, *size))
    for pos in np.ndindex(*x.shape[2:]):
        for tap in np.ndindex(*kernel):
            at = tuple(i * s + t * d for i, s, t, d in zip(pos, strides, tap, dilations))
            for g in range(group):
                xs = x[(slice(None), slice(g * cg, (g + 1) * cg)) + pos].astype(np.float64)
                ws = w[(slice(g * cg, (g + 1) * cg), slice(None)) + tap].astype(np.float64)
                y[(slice(None), slice(g * mg, (g + 1) * mg)) + at] += xs @ ws
    y = y[(slice(None), slice(None)) + tuple(slice(p, p + o) for p, o in zip(pads_begin, out_sp))]
    if b is not None:
        y += b.reshape((-1,) + (1,) * len(kernel))
    return y.astype(x.dtype)


@pytest.mark.parametrize("attrs, pads_begin, out_sp", [
    ({"strides": [2, 3], "output_shape": [7, 13]}, (1, 1), (7, 13)),
    ({"strides": [2, 3], "output_shape": [8, 14], "output_padding": [1, 0]}, (1, 0), (8, 14)),
    ({"strides": [2, 3], "output_shape": [10, 16]}, (0, 0), (10, 16)),  # larger than the full result
    ({"strides": [2, 3], "group": 2, "pads": [1, 0, 0, 1], "output_padding": [1, 0]}, (1, 0), (9, 13)),
    ({"strides": [2, 3], "group": 2, "dilations": [2, 1]}, (0, 0), (11, 14)),
    ({"strides": [1, 2], "group": 4, "pads": [1, 1, 1, 1]}, (1, 1), (4, 8)),
])
def test_conv_transpose_against_numpy(attrs, pads_begin, out_sp):
    # ReferenceEvaluator's ConvTranspose fails for group > 1 and for output_shape without auto_pad,
    # so these use the scatter definition written above.
    group = attrs.get("group", 1)
    x, w, b = rand((2, 4, 4, 5)), rand((4, 12 // group // (2 if group == 1 else 1), 3, 2), seed=1), None
    b = rand((w.shape[1] * group,), seed=2)
    y = run("ConvTranspose", x, w, b, **attrs)
    expected = _ref_conv_transpose(x, w, b, attrs["strides"], attrs.get("dilations", [1, 1]), group, pads_begin,
                                   out_sp)
    assert_same(y, expected, 1e-4, 1e-4)


@pytest.mark.parametrize("attrs", [
    {"strides": [2, 2], "pads": [1, 0, 2, 1]},
    {"strides": [2, 1], "dilations": [2, 2], "group": 2},
    {"strides": [1, 1], "group": 4},
])
def test_conv_transpose_is_adjoint_of_conv(attrs):
    # <ConvTranspose(y), x> == <y, Conv(x)> with the same weights and attributes.
    x, w = rand((2, 4, 9, 8), np.float64), rand((8, 4 // attrs.get("group", 1), 3, 2), np.float64, seed=1)
    conv = run("Conv", x, w, **attrs)
    y = rand(conv.shape, np.float64, seed=3)
    pads = attrs.get("pads", [0, 0, 0, 0])
    # output_padding restores the input rows the strided Conv never reached
    back = run("ConvTranspose", y, w, **attrs)
    extra = [n - b for n, b in zip(x.shape[2:], back.shape[2:])]
    back = run("ConvTranspose", y, w, output_padding=extra, **attrs) if any(extra) else back
    assert back.shape == x.shape, (back.shape, x.shape, pads)
    np.testing.assert_allclose(np.vdot(back, x), np.vdot(y, conv), rtol=1e-10)


def test_conv_transpose_grouped_equals_per_group_oracle():
    x, w = rand((2, 4, 4, 5)), rand((4, 3, 3, 2), seed=1)
    attrs = {"strides": [2, 3], "pads": [1, 0, 0, 1]}
    y = run("ConvTranspose", x, w, group=2, **attrs)
    parts = [onnx_run("ConvTranspose", [x[:, 2 * g:2 * g + 2], w[2 * g:2 * g + 2]], attrs)[0] for g in range(2)]
    assert_same(y, np.concatenate(parts, axis=1), 1e-4, 1e-4)


# ----------------------------------------------------------------------------------------------- errors


def test_conv_channel_mismatch_names_shapes_and_group():
    with pytest.raises(ShapeError, match=r"Conv: X shape \(1, 3, 5, 5\).*W shape \(4, 2, 3, 3\).*group=1"):
        run("Conv", rand((1, 3, 5, 5)), rand((4, 2, 3, 3)))
    with pytest.raises(ShapeError, match=r"Conv: .*group=2"):
        run("Conv", rand((1, 4, 5, 5)), rand((4, 4, 3, 3)), group=2)
    with pytest.raises(ShapeError, match=r"Conv: .*not divisible by group=2"):
        run("Conv", rand((1, 4, 5, 5)), rand((3, 2, 3, 3)), group=2)
    with pytest.raises(ShapeError, match=r"ConvTranspose: X shape \(1, 3, 5, 5\).*W shape \(4, 2, 3, 3\)"):
        run("ConvTranspose", rand((1, 3, 5, 5)), rand((4, 2, 3, 3)))


def test_conv_kernel_larger_than_padded_input():
    with pytest.raises(ShapeError, match=r"Conv: kernel extent 5 .* larger than the padded input"):
        run("Conv", rand((1, 1, 4, 4)), rand((1, 1, 5, 5)), pads=[0, 0, 0, 0])
    with pytest.raises(ShapeError, match=r"Conv: kernel extent 5 \(kernel_shape 3, dilation 2\)"):
        run("Conv", rand((1, 1, 4, 4)), rand((1, 1, 3, 3)), dilations=[2, 2])
    # padding makes room
    assert run("Conv", rand((1, 1, 4, 4)), rand((1, 1, 5, 5)), pads=[1, 1, 0, 0]).shape == (1, 1, 1, 1)


def test_conv_bad_attributes_and_shapes():
    x, w = rand((1, 2, 5, 5)), rand((3, 2, 3, 3))
    with pytest.raises(OpAttributeError, match=r"Conv: attribute 'pads'=\[1, 1\] needs 4 values"):
        run("Conv", x, w, pads=[1, 1])
    with pytest.raises(OpAttributeError, match=r"Conv: attribute 'strides'=\[1, 1, 1\] needs 2 values"):
        run("Conv", x, w, strides=[1, 1, 1])
    with pytest.raises(OpAttributeError, match=r"Conv: attribute 'pads'"):
        run("Conv", x, w, pads=[1, -1, 0, 0])
    with pytest.raises(OpAttributeError, match=r"Conv: attribute 'auto_pad'"):
        run("Conv", x, w, auto_pad="SAME")
    with pytest.raises(ShapeError, match=r"Conv: attribute kernel_shape=\[2, 2\] disagrees with W shape"):
        run("Conv", x, w, kernel_shape=[2, 2])
    with pytest.raises(ShapeError, match=r"Conv: W shape \(3, 2, 3\) must have the rank of X shape"):
        run("Conv", x, rand((3, 2, 3)))
    with pytest.raises(ShapeError, match=r"Conv: B shape \(4,\) must be \(3,\)"):
        run("Conv", x, w, rand((4,)))
    with pytest.raises(ShapeError, match=r"Conv: X shape \(2, 5\) needs rank >= 3"):
        run("Conv", rand((2, 5)), rand((2, 5)))
    with pytest.raises(OpAttributeError, match=r"ConvTranspose: output_padding=\[2, 0\] must be smaller"):
        run("ConvTranspose", x, rand((2, 3, 3, 3)), strides=[2, 2], output_padding=[2, 0])
    with pytest.raises(ShapeError, match=r"ConvTranspose: output size -1 along spatial axis 0"):
        run("ConvTranspose", rand((1, 2, 1, 1)), rand((2, 3, 1, 1)), pads=[1, 0, 1, 0])


# -------------------------------------------------------------------------------------------- inference


@pytest.mark.parametrize("op, xs, ws, attrs", [
    ("Conv", (2, 3, 9, 8), (4, 3, 3, 2), {"pads": [1, 0, 2, 1], "strides": [2, 3]}),
    ("Conv", (2, 4, 7, 6), (8, 1, 3, 2), {"group": 4, "auto_pad": "SAME_LOWER", "strides": [2, 2]}),
    ("ConvTranspose", (2, 3, 4, 5), (3, 2, 3, 3), {"strides": [2, 2], "output_padding": [1, 0]}),
    ("ConvTranspose", (2, 4, 4, 5), (4, 3, 3, 3), {"group": 2, "output_shape": [9, 11]}),
])
def test_infer_matches_kernel(op, xs, ws, attrs):
    schema = get_schema(op)
    bound = schema.bind_attrs(attrs)
    x, w = rand(xs), rand(ws, seed=1)
    y = vfw_run(op, [x, w], attrs)[0]
    assert schema.infer(bound, [TensorInfo(xs, np.float32), TensorInfo(ws, np.float32)]) == [
        TensorInfo(y.shape, y.dtype)]
    # unknown batch size stays unknown; channels and spatial sizes are still known
    (info,) = schema.infer(bound, [TensorInfo((None,) + xs[1:], np.float32), TensorInfo(ws, np.float32)])
    assert info.shape == (None,) + y.shape[1:]


def test_conv_tap_loop_matches_matmul_path():
    # one input channel per group takes the per-tap path; compare with the same conv written densely
    x, w = rand((2, 3, 6, 7), np.float64), rand((6, 1, 3, 3), np.float64, seed=1)
    y = run("Conv", x, w, group=3, pads=[1, 2, 0, 1], strides=[1, 2])
    dense = np.zeros((6, 3, 3, 3))
    for m, g in itertools.product(range(6), range(3)):
        if m // 2 == g:
            dense[m, g] = w[m, 0]
    assert_same(y, run("Conv", x, dense, pads=[1, 2, 0, 1], strides=[1, 2]), 1e-12, 1e-12)
