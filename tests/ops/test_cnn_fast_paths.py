"""Fast paths of the channels-last CNN kernels against independent oracles: the max pool gradient over windows
that tile X (brute force, ties and non-finite gradients included), and convolutions of inputs with few channels
(tap-major im2col columns) and into an output buffer (torch)."""

import numpy as np
import pytest

from tests.ops.test_conv_channels_last import _torch_conv
from tests.ops.test_pool_channels_last import _reference, _ties
from vfw.core import make_op, run

TILED = [
    ((2, 9, 3), {"kernel_shape": [2], "strides": [2]}),                          # a tail no window reads
    ((2, 6, 8, 16), {"kernel_shape": [2, 2], "strides": [2, 2]}),
    ((2, 7, 5, 3), {"kernel_shape": [2, 1], "strides": [2, 1]}),                 # a one-tap axis
    ((1, 4, 6, 5, 2), {"kernel_shape": [2, 3, 2], "strides": [2, 3, 2]}),
    ((2, 6, 6, 2), {"kernel_shape": [3, 3], "strides": [3, 3], "dilations": [1, 1]}),
]


def _relu_like(shape, seed=0):
    """Mostly zeros (whole windows of ties, as after a Relu) and a few small positive values."""
    return np.maximum(_ties(shape, seed=seed), 0)


@pytest.mark.parametrize("xs, attrs", TILED)
@pytest.mark.parametrize("ties", ["first", "all"])
@pytest.mark.parametrize("values", [_ties, _relu_like])
def test_tiled_max_pool_gradient_matches_brute_force(xs, attrs, ties, values):
    x = values(xs)
    y = run("ChannelsLastMaxPool", x, ties=ties, **attrs)
    dy = _ties(y.shape, seed=1)
    grads = _reference(x, attrs, dy, np.zeros(xs))[3]
    np.testing.assert_array_equal(run("ChannelsLastMaxPoolGrad", x, y, dy, ties=ties, **attrs), grads[ties])


@pytest.mark.parametrize("ties", ["first", "all"])
def test_tiled_max_pool_gradient_with_inf_and_nan(ties):
    # an infinite or nan output gradient reaches the window's chosen positions only (never 0 * inf = nan)
    xs, attrs = (2, 6, 4, 3), {"kernel_shape": [2, 2], "strides": [2, 2]}
    x = _relu_like(xs)
    y = run("ChannelsLastMaxPool", x, **attrs)
    dy = _ties(y.shape, seed=1)
    dy[0, 0, 0] = np.inf
    dy[1, 2, 1] = -np.inf
    dy[0, 1, 1, 0] = np.nan
    grads = _reference(x, attrs, dy, np.zeros(xs))[3]
    np.testing.assert_array_equal(run("ChannelsLastMaxPoolGrad", x, y, dy, ties=ties, **attrs), grads[ties])


def test_tiled_max_pool_gradient_nan_input_and_y_not_the_maximum():
    # windows where no position equals Y (nan maxima, or a Y that is not X's maximum) pass nothing
    xs, attrs = (1, 4, 4, 2), {"kernel_shape": [2, 2], "strides": [2, 2]}
    x = _ties(xs)
    x[0, 0, 1, 0] = np.nan
    y = run("ChannelsLastMaxPool", x, **attrs)
    y[0, 1, 1, 1] = 7.0
    dy = _ties(y.shape, seed=1) + 10
    got = run("ChannelsLastMaxPoolGrad", x, y, dy, **attrs)
    assert not got[0, :2, :2, 0].any() and not got[0, 2:, 2:, 1].any()
    np.testing.assert_array_equal(got[0, 2:, :2], _reference(x[:, 2:, :2], attrs, dy[:, 1:, :1], x[:, 2:, :2])[3]
                                  ["first"][0])


def test_tiled_max_pool_gradient_half_precision_and_empty_output():
    xs, attrs = (2, 6, 6, 3), {"kernel_shape": [2, 2], "strides": [2, 2]}
    x = _relu_like(xs).astype(np.float16)
    y = run("ChannelsLastMaxPool", x, **attrs)
    dy = _ties(y.shape, seed=1).astype(np.float16)
    got = run("ChannelsLastMaxPoolGrad", x, y, dy, **attrs)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, _reference(x.astype(np.float64), attrs, dy.astype(np.float64),
                                                  np.zeros(xs))[3]["first"])
    x = np.ones((2, 1, 4), np.float32)
    y = run("ChannelsLastMaxPool", x, kernel_shape=[2], strides=[2])
    assert y.shape == (2, 0, 4)
    np.testing.assert_array_equal(run("ChannelsLastMaxPoolGrad", x, y, y, kernel_shape=[2], strides=[2]),
                                  np.zeros(x.shape))


