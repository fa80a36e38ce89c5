"""Activations: Relu, LeakyRelu, PRelu, Elu, Selu, Celu, Gelu, Sigmoid, HardSigmoid, HardSwish,
Softplus, Softsign, Mish, ThresholdedRelu, Shrink (the softmax family lives in ``softmax.py``).

float16 and bfloat16 inputs of the transcendental ops are computed in float32
and rounded once at the end (what the frameworks' half kernels do; numpy's
bfloat16 arithmetic with Python scalars would also promote to float32).

Numerics: on finite input no kernel overflows internally; only results beyond
the type's range do (LeakyRelu with alpha > 1, Selu, Celu with alpha < 0, at
the largest floats).  Sigmoid and Softplus never overflow; Gelu's tanh form
evaluates its gate on x clamped to +-1e4, where the gate is already exactly 0
or 1; the exact form computes its gate ``2 Phi(x) = erfc(-x / sqrt 2)`` in
float64 (to float32's precision for float32 and narrower inputs, see
``_special``).

Infinite inputs follow ONNX's formulas in IEEE arithmetic, as ONNX's reference
evaluator and PyTorch do, even where the function has a finite limit: Mish,
Gelu, HardSwish and LeakyRelu with alpha=0 give nan at -inf (``-inf * 0``),
Softsign gives nan at both infinities (``inf / inf``).  NaN propagates
everywhere except ThresholdedRelu and Shrink, whose comparisons send it to 0
as ONNX's formulas do.

Kernels only write ``out`` with elementwise ufunc passes after every read of
the input that the pass does not itself make, so ``out`` may alias the input.

Gradients are made of engine ops (twice differentiable and traceable); at the
kinks they take the value PyTorch takes (Relu's gradient at 0 is 0, Elu's is
alpha).
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.eager import execute_gradient_op
from vfw.core.errors import ShapeError
from vfw.core.ops._common import (
    array_of,
    bound_op,
    conj,
    copy_out,
    execute,
    maximum_scalar,
    minimum_scalar,
    same_as_first,
    unbroadcast,
)
from vfw.core.ops._special import erfc_scaled
from vfw.core.ops.logic import select
from vfw.core.registry import Attr, TensorInfo, defop

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)

# Beyond +-this, Gelu's gate is exactly 0 or 1 in float64 (and in every narrower type);
# evaluating the gate on x clamped there bounds x**3 and the erfc argument.
_GATE_CLAMP = 1e4


def _widened(fn, scalars=True):
    """Kernel running ``fn(x, out)`` natively on float32/float64, in float32 for 2-byte floats;
    ``scalars=False`` when ``fn`` rejects 0-d input itself."""

    def slow(x, out):
        if scalars and not x.ndim:
            y = slow(x.reshape(1), None if out is None else out.reshape(1))
            return y.reshape(()) if out is None else out
        if x.dtype.itemsize != 2:
            return fn(x, out)
        y = fn(x.astype(_F32), None)
        if out is None:
            return y.astype(x.dtype)
        np.copyto(out, y, casting="unsafe")
        return out

    def kernel(x, out=None):
        if x.dtype.itemsize != 2 and (x.ndim or not scalars):  # the common case: one test, one call
            return fn(x, out)
        return slow(x, out)

    return kernel


def _sigmoid(x, out=None):
    """Stable logistic function of a float32/float64 array: exp only ever sees -|x|."""
    bits = _UINT_OF_SIZE[x.dtype.itemsize]
    negative = np.array(x < 0, dtype=bits)  # np.array: 0-d inputs stay arrays
    np.negative(negative, out=negative)  # 1 -> all bits set
    e = np.abs(x)
    np.negative(e, out=e)  # two passes: faster than one copysign
    np.exp(e, out=e)  # exp(-|x|) in (0, 1]
    d = np.add(e, 1.0)
    np.reciprocal(d, out=d)  # 1 / (1 + exp(-|x|)): sigmoid(|x|)
    e *= d  # exp(x) / (1 + exp(x)): sigmoid(x) for x < 0
    # d where x >= 0, e where x < 0, selected on the bits: d ^ ((e ^ d) & mask).  A masked
    # multiply (where=) costs about ten times more when signs are unpredictable.
    flips = np.bitwise_xor(e.view(bits), d.view(bits), out=e.view(bits))
    flips &= negative
    y = d if out is None else out
    np.bitwise_xor(flips, d.view(bits), out=y.view(bits))
    return y


# --- gradient helpers: engine ops only, constants as 0-d arrays of the gradient's dtype --

def _k(value, like):
    return np.asarray(value, array_of(like).dtype)


def _mul(a, b):
    return execute("Mul", a, b)


def _add(a, b):
    return execute("Add", a, b)


def _where(condition, a, b):
    return execute("Where", condition, a, b)


def _gt(x, value):
    return execute("Greater", x, _k(value, x))


def _lt(x, value):
    return execute("Less", x, _k(value, x))


def _scaled(g, c):
    return g if c == 1 else _mul(g, _k(c, g))


def _elementwise(name, types=dt.FLOATS, attrs=None, widen=True):
    """Register a one-input elementwise activation whose factory returns ``fn(x, out)``."""

    def wrap(factory):
        def bound(**kw):
            fn = factory(**kw)
            return _widened(fn) if widen else fn

        bound.__doc__ = factory.__doc__
        defop(name, inputs="X:T", outputs="Y:T", types={"T": types}, attrs=attrs or {}, infer=same_as_first)(bound)
        return factory

    return wrap


# --- rectifiers --------------------------------------------------------------------------

_RELU_TYPES = dt.FLOATS | {dt.int8, dt.int16, dt.int32, dt.int64}


@_elementwise("Relu", types=_RELU_TYPES, widen=False)
def relu():
    """max(x, 0)."""

    def fn(x, out=None):
        # A zero of x's own dtype: a Python 0 costs a scalar conversion on every call.
        return maximum_scalar(x, _ZEROS[x.dtype], out)

    return fn


_ZEROS = {d: np.zeros((), d) for d in _RELU_TYPES}


@register_gradient("Relu")
def _relu_grad(node, g):
    # the output's positive entries are the input's: reading the output lets the input change in place later
    return (execute_gradient_op(bound_op("ReluGrad"), g, node.output(0)),)


_UINT_OF_SIZE = {2: np.uint16, 4: np.uint32, 8: np.uint64}


@defop("ReluGrad", inputs="dY:T X:T", outputs="dX:T", types={"T": dt.FLOATS}, infer=same_as_first)
def relu_grad():
    """Relu's backward (engine op): dY where X > 0, else 0 (also where dY is inf or nan, as torch)."""

    def kernel(dy, x, out=None):
        if dy.shape != x.shape:
            raise ShapeError(f"ReluGrad: dY {dy.shape} and X {x.shape} must have the same shape")
        # Where's select: branch-free on the raw bits for all but small arrays (a mask and one AND)
        return copy_out(select(np.asarray(np.greater(x, _ZEROS[x.dtype])), dy, _ZEROS[dy.dtype]), out)

    return kernel


