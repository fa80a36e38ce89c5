"""Gradients of Im2Col, Col2Im, MaxUnpool, AdaptiveMaxPool, FractionalMaxPool and GridSample by central
differences."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import Tensor, autograd, execute

RNG = np.random.default_rng(0)


def distinct(*shape):
    """Values at least 0.1 apart (no ties for max)."""
    n = int(np.prod(shape))
    return RNG.permutation(np.arange(n) - n / 2).reshape(shape) / 10.0


@pytest.mark.parametrize("shape, attrs", [
    ((1, 2, 5, 4), {"kernel_shape": [2, 3]}),
    ((2, 1, 5, 6), {"kernel_shape": [3, 2], "pads": [1, 0, 2, 1], "strides": [2, 1], "dilations": [1, 2]}),
    ((1, 2, 7), {"kernel_shape": [3], "strides": [2], "pads": [1, 1]}),
])
def test_im2col_and_col2im(shape, attrs):
    x = RNG.standard_normal(shape)
    check_gradient("Im2Col", [x], attrs)
    check_higher_order("Im2Col", [x], attrs)
    cols = execute("Im2Col", Tensor(x), **attrs).array
    block = np.array(attrs["kernel_shape"])
    col_attrs = {k: v for k, v in attrs.items() if k != "kernel_shape"}
    inputs = [RNG.standard_normal(cols.shape), np.array(shape[2:]), block]
    check_gradient("Col2Im", inputs, col_attrs, wrt=[0])
    check_higher_order("Col2Im", inputs, col_attrs, wrt=[0])


def test_max_unpool():
    x = RNG.standard_normal((2, 2, 3))
    idx = np.array([[[0, 1, 5], [6, 7, 11]], [[12, 14, 17], [18, 20, 21]]])
    check_gradient("MaxUnpool", [x, idx], {"kernel_shape": [2], "strides": [2]}, wrt=[0])
    shared = np.array([[[0, 0, 5], [6, 6, 6]], [[12, 14, 17], [18, 20, 21]]])  # duplicates all read their spot
    tx = Tensor(x, requires_grad=True)
    y = execute("MaxUnpool", tx, shared, kernel_shape=[2], strides=[2])
    g = RNG.standard_normal(y.array.shape)
    (gx,) = autograd.gradient([y], [tx], [Tensor(g)])
    np.testing.assert_array_equal(gx.array, g.reshape(-1)[shared])


@pytest.mark.parametrize("shape, size", [((2, 2, 7), [3]), ((1, 2, 5, 6), [3, 4]), ((1, 1, 3, 4, 5), [2, 3, 2])])
def test_adaptive_max_pool(shape, size):
    check_gradient("AdaptiveMaxPool", [distinct(*shape)], {"output_size": size}, outputs=[0])


@pytest.mark.parametrize("shape, kernel, out", [((2, 2, 7, 6), [2, 3], [4, 3]),
                                                ((1, 1, 5, 4, 6), [2, 2, 2], [3, 2, 4])])
def test_fractional_max_pool(shape, kernel, out):
    samples = RNG.random(shape[:2] + (len(kernel),))
    check_gradient("FractionalMaxPool", [distinct(*shape), samples], {"kernel_shape": kernel, "output_size": out},
                   wrt=[0], outputs=[0])


@pytest.mark.parametrize("mode", ["linear", "nearest", "cubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [0, 1])
def test_grid_sample_2d(mode, padding_mode, align_corners):
    x = RNG.standard_normal((2, 2, 4, 5))
    grid = RNG.uniform(-1.4, 1.4, (2, 3, 2, 2))
    attrs = {"mode": mode, "padding_mode": padding_mode, "align_corners": align_corners}
    # nearest is piecewise constant in the grid: differences of the grid are 0 away from its jumps
    check_gradient("GridSample", [x, grid], attrs, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", ["linear", "cubic"])
def test_grid_sample_3d_and_far_reflections(mode):
    x = RNG.standard_normal((1, 2, 3, 4, 3))
    grid = RNG.uniform(-3.5, 3.5, (1, 2, 2, 3, 3))
    check_gradient("GridSample", [x, grid], {"mode": mode, "padding_mode": "reflection"}, rtol=1e-5, atol=1e-6)


def test_grid_sample_second_derivatives_refuse():
    x = Tensor(RNG.standard_normal((1, 1, 3, 3)), requires_grad=True)
    grid = Tensor(RNG.uniform(-1, 1, (1, 2, 2, 2)), requires_grad=True)
    y = execute("GridSample", x, grid)
    gx, ggrid = autograd.gradient([y], [x, grid], [Tensor(np.ones(y.array.shape))], create_graph=True)
    total = execute("ReduceSum", ggrid, np.zeros(0, np.int64), keepdims=0)
    with pytest.raises(NotImplementedError, match="order 2"):
        autograd.gradient([total], [x, grid])
