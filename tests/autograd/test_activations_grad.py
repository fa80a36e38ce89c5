"""Gradients of the activations: finite differences (first and higher order), dtypes, PyTorch's values at kinks."""

import math

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import Tensor, autograd, execute
from vfw.core import dtypes as dt
from vfw.core.registry import get_schema

RNG = np.random.default_rng(7)
SHAPES = [(), (5,), (2, 3, 4)]


def away(x, kinks, margin=0.05):
    """``x`` with every value within ``margin`` of a kink moved ``margin`` away from it (FD needs smoothness)."""
    x = np.array(x, np.float64)
    for k in kinks:
        near = np.abs(x - k) < margin
        x[near] = k + np.where(x[near] >= k, margin, -margin)
    return x


def sample(shape, scale=2.0, kinks=(0.0,)):
    return away(RNG.uniform(-scale, scale, shape), kinks)


# -- first order, float64 finite differences -------------------------------------------------------------------

# (op, attrs, kinks of the derivative, input scale)
ELEMENTWISE = [
    ("Relu", {}, (0.0,), 2.0),
    ("LeakyRelu", {}, (0.0,), 2.0),
    ("LeakyRelu", {"alpha": 0.5}, (0.0,), 2.0),
    ("LeakyRelu", {"alpha": 2.5}, (0.0,), 2.0),  # alpha > 1: the kernel picks the smaller branch
    ("LeakyRelu", {"alpha": 0.0}, (0.0,), 2.0),
    ("LeakyRelu", {"alpha": -0.3}, (0.0,), 2.0),
    ("Elu", {}, (0.0,), 3.0),
    ("Elu", {"alpha": 0.4}, (0.0,), 3.0),
    ("Elu", {"alpha": 2.0}, (0.0,), 3.0),
    ("Selu", {}, (0.0,), 3.0),
    ("Selu", {"alpha": 1.2, "gamma": 0.7}, (0.0,), 3.0),
    ("Celu", {}, (0.0,), 3.0),
    ("Celu", {"alpha": 0.5}, (0.0,), 3.0),
    ("Celu", {"alpha": 2.0}, (0.0,), 3.0),
    ("Celu", {"alpha": -1.5}, (0.0,), 3.0),  # negative alpha: alpha * expm1(x / alpha) on x < 0
    ("Gelu", {}, (), 4.0),
    ("Gelu", {"approximate": "tanh"}, (), 4.0),
    ("Sigmoid", {}, (), 6.0),
    ("HardSigmoid", {}, (-2.5, 2.5), 4.0),
    ("HardSigmoid", {"alpha": 0.5, "beta": 0.3}, (-0.6, 1.4), 3.0),
    ("HardSigmoid", {"alpha": -0.25, "beta": 0.4}, (1.6, -2.4), 4.0),
    ("HardSigmoid", {"alpha": 0.0, "beta": 0.4}, (), 2.0),
    ("HardSwish", {}, (-3.0, 3.0), 5.0),
    ("Softplus", {}, (), 6.0),
    ("Softsign", {}, (0.0,), 4.0),
    ("Mish", {}, (), 5.0),
    ("ThresholdedRelu", {}, (1.0,), 3.0),
    ("ThresholdedRelu", {"alpha": 0.2}, (0.2,), 2.0),
    ("ThresholdedRelu", {"alpha": -0.5}, (-0.5,), 2.0),
    ("Shrink", {}, (-0.5, 0.5), 2.0),
    ("Shrink", {"bias": 0.3, "lambd": 0.5}, (-0.5, 0.5), 2.0),
    ("Shrink", {"bias": 1.0, "lambd": 0.2}, (-0.2, 0.2), 2.0),
    ("Shrink", {"bias": 0.5, "lambd": 0.0}, (0.0,), 2.0),
]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("op,attrs,kinks,scale", ELEMENTWISE, ids=lambda v: str(v) if isinstance(v, dict) else None)
def test_elementwise_first_order(op, attrs, kinks, scale, shape):
    check_gradient(op, [sample(shape, scale, kinks)], attrs)


@pytest.mark.parametrize("op,attrs", [("Gelu", {}), ("Gelu", {"approximate": "tanh"}), ("Softplus", {}),
                                      ("Sigmoid", {}), ("Mish", {}), ("Softsign", {}), ("Elu", {})], ids=str)
