"""Channels-last pooling (ChannelsLastMaxPool, its gradients and argmax; ChannelsLastAveragePool and its
adjoint) against a brute-force numpy oracle that walks every window."""

import itertools

import numpy as np
import pytest

from vfw.core import ShapeError, TensorInfo, get_schema, run
from vfw.core import dtypes as dt

CASES = [
    # X shape (N, *D, C), attrs
    ((2, 9, 3), {"kernel_shape": [3], "strides": [2], "pads": [1, 1]}),
    ((2, 7, 6, 3), {"kernel_shape": [2, 2], "strides": [2, 2]}),
    ((2, 7, 6, 3), {"kernel_shape": [3, 2], "strides": [1, 2], "pads": [1, 0, 1, 1]}),
    ((1, 7, 8, 2), {"kernel_shape": [2, 3], "strides": [2, 1], "dilations": [2, 2], "pads": [0, 1, 1, 1]}),
    ((1, 5, 5, 2), {"kernel_shape": [4, 4], "strides": [3, 3], "pads": [1, 1, 2, 2]}),
    ((1, 4, 5, 6, 2), {"kernel_shape": [2, 2, 3], "strides": [2, 1, 2], "pads": [1, 0, 1, 0, 1, 1]}),
    # many channels: the max pool's 2x2 windows take one pass per tap, larger ones one axis at a time
    ((2, 6, 6, 16), {"kernel_shape": [2, 2], "strides": [2, 2]}),
    ((1, 5, 4, 16), {"kernel_shape": [2, 2], "strides": [1, 1], "pads": [1, 0, 0, 1]}),
    ((1, 6, 5, 16), {"kernel_shape": [3, 3], "strides": [2, 1], "pads": [1, 1, 1, 1]}),
    # taps clipped to X (no padded copy): stride 2 with pads, uneven pads, dilated windows
    ((2, 8, 7, 3), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1]}),
    ((1, 8, 9, 2), {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [0, 1, 1, 0]}),
    ((1, 4, 6, 2), {"kernel_shape": [3, 2], "strides": [3, 2], "dilations": [3, 1], "pads": [2, 0, 2, 0]}),
    ((1, 9, 8, 2), {"kernel_shape": [3, 2], "strides": [2, 3], "dilations": [2, 2], "pads": [2, 1, 1, 2]}),
]


def _windows(xshape, attrs):
    """The output shape, and every window: ``(output index, [(input index or None for padding) per tap,
    row-major])``."""
    nd = len(attrs["kernel_shape"])
    kernel = attrs["kernel_shape"]
    strides = attrs.get("strides", [1] * nd)
    dilations = attrs.get("dilations", [1] * nd)
    pads = attrs.get("pads", [0] * 2 * nd)
    out = [(n + pads[i] + pads[nd + i] - (k - 1) * d - 1) // s + 1
           for i, (n, k, s, d) in enumerate(zip(xshape[1:-1], kernel, strides, dilations))]
    windows = []
    for b, c in itertools.product(range(xshape[0]), range(xshape[-1])):
        for o in itertools.product(*map(range, out)):
            taps = []
            for t in itertools.product(*map(range, kernel)):
                pos = tuple(oi * s + ti * d - p for oi, ti, s, d, p in zip(o, t, strides, dilations, pads))
                inside = all(0 <= q < n for q, n in zip(pos, xshape[1:-1]))
                taps.append((b,) + pos + (c,) if inside else None)
            windows.append(((b,) + o + (c,), taps))
    return (xshape[0],) + tuple(out) + (xshape[-1],), windows


def _reference(x, attrs, dy=None, ddx=None):
    """Brute force: max, first argmax (flat, batch included), average, and gradients for ties first/all."""
    yshape, windows = _windows(x.shape, attrs)
    ymax, yavg = np.zeros(yshape, x.dtype), np.zeros(yshape, np.float64)
    argmax = np.zeros(yshape, np.int64)
    grads = {"first": np.zeros(x.shape), "all": np.zeros(x.shape)}
    gradgrads = {"first": np.zeros(yshape), "all": np.zeros(yshape)}
    avg_grad = np.zeros(x.shape)
    for o, taps in windows:
        inside = [t for t in taps if t is not None]
        values = [x[t] for t in inside]
        best = max(values)
        first = inside[values.index(best)]
        ymax[o], argmax[o] = best, np.ravel_multi_index(first, x.shape)
        yavg[o] = np.mean(np.array(values, np.float64))
        if dy is not None:
            grads["first"][first] += dy[o]
            gradgrads["first"][o] = ddx[first]
            for t, v in zip(inside, values):
                if v == best:
                    grads["all"][t] += dy[o]
                    gradgrads["all"][o] += ddx[t]
                avg_grad[t] += dy[o] / len(inside)
    return ymax, argmax, yavg, grads, gradgrads, avg_grad


