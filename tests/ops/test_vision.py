"""Col2Im, MaxUnpool and GridSample against ONNX's reference; Im2Col and AdaptiveMaxPool against numpy loops."""

import itertools
import math

import numpy as np
import pytest

from tests.ops.oracle import assert_same, check_op, rand, vfw_run
from vfw.core import OpAttributeError, ShapeError, TensorInfo, get_schema, run
from vfw.core import dtypes as dt
from vfw.core.errors import IndexOutOfRangeError

COL2IM_CASES = [
    # (image, block, attrs)
    ((5, 6), (2, 3), {}),
    ((5, 6), (2, 3), {"pads": [1, 0, 1, 1]}),
    ((5, 6), (2, 3), {"pads": [1, 0, 1, 1], "strides": [2, 1], "dilations": [1, 2]}),
    ((7,), (3,), {"strides": [2], "pads": [1, 2]}),
    ((3, 4, 4), (2, 2, 3), {"strides": [1, 2, 1], "pads": [0, 1, 1, 1, 0, 1]}),
]


def _blocks(image, block, attrs):
    nd = len(image)
    pads = attrs.get("pads", [0] * 2 * nd)
    st, dil = attrs.get("strides", [1] * nd), attrs.get("dilations", [1] * nd)
    return [(n + pads[i] + pads[i + nd] - dil[i] * (k - 1) - 1) // st[i] + 1
            for i, (n, k) in enumerate(zip(image, block))]


@pytest.mark.parametrize("image, block, attrs", COL2IM_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64])
def test_col2im_matches_onnx(image, block, attrs, dtype):
    length = math.prod(_blocks(image, block, attrs))
    cols = rand((2, 3 * math.prod(block), length), dtype)
    check_op("Col2Im", [cols, np.array(image, np.int64), np.array(block, np.int64)], attrs)


def _im2col_loops(x, kernel, attrs):
    """Im2Col by explicit loops over kernel taps and window positions (the test oracle)."""
    nd = len(kernel)
    pads = attrs.get("pads", [0] * 2 * nd)
    st, dil = attrs.get("strides", [1] * nd), attrs.get("dilations", [1] * nd)
    padded = np.pad(x, [(0, 0), (0, 0)] + [(pads[i], pads[i + nd]) for i in range(nd)])
    counts = _blocks(x.shape[2:], kernel, attrs)
    n, c = x.shape[:2]
    out = np.zeros((n, c, math.prod(kernel), math.prod(counts)), x.dtype)
    for k, tap in enumerate(itertools.product(*map(range, kernel))):
        for p, pos in enumerate(itertools.product(*map(range, counts))):
            idx = tuple(q * s + t * d for q, s, t, d in zip(pos, st, tap, dil))
            out[:, :, k, p] = padded[(slice(None), slice(None)) + idx]
    return out.reshape(n, c * math.prod(kernel), -1)


@pytest.mark.parametrize("image, block, attrs", COL2IM_CASES)
def test_im2col_matches_loops_and_is_col2ims_adjoint(image, block, attrs):
    x = rand((2, 3) + image, np.float64)
    cols = vfw_run("Im2Col", [x], dict(attrs, kernel_shape=list(block)))[0]
    assert_same(cols, _im2col_loops(x, block, attrs))
    c = rand(cols.shape, np.float64, seed=1)
    back = vfw_run("Col2Im", [c, np.array(image), np.array(block)], attrs)[0]
    np.testing.assert_allclose(np.sum(cols * c), np.sum(x * back))


def test_im2col_bool_and_shape_inference():
    x = rand((1, 2, 4, 4), np.bool_)
    assert_same(run("Im2Col", x, kernel_shape=[2, 2]), _im2col_loops(x, (2, 2), {}))
    info = get_schema("Im2Col").infer({"kernel_shape": [2, 3], "pads": [1, 1, 1, 1], "strides": [1, 2],
                                       "dilations": None}, [TensorInfo((None, 3, 5, 6), dt.float32)])
    assert info[0].shape == (None, 18, 6 * 3)
    info = get_schema("Col2Im").infer({}, [TensorInfo((2, 12, 30), dt.float32), TensorInfo((2,), dt.int64, (5, 6)),
                                           TensorInfo((2,), dt.int64, (2, 3))])
    assert info[0].shape == (2, 2, 5, 6)