FEW_CHANNELS = [
    ((3, 9, 8, 1), (3, 3, 1, 5), {}),
    ((2, 9, 8, 1), (3, 2, 1, 4), {"pads": [1, 0, 2, 1], "strides": [2, 1], "dilations": [1, 2]}),
    ((2, 11, 2), (3, 2, 3), {"strides": [2], "dilations": [2], "pads": [1, 2]}),
    ((1, 4, 5, 6, 1), (2, 2, 3, 1, 3), {"strides": [1, 2, 1], "pads": [1, 0, 1, 0, 1, 1]}),
    ((2, 7, 6, 3), (2, 2, 3, 4), {"strides": [2, 2]}),
]


@pytest.mark.parametrize("xs, ws, attrs", FEW_CHANNELS)
def test_few_channel_convolution_and_gradients_match_torch(xs, ws, attrs):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    y = run("ChannelsLastConv", x, w, **attrs)
    dy = rng.standard_normal(y.shape)
    want_y, want_dx, want_dw = _torch_conv(x, w, attrs, dy=dy)
    dx = run("ChannelsLastConvTranspose", dy, w, np.array(xs), **attrs)
    dw = run("ChannelsLastConvGradFilter", x, dy, kernel_shape=list(ws[:-2]), **attrs)
    for got, want in ((y, want_y), (dx, want_dx), (dw, want_dw)):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


def test_few_channel_columns_in_batch_slices_and_into_an_output_buffer(monkeypatch):
    from vfw.core.ops import conv_channels_last

    monkeypatch.setattr(conv_channels_last, "_COLS_LIMIT", 300)  # one or two batch items per slice
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((5, 8, 7, 1)).astype(np.float32), rng.standard_normal((3, 3, 1, 4)).astype(np.float32)
    attrs = {"pads": [1, 1, 1, 1]}
    out = np.full((5, 8, 7, 4), np.nan, np.float32)
    assert make_op("ChannelsLastConv", attrs)(x, w, out=out) is out
    dy = rng.standard_normal(out.shape).astype(np.float32)
    want_y, _, want_dw = _torch_conv(x, w, attrs, dy=dy)
    np.testing.assert_allclose(out, want_y, rtol=1e-4, atol=1e-4)
    dw = make_op("ChannelsLastConvGradFilter", dict(attrs, kernel_shape=[3, 3]))(x, dy)
    np.testing.assert_allclose(dw, want_dw, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("xs", [(3, 6, 8, 5), (3, 7, 9, 5)], ids=["full", "tail"])
def test_tiled_max_pool_gradient_into_an_output_buffer(xs):
    # the buffer holds garbage: the gradient overwrites all of it (zeros in a tail no window reads)
    attrs = {"kernel_shape": [2, 2], "strides": [2, 2]}
    x = _relu_like(xs).astype(np.float32)
    y = run("ChannelsLastMaxPool", x, **attrs)
    dy = _ties(y.shape, seed=1).astype(np.float32)
    out = np.full(xs, np.nan, np.float32)
    assert make_op("ChannelsLastMaxPoolGrad", attrs)(x, y, dy, out=out) is out
    np.testing.assert_array_equal(out, _reference(x, attrs, dy, np.zeros(xs))[3]["first"])


@pytest.mark.parametrize("attrs", [{}, {"strides": [2, 1]}, {"pads": [1, 0, 1, 1]}], ids=["valid", "strided", "padded"])
def test_transposed_convolution_in_batch_slices_into_an_output_buffer(monkeypatch, attrs):
    from vfw.core.ops import conv_channels_last

    monkeypatch.setattr(conv_channels_last, "_COLS_LIMIT", 1000)  # two batch items per slice
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((5, 7, 6, 8)), rng.standard_normal((3, 3, 8, 4))
    y = run("ChannelsLastConv", x, w, **attrs)
    dy = rng.standard_normal(y.shape)
    _, want_dx, want_dw = _torch_conv(x, w, attrs, dy=dy)
    out = np.full(x.shape, np.nan)
    got = make_op("ChannelsLastConvTranspose", attrs)(dy, w, np.array(x.shape), out=out)
    np.testing.assert_allclose(got, want_dx, rtol=1e-10, atol=1e-10)
    assert got is out
    dw = make_op("ChannelsLastConvGradFilter", dict(attrs, kernel_shape=[3, 3]))(x, dy)
    np.testing.assert_allclose(dw, want_dw, rtol=1e-10, atol=1e-10)
