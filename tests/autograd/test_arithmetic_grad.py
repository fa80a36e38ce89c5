"""Gradients of the arithmetic family: Pow, Mod, Abs, Reciprocal, steps, Min/Max/Sum/Mean, Clip.

Add, Sub, Mul, Div and Neg are covered in test_core.py; Div's second order is repeated here with
broadcasting.  Inputs stay away from kinks, ties and jumps unless a test is about them.
"""

import ml_dtypes
import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import Tensor, execute
from vfw.core.autograd import gradient
from vfw.core.registry import get_schema

RNG = np.random.default_rng(7)
SHAPES = [(), (3,), (2, 3)]
PAIRS = [((3, 4), (3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 4)), ((), (2, 3))]


def away_from_zero(shape, low=0.3, high=2.0):
    """Random values with |x| in [low, high] and random signs."""
    return RNG.uniform(low, high, shape) * RNG.choice([-1.0, 1.0], shape)


def grads(op_type, arrays, attrs=None, wrt=None, weight=None, **kw):
    """Engine gradients of <weight, op(arrays)> (weight defaults to ones) with respect to ``wrt``."""
    attrs = attrs or {}
    wrt = range(len(arrays)) if wrt is None else wrt
    tensors = [None if a is None else Tensor(np.asarray(a), requires_grad=i in wrt) for i, a in enumerate(arrays)]
    y = execute(op_type, *tensors, **attrs)
    return gradient(y, [tensors[i] for i in wrt], None if weight is None else [Tensor(weight)], **kw)


# -- coverage -----------------------------------------------------------------------------------

FAMILY_OPS = ["Add", "Sub", "Mul", "Div", "Neg", "Abs", "Reciprocal", "Sign", "Floor", "Ceil", "Round", "Mod",
              "Pow", "Min", "Max", "Sum", "Mean", "Clip"]