@pytest.mark.parametrize("inputs, attrs", [
    (lambda: [rand((1, 6, 7)), np.array([5, 6]), np.array([2, 3])], {}),  # 7 blocks, 20 expected
    (lambda: [rand((1, 7, 20)), np.array([5, 6]), np.array([2, 3])], {}),  # 7 rows for 6 taps per channel
    (lambda: [rand((1, 6, 20)), np.array([5, 6]), np.array([2])], {}),
    (lambda: [rand((6, 20)), np.array([5, 6]), np.array([2, 3])], {}),
    (lambda: [rand((1, 6, 1)), np.array([1, 2]), np.array([2, 3])], {}),  # block larger than the image
])
def test_col2im_errors(inputs, attrs):
    with pytest.raises(ShapeError):
        run("Col2Im", *inputs(), **attrs)


def test_im2col_errors():
    with pytest.raises(ShapeError):
        run("Im2Col", rand((1, 2, 3, 3)), kernel_shape=[4, 2])
    with pytest.raises(ShapeError):
        run("Im2Col", rand((1, 2, 3)), kernel_shape=[2, 2])


# ------------------------------------------------------------------------------------------- MaxUnpool


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_unpool_matches_onnx(dtype):
    x = rand((2, 3, 2, 2), dtype)
    idx = np.random.default_rng(0).permutation(96)[:24].reshape(2, 3, 2, 2)
    check_op("MaxUnpool", [x, idx], {"kernel_shape": [2, 2], "strides": [2, 2]})


def test_max_unpool_with_output_shape():
    # the ONNX reference sizes its buffer by the default shape and fails on a larger output_shape: numpy oracle
    x = rand((2, 3, 2, 2), np.float64)
    idx = np.random.default_rng(0).permutation(150)[:24].reshape(2, 3, 2, 2)
    want = np.zeros(150)
    want[idx.ravel()] = x.ravel()
    got = run("MaxUnpool", x, idx, np.array([2, 3, 5, 5]), kernel_shape=[2, 2], strides=[2, 2])
    assert_same(got, want.reshape(2, 3, 5, 5))


def test_max_unpool_duplicates_keep_the_last_value_and_bad_indices_raise():
    x = np.array([[[1.0, 2.0, 3.0]]], np.float32)
    y = run("MaxUnpool", x, np.array([[[1, 1, 4]]]), kernel_shape=[2], strides=[2])
    assert_same(y, np.array([[[0, 2, 0, 0, 3, 0]]], np.float32))
    with pytest.raises(IndexOutOfRangeError):
        run("MaxUnpool", x, np.array([[[1, 1, 6]]]), kernel_shape=[2], strides=[2])
    with pytest.raises(ShapeError):
        run("MaxUnpool", x, np.array([[[1, 1]]]), kernel_shape=[2], strides=[2])
    with pytest.raises(ShapeError):
        run("MaxUnpool", x, np.array([[[1, 1, 4]]]), np.array([2, 1, 6]), kernel_shape=[2])


# ------------------------------------------------------------------------------------ AdaptiveMaxPool