def test_smooth_ops_in_the_tails(op, attrs):
    # Far out, where the kernels switch to their stable forms; FD still resolves these derivatives.
    check_gradient(op, [np.array([-30.0, -9.0, -6.5, 6.5, 9.0, 30.0])], attrs, atol=1e-9)


@pytest.mark.parametrize("shapes", [((2, 3, 4), (4,)), ((2, 3, 4), (3, 1)), ((2, 3, 4), (1,)), ((2, 3, 4), ()),
                                    ((2, 3, 4), (2, 3, 4)), ((3, 4), (1, 4)), ((5,), (5,))], ids=str)
def test_prelu_both_inputs_with_slope_broadcasting(shapes):
    xs, ss = shapes
    check_gradient("PRelu", [sample(xs), RNG.uniform(-1.0, 1.5, ss)])


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("shape,axis", [((5,), 0), ((5,), -1), ((3, 4), 1), ((3, 4), 0), ((3, 4), -2),
                                        ((2, 3, 4), -1), ((2, 3, 4), 1), ((2, 3, 4), -3), ((4, 1), 1)], ids=str)
def test_softmax_family_first_order(op, shape, axis):
    check_gradient(op, [RNG.standard_normal(shape) * 2], {"axis": axis})


def test_softmax_family_large_logits():
    x = np.array([[800.0, 801.0, 799.5], [-700.0, -702.0, -699.0]])
    for op in ("Softmax", "LogSoftmax"):
        check_gradient(op, [x], {"axis": 1})


# -- higher order ------------------------------------------------------------------------------------------------

HIGHER = [
    ("Relu", {}, (0.0,), 2.0),
    ("LeakyRelu", {"alpha": 0.2}, (0.0,), 2.0),
    ("Sigmoid", {}, (), 4.0),
    ("Softplus", {}, (), 4.0),
    ("Gelu", {}, (), 3.0),
    ("Gelu", {"approximate": "tanh"}, (), 3.0),
    ("Elu", {"alpha": 0.7}, (0.0,), 3.0),
    ("Selu", {}, (0.0,), 3.0),
    ("Celu", {"alpha": -1.5}, (0.0,), 3.0),
    ("HardSigmoid", {}, (-2.5, 2.5), 4.0),
    ("HardSwish", {}, (-3.0, 3.0), 5.0),
    ("Softsign", {}, (0.0,), 3.0),
    ("Mish", {}, (), 3.0),
    ("ThresholdedRelu", {"alpha": 0.2}, (0.2,), 2.0),
    ("Shrink", {"bias": 0.3, "lambd": 0.5}, (-0.5, 0.5), 2.0),
]


@pytest.mark.parametrize("op,attrs,kinks,scale", HIGHER, ids=lambda v: str(v) if isinstance(v, dict) else None)
def test_elementwise_second_order(op, attrs, kinks, scale):
    check_higher_order(op, [sample((2, 3), scale, kinks)], attrs, order=2)


@pytest.mark.parametrize("op,attrs", [("Sigmoid", {}), ("Gelu", {"approximate": "tanh"}), ("Softplus", {}),
                                      ("Elu", {})])
def test_elementwise_third_order(op, attrs):
    check_higher_order(op, [sample((4,), 2.0)], attrs, order=3)


def test_prelu_second_order_mixes_x_and_slope():
    check_higher_order("PRelu", [sample((2, 3)), RNG.uniform(-1.0, 1.5, (3,))], order=2)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
@pytest.mark.parametrize("shape,axis", [((4,), 0), ((2, 3), 1), ((2, 3), -2), ((2, 2, 3), 1)], ids=str)
def test_softmax_family_second_order(op, shape, axis):
    check_higher_order(op, [RNG.standard_normal(shape)], {"axis": axis}, order=2)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
def test_softmax_family_third_order(op):
    check_higher_order(op, [RNG.standard_normal((2, 3))], {"axis": -1}, order=3)


# -- dtypes --------------------------------------------------------------------------------------------------------

def _grad(op, x, attrs, w):
    t = Tensor(x, requires_grad=True)
    (g,) = autograd.gradient(execute(op, t, **attrs), [t], [Tensor(w)])
    return g


DTYPE_CASES = [(op, attrs) for op, attrs, _, _ in ELEMENTWISE if op not in ("Relu",)] + [
    ("Relu", {}), ("Softmax", {"axis": 0}), ("LogSoftmax", {"axis": -1})]