NOT_DIFFERENTIABLE = ["BitShift", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitwiseNot"]


@pytest.mark.parametrize("op", FAMILY_OPS)
def test_every_differentiable_op_has_a_maker(op):
    schema = get_schema(op)
    assert schema.differentiable is True and schema.gradient is not None


@pytest.mark.parametrize("op", NOT_DIFFERENTIABLE)
def test_integer_ops_are_declared_not_differentiable(op):
    assert get_schema(op).differentiable is False


# -- unary ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("op", ["Abs", "Reciprocal", "Neg"])
def test_unary(op, shape):
    check_gradient(op, [away_from_zero(shape)])


@pytest.mark.parametrize("op", ["Abs", "Reciprocal"])
def test_unary_second_order(op):
    check_higher_order(op, [away_from_zero((2, 3))], order=2)


def test_abs_gradient_is_zero_at_zero():
    (g,) = grads("Abs", [np.array([-2.0, 0.0, 3.0])])
    np.testing.assert_array_equal(g.array, [-1.0, 0.0, 1.0])


@pytest.mark.parametrize("op", ["Sign", "Floor", "Ceil", "Round"])
@pytest.mark.parametrize("shape", SHAPES)
def test_steps_have_zero_gradient(op, shape):
    x = np.round(RNG.uniform(-5, 5, shape)) + RNG.uniform(-0.3, 0.3, shape) + 0.05  # away from jumps
    check_gradient(op, [x])
    (g,) = grads(op, [x])
    assert g.array.shape == np.shape(x) and not g.array.any()


# -- Pow ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shapes", PAIRS)
def test_pow_both_inputs(shapes):
    x = RNG.uniform(0.5, 2.0, shapes[0])
    y = RNG.uniform(-2.0, 3.0, shapes[1])
    check_gradient("Pow", [x, y])


@pytest.mark.parametrize("exponent", [np.array(3, np.int64), np.array([2, -1, 0], np.int32)])
def test_pow_integer_exponent(exponent):
    # The base may be negative when only its gradient is taken.
    check_gradient("Pow", [away_from_zero((2, 3)), exponent])


def test_pow_second_order_square():
    check_higher_order("Pow", [away_from_zero((2, 3)), np.array(2.0)], wrt=[0], order=2)


def test_pow_second_order_both_inputs():
    check_higher_order("Pow", [RNG.uniform(0.5, 2.0, (2, 3)), RNG.uniform(-2.0, 3.0, (3,))], order=2)


def test_pow_constant_exponent_is_not_a_tensor():
    # An exponent given as a plain array (no Tensor) takes the constant path.
    x = Tensor(np.array([-1.5, 0.0, 2.0]), requires_grad=True)
    y = execute("Pow", x, np.array(2.0))
    (g,) = gradient(y, [x], create_graph=True)
    np.testing.assert_allclose(g.array, 2 * x.array)
    (gg,) = gradient(g, [x])
    np.testing.assert_allclose(gg.array, [2.0, 2.0, 2.0])
    x = Tensor(np.array([0.0, 0.0, 3.0]), requires_grad=True)
    (g,) = gradient(execute("Pow", x, np.array([0.0, 1.0, 0.0])), [x])
    np.testing.assert_array_equal(g.array, [0.0, 1.0, 0.0])


def test_pow_limits_at_zero_are_torchs():
    # d/dx x**0 = 0 even at x = 0; d/dy x**y = 0 at x = 0 for y >= 0 (torch's values, not 0 * inf = nan).
    x = np.array([0.0, 0.0, 0.0, 2.0])
    y = np.array([0.0, 0.5, 2.0, 0.0])
    gx, gy = grads("Pow", [x, y])
    np.testing.assert_array_equal(gx.array, [0.0, np.inf, 0.0, 0.0])
    np.testing.assert_array_equal(gy.array, [0.0, 0.0, 0.0, np.log(2.0)])


def test_pow_mixed_float_dtypes():
    x = RNG.uniform(0.5, 2.0, (2, 3)).astype(np.float32)
    y = RNG.uniform(-1.0, 2.0, (3,))
    gx, gy = grads("Pow", [x, y])
    assert gx.dtype == np.float32 and gy.dtype == np.float64
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(gx.array, y * x64 ** (y - 1), rtol=1e-5)
    np.testing.assert_allclose(gy.array, np.sum(x64 ** y * np.log(x64), axis=0), rtol=1e-5)


# -- Mod ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("fmod", [0, 1])
@pytest.mark.parametrize("shapes", PAIRS)
def test_mod(fmod, shapes):
    # a = (k + f) * b with f in [0.2, 0.8] keeps a / b away from integers (the jumps); the
    # full-shaped operand is derived from the other one.
    full = np.broadcast_shapes(*shapes)
    q = RNG.integers(-4, 4, full) + RNG.uniform(0.2, 0.8, full)
    if shapes[0] == full:
        b = away_from_zero(shapes[1], 0.5, 1.5)
        a = q * b
    else:
        a = away_from_zero(shapes[0], 0.5, 1.5)
        b = a / q
    check_gradient("Mod", [a, b], {"fmod": fmod})


@pytest.mark.parametrize("fmod", [0, 1])
def test_mod_quotient_sign(fmod):
    a, b = np.array([7.5, -7.5, 7.5, -7.5]), np.array([2.0, 2.0, -2.0, -2.0])
    ga, gb = grads("Mod", [a, b], {"fmod": fmod})
    q = np.trunc(a / b) if fmod else np.floor(a / b)
    np.testing.assert_array_equal(ga.array, np.ones(4))
    np.testing.assert_array_equal(gb.array, -q)


def test_mod_uses_the_kernels_quotient():
    # 1 / 0.1 rounds to 10.0 but 1 % 0.1 = 0.0999..., i.e. the kernel's quotient is 9.
    ga, gb = grads("Mod", [np.array([1.0]), np.array([0.1])])
    np.testing.assert_array_equal(gb.array, [-9.0])


def test_mod_second_order_vanishes():
    b = away_from_zero((3,), 0.5, 1.5)
    a = (RNG.integers(-3, 3, (2, 3)) + RNG.uniform(0.2, 0.8, (2, 3))) * b
    check_higher_order("Mod", [a, b], {"fmod": 1}, order=2)


# -- Min, Max, Sum, Mean --------------------------------------------------------------------------

VARIADIC = [[(3, 4)], [(3, 4), (3, 4)], [(2, 3, 4), (4,)], [(3, 1), (1, 4), ()], [(2, 1, 3), (4, 1), (3,)]]


@pytest.mark.parametrize("op", ["Min", "Max", "Sum", "Mean"])
@pytest.mark.parametrize("shapes", VARIADIC)
def test_variadic(op, shapes):
    check_gradient(op, [RNG.standard_normal(s) for s in shapes])  # continuous draws: no ties


@pytest.mark.parametrize("op", ["Sum", "Mean", "Max"])
def test_variadic_second_order(op):
    check_higher_order(op, [RNG.standard_normal((2, 3)), RNG.standard_normal((3,))], order=2)


@pytest.mark.parametrize("op", ["Max", "Min"])
def test_ties_split_the_gradient_evenly(op):
    # torch.maximum / torch.minimum give half to each of two tied inputs; k ties get 1/k each.
    a = np.array([1.0, 2.0, 3.0])
    b = np.array([1.0, 5.0 if op == "Max" else 0.0, 3.0])
    c = np.array([0.0 if op == "Max" else 9.0, 2.0, 3.0])
    ga, gb = grads(op, [a, b])
    np.testing.assert_array_equal(ga.array, [0.5, 0.0, 0.5])
    np.testing.assert_array_equal(gb.array, [0.5, 1.0, 0.5])
    ga, gb, gc = grads(op, [a, b, c])
    np.testing.assert_allclose(ga.array, [0.5, 0.0, 1 / 3])
    np.testing.assert_allclose(gb.array, [0.5, 1.0, 1 / 3])
    np.testing.assert_allclose(gc.array, [0.0, 0.0, 1 / 3])


def test_max_only_differentiates_requested_inputs():
    a, b = RNG.standard_normal(3), RNG.standard_normal(3)
    (gb,) = grads("Max", [a, b], wrt=[1])
    np.testing.assert_array_equal(gb.array, (b > a).astype(float))


# -- Clip -----------------------------------------------------------------------------------------

def clip_input(shape, lo=-0.5, hi=0.5):
    """Values away from both bounds (no place within 0.1 of them)."""
    x = RNG.uniform(-1.5, 1.5, shape)
    for bound in (lo, hi):
        near = np.abs(x - bound) < 0.1
        x[near] = bound + 0.2 * np.sign(x[near] - bound + 1e-9)
    return x


@pytest.mark.parametrize("bounds", [(None, None), (-0.5, None), (None, 0.5), (-0.5, 0.5)])
@pytest.mark.parametrize("shape", SHAPES[1:] + [(4, 5)])
@pytest.mark.parametrize("bound_shape", [(), (1,)])
def test_clip(bounds, shape, bound_shape):
    lo, hi = (None if v is None else np.full(bound_shape, v) for v in bounds)
    check_gradient("Clip", [clip_input(shape), lo, hi])


def test_clip_bounds_of_higher_rank_than_input():
    check_gradient("Clip", [clip_input((3,)), np.full((1, 1), -0.5), np.full((1, 1, 1), 0.5)])


def test_clip_min_above_max_sends_everything_to_max():
    x, lo, hi = clip_input((2, 3)), np.array(0.8), np.array(-0.2)
    check_gradient("Clip", [x, lo, hi])
    gx, glo, ghi = grads("Clip", [x, lo, hi])
    assert not gx.array.any() and glo.array == 0 and ghi.array == 6


def test_clip_boundaries_go_to_the_input():
    # torch.clamp: x in [min, max] (boundaries included) keeps the gradient.
    gx, glo, ghi = grads("Clip", [np.array([-1.0, -0.5, 0.0, 0.5, 1.0]), np.array(-0.5), np.array(0.5)])
    np.testing.assert_array_equal(gx.array, [0, 1, 1, 1, 0])
    assert glo.array == 1 and ghi.array == 1


def test_clip_second_order():
    check_higher_order("Clip", [clip_input((2, 3)), np.array(-0.5), np.array(0.5)], order=2)


# -- Div (second order with broadcasting; first order is in test_core) -----------------------------

def test_div_second_order_broadcast():
    check_higher_order("Div", [RNG.standard_normal((2, 3)), away_from_zero((3,), 1.0, 3.0)], order=2)


# -- dtypes ---------------------------------------------------------------------------------------

CASES = [
    ("Abs", [away_from_zero((2, 3))], {}),
    ("Reciprocal", [away_from_zero((2, 3))], {}),
    ("Floor", [RNG.uniform(0.1, 0.9, (2, 3))], {}),
    ("Pow", [RNG.uniform(0.5, 2.0, (2, 3)), RNG.uniform(-1.0, 2.0, (3,))], {}),
    ("Mod", [np.array([2.5, -2.5, 3.5]), np.array([2.0, 2.0, -1.5])], {"fmod": 0}),
    ("Max", [RNG.standard_normal((2, 3)), RNG.standard_normal((3,))], {}),
    ("Mean", [RNG.standard_normal((2, 3)), RNG.standard_normal((3,))], {}),
    ("Clip", [clip_input((2, 3)), np.array(-0.5), np.array(0.5)], {}),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float16, ml_dtypes.bfloat16])