def _adaptive_max_loops(x, size):
    """Max and flat in-plane index over each adaptive window, by explicit loops (the test oracle)."""
    nd = len(size)
    in_sp = x.shape[2:]
    y = np.zeros(x.shape[:2] + tuple(size), x.dtype)
    idx = np.zeros(y.shape, np.int64)
    for n, c in np.ndindex(*x.shape[:2]):
        plane = x[n, c].ravel()
        for pos in np.ndindex(*size):
            ranges = [range(p * s // o, -(-(p + 1) * s // o)) for p, s, o in zip(pos, in_sp, size)]
            flat = [int(np.ravel_multi_index(t, in_sp)) for t in itertools.product(*ranges)]
            best = max(flat, key=lambda f: (plane[f], -f))  # the first maximum in raster order
            y[(n, c) + pos], idx[(n, c) + pos] = plane[best], best
    assert nd == len(in_sp)
    return y, idx


@pytest.mark.parametrize("shape, size", [((2, 3, 7), [3]), ((2, 3, 7), [9]), ((1, 2, 7, 5), [3, 2]),
                                         ((1, 2, 6, 5), [4, 5]), ((1, 2, 3, 4, 5), [2, 3, 2]),
                                         ((1, 2, 5, 5), [0, 2])])
def test_adaptive_max_pool_matches_loops(shape, size):
    x = rand(shape, np.float32)
    x[..., 0] = x[..., -1]  # ties: the first position wins
    y, idx = vfw_run("AdaptiveMaxPool", [x], {"output_size": size})
    want_y, want_idx = _adaptive_max_loops(x, size)
    assert_same(y, want_y)
    assert_same(idx, want_idx)


def test_adaptive_max_pool_integers_and_inference():
    x = rand((1, 2, 5, 7), np.int32)
    y, idx = run("AdaptiveMaxPool", x, output_size=[2, 3])
    want_y, want_idx = _adaptive_max_loops(x, [2, 3])
    assert_same(y, want_y)
    assert_same(idx, want_idx)
    info = get_schema("AdaptiveMaxPool").infer({"output_size": [2, 3]}, [TensorInfo((None, 4, 9, 9), dt.float32)])
    assert [i.shape for i in info] == [(None, 4, 2, 3)] * 2 and info[1].dtype == dt.int64
    with pytest.raises(ShapeError):
        run("AdaptiveMaxPool", rand((1, 2, 5)), output_size=[2, 3])
    with pytest.raises(ShapeError):
        run("AdaptiveMaxPool", rand((1, 2, 0, 4)), output_size=[2, 3])


# ---------------------------------------------------------------------------------- FractionalMaxPool


def _fractional_loops(x, samples, kernel, out):
    """PyTorch's fractional max pooling by explicit loops: per plane and axis, start ``i`` is
    ``int((i + s) * alpha) - int(s * alpha)`` (in the samples' dtype), the last start ``n - k``."""
    in_sp = x.shape[2:]
    y = np.zeros(x.shape[:2] + tuple(out), x.dtype)
    idx = np.zeros(y.shape, np.int64)
    for n, c in np.ndindex(*x.shape[:2]):
        starts = []
        for a, (size, k, o) in enumerate(zip(in_sp, kernel, out)):
            s = samples[n, c, a]
            alpha = s.dtype.type(size - k) / s.dtype.type(o - 1) if o > 1 else 0
            starts.append([int((s.dtype.type(i) + s) * alpha) - int(s * alpha) for i in range(o - 1)] + [size - k])
        plane = x[n, c].ravel()
        for pos in np.ndindex(*out):
            ranges = [range(st[p], st[p] + k) for st, p, k in zip(starts, pos, kernel)]
            flat = [int(np.ravel_multi_index(t, in_sp)) for t in itertools.product(*ranges)]
            best = max(flat, key=lambda f: (plane[f], -f))
            y[(n, c) + pos], idx[(n, c) + pos] = plane[best], best
    return y, idx


@pytest.mark.parametrize("shape, kernel, out", [((2, 3, 9, 8), [2, 3], [5, 4]), ((1, 2, 7), [2], [4]),
                                                ((1, 2, 6, 7, 5), [2, 2, 3], [3, 4, 2]),
                                                ((1, 1, 5, 5), [2, 2], [1, 4])])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fractional_max_pool_matches_loops(shape, kernel, out, dtype):
    x = rand(shape, dtype)
    samples = np.random.default_rng(1).random(shape[:2] + (len(kernel),)).astype(dtype)
    y, idx = run("FractionalMaxPool", x, samples, kernel_shape=kernel, output_size=out)
    want_y, want_idx = _fractional_loops(x, samples, kernel, out)
    assert_same(y, want_y)
    assert_same(idx, want_idx)


def test_fractional_max_pool_errors_and_inference():
    x, samples = rand((1, 2, 5, 5)), np.full((1, 2, 2), 0.5, np.float32)
    with pytest.raises(ShapeError):
        run("FractionalMaxPool", x, samples, kernel_shape=[3, 3], output_size=[4, 2])
    with pytest.raises(ShapeError):
        run("FractionalMaxPool", x, samples[:, :1], kernel_shape=[2, 2], output_size=[2, 2])
    with pytest.raises(OpAttributeError):
        run("FractionalMaxPool", x, samples, kernel_shape=[2, 2], output_size=[2])
    info = get_schema("FractionalMaxPool").infer({"kernel_shape": [2, 2], "output_size": [3, 4]},
                                                 [TensorInfo((None, 2, 9, 9), dt.float32),
                                                  TensorInfo((None, 2, 2), dt.float32)])
    assert [i.shape for i in info] == [(None, 2, 3, 4)] * 2


# ------------------------------------------------------------------------------------------ GridSample


# cubic with border padding is left out: the ONNX reference clamps the coordinate before taking the cubic taps,
# vfw clamps each tap, as PyTorch's grid_sample does (compared with torch in compat_tests/torch/nn/test_vision.py)
GRID_MODES = [(m, p) for m in ("linear", "nearest", "cubic") for p in ("zeros", "border", "reflection")
              if (m, p) != ("cubic", "border")]


@pytest.mark.parametrize("mode, padding_mode", GRID_MODES)
@pytest.mark.parametrize("align_corners", [0, 1])
@pytest.mark.parametrize("spatial, out", [((5, 6), (4, 3)), ((3, 4, 5), (2, 3, 2))])
def test_grid_sample_matches_onnx(mode, padding_mode, align_corners, spatial, out):
    x = rand((2, 3) + spatial, np.float64)
    grid = rand((2,) + out + (len(spatial),), np.float64, low=-1.3, high=1.3, seed=1)
    # the reference computes its interpolation weights in float32
    check_op("GridSample", [x, grid], {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners},
             rtol=1e-5, atol=1e-5)


def test_grid_sample_half_precision_and_inference():
    x, grid = rand((1, 2, 4, 5), np.float32), rand((1, 3, 3, 2), np.float32, low=-1, high=1, seed=1)
    want = run("GridSample", x, grid)
    got = run("GridSample", x.astype(np.float16), grid.astype(np.float16))
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float32), want, rtol=1e-2, atol=1e-2)
    info = get_schema("GridSample").infer({}, [TensorInfo((None, 3, 8, 8), dt.float32),
                                               TensorInfo((None, 5, 4, 2), dt.float32)])
    assert info[0].shape == (None, 3, 5, 4)
    with pytest.raises(ShapeError):
        run("GridSample", x, grid[..., :1])
    with pytest.raises(ShapeError):
        run("GridSample", x, np.concatenate([grid, grid]))


@pytest.mark.parametrize("mode", ["linear", "cubic"])
def test_grid_sample_grad_outputs(mode):
    # dX is GridSample's adjoint; dgrid is the derivative of <GridSample(X, grid), dY> in grid (central
    # differences)
    x, grid = rand((1, 2, 4, 5), np.float64), rand((1, 3, 2, 2), np.float64, low=-1.2, high=1.2, seed=1)
    dy = rand((1, 2, 3, 2), np.float64, seed=2)
    attrs = {"mode": mode, "padding_mode": "reflection", "align_corners": 0}
    dx, dgrid = run("GridSampleGrad", dy, x, grid, **attrs)
    np.testing.assert_allclose(np.vdot(dx, x), np.vdot(run("GridSample", x, grid, **attrs), dy), rtol=1e-12)
    eps, want = 1e-6, np.zeros_like(grid)
    for idx in np.ndindex(*grid.shape):
        step = np.zeros_like(grid)
        step[idx] = eps
        hi, lo = (np.vdot(run("GridSample", x, grid + d, **attrs), dy) for d in (step, -step))
        want[idx] = (hi - lo) / (2 * eps)
    np.testing.assert_allclose(dgrid, want, rtol=1e-6, atol=1e-8)