def _ties(shape, dtype=np.float64, seed=0):
    return np.random.default_rng(seed).integers(-2, 3, shape).astype(dtype)


@pytest.mark.parametrize("xs, attrs", CASES)
@pytest.mark.parametrize("ties", ["first", "all"])
def test_max_pool_gradients_and_argmax_match_brute_force(xs, attrs, ties):
    x = _ties(xs)
    y = run("ChannelsLastMaxPool", x, ties=ties, **attrs)
    dy, ddx = _ties(y.shape, seed=1), _ties(xs, seed=2)
    ymax, argmax, _, grads, gradgrads, _ = _reference(x, attrs, dy, ddx)
    np.testing.assert_array_equal(y, ymax)
    np.testing.assert_array_equal(run("ChannelsLastMaxPoolArgmax", x, y, **attrs), argmax)
    np.testing.assert_array_equal(run("ChannelsLastMaxPoolGrad", x, y, dy, ties=ties, **attrs), grads[ties])
    np.testing.assert_array_equal(run("ChannelsLastMaxPoolGradGrad", x, y, ddx, ties=ties, **attrs),
                                  gradgrads[ties])


@pytest.mark.parametrize("xs, attrs", CASES)
def test_average_pool_and_its_adjoint_match_brute_force(xs, attrs):
    x = np.random.default_rng(0).standard_normal(xs)
    y = run("ChannelsLastAveragePool", x, **attrs)
    dy = np.random.default_rng(1).standard_normal(y.shape)
    _, _, yavg, _, _, avg_grad = _reference(x, attrs, dy, np.zeros(xs))
    np.testing.assert_allclose(y, yavg, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(run("ChannelsLastAveragePoolGrad", dy, np.array(xs), **attrs), avg_grad, rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64, np.uint64, np.float16, dt.bfloat16])
def test_max_pool_dtypes_padding_never_wins(dtype):
    # every value is the dtype's lowest: padding holds it too, but the first real position must win
    info = np.iinfo(dtype) if np.dtype(dtype).kind in "iu" else None
    low = info.min if info is not None else -np.inf
    x = np.full((1, 3, 3, 1), low, dtype)
    attrs = {"kernel_shape": [2, 2], "strides": [2, 2], "pads": [1, 1, 0, 0]}
    y = run("ChannelsLastMaxPool", x, **attrs)
    assert y.dtype == np.dtype(dtype) and y.shape == (1, 2, 2, 1)
    np.testing.assert_array_equal(run("ChannelsLastMaxPoolArgmax", x, y, **attrs).ravel(), [0, 1, 3, 4])