def _accepts(op, dtype):
    schema = get_schema(op)
    return np.dtype(dtype) in schema.types[schema.inputs[0].type]


@pytest.mark.parametrize(
    "op,attrs,dtype,rtol",
    [(op, attrs, dtype, rtol) for op, attrs in DTYPE_CASES
     for dtype, rtol in [(np.float32, 2e-6), (np.float16, 8e-3), (dt.bfloat16, 6e-2)] if _accepts(op, dtype)],
    ids=str)
def test_gradient_keeps_the_input_dtype(op, attrs, dtype, rtol):
    # Inputs and weights exactly representable in the narrow type; the float64 gradient is the reference.
    x = away(np.round(RNG.uniform(-4, 4, (3, 4)) * 8) / 8, (0.0, -3, 3, -2.5, 2.5, 1.0, 0.2, -0.5, 0.5, -0.2, 0.2,
                                                         -0.6, 1.4, 1.6, -2.4), margin=0.1)
    x = np.round(x * 64) / 64
    w = np.round(RNG.uniform(-2, 2, (3, 4)) * 8) / 8
    g = _grad(op, x.astype(dtype), attrs, w.astype(dtype))
    assert g.dtype == np.dtype(dtype)
    expected = _grad(op, x, attrs, w).array
    np.testing.assert_allclose(g.array.astype(np.float64), expected, rtol=rtol, atol=rtol * np.abs(expected).max())


def test_gelu_tanh_half_gradient_does_not_overflow():
    # x**2 overflows float16 from 256 on; the gradient works in float32, as the kernel does.
    x = np.array([-6e4, -300.0, -4.0, 4.0, 300.0, 6e4], np.float16)
    g = _grad("Gelu", x, {"approximate": "tanh"}, np.ones(6, np.float16))
    assert g.dtype == np.float16
    np.testing.assert_allclose(g.array.astype(np.float64), [0, 0, -0.00035, 1.00035, 1, 1], atol=1e-3)


def test_exp_units_second_order_is_finite_for_large_positive_x():
    # Exp only sees min(x, 0): exp(1000) = inf in the unused branch would make the second derivative nan.
    for op in ("Elu", "Selu", "Celu"):
        t = Tensor(np.array([1000.0, -2.0]), requires_grad=True)
        (g,) = autograd.gradient(execute(op, t), [t], create_graph=True)
        (gg,) = autograd.gradient(execute("ReduceSum", g, np.zeros(0, np.int64), keepdims=0), [t])
        assert np.all(np.isfinite(gg.array)), op


def test_relu_on_integers_records_nothing():
    t = Tensor(np.array([-1, 2], np.int32), requires_grad=True)
    assert execute("Relu", t).grad_node is None


def test_hardmax_is_not_differentiable():
    assert get_schema("Hardmax").differentiable is False
    t = Tensor(RNG.standard_normal((2, 3)), requires_grad=True)
    y = execute("Hardmax", t)
    assert y.grad_node is None and not y.requires_grad


# -- PyTorch's values, at the kinks included ----------------------------------------------------------------------

def _torch_cases():
    torch = pytest.importorskip("torch")
    f = torch.nn.functional
    return torch, [
        ("Relu", {}, f.relu, [-1.0, 0.0, 2.0]),
        ("LeakyRelu", {"alpha": 0.1}, lambda x: f.leaky_relu(x, 0.1), [-1.0, 0.0, 2.0]),
        ("Elu", {"alpha": 0.7}, lambda x: f.elu(x, 0.7), [-12.0, -1.0, 0.0, 2.0]),
        ("Selu", {}, f.selu, [-12.0, -1.0, 0.0, 2.0]),
        ("Celu", {"alpha": 1.5}, lambda x: f.celu(x, 1.5), [-12.0, -1.0, 0.0, 2.0]),
        ("Gelu", {}, f.gelu, [-9.0, -1.0, 0.0, 0.5, 7.0]),
        ("Gelu", {"approximate": "tanh"}, lambda x: f.gelu(x, approximate="tanh"), [-9.0, -1.0, 0.0, 0.5, 7.0]),
        ("Sigmoid", {}, torch.sigmoid, [-40.0, -1.0, 0.0, 3.0, 40.0]),
        ("HardSigmoid", {"alpha": 1 / 6}, f.hardsigmoid, [-4.0, -3.0, 0.0, 1.0, 3.0, 4.0]),
        ("HardSwish", {}, f.hardswish, [-4.0, -3.0, 0.0, 1.0, 3.0, 4.0]),
        ("Softplus", {}, f.softplus, [-40.0, -1.0, 0.0, 3.0, 19.0]),
        ("Softsign", {}, f.softsign, [-3.0, 0.0, 0.5, 1e3]),
        ("Mish", {}, f.mish, [-30.0, -1.0, 0.0, 2.0, 30.0]),
        ("ThresholdedRelu", {"alpha": 0.5}, lambda x: f.threshold(x, 0.5, 0.0), [-1.0, 0.5, 0.7]),
        ("Shrink", {"bias": 0.5, "lambd": 0.5}, lambda x: f.softshrink(x, 0.5), [-1.0, -0.5, 0.0, 0.5, 0.9]),
        ("Shrink", {"bias": 0.0, "lambd": 0.5}, lambda x: f.hardshrink(x, 0.5), [-1.0, -0.5, 0.0, 0.5, 0.9]),
    ]