@register_gradient("ReluGrad")
def _relu_grad_grad(node, g):
    # Linear in dY with the same mask; piecewise constant in X (zero almost everywhere).
    return execute("ReluGrad", g, node.inputs[1]), None


@_elementwise("LeakyRelu", attrs={"alpha": Attr("float", 0.01)})
def leaky_relu(alpha):
    """x for x >= 0, alpha * x otherwise."""
    if alpha == 0:
        # Not Relu: the formula's 0 * x is nan at -inf (the maximum below would also make +inf nan).
        def zero_slope(x, out=None):
            t = minimum_scalar(x, 0.0)
            t *= 0.0
            return np.add(maximum_scalar(x, 0.0), t, out=out)

        return zero_slope
    # alpha <= 1: the branch wanted is always the larger of x and alpha*x; alpha > 1: the smaller.
    pick = np.maximum if alpha <= 1 else np.minimum

    def fn(x, out=None):
        return pick(x, x * alpha, out=out)

    return fn


@register_gradient("LeakyRelu")
def _leaky_relu_grad(node, g):
    x = node.inputs[0]
    return (_where(_gt(x, 0), g, _scaled(g, node.attrs["alpha"])),)


def _prelu_infer(attrs, infos):
    x, slope = infos
    if x.shape is not None and slope.shape is not None and None not in x.shape + slope.shape:
        _check_unidirectional(x.shape, slope.shape)
    return [TensorInfo(x.shape, x.dtype)]


def _check_unidirectional(xs, ss):
    ok = len(ss) <= len(xs) and all(s in (1, d) for s, d in zip(ss[::-1], xs[::-1]))
    if not ok:
        raise ShapeError(f"PRelu: slope of shape {ss} is not unidirectionally broadcastable to X of shape {xs}")


@defop("PRelu", inputs="X:T slope:T", outputs="Y:T",
       types={"T": dt.FLOATS | {dt.int32, dt.int64, dt.uint32, dt.uint64}}, infer=_prelu_infer)
