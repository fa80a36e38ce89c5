import math

import numpy as np
import pytest

from tests.ops.oracle import assert_same, check_op, rand, vfw_run
from vfw.core import OpAttributeError, ShapeError, TensorInfo, get_op, get_schema, run
from vfw.core import dtypes as dt

FLOATS = [np.float32, np.float64, np.float16]
TOL = {np.float32: (1e-5, 1e-5), np.float64: (1e-12, 1e-12), np.float16: (1e-3, 1e-2)}

WINDOW_CASES = [
    ((2, 3, 9), {"kernel_shape": [3], "strides": [2], "pads": [1, 2], "dilations": [2]}),
    ((2, 3, 9), {"kernel_shape": [4], "strides": [3], "pads": [2, 1], "ceil_mode": 1}),
    ((2, 3, 7, 8), {"kernel_shape": [3, 2]}),
    ((2, 3, 7, 8), {"kernel_shape": [3, 2], "strides": [2, 3], "pads": [1, 0, 2, 1]}),
    ((2, 3, 7, 8), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "ceil_mode": 1}),
    ((2, 3, 7, 8), {"kernel_shape": [2, 3], "strides": [2, 2], "dilations": [2, 1], "ceil_mode": 1}),
    ((2, 3, 7, 8), {"kernel_shape": [3, 3], "pads": [2, 0, 1, 2], "dilations": [1, 2], "strides": [2, 2],
                    "ceil_mode": 1}),
    ((2, 3, 7, 8), {"kernel_shape": [3, 2], "strides": [2, 3], "auto_pad": "SAME_UPPER"}),
    ((2, 3, 7, 8), {"kernel_shape": [3, 2], "strides": [2, 3], "auto_pad": "VALID"}),
    ((1, 2, 4, 5, 6), {"kernel_shape": [2, 3, 2], "strides": [1, 2, 2], "pads": [1, 1, 0, 0, 1, 1]}),
]

LARGE_CASES = [  # more than 1024 outputs: MaxPool's separable path instead of im2col + argmax
    ((2, 8, 20, 21), {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}),
    ((2, 8, 20, 21), {"kernel_shape": [2, 3], "strides": [1, 2], "dilations": [2, 1], "pads": [0, 1, 2, 0],
                      "ceil_mode": 1}),
]
# ReferenceEvaluator's MaxPool indexes out of bounds on this 3-D case: numpy reference only
LARGE_3D = [((1, 4, 6, 10, 12), {"kernel_shape": [2, 2, 3], "pads": [1, 0, 1, 0, 1, 1]})]


# ---------------------------------------------------------------------------------- numpy reference


def _ref_geometry(in_sp, attrs):
    """Output size and begin/end pads, straight from the ONNX operator text."""
    nd = len(in_sp)
    kernel = attrs["kernel_shape"]
    strides = attrs.get("strides", [1] * nd)
    dilations = attrs.get("dilations", [1] * nd)
    pads = attrs.get("pads", [0] * 2 * nd)
    auto_pad, ceil_mode = attrs.get("auto_pad", "NOTSET"), attrs.get("ceil_mode", 0)
    out, begins, ends = [], [], []
    for i, n in enumerate(in_sp):
        s, eff = strides[i], (kernel[i] - 1) * dilations[i] + 1
        if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
            o = math.ceil(n / s)
            total = max(0, (o - 1) * s + eff - n)
            b = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
            e = total - b
        else:
            b, e = (0, 0) if auto_pad == "VALID" else (pads[i], pads[i + nd])
            size = (n + b + e - eff) / s + 1
            o = math.ceil(size) if ceil_mode else math.floor(size)
            if ceil_mode and (o - 1) * s >= n + b:  # windows starting in the end padding are dropped
                o -= 1
        out.append(o)
        begins.append(b)
        ends.append(e)
    return out, begins, ends


