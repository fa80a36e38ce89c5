"""FakeQuantizeAffine / FakeQuantizeAffineGrad against a float64 numpy oracle of the same formula."""

import numpy as np
import pytest

from vfw.core import Tensor
from vfw.core.autograd import gradient
from vfw.core.eager import execute
from vfw.core.errors import ShapeError


def _oracle(x, scale, zero_point, quant_min, quant_max, axis=None):
    shape = (1,) * axis + (-1,) + (1,) * (x.ndim - axis - 1) if axis is not None else ()
    scale = np.asarray(scale, np.float32).reshape(shape)
    zero_point = np.asarray(zero_point).reshape(shape)
    levels = np.rint(x * (np.float32(1) / scale)) + zero_point  # float32 product, as torch's kernel
    inside = (levels >= quant_min) & (levels <= quant_max)
    return ((np.clip(levels, quant_min, quant_max) - zero_point) * scale).astype(np.float32), inside


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_forward_and_gradient(axis):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((5, 6)) * 4).astype(np.float32)
    n = 1 if axis is None else x.shape[axis]
    scale = rng.uniform(0.05, 0.3, n).astype(np.float32)
    zero_point = rng.integers(-3, 4, n).astype(np.int32)
    if axis is None:
        scale, zero_point = scale.reshape(()), zero_point.reshape(())
    want, inside = _oracle(x, scale, zero_point, -8, 7, axis)
    xt = Tensor(x, requires_grad=True)
    y = execute("FakeQuantizeAffine", xt, Tensor(scale), Tensor(zero_point), quant_min=-8, quant_max=7, axis=axis)
    np.testing.assert_array_equal(y.array, want)
    seed = rng.standard_normal(x.shape).astype(np.float32)
    (grad,) = gradient([y], [xt], [Tensor(seed)])
    np.testing.assert_array_equal(grad.array, np.where(inside, seed, 0))
    assert 0 < inside.sum() < inside.size  # both sides of the mask are exercised


def test_grad_op_is_linear_in_dy():
    x = np.linspace(-2, 2, 9, dtype=np.float32)
    dy = Tensor(np.arange(9, dtype=np.float32), requires_grad=True)
    dx = execute("FakeQuantizeAffineGrad", dy, Tensor(x), Tensor(np.float32(0.5)), Tensor(np.int32(0)),
                 quant_min=-2, quant_max=2)
    (second,) = gradient([dx], [dy], [Tensor(np.ones(9, np.float32))])
    np.testing.assert_array_equal(second.array, (np.abs(np.rint(x * 2)) <= 2).astype(np.float32))


def test_bad_parameters():
    x = Tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(ShapeError, match="per-channel scale"):
        execute("FakeQuantizeAffine", x, Tensor(np.ones(2, np.float32)), Tensor(np.zeros(2, np.int32)),
                quant_min=0, quant_max=9, axis=1)
    with pytest.raises(ShapeError, match="per-tensor scale"):
        execute("FakeQuantizeAffine", x, Tensor(np.ones(2, np.float32)), Tensor(np.zeros(2, np.int32)),
                quant_min=0, quant_max=9)