def prelu():
    """x for x >= 0, slope * x otherwise (slope broadcast to X's shape)."""
    checked = set()

    def kernel(x, slope, out=None):
        key = (x.shape, slope.shape)
        if key not in checked:
            _check_unidirectional(*key)
            if len(checked) > 256:
                checked.clear()
            checked.add(key)
        neg = x < 0
        if out is None:
            out = x.copy()
        else:
            np.copyto(out, x)
        return np.multiply(out, slope, out=out, where=neg)

    return kernel


@register_gradient("PRelu")
def _prelu_grad(node, g):
    x, slope = node.inputs
    need_x, need_slope = node.needs_input_grad
    pos = _gt(x, 0)
    gx = _where(pos, g, _mul(g, slope)) if need_x else None
    gs = unbroadcast(_where(pos, _k(0, g), _mul(g, x)), slope.array.shape) if need_slope else None
    return gx, gs


@_elementwise("ThresholdedRelu", attrs={"alpha": Attr("float", 1.0)})
def thresholded_relu(alpha):
    """x for x > alpha, 0 otherwise."""

    def fn(x, out=None):
        return np.where(x > alpha, x, 0)

    return fn


@register_gradient("ThresholdedRelu")
def _thresholded_relu_grad(node, g):
    return (_where(_gt(node.inputs[0], node.attrs["alpha"]), g, _k(0, g)),)


# --- exponential units -------------------------------------------------------------------

def _exp_unit(x, out, scale, inner, outer):
    """``outer * max(x, 0) + scale * expm1(inner * min(x, 0))`` without branches."""
    t = minimum_scalar(x, 0)
    if inner != 1:
        t *= inner
    np.expm1(t, out=t)
    if scale != 1:
        t *= scale
    p = maximum_scalar(x, 0)
    if outer != 1:
        p *= outer
    return np.add(p, t, out=out)


def _exp_unit_grad(x, g, scale, inner, outer):
    """Gradient of :func:`_exp_unit`: ``outer`` for x > 0, ``scale * inner * exp(inner * x)`` otherwise."""
    pos = _gt(x, 0)
    # Exp sees min(x, 0) only: an overflow in the unselected branch would be 0 * inf = nan at second order.
    e = execute("Exp", _scaled(_where(pos, _k(0, x), x), inner))
    return _where(pos, _scaled(g, outer), _mul(g, _scaled(e, scale * inner)))


@_elementwise("Elu", attrs={"alpha": Attr("float", 1.0)})
def elu(alpha):
    """x for x >= 0, alpha * (exp(x) - 1) otherwise."""

    def fn(x, out=None):
        return _exp_unit(x, out, alpha, 1, 1)

    return fn


@register_gradient("Elu")
def _elu_grad(node, g):
    return (_exp_unit_grad(node.inputs[0], g, node.attrs["alpha"], 1, 1),)


@_elementwise("Selu", attrs={"alpha": Attr("float", 1.67326319217681884765625),
                             "gamma": Attr("float", 1.05070102214813232421875)})
def selu(alpha, gamma):
    """gamma * x for x > 0, gamma * alpha * (exp(x) - 1) otherwise."""
    scale = alpha * gamma

    def fn(x, out=None):
        return _exp_unit(x, out, scale, 1, gamma)

    return fn


@register_gradient("Selu")
def _selu_grad(node, g):
    alpha, gamma = node.attrs["alpha"], node.attrs["gamma"]
    return (_exp_unit_grad(node.inputs[0], g, alpha * gamma, 1, gamma),)


@_elementwise("Celu", attrs={"alpha": Attr("float", 1.0, check=lambda a: None if a != 0 else "must be nonzero")})
def celu(alpha):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    inv = 1.0 / alpha

    # For either sign of alpha, min(0, alpha*expm1(x/alpha)) == alpha*expm1(min(x, 0)/alpha).
    def fn(x, out=None):
        return _exp_unit(x, out, alpha, inv, 1)

    return fn


@register_gradient("Celu")
def _celu_grad(node, g):
    alpha = node.attrs["alpha"]
    return (_exp_unit_grad(node.inputs[0], g, alpha, 1.0 / alpha, 1),)


# --- smooth gates ------------------------------------------------------------------------

def _complex_sigmoid(z, out=None):
    """1 / (1 + exp(-z)) for complex ``z`` (not ONNX; torch's formula, poles included)."""
    d = np.exp(np.negative(z))
    d += 1
    return np.reciprocal(d, out=d if out is None else out)


@_elementwise("Sigmoid", types=dt.FLOATS | dt.COMPLEX)
def sigmoid():
    """1 / (1 + exp(-x)), stable for large |x| (complex input: the plain formula)."""

    def fn(x, out=None):
        return _complex_sigmoid(x, out) if x.dtype.kind == "c" else _sigmoid(x, out)

    return fn