def _ref_pool(x, kind, attrs, count_include_pad=0, p=2, storage_order=0):
    """Pool by visiting every window tap; returns (Y, Indices) with ONNX's flat indices."""
    in_sp = x.shape[2:]
    nd = len(in_sp)
    kernel, strides = attrs["kernel_shape"], attrs.get("strides", [1] * nd)
    dilations = attrs.get("dilations", [1] * nd)
    out, begins, ends = _ref_geometry(in_sp, attrs)
    order = list(range(nd)) if storage_order == 0 else list(reversed(range(nd)))
    plane = math.prod(in_sp)
    y = np.zeros(x.shape[:2] + tuple(out))
    idx = np.zeros(y.shape, np.int64)
    base = (np.arange(x.shape[0] * x.shape[1]) * plane).reshape(x.shape[:2])
    xf = x.astype(np.float64)
    for o in np.ndindex(*out):
        vals, flats, counted = [], [], 0
        for t in np.ndindex(*kernel):
            pos = [o[i] * strides[i] + t[i] * dilations[i] - begins[i] for i in range(nd)]
            if all(-begins[i] <= pos[i] < in_sp[i] + ends[i] for i in range(nd)):
                counted += 1
            if all(0 <= pos[i] < in_sp[i] for i in range(nd)):
                vals.append(xf[(slice(None), slice(None)) + tuple(pos)])
                flat = 0
                for i in order:
                    flat = flat * in_sp[i] + pos[i]
                flats.append(flat)
        v = np.stack(vals)
        at = (slice(None), slice(None)) + o
        if kind == "max":
            best = np.argmax(v, axis=0)  # first maximum in row-major window order
            y[at] = v.max(axis=0)
            idx[at] = np.asarray(flats)[best] + base
        elif kind == "avg":
            y[at] = v.sum(axis=0) / (counted if count_include_pad else len(vals))
        else:
            y[at] = (np.abs(v) ** p).sum(axis=0) ** (1.0 / p)
    return y.astype(x.dtype), idx


# ------------------------------------------------------------------------------------------ MaxPool


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape, attrs", WINDOW_CASES + LARGE_CASES)
def test_max_pool_values_match_onnx(shape, attrs, dtype):
    ours = check_op("MaxPool", [rand(shape, dtype)], attrs, n_outputs=1, outputs=[0])
    assert ours[1].dtype == np.int64 and ours[1].shape == ours[0].shape


@pytest.mark.parametrize("dtype", [np.int8, np.uint8])
@pytest.mark.parametrize("shape, attrs", WINDOW_CASES + LARGE_CASES[:1])
def test_max_pool_int_values(shape, attrs, dtype):
    # ReferenceEvaluator pads integer inputs with NaN (an error for int8), so the reference is numpy.
    # The dtype's minimum value must still win over padding.
    x = rand(shape, dtype, low=-128 if dtype == np.int8 else 0, high=-100 if dtype == np.int8 else 3)
    assert_same(run("MaxPool", x, **attrs)[0], _ref_pool(x, "max", attrs)[0])


@pytest.mark.parametrize("storage_order", [0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.uint8])
@pytest.mark.parametrize("shape, attrs", WINDOW_CASES + LARGE_CASES + LARGE_3D)
def test_max_pool_indices(shape, attrs, dtype, storage_order):
    # ReferenceEvaluator's Indices drop the N/C offset and ignore storage_order, unlike the ONNX text
    # ("flatten 1-D tensor ... in [0, N x C x D1 x ... x Dn)") and onnxruntime: compare with numpy.
    # Small uint8 values make many ties (first position in row-major window order wins).
    x = rand(shape, dtype, low=0 if dtype == np.uint8 else -3, high=3)
    y, idx = run("MaxPool", x, storage_order=storage_order, **attrs)
    ref_y, ref_idx = _ref_pool(x, "max", attrs, storage_order=storage_order)
    assert_same(y, ref_y)
    assert_same(idx, ref_idx)


