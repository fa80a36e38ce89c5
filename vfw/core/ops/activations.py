"""Activations: Relu, LeakyRelu, PRelu, Elu, Selu, Celu, Gelu, Sigmoid, HardSigmoid, HardSwish,
Softplus, Softsign, Mish, ThresholdedRelu, Shrink, Softmax, LogSoftmax, Hardmax.

float16 and bfloat16 inputs of the transcendental ops are computed in float32
and rounded once at the end (what the frameworks' half kernels do; numpy's
bfloat16 arithmetic with Python scalars would also promote to float32).

Numerics: on finite input no kernel overflows internally; only results beyond
the type's range do (LeakyRelu with alpha > 1, Selu, Celu with alpha < 0, at
the largest floats).  Sigmoid and Softplus never overflow; Gelu evaluates its
gate on x clamped to +-1e4, where the gate is already exactly 0 or 1.

Infinite inputs follow ONNX's formulas in IEEE arithmetic, as ONNX's reference
evaluator and PyTorch do, even where the function has a finite limit: Mish,
Gelu, HardSwish and LeakyRelu with alpha=0 give nan at -inf (``-inf * 0``),
Softsign gives nan at both infinities (``inf / inf``).  NaN propagates
everywhere except ThresholdedRelu and Shrink, whose comparisons send it to 0
as ONNX's formulas do.

Kernels only write ``out`` with elementwise ufunc passes after every read of
the input that the pass does not itself make, so ``out`` may alias the input.
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.errors import ShapeError
from vfw.core.ops._common import normalize_axis, require, same_as_first
from vfw.core.ops._special import erfc
from vfw.core.registry import Attr, TensorInfo, defop

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)

# Beyond +-this, Gelu's gate is exactly 0 or 1 in float64 (and in every narrower type);
# evaluating the gate on x clamped there bounds x**3 and the erfc argument.
_GATE_CLAMP = 1e4


def _scalar_safe(fn):
    """Run ``fn(x, out)`` on 0-d input as shape (1,): numpy ufuncs turn 0-d results into scalars,
    which the in-place steps of the kernels cannot write into."""

    def kernel(x, out=None):
        if x.ndim:
            return fn(x, out)
        y = fn(x.reshape(1), None if out is None else out.reshape(1))
        return y.reshape(()) if out is None else out

    return kernel


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
    neg = x < 0
    e = np.copysign(x, -1.0)
    np.exp(e, out=e)  # exp(-|x|) in (0, 1]
    d = np.add(e, 1.0, out=out)
    np.divide(1.0, d, out=d)  # 1 / (1 + exp(-|x|)): sigmoid(|x|)
    np.multiply(d, e, out=d, where=neg)  # exp(x) / (1 + exp(x)) for x < 0
    return d


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
        return np.maximum(x, 0, out=out)

    return fn


@_elementwise("LeakyRelu", attrs={"alpha": Attr("float", 0.01)})
def leaky_relu(alpha):
    """x for x >= 0, alpha * x otherwise."""
    if alpha == 0:
        # Not Relu: the formula's 0 * x is nan at -inf (the maximum below would also make +inf nan).
        def zero_slope(x, out=None):
            t = np.minimum(x, 0.0)
            t *= 0.0
            return np.add(np.maximum(x, 0.0), t, out=out)

        return zero_slope
    # alpha <= 1: the branch wanted is always the larger of x and alpha*x; alpha > 1: the smaller.
    pick = np.maximum if alpha <= 1 else np.minimum

    def fn(x, out=None):
        return pick(x, x * alpha, out=out)

    return fn


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


@_elementwise("ThresholdedRelu", attrs={"alpha": Attr("float", 1.0)})
def thresholded_relu(alpha):
    """x for x > alpha, 0 otherwise."""

    def fn(x, out=None):
        return np.where(x > alpha, x, 0)

    return fn


# --- exponential units -------------------------------------------------------------------

def _exp_unit(x, out, scale, inner, outer):
    """``outer * max(x, 0) + scale * expm1(inner * min(x, 0))`` without branches."""
    t = np.minimum(x, 0)
    if inner != 1:
        t *= inner
    np.expm1(t, out=t)
    if scale != 1:
        t *= scale
    p = np.maximum(x, 0)
    if outer != 1:
        p *= outer
    return np.add(p, t, out=out)


@_elementwise("Elu", attrs={"alpha": Attr("float", 1.0)})
def elu(alpha):
    """x for x >= 0, alpha * (exp(x) - 1) otherwise."""

    def fn(x, out=None):
        return _exp_unit(x, out, alpha, 1, 1)

    return fn


@_elementwise("Selu", attrs={"alpha": Attr("float", 1.67326319217681884765625),
                             "gamma": Attr("float", 1.05070102214813232421875)})
def selu(alpha, gamma):
    """gamma * x for x > 0, gamma * alpha * (exp(x) - 1) otherwise."""
    scale = alpha * gamma

    def fn(x, out=None):
        return _exp_unit(x, out, scale, 1, gamma)

    return fn


@_elementwise("Celu", attrs={"alpha": Attr("float", 1.0, check=lambda a: None if a != 0 else "must be nonzero")})
def celu(alpha):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    inv = 1.0 / alpha

    # For either sign of alpha, min(0, alpha*expm1(x/alpha)) == alpha*expm1(min(x, 0)/alpha).
    def fn(x, out=None):
        return _exp_unit(x, out, alpha, inv, 1)

    return fn


# --- smooth gates ------------------------------------------------------------------------

@_elementwise("Sigmoid")
def sigmoid():
    """1 / (1 + exp(-x)), stable for large |x|."""
    return _sigmoid


@_elementwise("HardSigmoid", attrs={"alpha": Attr("float", 0.2), "beta": Attr("float", 0.5)})
def hard_sigmoid(alpha, beta):
    """max(0, min(1, alpha * x + beta))."""

    def fn(x, out=None):
        y = np.multiply(x, alpha, out=out)
        y += beta
        np.maximum(y, 0.0, out=y)  # two ufuncs beat np.clip's Python wrapper on small tensors
        return np.minimum(y, 1.0, out=y)

    return fn


@_elementwise("HardSwish")
def hard_swish():
    """x * max(0, min(1, x / 6 + 1 / 2))."""

    def fn(x, out=None):
        g = x * (1.0 / 6.0)
        g += 0.5
        np.maximum(g, 0.0, out=g)
        np.minimum(g, 1.0, out=g)
        return np.multiply(x, g, out=out)  # -inf * 0 = nan at -inf, as the formula

    return fn


@_elementwise("Softplus")
def softplus():
    """log(1 + exp(x)), stable for large |x|."""

    def fn(x, out=None):
        return np.logaddexp(x, 0.0, out=out)

    return fn


@_elementwise("Softsign")
def softsign():
    """x / (1 + |x|)."""

    def fn(x, out=None):
        d = np.abs(x)
        d += 1.0  # cannot overflow: 1 is below half an ulp of any float near the maximum
        return np.divide(x, d, out=out)  # inf / inf = nan at +-inf, as the formula

    return fn


@_elementwise("Mish")
def mish():
    """x * tanh(softplus(x))."""

    def fn(x, out=None):
        t = np.logaddexp(x, 0.0)  # softplus without overflow
        np.tanh(t, out=t)
        return np.multiply(x, t, out=out)  # -inf * 0 = nan at -inf, as the formula

    return fn


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
        # erfc works in float64 anyway; doing the products there rounds only once.
        p = np.maximum(x, -_GATE_CLAMP, dtype=_F64)
        np.minimum(p, _GATE_CLAMP, out=p)
        p *= -_SQRT_HALF
        p = erfc(p)  # 2 * Phi(x), without the 1 + erf cancellation for x < 0
        p *= 0.5
        # -inf * 0 = nan at -inf, as the formula
        if out is not None:
            return np.multiply(x, p, out=out, casting="unsafe")
        np.multiply(x, p, out=p)
        return p if x.dtype == _F64 else p.astype(x.dtype)

    return _scalar_safe(exact_gelu)


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


# --- softmax family ----------------------------------------------------------------------

def _axis_infer(op_type):
    def infer(attrs, infos):
        shape = infos[0].shape
        if shape is not None:
            require(op_type, len(shape) >= 1, "input must have rank >= 1, got a scalar")
            normalize_axis(op_type, attrs["axis"], len(shape))
        return [TensorInfo(shape, infos[0].dtype)]

    return infer


def _axis_resolver(op_type, axis):
    """Per-rank cache of the normalized axis (kernels see few distinct ranks)."""
    cache = {}

    def resolve(x):
        a = cache.get(x.ndim)
        if a is None:
            require(op_type, x.ndim >= 1, "input must have rank >= 1, got a scalar")
            a = cache[x.ndim] = normalize_axis(op_type, axis, x.ndim)
        return a

    return resolve


# The ufunc reductions themselves: np.max / np.sum add a Python layer per call.
_max = np.maximum.reduce
_sum = np.add.reduce


def _softmax_op(name):
    return defop(name, inputs="input:T", outputs="output:T", types={"T": dt.FLOATS},
                 attrs={"axis": Attr("int", -1)}, infer=_axis_infer(name))


@_softmax_op("Softmax")
def softmax(axis):
    """exp(x) / sum(exp(x)) along axis (max-subtracted)."""
    resolve = _axis_resolver("Softmax", axis)

    def fn(x, out=None):
        a = resolve(x)
        if x.size == 0:
            return np.empty_like(x) if out is None else out
        m = _max(x, axis=a, keepdims=True)
        y = np.subtract(x, m, out=out)
        np.exp(y, out=y)
        s = _sum(y, axis=a, keepdims=True)
        return np.divide(y, s, out=y)

    return _widened(fn, scalars=False)


@_softmax_op("LogSoftmax")
def log_softmax(axis):
    """x - log(sum(exp(x))) along axis (max-subtracted)."""
    resolve = _axis_resolver("LogSoftmax", axis)

    def fn(x, out=None):
        a = resolve(x)
        if x.size == 0:
            return np.empty_like(x) if out is None else out
        m = _max(x, axis=a, keepdims=True)
        y = np.subtract(x, m, out=out)
        s = _sum(np.exp(y), axis=a, keepdims=True)
        np.log(s, out=s)
        return np.subtract(y, s, out=y)

    return _widened(fn, scalars=False)


@_softmax_op("Hardmax")
def hardmax(axis):
    """1 at the first maximum along axis, 0 elsewhere (NaN counts as the maximum)."""
    resolve = _axis_resolver("Hardmax", axis)

    positions = {}

    def kernel(x, out=None):
        a = resolve(x)
        if x.size == 0:
            return np.zeros_like(x) if out is None else out
        first = np.argmax(x, axis=a, keepdims=True)
        # Compare an arange along the axis with the argmax: cheaper than put_along_axis.
        key = (x.ndim, a, x.shape[a])
        at = positions.get(key)
        if at is None:
            if len(positions) > 64:
                positions.clear()
            shape = [1] * x.ndim
            shape[a] = x.shape[a]
            at = positions[key] = np.arange(x.shape[a]).reshape(shape)
        hot = np.equal(at, first)
        if out is None:
            return hot.astype(x.dtype)
        np.copyto(out, hot, casting="unsafe")
        return out

    return kernel