def _sigmoid_slope(s):
    """s * (1 - s) for s = sigmoid(x): the derivative, in engine ops."""
    return _mul(s, execute("Sub", _k(1, s), s))


@register_gradient("Sigmoid")
def _sigmoid_grad(node, g):
    return (_mul(g, conj(_sigmoid_slope(node.output(0)))),)


@_elementwise("HardSigmoid", attrs={"alpha": Attr("float", 0.2), "beta": Attr("float", 0.5)})
def hard_sigmoid(alpha, beta):
    """max(0, min(1, alpha * x + beta))."""

    def fn(x, out=None):
        y = np.multiply(x, alpha, out=out)
        y += beta
        maximum_scalar(y, 0.0, y)
        return minimum_scalar(y, 1.0, y)

    return fn


@register_gradient("HardSigmoid")
def _hard_sigmoid_grad(node, g):
    x, alpha = node.inputs[0], node.attrs["alpha"]
    t = _add(_scaled(x, alpha), _k(node.attrs["beta"], x))
    inside = execute("And", _gt(t, 0), _lt(t, 1))  # strictly inside the linear piece, as PyTorch
    return (_where(inside, _scaled(g, alpha), _k(0, g)),)


@_elementwise("HardSwish")
def hard_swish():
    """x * max(0, min(1, x / 6 + 1 / 2))."""

    def fn(x, out=None):
        g = x * (1.0 / 6.0)
        g += 0.5
        maximum_scalar(g, 0.0, g)
        minimum_scalar(g, 1.0, g)
        return np.multiply(x, g, out=out)  # -inf * 0 = nan at -inf, as the formula

    return fn


@register_gradient("HardSwish")
def _hard_swish_grad(node, g):
    x = node.inputs[0]
    middle = _mul(g, _add(_scaled(x, 1.0 / 3.0), _k(0.5, x)))  # d/dx x * (x / 6 + 1 / 2)
    # PyTorch's values at the kinks: 0 at -3, 1 at 3.
    return (_where(_gt(x, -3), _where(_lt(x, 3), middle, g), _k(0, g)),)


@_elementwise("Softplus")
def softplus():
    """log(1 + exp(x)), stable for large |x|."""

    def fn(x, out=None):
        # max(x, 0) + log(1 + exp(-|x|)): np.logaddexp's formula, in whole-array passes (its own
        # loop is about ten times slower).
        t = np.abs(x)
        np.negative(t, out=t)
        np.exp(t, out=t)
        np.log1p(t, out=t)
        return np.add(maximum_scalar(x, 0.0), t, out=out)

    return fn


@register_gradient("Softplus")
def _softplus_grad(node, g):
    return (_mul(g, execute("Sigmoid", node.inputs[0])),)


@_elementwise("Softsign")
def softsign():
    """x / (1 + |x|)."""

    def fn(x, out=None):
        d = np.abs(x)
        d += 1.0  # cannot overflow: 1 is below half an ulp of any float near the maximum
        return np.divide(x, d, out=out)  # inf / inf = nan at +-inf, as the formula

    return fn


@register_gradient("Softsign")
def _softsign_grad(node, g):
    x = node.inputs[0]
    d = _add(execute("Abs", x), _k(1, x))
    return (execute("Div", g, _mul(d, d)),)


@_elementwise("Mish")
def mish():
    """x * tanh(softplus(x))."""

    def fn(x, out=None):
        t = np.logaddexp(x, 0.0)  # softplus without overflow
        np.tanh(t, out=t)
        return np.multiply(x, t, out=out)  # -inf * 0 = nan at -inf, as the formula

    return fn


@register_gradient("Mish")
def _mish_grad(node, g):
    x = node.inputs[0]
    t = execute("Tanh", execute("Softplus", x))
    # d/dx x * tanh(softplus(x)) = t + x * sigmoid(x) * (1 - t**2)
    dt_dx = _mul(execute("Sigmoid", x), execute("Sub", _k(1, t), _mul(t, t)))
    return (_mul(g, _add(t, _mul(x, dt_dx))),)


_SQRT_HALF = math.sqrt(0.5)
_TANH_K = 2.0 * math.sqrt(2.0 / math.pi)


@defop("Gelu", inputs="X:T", outputs="Y:T", types={"T": dt.FLOATS},
       attrs={"approximate": Attr("string", "none", choices=("none", "tanh"))}, infer=same_as_first)