def test_half_precision_average_accumulates_in_float32():
    x = np.random.default_rng(0).standard_normal((2, 6, 6, 3)).astype(np.float16)
    y = run("ChannelsLastAveragePool", x, kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    assert y.dtype == np.float16
    expected = run("ChannelsLastAveragePool", x.astype(np.float32), kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    np.testing.assert_array_equal(y, expected.astype(np.float16))


def test_empty_outputs_and_shape_errors():
    x = np.ones((2, 5, 5, 3), np.float32)
    assert run("ChannelsLastMaxPool", x, kernel_shape=[6, 6]).shape == (2, 0, 0, 3)
    assert run("ChannelsLastAveragePool", x, kernel_shape=[6, 1]).shape == (2, 0, 5, 3)
    with pytest.raises(ShapeError, match="negative"):
        run("ChannelsLastMaxPool", x, kernel_shape=[7, 7])
    with pytest.raises(ShapeError, match="rank 4"):
        run("ChannelsLastMaxPool", x[0], kernel_shape=[2, 2])
    y = run("ChannelsLastMaxPool", x, kernel_shape=[2, 2])
    with pytest.raises(ShapeError, match="pooled shape"):
        run("ChannelsLastMaxPoolGrad", x, y, y[:, :2], kernel_shape=[2, 2])
    with pytest.raises(ShapeError, match="pooled shape"):
        run("ChannelsLastAveragePoolGrad", y, np.array([2, 6, 5, 3]), kernel_shape=[2, 2])



@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_max_pool_windows_reading_only_padding_hold_the_lowest_value(dtype):
    # pads on a one-tap axis: the padded rows' windows read nothing of X (a value padding never wins against)
    x = np.random.default_rng(0).integers(-50, 50, (2, 5, 6, 3)).astype(dtype)
    low = -np.inf if dtype == np.float32 else np.iinfo(dtype).min
    xp = np.pad(x, ((0, 0), (1, 2), (1, 1), (0, 0)), constant_values=low)
    expected = np.stack([xp[:, :, j:j + 3].max(axis=2) for j in range(0, 6, 2)], axis=2)
    y = run("ChannelsLastMaxPool", x, kernel_shape=[1, 3], strides=[1, 2], pads=[1, 1, 2, 1])
    np.testing.assert_array_equal(y, expected)


@pytest.mark.parametrize("xs, attrs", [
    # windows longer than the input by less than a stride (TensorFlow's empty output, as its AvgPool gives),
    # where a tap's last position ``t * d + (out - 1) * s`` is negative: it must not wrap around to the end
    ((2, 4, 20), {"kernel_shape": [3], "strides": [2], "dilations": [2]}),
    ((2, 3, 20), {"kernel_shape": [5], "strides": [3]}),
    ((2, 2, 20), {"kernel_shape": [3], "strides": [2]}),
    ((2, 3, 3, 20), {"kernel_shape": [2, 5], "strides": [1, 3]}),
    ((2, 4, 3), {"kernel_shape": [3], "strides": [2], "dilations": [2]}),  # few channels: one pass per tap
])
def test_empty_outputs_with_strides_longer_than_the_overhang(xs, attrs):
    x = np.random.default_rng(0).standard_normal(xs).astype(np.float32)
    yshape, _ = _windows(xs, attrs)
    assert 0 in yshape
    y = run("ChannelsLastMaxPool", x, **attrs)
    assert y.shape == yshape and y.dtype == x.dtype
    assert run("ChannelsLastAveragePool", x, **attrs).shape == yshape
    assert run("ChannelsLastMaxPoolArgmax", x, y, **attrs).shape == yshape
    # nothing flows back from an empty output
    np.testing.assert_array_equal(run("ChannelsLastMaxPoolGrad", x, y, y, **attrs), np.zeros(xs))
    np.testing.assert_array_equal(run("ChannelsLastMaxPoolGradGrad", x, y, x, **attrs), np.zeros(yshape))
    np.testing.assert_array_equal(run("ChannelsLastAveragePoolGrad", y, np.array(xs), **attrs), np.zeros(xs))
    w = np.ones(tuple(attrs["kernel_shape"]) + (xs[-1], 4), np.float32)
    conv_attrs = {k: v for k, v in attrs.items() if k != "kernel_shape"}
    assert run("ChannelsLastConv", x, w, **conv_attrs).shape == yshape[:-1] + (4,)

def test_shape_inference_matches_kernels():
    x = np.zeros((2, 7, 6, 3), np.float32)
    attrs = {"kernel_shape": [3, 2], "strides": [2, 2], "pads": [1, 0, 1, 1], "dilations": [1, 1]}
    y = run("ChannelsLastMaxPool", x, **attrs)
    for op in ("ChannelsLastMaxPool", "ChannelsLastAveragePool"):
        schema = get_schema(op)
        full = {name: attr.default for name, attr in schema.attrs.items()} | attrs
        assert schema.infer(full, [TensorInfo(x.shape, x.dtype)])[0].shape == y.shape


@pytest.mark.parametrize("attrs", [{"kernel_shape": [2, 2], "strides": [2, 2]},     # windows written once
                                   {"kernel_shape": [2, 2], "strides": [1, 1]}])    # overlapping: summed
def test_max_pool_gradient_keeps_non_finite_values_at_the_maxima(attrs):
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    y = run("ChannelsLastMaxPool", x, **attrs)
    dy = np.full(y.shape, np.inf, np.float32)
    dy.flat[0] = np.nan
    dx = run("ChannelsLastMaxPoolGrad", x, y, dy, **attrs)
    _, _, _, grads, _, _ = _reference(x.astype(np.float64), attrs, dy.astype(np.float64), np.zeros(x.shape))
    np.testing.assert_array_equal(dx, grads["first"].astype(np.float32))
    assert np.count_nonzero(dx == 0) == np.count_nonzero(grads["first"] == 0) > 0