@pytest.mark.parametrize("op, arrays, attrs", CASES, ids=[c[0] for c in CASES])
def test_gradients_keep_the_input_dtype(op, arrays, attrs, dtype):
    low = [a.astype(dtype) for a in arrays]
    expected = grads(op, [a.astype(np.float64) for a in low], attrs)
    actual = grads(op, low, attrs)
    tol = {np.float32: 1e-5, np.float16: 3e-3, ml_dtypes.bfloat16: 2e-2}[dtype]
    for e, a, x in zip(expected, actual, low):
        assert a.dtype == x.dtype and a.shape == x.shape
        np.testing.assert_allclose(a.array.astype(np.float64), e.array, rtol=tol, atol=tol)


def test_integer_results_do_not_require_grad():
    x = Tensor(np.array([1, -2, 3]), requires_grad=True)
    for op in ("Abs", "Sign"):
        assert not execute(op, x).requires_grad


@pytest.mark.parametrize("op, extra, mask", [
    ("Clip", [np.array(-0.5), np.array(0.5)], lambda c: np.abs(c) <= 0.5),
    ("Max", [np.full(4, 0.1)], lambda c: c > 0.1),
    ("Abs", [], np.sign),
])
def test_second_order_through_a_cube(op, extra, mask):
    # op(x**3): the first gradient depends on x through the upstream gradient, so the masks
    # (Where, Sign) must pass second-order gradients on: d2/dx2 = 6x * mask(x**3).
    x = Tensor(np.array([-1.2, -0.6, 0.3, 0.7]), requires_grad=True)
    cube = execute("Mul", execute("Mul", x, x), x)
    (g,) = gradient(execute(op, cube, *extra), [x], [Tensor(np.ones(4))], create_graph=True)
    m = mask(x.array ** 3).astype(float)
    np.testing.assert_allclose(g.array, 3 * x.array ** 2 * m)
    (gg,) = gradient(g, [x], [Tensor(np.ones(4))])
    np.testing.assert_allclose(gg.array, 6 * x.array * m)
