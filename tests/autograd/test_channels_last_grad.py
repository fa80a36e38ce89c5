"""Gradients of the channels-last convolution and pooling ops by finite differences (first to third order)."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import run

RNG = np.random.default_rng(0)

CONV_CASES = [
    ((2, 5, 3), (3, 3, 2), {"strides": [2], "pads": [1, 2]}),
    ((2, 5, 4, 4), (2, 3, 2, 4), {"group": 2, "strides": [2, 1], "dilations": [1, 2], "pads": [1, 0, 0, 2]}),
    ((1, 4, 4, 3), (3, 2, 1, 6), {"group": 3, "pads": [1, 1, 1, 0]}),
    ((1, 3, 3, 4, 2), (2, 2, 2, 2, 2), {"strides": [1, 2, 1], "pads": [0, 1, 1, 1, 0, 0]}),
]


def _shapes(xs, ws, attrs):
    x, w = RNG.standard_normal(xs), RNG.standard_normal(ws)
    return x, w, run("ChannelsLastConv", x, w, **attrs)


@pytest.mark.parametrize("xs, ws, attrs", CONV_CASES)
def test_conv_ops(xs, ws, attrs):
    x, w, y = _shapes(xs, ws, attrs)
    check_gradient("ChannelsLastConv", [x, w], attrs)
    check_gradient("ChannelsLastConvTranspose", [RNG.standard_normal(y.shape), w, np.array(xs)], attrs, wrt=[0, 1])
    check_gradient("ChannelsLastConvGradFilter", [x, RNG.standard_normal(y.shape)],
                   dict(attrs, kernel_shape=list(ws[:-2])))


@pytest.mark.parametrize("xs, ws, attrs", CONV_CASES[:2])
def test_conv_higher_orders(xs, ws, attrs):
    x, w, y = _shapes(xs, ws, attrs)
    check_higher_order("ChannelsLastConv", [x, w], attrs)
    check_higher_order("ChannelsLastConvTranspose", [RNG.standard_normal(y.shape), w, np.array(xs)], attrs,
                       wrt=[0, 1], order=3)


def distinct(*shape):
    """Values at least 0.1 apart (no ties within a window, so max pooling is differentiable)."""
    n = int(np.prod(shape))
    return RNG.permutation(np.arange(n) - n / 2).reshape(shape) / 10.0


POOL_CASES = [
    ((2, 7, 3), {"kernel_shape": [3], "strides": [2], "pads": [1, 1]}),
    ((1, 5, 6, 2), {"kernel_shape": [2, 3], "strides": [2, 1], "pads": [0, 1, 1, 1]}),
    ((1, 6, 5, 2), {"kernel_shape": [2, 2], "strides": [2, 2], "dilations": [2, 1]}),
    ((1, 3, 4, 5, 2), {"kernel_shape": [2, 2, 2], "strides": [1, 2, 2], "pads": [1, 0, 0, 0, 1, 1]}),
]


@pytest.mark.parametrize("xs, attrs", POOL_CASES)
@pytest.mark.parametrize("ties", ["first", "all"])
def test_max_pool(xs, attrs, ties):
    x = distinct(*xs)
    attrs = dict(attrs, ties=ties)
    check_gradient("ChannelsLastMaxPool", [x], attrs)
    y = run("ChannelsLastMaxPool", x, **attrs)
    check_gradient("ChannelsLastMaxPoolGrad", [x, y, RNG.standard_normal(y.shape)], attrs, wrt=[2])
    check_gradient("ChannelsLastMaxPoolGradGrad", [x, y, RNG.standard_normal(xs)], attrs, wrt=[2])
    check_higher_order("ChannelsLastMaxPool", [x], attrs, order=3)


@pytest.mark.parametrize("xs, attrs", POOL_CASES)
def test_average_pool(xs, attrs):
    x = RNG.standard_normal(xs)
    check_gradient("ChannelsLastAveragePool", [x], attrs)
    y = run("ChannelsLastAveragePool", x, **attrs)
    check_gradient("ChannelsLastAveragePoolGrad", [RNG.standard_normal(y.shape), np.array(xs)], attrs, wrt=[0])
    check_higher_order("ChannelsLastAveragePool", [x], attrs, order=3)


@pytest.mark.parametrize("xs, ws, attrs", CONV_CASES[1:3])
def test_conv_with_bias(xs, ws, attrs):
    x, w = RNG.standard_normal(xs), RNG.standard_normal(ws)
    check_gradient("ChannelsLastConv", [x, w, RNG.standard_normal(ws[-1:])], attrs)