def test_max_pool_same_lower_and_padding_never_wins():
    # ReferenceEvaluator gets MaxPool's SAME_LOWER output shape wrong (AveragePool's is right).
    x = rand((2, 3, 7, 8), np.float32)
    attrs = {"kernel_shape": [3, 2], "strides": [2, 3], "auto_pad": "SAME_LOWER"}
    y, idx = run("MaxPool", x, **attrs)
    ref = _ref_pool(x, "max", attrs)
    assert_same(y, ref[0])
    assert_same(idx, ref[1])
    # an all-zero uint8 image: padding must not tie with the real zeros
    zeros = np.zeros((1, 1, 3, 3), np.uint8)
    y, idx = run("MaxPool", zeros, kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    assert_same(idx, np.array([[[[0, 0, 1], [0, 0, 1], [3, 3, 4]]]], np.int64))
    assert not y.any()


# -------------------------------------------------------------------------------------- AveragePool


@pytest.mark.parametrize("count_include_pad", [0, 1])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape, attrs", WINDOW_CASES + [
    ((2, 3, 7, 8), {"kernel_shape": [3, 2], "strides": [2, 3], "auto_pad": "SAME_LOWER"}),
    ((1, 1, 6), {"kernel_shape": [3], "strides": [2], "pads": [0, 1], "ceil_mode": 1}),
])
def test_average_pool_matches_onnx(shape, attrs, dtype, count_include_pad):
    attrs = dict(attrs, count_include_pad=count_include_pad)
    check_op("AveragePool", [rand(shape, dtype)], attrs, rtol=TOL[dtype][0], atol=TOL[dtype][1])


@pytest.mark.parametrize("shape, attrs", WINDOW_CASES[:6])
def test_average_pool_against_numpy(shape, attrs):
    # the ceil_mode overhang past the end padding is never counted, the declared padding is
    x = rand(shape, np.float64)
    for cip in (0, 1):
        assert_same(run("AveragePool", x, count_include_pad=cip, **attrs),
                    _ref_pool(x, "avg", attrs, count_include_pad=cip)[0], 1e-12, 1e-12)


# ------------------------------------------------------------------------------------------- LpPool


@pytest.mark.parametrize("p", [1, 2, 3])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape, attrs", [c for c in WINDOW_CASES if not c[1].get("ceil_mode")])
def test_lp_pool_matches_onnx(shape, attrs, dtype, p):
    check_op("LpPool", [rand(shape, dtype)], dict(attrs, p=p), rtol=TOL[dtype][0], atol=TOL[dtype][1])


@pytest.mark.parametrize("p", [1, 2, 3])
@pytest.mark.parametrize("shape, attrs", [c for c in WINDOW_CASES if c[1].get("ceil_mode")])
def test_lp_pool_ceil_mode_against_numpy(shape, attrs, p):
    # ReferenceEvaluator computes LpPool as an average times the kernel size, which scales windows
    # that overhang the input; the p-norm of the window's elements (as onnxruntime) is checked here.
    x = rand(shape, np.float64)
    assert_same(run("LpPool", x, p=p, **attrs), _ref_pool(x, "lp", attrs, p=p)[0], 1e-12, 1e-12)


# -------------------------------------------------------------------------------------- global pools


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (1, 2, 3, 4, 2), (2, 3, 5)])
def test_global_pools(shape, dtype):
    x = rand(shape, dtype)
    check_op("GlobalAveragePool", [x], rtol=TOL[dtype][0], atol=TOL[dtype][1])
    # ReferenceEvaluator's GlobalMaxPool gets the output rank wrong unless there are two spatial axes
    spatial = tuple(range(2, len(shape)))
    assert_same(run("GlobalMaxPool", x), x.max(axis=spatial, keepdims=True))
    if len(shape) == 4:
        check_op("GlobalMaxPool", [x])


# ---------------------------------------------------------------------------------------------- LRN