def test_first_and_second_order_match_torch():
    torch, cases = _torch_cases()
    for op, attrs, fn, xs in cases:
        x = np.array(xs)
        w1, w2 = RNG.standard_normal(x.shape), RNG.standard_normal(x.shape)
        tx = torch.tensor(x, requires_grad=True)
        (tg,) = torch.autograd.grad(fn(tx), tx, torch.tensor(w1), create_graph=True)
        vx = Tensor(x, requires_grad=True)
        (vg,) = autograd.gradient(execute(op, vx, **attrs), [vx], [Tensor(w1)], create_graph=True)
        np.testing.assert_allclose(vg.array, tg.detach().numpy(), rtol=1e-6, atol=1e-12, err_msg=op)
        if op == "HardSigmoid":  # torch has no double backward for hardsigmoid
            continue
        (tgg,) = torch.autograd.grad(tg, tx, torch.tensor(w2), allow_unused=True)
        (vgg,) = autograd.gradient(vg, [vx], [Tensor(w2)])
        tgg = np.zeros_like(x) if tgg is None else tgg.numpy()
        vgg = np.zeros_like(x) if vgg is None else vgg.array
        # Second derivatives at kinks are conventions (torch differentiates its own branch formulas); compare off them.
        smooth = ~np.isin(x, [0.0, -3.0, 3.0, -0.5, 0.5]) if op not in ("Gelu", "Sigmoid", "Softplus", "Mish") \
            else np.ones(x.shape, bool)
        np.testing.assert_allclose(vgg[smooth], tgg[smooth], rtol=1e-6, atol=1e-12, err_msg=f"{op} second order")


def test_prelu_softmax_match_torch():
    torch, _ = _torch_cases()
    f = torch.nn.functional
    x, slope = np.array([[-1.0, 0.0, 2.0], [3.0, -0.5, -2.0]]), np.array([0.2, -0.4, 1.5])
    w = RNG.standard_normal(x.shape)
    tx, ts = torch.tensor(x, requires_grad=True), torch.tensor(slope, requires_grad=True)
    tgx, tgs = torch.autograd.grad(f.prelu(tx, ts), (tx, ts), torch.tensor(w))
    vx, vs = Tensor(x, requires_grad=True), Tensor(slope, requires_grad=True)
    vgx, vgs = autograd.gradient(execute("PRelu", vx, vs), [vx, vs], [Tensor(w)])
    np.testing.assert_allclose(vgx.array, tgx.numpy(), rtol=1e-12)
    np.testing.assert_allclose(vgs.array, tgs.numpy(), rtol=1e-12)
    for op, fn in (("Softmax", torch.softmax), ("LogSoftmax", torch.log_softmax)):
        for axis in (0, 1, -1):
            (tg,) = torch.autograd.grad(fn(tx, axis), tx, torch.tensor(w))
            vx = Tensor(x, requires_grad=True)
            (vg,) = autograd.gradient(execute(op, vx, axis=axis), [vx], [Tensor(w)])
            np.testing.assert_allclose(vg.array, tg.numpy(), rtol=1e-10, atol=1e-14, err_msg=f"{op} axis={axis}")


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, dt.bfloat16])
def test_relu_grad_op_matches_numpy_select(dtype):
    # Relu's backward op: dY where X > 0, else exactly 0 (inf/nan in dY do not leak, as torch).
    x = np.array([-2.0, -0.0, 0.0, 0.5, 3.0, np.nan, -np.inf, np.inf], dtype)
    dy = np.array([1.5, np.nan, np.inf, -2.0, np.nan, 4.0, np.inf, -1.0], dtype)
    got = execute("ReluGrad", Tensor(dy), Tensor(x)).array
    with np.errstate(invalid="ignore"):  # bfloat16 comparisons with nan warn
        expected = np.where(x > 0, dy, np.zeros((), dtype))
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_relu_grad_op_large_arrays_select_bit_exactly(dtype):
    # past a few hundred elements the select runs on bit masks: still dY's exact bits, zeros elsewhere
    x = np.tile(np.array([-2.0, -0.0, 0.0, 0.5, 3.0, np.nan, -np.inf, np.inf], dtype), 700)
    dy = np.tile(np.array([1.5, np.nan, np.inf, -2.0, np.nan, 4.0, np.inf, -0.0], dtype), 700)
    got = execute("ReluGrad", Tensor(dy), Tensor(x)).array
    with np.errstate(invalid="ignore"):
        expected = np.where(x > 0, dy, np.zeros((), dtype))
    np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))


