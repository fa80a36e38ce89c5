"""BiasAdd (vfw.core.ops.bias_add) and CumSum's ``half_steps``: numpy for the forward, finite differences for the
float gradients, and a row-by-row loop rounding with ml_dtypes for the bfloat16 accumulations."""

import ml_dtypes
import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient
from tests.ops.oracle import rand, vfw_run
from vfw.core import Tensor, autograd, execute
from vfw.core.errors import ShapeError

BF16 = np.dtype(ml_dtypes.bfloat16)


def _running(x, dtype, reverse=False, exclusive=False):
    """Running sums of ``x`` along axis 0, rounded to ``dtype`` after every addition (a plain loop)."""
    rows = list(x[::-1] if reverse else x)
    total, out = np.zeros(x.shape[1:], dtype), []
    for row in rows:
        if exclusive:
            out.append(total)
        total = (total.astype(np.float64) + row.astype(np.float64)).astype(np.float32).astype(dtype)
        if not exclusive:
            out.append(total)
    out = np.stack(out)
    return out[::-1] if reverse else out


@pytest.mark.parametrize("shape", [(4, 3), (2, 5, 6), (3, 2, 2, 4)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, BF16])
def test_bias_add_adds_along_the_last_axis(shape, dtype):
    x, b = rand(shape, dtype), rand(shape[-1:], dtype, seed=1)
    (y,) = vfw_run("BiasAdd", [x, b])
    assert y.dtype == x.dtype
    np.testing.assert_array_equal(y, x + b)


def test_bias_add_refuses_other_shapes():
    for x, b in ((rand((4,)), rand((4,))), (rand((4, 3)), rand((4,))), (rand((4, 3)), rand((1, 3)))):
        with pytest.raises(ShapeError, match="BiasAdd: B must be 1-D"):
            vfw_run("BiasAdd", [x, b])


def test_bias_add_float_gradient_matches_finite_differences():
    check_gradient("BiasAdd", [np.random.default_rng(0).standard_normal((3, 4, 5)),
                               np.random.default_rng(1).standard_normal(5)])


@pytest.mark.parametrize("shape", [(16, 3), (6, 7, 8), (300, 2)])
def test_bias_add_bfloat16_bias_gradient_sums_row_by_row_in_bfloat16(shape):
    x, b = Tensor(rand(shape, BF16), requires_grad=True), Tensor(rand(shape[-1:], BF16, seed=1), requires_grad=True)
    g = rand(shape, BF16, seed=2)
    gx, gb = autograd.gradient(execute("BiasAdd", x, b), [x, b], [Tensor(g)])
    np.testing.assert_array_equal(gx.array, g)
    assert gb.array.dtype == BF16
    np.testing.assert_array_equal(gb.array, _running(g.reshape(-1, shape[-1]), BF16)[-1])


@pytest.mark.parametrize("dtype", [BF16, np.float16])
@pytest.mark.parametrize("exclusive, reverse", [(0, 0), (1, 0), (0, 1), (1, 1)])
@pytest.mark.parametrize("axis", [0, 1])
def test_cumsum_half_steps_rounds_after_every_addition(dtype, exclusive, reverse, axis):
    x = rand((40, 5), dtype, seed=3)
    attrs = {"exclusive": exclusive, "reverse": reverse, "half_steps": 1}
    (y,) = vfw_run("CumSum", [x, np.array(axis)], attrs)
    want = _running(np.moveaxis(x, axis, 0), dtype, reverse=bool(reverse), exclusive=bool(exclusive))
    assert y.dtype == x.dtype
    np.testing.assert_array_equal(y, np.moveaxis(want, 0, axis))


def test_cumsum_half_steps_leaves_other_dtypes_alone():
    x = rand((30, 4), np.float32)
    (y,) = vfw_run("CumSum", [x, np.array(0)], {"half_steps": 1})
    np.testing.assert_allclose(y, np.cumsum(x, 0), rtol=1e-6)