def gelu(approximate):
    """x * Phi(x) (Phi the standard normal CDF), or its tanh approximation."""
    if approximate == "tanh":
        def tanh_gelu(x, out=None):
            z = np.maximum(x, -_GATE_CLAMP)
            np.minimum(z, _GATE_CLAMP, out=z)
            w = z * z
            w *= 0.044715
            w += 1.0
            w *= z
            w *= _TANH_K
            # 0.5 * (1 + tanh(u)) == sigmoid(2u): no cancellation in the left tail.
            s = _sigmoid(w, out=w)
            return np.multiply(x, s, out=out)  # -inf * 0 = nan at -inf, as the formula

        return _widened(tanh_gelu)

    def exact_gelu(x, out=None):
        # 2 * Phi(x) = erfc(-x / sqrt 2): no 1 + erf cancellation for x < 0.  float64 memory of our
        # own (float32's precision for float32 and narrower x), so the products round only once.
        p = erfc_scaled(x, -_SQRT_HALF)
        p *= 0.5
        np.multiply(p, x, out=p)  # -inf * 0 = nan at -inf, as the formula
        if out is not None:
            np.copyto(out, p, casting="unsafe")
            return out
        return p.astype(x.dtype, copy=False)

    return exact_gelu


@register_gradient("Gelu")
def _gelu_grad(node, g):
    x = node.inputs[0]
    if node.attrs["approximate"] == "none":
        return (execute("GeluGrad", g, x),)  # g * (Phi(x) + x * phi(x)), one kernel
    # x * s(u), u = K * x * (1 + c * x**2), s = sigmoid: s + x * s * (1 - s) * du/dx.  Half types
    # work in float32 (as the kernel), where x**2 cannot overflow.
    half = x.array.dtype.itemsize == 2
    xw = execute("Cast", x, to=_F32) if half else x
    x2 = _mul(xw, xw)
    s = execute("Sigmoid", _scaled(_mul(xw, _add(_scaled(x2, 0.044715), _k(1, xw))), _TANH_K))
    du = _add(_scaled(x2, 3 * 0.044715 * _TANH_K), _k(_TANH_K, xw))
    d = _mul(s, _add(_k(1, xw), _mul(_mul(xw, execute("Sub", _k(1, s), s)), du)))
    return (_mul(g, execute("Cast", d, to=x.array.dtype) if half else d),)


# --- Shrink ------------------------------------------------------------------------------

@defop("Shrink", inputs="input:T", outputs="output:T", types={"T": dt.NUMERIC - {dt.bfloat16}},
       attrs={"bias": Attr("float", 0.0), "lambd": Attr("float", 0.5)}, infer=same_as_first)
def shrink(bias, lambd):
    """x - bias for x > lambd, x + bias for x < -lambd, 0 otherwise."""
    # Integer inputs with an integral bias: compare against integer bounds and shift in the
    # input's own (wrapping) arithmetic, so int64 values beyond 2**53 stay exact.
    exact_int = float(bias).is_integer() and abs(lambd) < 2.0**62
    if exact_int:
        hi, lo = math.floor(lambd), math.ceil(-lambd)
    shifts = {}

    def int_bias(dtype):
        b = shifts.get(dtype)
        if b is None:
            bits = 8 * dtype.itemsize
            wrapped = int(bias) % (1 << bits)
            if dtype.kind == "i" and wrapped >= 1 << (bits - 1):
                wrapped -= 1 << bits
            b = shifts[dtype] = np.asarray(wrapped, dtype)
        return b

    def shrink_float(x, out=None):
        pos = x > lambd
        neg = x < -lambd
        y = np.zeros_like(x)
        np.subtract(x, bias, out=y, where=pos)
        np.add(x, bias, out=y, where=neg)  # last: ONNX's x < -lambd rule comes first
        return y

    float_kernel = _widened(shrink_float)

    def kernel(x, out=None):
        if x.dtype.kind == "f":
            return float_kernel(x, out)
        y = np.zeros_like(x)
        if exact_int:
            b = int_bias(x.dtype)
            np.subtract(x, b, out=y, where=x > hi)
            np.add(x, b, out=y, where=x < lo)
        else:  # fractional bias: float64 arithmetic, truncated back like a Cast
            np.subtract(x, bias, out=y, where=x > lambd, casting="unsafe")
            np.add(x, bias, out=y, where=x < -lambd, casting="unsafe")
        return y

    return kernel


@register_gradient("Shrink")
def _shrink_grad(node, g):
    x, lambd = node.inputs[0], node.attrs["lambd"]
    return (_where(execute("Or", _gt(x, lambd), _lt(x, -lambd)), g, _k(0, g)),)


from vfw.core.ops import softmax  # noqa: E402,F401  (Softmax, LogSoftmax, Hardmax)