def test_relu_grad_op_gradients():
    rng = np.random.default_rng(5)
    x = away(rng.uniform(-2, 2, (3, 4)), (0.0,), margin=0.1)
    check_gradient("ReluGrad", [rng.standard_normal((3, 4)), x], wrt=[0])
    check_higher_order("ReluGrad", [rng.standard_normal((3, 4)), x], wrt=[0])


# -- GeluGrad: exact Gelu's backward op ---------------------------------------------------------------------------

def _gelu_slope(x):
    """Phi(x) + x phi(x) in float64 from math.erfc, and the magnitude of its two terms."""
    x = np.asarray(x, np.float64)
    cdf = np.array([0.5 * math.erfc(-v / math.sqrt(2)) for v in x.ravel()]).reshape(x.shape)
    with np.errstate(over="ignore"):  # x**2 of the huge values: exp(-inf) = 0
        density = np.exp(-x * x / 2) / math.sqrt(2 * math.pi)
    return cdf + x * density, cdf + np.abs(x) * density


def test_gelu_grad_op_float64_matches_math():
    x = np.concatenate([np.linspace(-40, 40, 4001), [-1e200, 1e200, 0.0, -0.0]])
    dy = RNG.standard_normal(x.shape)
    got = execute("GeluGrad", Tensor(dy), Tensor(x)).array
    slope, scale = _gelu_slope(x)
    # a few float64 roundings (exp, three products, a sum) on top of erfc's
    np.testing.assert_array_less(np.abs(got - dy * slope), 1e-15 * np.abs(dy) * scale + 1e-300)


def test_gelu_grad_op_float32_within_an_ulp_of_its_terms():
    # Relative to the terms' magnitude: near x = -0.75 they cancel and no float32 formula keeps relative accuracy.
    positive = np.arange(np.float32(1e-30).view(np.uint32), np.float32(12.0).view(np.uint32), 2003,
                         dtype=np.uint32).view(np.float32)
    x = np.concatenate([positive, -positive])
    got = execute("GeluGrad", Tensor(np.ones_like(x)), Tensor(x)).array
    assert got.dtype == np.float32
    slope, scale = _gelu_slope(x)
    errors = np.abs(got - slope) / scale
    assert errors.max() < 1.5 * 2.0 ** -24, (errors.max(), x[errors.argmax()])


@pytest.mark.parametrize("dtype", [np.float16, dt.bfloat16])
def test_gelu_grad_op_half_dtypes(dtype):
    x = np.linspace(-12, 12, 481).astype(dtype)
    dy = RNG.uniform(-2, 2, x.shape).astype(dtype)
    got = execute("GeluGrad", Tensor(dy), Tensor(x)).array
    assert got.dtype == np.dtype(dtype)
    slope, _ = _gelu_slope(x.astype(np.float64))
    expected = (dy.astype(np.float64) * slope).astype(dtype)  # one rounding at the end
    np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=1e-2, atol=1e-6)
    np.testing.assert_array_equal(np.abs(got.astype(np.float64) - expected.astype(np.float64)) <=
                                  np.spacing(np.abs(expected).astype(dtype)).astype(np.float64), True)


