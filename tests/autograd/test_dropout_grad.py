"""Dropout's gradient and the random ops' non-differentiability.

A bound Dropout op with a ``seed`` continues its random stream across calls, and ``run``/``execute`` reuse
the workspace's cached op: ``check_gradient`` would draw a new mask at every finite-difference evaluation.
Training mode is therefore checked with a harness that binds a fresh op (same seed, hence same mask) for
every evaluation; inference mode and ratios 0 and 1 are deterministic and use the shared checker.
"""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order, numeric_grad
from vfw.core import Tensor, autograd, execute, run
from vfw.core.registry import get_schema, make_op

RNG = np.random.default_rng(0)
SEED = 1234


def fresh_dropout():
    """A newly bound seeded Dropout: its first call draws the same mask every time."""
    return make_op("Dropout", {"seed": SEED})


def training_args(ratio):
    return np.array(ratio), np.array(True)


def mask_of(shape, ratio):
    return run(fresh_dropout(), np.zeros(shape), *training_args(ratio))[1]


def test_the_harness_fixes_the_mask():
    shape = (4, 5)
    assert (mask_of(shape, 0.5) == mask_of(shape, 0.5)).all()
    op = fresh_dropout()  # while one bound op moves on
    first, second = (run(op, np.zeros(shape), *training_args(0.5))[1] for _ in range(2))
    assert not (first == second).all()


@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 4)])
@pytest.mark.parametrize("ratio", [0.2, 0.5, 0.75])
def test_training_first_order(shape, ratio):
    x, v = RNG.standard_normal(shape), RNG.standard_normal(shape)
    t = Tensor(x, requires_grad=True)
    y, _ = execute(fresh_dropout(), t, *training_args(ratio))
    (dx,) = autograd.gradient([y], [t], [Tensor(v)])
    expected = numeric_grad(lambda a: float(np.sum(v * run(fresh_dropout(), a[0], *training_args(ratio))[0])),
                            [x.copy()], 0, 1e-6)
    np.testing.assert_allclose(dx.array, expected, rtol=1e-6, atol=1e-8)
    mask = mask_of(shape, ratio)
    assert 0 < mask.sum() < mask.size  # both kept and dropped entries are exercised
    np.testing.assert_allclose(dx.array, v * mask / (1 - ratio), rtol=1e-15)


@pytest.mark.parametrize("ratio", [0.3, 0.6])
def test_training_second_order(ratio):
    """h(x) = <w, Dropout(x)**2>: the Hessian-vector product through Dropout's gradient (create_graph)."""
    shape = (3, 4)
    x, w, u = (RNG.standard_normal(shape) for _ in range(3))

    def first_order(a, create_graph):
        t = Tensor(a, requires_grad=True)
        y, _ = execute(fresh_dropout(), t, *training_args(ratio))
        (g,) = autograd.gradient([execute("Mul", y, y)], [t], [Tensor(w)], create_graph=create_graph)
        return t, g

    t, g = first_order(x, True)
    total = execute("ReduceSum", execute("Mul", g, Tensor(u)), np.zeros(0, np.int64), keepdims=0)
    (hvp,) = autograd.gradient([total], [t])
    expected = numeric_grad(lambda a: float(np.sum(first_order(a[0], False)[1].array * u)), [x.copy()], 0, 1e-5)
    np.testing.assert_allclose(hvp.array, expected, rtol=1e-5, atol=1e-7)
    mask = mask_of(shape, ratio)
    np.testing.assert_allclose(hvp.array, 2 * w * u * mask / (1 - ratio) ** 2, rtol=1e-12)


def test_training_gradient_is_linear_in_the_output_gradient():
    # Differentiating dx = v * mask / (1 - ratio) with respect to v (double backward) gives mask / (1 - ratio).
    x, u = RNG.standard_normal((3, 3)), RNG.standard_normal((3, 3))
    t, v = Tensor(x, requires_grad=True), Tensor(RNG.standard_normal((3, 3)), requires_grad=True)
    y, _ = execute(fresh_dropout(), t, *training_args(0.4))
    (dx,) = autograd.gradient([y], [t], [v], create_graph=True)
    (dv,) = autograd.gradient([dx], [v], [Tensor(u)])
    np.testing.assert_allclose(dv.array, u * mask_of((3, 3), 0.4) / 0.6, rtol=1e-15)


@pytest.mark.parametrize("inputs", [
    lambda x: [x],
    lambda x: [x, np.array(0.5)],
    lambda x: [x, np.array(0.5), np.array(False)],
    lambda x: [x, np.array(0.0), np.array(True)],  # ratio 0 keeps everything
])
def test_identity_cases(inputs):
    x = RNG.standard_normal((3, 4))
    check_gradient("Dropout", inputs(x), {"seed": SEED}, wrt=[0])
    check_higher_order("Dropout", inputs(x), {"seed": SEED}, wrt=[0])
    t = Tensor(x, requires_grad=True)
    v = RNG.standard_normal((3, 4))
    (dx,) = autograd.gradient([execute("Dropout", t, *inputs(x)[1:])[0]], [t], [Tensor(v)])
    np.testing.assert_array_equal(dx.array, v)


def test_ratio_one_drops_everything():
    x = RNG.standard_normal((2, 3))
    check_gradient("Dropout", [x, np.array(1.0), np.array(True)], {"seed": SEED}, wrt=[0])
    t = Tensor(x, requires_grad=True)
    (dx,) = autograd.gradient([execute("Dropout", t, np.array(1.0), np.array(True))[0]], [t])
    np.testing.assert_array_equal(dx.array, 0.0)


def test_ratio_and_training_mode_get_no_gradient():
    t, r = Tensor(RNG.standard_normal(5), requires_grad=True), Tensor(np.array(0.5), requires_grad=True)
    y, _ = execute(fresh_dropout(), t, r, np.array(True))
    dx, dr = autograd.gradient([y], [t, r])
    assert dr is None and dx.shape == (5,)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_low_precision(dtype):
    x = RNG.standard_normal((4, 4)).astype(dtype)
    v = RNG.standard_normal((4, 4)).astype(dtype)
    t = Tensor(x, requires_grad=True)
    y, mask = execute(fresh_dropout(), t, *training_args(0.3))
    (dx,) = autograd.gradient([y], [t], [Tensor(v)])
    assert dx.dtype == dtype
    expected = v.astype(np.float64) * mask.array / 0.7
    np.testing.assert_allclose(dx.array.astype(np.float64), expected, rtol=1e-3 if dtype == np.float16 else 1e-6)


# -- random ops -----------------------------------------------------------------------------------------------

RANDOM_OPS = ["RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli"]


@pytest.mark.parametrize("op", RANDOM_OPS)
def test_random_ops_are_not_differentiable(op):
    assert get_schema(op).differentiable is False and get_schema(op).gradient is None


@pytest.mark.parametrize("op", ["RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli"])
def test_random_ops_outputs_do_not_require_grad(op):
    x = Tensor(RNG.random((2, 3)), requires_grad=True)
    y = execute(op, x, seed=1.0)
    assert not y.requires_grad and y.grad_node is None