def _ref_lrn(x, size, alpha, beta, bias):
    xf = x.astype(np.float64)
    c = x.shape[1]
    y = np.empty_like(xf)
    for i in range(c):
        lo, hi = max(0, i - (size - 1) // 2), min(c - 1, i + math.ceil((size - 1) / 2))
        square_sum = (xf[:, lo:hi + 1] ** 2).sum(axis=1)
        y[:, i] = xf[:, i] / (bias + alpha / size * square_sum) ** beta
    return y.astype(x.dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("size", [1, 2, 3, 5, 9])
@pytest.mark.parametrize("shape", [(2, 7, 3, 4), (2, 4), (1, 5, 3)])
def test_lrn_against_numpy(shape, size, dtype):
    # ReferenceEvaluator's LRN window is shifted by one channel (it disagrees with the formula in the
    # ONNX text and with onnxruntime) and it only takes 4-D input, so the formula is computed here.
    x = rand(shape, dtype)
    attrs = {"size": size, "alpha": 0.01, "beta": 0.6, "bias": 1.5}
    assert_same(run("LRN", x, **attrs), _ref_lrn(x, **attrs), *TOL[dtype])
    assert_same(run("LRN", x, size=size), _ref_lrn(x, size, 1e-4, 0.75, 1.0), *TOL[dtype])


# ----------------------------------------------------------------------------------- errors, inference


def test_pool_errors():
    x = rand((1, 2, 5, 5))
    with pytest.raises(OpAttributeError, match=r"MaxPool: attribute 'pads'=\[1, 1\] needs 4 values"):
        run("MaxPool", x, kernel_shape=[2, 2], pads=[1, 1])
    with pytest.raises(OpAttributeError, match=r"AveragePool: attribute 'strides'=\[1\] needs 2 values"):
        run("AveragePool", x, kernel_shape=[2, 2], strides=[1])
    with pytest.raises(OpAttributeError, match=r"MaxPool: missing required attribute 'kernel_shape'"):
        run("MaxPool", x)
    with pytest.raises(OpAttributeError, match=r"LpPool: attribute 'kernel_shape'"):
        run("LpPool", x, kernel_shape=[0, 2])
    with pytest.raises(ShapeError, match=r"MaxPool: kernel extent 6 .* larger than the padded input \(5 \+ pads 0"):
        run("MaxPool", x, kernel_shape=[6, 2])
    with pytest.raises(ShapeError, match=r"AveragePool: input 'X' of shape \(1, 2, 5, 5\) must have rank 5"):
        run("AveragePool", x, kernel_shape=[2, 2, 2])
    with pytest.raises(ShapeError, match=r"GlobalAveragePool: input 'X' of shape \(3,\) needs rank >= 2"):
        run("GlobalAveragePool", rand((3,)))
    with pytest.raises(ShapeError, match=r"LRN: input 'X' of shape \(3,\) needs rank >= 2"):
        run("LRN", rand((3,)), size=3)
    with pytest.raises(OpAttributeError, match=r"MaxPool: attribute 'storage_order'"):
        run("MaxPool", x, kernel_shape=[2, 2], storage_order=2)


@pytest.mark.parametrize("op, attrs", [
    ("MaxPool", {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "ceil_mode": 1}),
    ("AveragePool", {"kernel_shape": [3, 2], "auto_pad": "SAME_LOWER", "strides": [2, 3]}),
    ("LpPool", {"kernel_shape": [2, 2], "dilations": [2, 1]}),
    ("GlobalAveragePool", {}),
    ("GlobalMaxPool", {}),
    ("LRN", {"size": 3}),
])
def test_infer_matches_kernel(op, attrs):
    schema = get_schema(op)
    x = rand((2, 3, 7, 8))
    ys = vfw_run(op, [x], attrs)
    infos = schema.infer(schema.bind_attrs(attrs), [TensorInfo(x.shape, x.dtype)])
    assert infos == [TensorInfo(y.shape, y.dtype) for y in ys]


def test_pool_op_reused_across_shapes_and_empty_batch():
    op = get_op("AveragePool", {"kernel_shape": [2, 2], "pads": [1, 1, 0, 0]})
    for shape in [(1, 2, 5, 5), (2, 3, 4, 6), (1, 2, 5, 5), (0, 2, 5, 5)]:
        x = rand(shape)
        assert_same(op(x), _ref_pool(x, "avg", {"kernel_shape": [2, 2], "pads": [1, 1, 0, 0]})[0])
    y, idx = run("MaxPool", np.zeros((0, 2, 4, 4), np.float32), kernel_shape=[2, 2])
    assert y.shape == idx.shape == (0, 2, 3, 3)


def test_average_pool_out_buffer_and_bfloat16():
    x = rand((2, 3, 6, 6))
    out = np.empty((2, 3, 3, 3), np.float32)
    assert run("AveragePool", x, out=out, kernel_shape=[2, 2], strides=[2, 2]) is out
    assert_same(out, x.reshape(2, 3, 3, 2, 3, 2).mean(axis=(3, 5)))
    xb = x.astype(dt.bfloat16)
    yb = run("AveragePool", xb, kernel_shape=[2, 2], strides=[2, 2])
    assert yb.dtype == dt.bfloat16
    expected = xb.astype(np.float32).reshape(2, 3, 3, 2, 3, 2).mean(axis=(3, 5)).astype(dt.bfloat16)
    assert_same(yb.astype(np.float32), expected.astype(np.float32))
