"""Gradients of the pooling family: MaxPool, AveragePool (and its adjoint AveragePoolGrad), LpPool,
GlobalAveragePool, GlobalMaxPool and LRN."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import Tensor, autograd, execute, run
from vfw.core.errors import ShapeError
from vfw.core.registry import TensorInfo, get_schema

RNG = np.random.default_rng(0)


def distinct(*shape):
    """Values at least 0.05 apart and away from 0 (no ties for max, no kinks of |x|)."""
    n = int(np.prod(shape))
    values = (np.arange(n) - n / 2 + 0.5) / 7.0
    return RNG.permutation(values).reshape(shape) + 0.01 * RNG.standard_normal(shape)


WINDOW_CASES = [
    ((2, 2, 7), {"kernel_shape": [3]}),
    ((1, 2, 8), {"kernel_shape": [2], "strides": [3]}),
    ((1, 2, 7), {"kernel_shape": [3], "strides": [2], "pads": [1, 2], "ceil_mode": 1}),
    ((1, 2, 9), {"kernel_shape": [2], "dilations": [3], "strides": [2]}),
    ((2, 2, 5, 6), {"kernel_shape": [2, 3], "strides": [2, 1], "pads": [1, 0, 0, 1]}),
    ((1, 2, 5, 6), {"kernel_shape": [3, 2], "strides": [2, 2], "pads": [1, 1, 1, 1], "ceil_mode": 1}),
    ((1, 2, 6, 5), {"kernel_shape": [2, 2], "strides": [2, 2], "dilations": [2, 1], "pads": [0, 1, 1, 0]}),
    ((1, 2, 5, 6), {"kernel_shape": [3, 2], "strides": [2, 2], "auto_pad": "SAME_UPPER"}),
    ((1, 2, 5, 6), {"kernel_shape": [2, 3], "strides": [2, 3], "auto_pad": "SAME_LOWER"}),
    ((1, 2, 5, 6), {"kernel_shape": [2, 2], "strides": [2, 2], "auto_pad": "VALID", "ceil_mode": 1}),
    ((1, 2, 3, 4, 5), {"kernel_shape": [2, 2, 3], "strides": [1, 2, 2], "pads": [1, 0, 1, 0, 1, 1]}),
    ((1, 1, 4, 3, 5), {"kernel_shape": [2, 2, 2], "strides": [2, 2, 2], "ceil_mode": 1, "dilations": [1, 1, 2]}),
]


@pytest.mark.parametrize("shape, attrs", WINDOW_CASES)
@pytest.mark.parametrize("storage_order", [0, 1])
def test_max_pool(shape, attrs, storage_order):
    check_gradient("MaxPool", [distinct(*shape)], dict(attrs, storage_order=storage_order), outputs=[0])


def test_max_pool_ties_go_to_the_first_position():
    x = Tensor(np.array([[[[1.0, 1.0, 0.0], [1.0, 0.5, 1.0]]]]), requires_grad=True)
    y, _ = execute("MaxPool", x, kernel_shape=[2, 2], strides=[1, 1])
    (g,) = autograd.gradient(y, [x], [Tensor(np.array([[[[1.0, 10.0]]]]))])
    np.testing.assert_array_equal(g.array, [[[[1.0, 10.0, 0.0], [0.0, 0.0, 0.0]]]])


def test_max_pool_overlapping_windows_accumulate():
    x = Tensor(np.array([[[0.0, 5.0, 1.0, 2.0]]]), requires_grad=True)
    y, _ = execute("MaxPool", x, kernel_shape=[3], strides=[1], pads=[1, 1])
    (g,) = autograd.gradient(y, [x], [Tensor(np.array([[[1.0, 2.0, 4.0, 8.0]]]))])
    np.testing.assert_array_equal(g.array, [[[0.0, 7.0, 0.0, 8.0]]])


def test_max_pool_second_order_vanishes():
    check_higher_order("MaxPool", [distinct(1, 2, 4, 3)], {"kernel_shape": [2, 2], "pads": [1, 0, 0, 1]})


@pytest.mark.parametrize("shape, attrs", WINDOW_CASES)
@pytest.mark.parametrize("count_include_pad", [0, 1])
def test_average_pool(shape, attrs, count_include_pad):
    check_gradient("AveragePool", [RNG.standard_normal(shape)], dict(attrs, count_include_pad=count_include_pad))


@pytest.mark.parametrize("case", [2, 5, 8])
def test_average_pool_second_order(case):
    shape, attrs = WINDOW_CASES[case]
    check_higher_order("AveragePool", [RNG.standard_normal(shape)], dict(attrs, count_include_pad=1))


@pytest.mark.parametrize("shape, attrs", [WINDOW_CASES[i] for i in (2, 5, 9, 11)])
def test_average_pool_grad_is_the_adjoint(shape, attrs):
    x = RNG.standard_normal(shape)
    y = run("AveragePool", x, **attrs)
    v = RNG.standard_normal(y.shape)
    back = run("AveragePoolGrad", v, np.array(shape, np.int64), **attrs)
    assert back.shape == x.shape
    np.testing.assert_allclose(np.sum(y * v), np.sum(x * back), rtol=1e-12)
    check_gradient("AveragePoolGrad", [v, np.array(shape, np.int64)], attrs, wrt=[0])


def test_average_pool_grad_half_precision():
    attrs = {"kernel_shape": [2, 2], "pads": [1, 0, 0, 1], "ceil_mode": 1, "strides": [2, 2]}
    shape = np.array([1, 2, 5, 4], np.int64)
    v = RNG.standard_normal(run("AveragePool", np.zeros(shape), **attrs).shape)
    expected = run("AveragePoolGrad", v, shape, **attrs)
    got = run("AveragePoolGrad", v.astype(np.float16), shape, **attrs)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got, expected, rtol=2e-3, atol=2e-3)


def test_average_pool_grad_checks_and_infers_shapes():
    attrs = {"kernel_shape": [3], "strides": [2]}
    with pytest.raises(ShapeError, match="AveragePoolGrad"):
        run("AveragePoolGrad", np.zeros((1, 1, 4)), np.array([1, 1, 7], np.int64), **attrs)
    schema = get_schema("AveragePoolGrad")
    shape = np.array([1, 1, 7], np.int64)
    (info,) = schema.infer(schema.bind_attrs(attrs), [TensorInfo((1, 1, 3), np.float32),
                                                      TensorInfo((3,), np.int64, shape)])
    assert info == TensorInfo((1, 1, 7), np.float32)


@pytest.mark.parametrize("p", [1, 2, 3, 4])
@pytest.mark.parametrize("case", [0, 2, 5, 7, 10])
def test_lp_pool(p, case):
    shape, attrs = WINDOW_CASES[case]
    attrs = {k: v for k, v in attrs.items() if k != "dilations"}
    check_gradient("LpPool", [distinct(*shape)], dict(attrs, p=p))


@pytest.mark.parametrize("p", [1, 2, 3])
def test_lp_pool_second_order(p):
    check_higher_order("LpPool", [distinct(1, 2, 3, 4)], {"kernel_shape": [2, 2], "pads": [1, 0, 0, 1], "p": p})


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 5), (2, 2, 3, 4), (1, 2, 2, 3, 2)])
def test_global_average_pool(shape):
    check_gradient("GlobalAveragePool", [RNG.standard_normal(shape)])


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 5), (2, 2, 3, 4), (1, 2, 2, 3, 2)])
def test_global_max_pool(shape):
    check_gradient("GlobalMaxPool", [distinct(*shape)])


def test_global_pools_second_order():
    check_higher_order("GlobalAveragePool", [RNG.standard_normal((2, 2, 3))])
    check_higher_order("GlobalMaxPool", [distinct(2, 2, 3)])


def test_global_max_pool_ties_go_to_the_first_position():
    x = Tensor(np.array([[[[2.0, 1.0], [2.0, 0.0]]]]), requires_grad=True)
    (g,) = autograd.gradient(execute("GlobalMaxPool", x), [x], [Tensor(np.full((1, 1, 1, 1), 3.0))])
    np.testing.assert_array_equal(g.array, [[[[3.0, 0.0], [0.0, 0.0]]]])


@pytest.mark.parametrize("shape", [(2, 5), (2, 5, 3), (1, 6, 2, 2)])
@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_lrn(shape, size):
    check_gradient("LRN", [RNG.standard_normal(shape)], {"size": size, "alpha": 0.3, "beta": 0.7, "bias": 1.2})


def test_lrn_second_order():
    check_higher_order("LRN", [RNG.standard_normal((1, 5, 3))], {"size": 3, "alpha": 0.3, "beta": 0.7, "bias": 1.2})


@pytest.mark.parametrize("op, attrs", [("AveragePool", {"kernel_shape": [2, 2], "pads": [1, 1, 0, 0]}),
                                       ("LpPool", {"kernel_shape": [2, 2], "p": 2}),
                                       ("MaxPool", {"kernel_shape": [2, 2]}),
                                       ("GlobalAveragePool", {}), ("GlobalMaxPool", {}), ("LRN", {"size": 3})])
def test_half_precision_gradients_keep_dtype(op, attrs):
    x = distinct(1, 3, 4, 4)
    grads = {}
    for dtype in (np.float64, np.float16):
        xt = Tensor(x.astype(dtype), requires_grad=True)
        y = execute(op, xt, **attrs)
        y = y[0] if isinstance(y, tuple) else y
        (grads[dtype],) = autograd.gradient(y, [xt])
    assert grads[np.float16].dtype == np.float16
    np.testing.assert_allclose(grads[np.float16].array.astype(np.float64), grads[np.float64].array,
                               rtol=1e-2, atol=1e-2)


def test_max_pool_windows_entirely_in_padding_pass_nothing():
    x = Tensor(np.array([[[1.0, 2.0]], [[3.0, 4.0]]]), requires_grad=True)
    y, _ = execute("MaxPool", x, kernel_shape=[1], pads=[1, 1])
    (g,) = autograd.gradient(y, [x], [Tensor(np.arange(1.0, 9.0).reshape(2, 1, 4))])
    np.testing.assert_array_equal(g.array, [[[2.0, 3.0]], [[6.0, 7.0]]])
    # dilated taps that skip over the input: the window at -1 reads -1 and 2, both padding
    x = Tensor(np.array([[[5.0, 6.0]]]), requires_grad=True)
    y, _ = execute("MaxPool", x, kernel_shape=[2], dilations=[3], pads=[2, 2])
    np.testing.assert_array_equal(y.array, [[[6.0, -np.inf, 5.0]]])
    (g,) = autograd.gradient(y, [x], [Tensor(np.array([[[1.0, 2.0, 4.0]]]))])
    np.testing.assert_array_equal(g.array, [[[4.0, 1.0]]])