def test_gelu_grad_op_special_values_and_shapes():
    x = np.array([np.inf, -np.inf, np.nan, 0.0], np.float32)
    got = execute("GeluGrad", Tensor(np.ones(4, np.float32)), Tensor(x)).array
    np.testing.assert_array_equal(got, np.array([np.nan, np.nan, np.nan, 0.5], np.float32))  # +-inf * 0, as torch
    scalar_case = execute("GeluGrad", Tensor(np.array(2.0)), Tensor(np.array(1.0))).array
    assert scalar_case.shape == () and np.isclose(scalar_case, 2 * _gelu_slope(1.0)[0])
    from vfw.core.errors import ShapeError
    with pytest.raises(ShapeError, match="GeluGrad"):
        execute("GeluGrad", Tensor(np.ones(3)), Tensor(np.ones(4)))


def test_gelu_grad_op_gradients():
    x = RNG.uniform(-4, 4, (3, 4))
    dy = RNG.standard_normal((3, 4))
    check_gradient("GeluGrad", [dy, x])
    check_higher_order("GeluGrad", [dy, x])
    check_higher_order("Gelu", [x], order=3)


def test_gelu_grad_second_derivative_far_out_is_zero_not_nan():
    for dtype in (np.float16, np.float32):
        x = Tensor(np.array([-300.0, 300.0, 60.0], dtype), requires_grad=True)
        (g,) = autograd.gradient(execute("Gelu", x), [x], [Tensor(np.ones(3, dtype))], create_graph=True)
        (gg,) = autograd.gradient(g, [x], [Tensor(np.ones(3, dtype))])
        np.testing.assert_array_equal(g.array, np.array([0.0, 1.0, 1.0], dtype))
        np.testing.assert_array_equal(gg.array, np.zeros(3, dtype))


# -- SoftmaxGrad / LogSoftmaxGrad: the softmax family's backward ops ---------------------------------------------

def _softmax_backward_reference(op, dy, y, axis):
    """The backward formulas in float64 numpy."""
    dy, y = dy.astype(np.float64), y.astype(np.float64)
    if op == "SoftmaxGrad":
        return y * (dy - (dy * y).sum(axis=axis, keepdims=True))
    return dy - np.exp(y) * dy.sum(axis=axis, keepdims=True)


BACKWARD_SHAPES = [((7,), 0), ((6, 10), -1), ((6, 10), 0), ((4, 100), 1), ((2, 3, 40), -1), ((2, 3, 5), 1),
                   ((3, 1), -1), ((0, 4), -1)]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16, dt.bfloat16])
@pytest.mark.parametrize("shape,axis", BACKWARD_SHAPES, ids=str)
@pytest.mark.parametrize("op,forward", [("SoftmaxGrad", "Softmax"), ("LogSoftmaxGrad", "LogSoftmax")])
def test_softmax_backward_ops_match_the_formula(op, forward, shape, axis, dtype):
    x = RNG.standard_normal(shape) * 3
    y = execute(forward, Tensor(x.astype(dtype)), axis=axis).array
    dy = RNG.standard_normal(shape).astype(dtype)
    got = execute(op, Tensor(dy), Tensor(y), axis=axis).array
    assert got.dtype == np.dtype(dtype) and got.shape == shape
    expected = _softmax_backward_reference(op, dy, y, axis)
    if np.dtype(dtype).itemsize == 2:  # float32 arithmetic, one rounding at the end
        np.testing.assert_allclose(got.astype(np.float64), expected, rtol=1e-2, atol=1e-2)
    else:
        tol = 1e-13 if dtype == np.float64 else 2e-6
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("op", ["SoftmaxGrad", "LogSoftmaxGrad"])
def test_softmax_backward_ops_gradients(op):
    forward = op[:-4]
    for shape, axis in (((2, 5), -1), ((3, 2, 4), 1)):
        y = execute(forward, Tensor(RNG.standard_normal(shape)), axis=axis).array
        dy = RNG.standard_normal(shape)
        check_gradient(op, [dy, y], {"axis": axis})
        check_higher_order(op, [dy, y], {"axis": axis})


@pytest.mark.parametrize("op", ["SoftmaxGrad", "LogSoftmaxGrad"])
def test_softmax_backward_ops_errors(op):
    from vfw.core.errors import ShapeError
    with pytest.raises(ShapeError, match=op):
        execute(op, Tensor(np.ones((2, 3))), Tensor(np.ones((3, 2))))
    with pytest.raises(ShapeError, match=f"{op}: axis=2"):
        execute(op, Tensor(np.ones((2, 3))), Tensor(np.ones((2, 3))), axis=2)
