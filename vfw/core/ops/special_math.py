"""Elementwise math the ONNX set lacks, as frontends need it: Log1p, Expm1, Log2, Log10, Trunc, Erfc,
Erfinv, Lgamma, Digamma, Polygamma, Atan2, Hypot, Copysign, FloorDiv.

None of these is an ONNX operator; they follow the conventions of ``math.py``
and ``arithmetic.py`` (inputs named ``input``/``output`` or ``A B``/``C``,
same-type inputs, multidirectional broadcasting, IEEE results).  numpy ufuncs
compute the simple ones; Erfinv, Lgamma, Digamma and Polygamma are computed
here in float64 (float16, bfloat16 and float32 inputs are rounded once at the
end):

* Lgamma and the polygamma functions raise small arguments past a threshold by
  their recurrences (a short static loop of masked passes) and then sum the
  asymptotic (Stirling) series, whose Bernoulli-number coefficients give about
  full double precision there; negative arguments use the reflection formulas
  with ``sin``/``cot`` of ``pi`` times the distance to the nearest integer.
* Erfinv starts from Winitzki's closed-form approximation (relative error
  ~2e-3) and takes two Halley steps on ``erf(y) = x`` (cubic convergence), with
  the residual written through ``erfc`` near ``|x| = 1`` so it keeps relative
  precision.

Values at poles and edges are PyTorch's: ``lgamma`` is ``+inf`` at 0 and the
negative integers (and at ``+-inf``); ``digamma(+-0)`` is ``-+inf`` and NaN at
the negative integers; ``polygamma(n >= 1)`` takes its limit from the right at
the non-positive integers (``+inf`` for odd ``n``, ``-inf`` for even ``n``).

FloorDiv is Python's ``//`` (numpy's ``floor_divide``: the quotient rounded
toward -inf from the exact remainder, so ``1.0 // 0.1 == 9``); integer division
by zero gives 0, as the engine's Div and Mod do.

Gradients are engine ops: Trunc and FloorDiv have zero gradients (as torch's
``trunc`` and ``div(rounding_mode='floor')``); Lgamma -> Digamma -> Polygamma
(n=1) -> Polygamma (n=2) ..., so every order is available; Copysign passes no
gradient to its sign source (zeros, as torch).
"""

import functools
import math
from fractions import Fraction

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.ops._common import (
    array_of,
    broadcast_infer,
    conj,
    copy_out,
    execute,
    same_as_first,
    scalar,
    ufunc_kernel,
    unbroadcast,
    zeros_like,
)
from vfw.core.ops._special import erf, erfc
from vfw.core.registry import Attr, defop

_F64 = np.dtype(np.float64)


def _unary(name, factory, doc=None, types=dt.FLOATS):
    if doc is not None:
        factory.__doc__ = doc
    defop(name, inputs="input:T", outputs="output:T", types={"T": types}, infer=same_as_first)(factory)


def _binary(name, factory, types=dt.FLOATS, doc=None):
    if doc is not None:
        factory.__doc__ = doc
    defop(name, inputs="A:T B:T", outputs="C:T", types={"T": types}, infer=broadcast_infer)(factory)


def float64_kernel(fn):
    """Kernel computing ``fn`` on broadcast float64 copies of its inputs and rounding to their dtype once."""

    def kernel(*inputs, out=None):
        dtype = inputs[0].dtype
        wide = np.broadcast_arrays(*[np.atleast_1d(x.astype(_F64, copy=False)) for x in inputs])
        y = np.asarray(fn(*wide)).astype(dtype, copy=False)
        shape = np.broadcast_shapes(*[x.shape for x in inputs])
        return copy_out(y.reshape(shape), out)

    return kernel


def define_float64_unaries(functions):
    """Defines one float unary op per ``{op_type: (fn, doc)}`` item, its kernel ``float64_kernel(fn)``."""
    for op_type, (fn, doc) in functions.items():
        _unary(op_type, _float64_factory(fn), doc)


def _float64_factory(fn):
    def factory():
        return float64_kernel(fn)

    return factory


def _nearest_integer_offset(x):
    """``x - round(x)`` in [-0.5, 0.5]: the argument for sin/cot(pi x) without the error of pi * x."""
    return x - np.round(x)


# -- Bernoulli numbers B_2, B_4, ..., B_16 (asymptotic series) ---------------------------------
_BERNOULLI = (Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30), Fraction(5, 66),
              Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510))
_THRESHOLD = 10.0  # the series are summed at arguments >= this (10 + n for polygamma n)
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
# Stirling: lgamma(w) = (w - 1/2) log w - w + log(2 pi)/2 + sum_k B_2k / (2k (2k-1) w^(2k-1))
_LGAMMA_SERIES = tuple(float(b / (2 * k * (2 * k - 1))) for k, b in enumerate(_BERNOULLI, 1))
# digamma(w) = log w - 1/(2w) - sum_k B_2k / (2k w^2k)
_DIGAMMA_SERIES = tuple(float(b / (2 * k)) for k, b in enumerate(_BERNOULLI, 1))


def _horner(u, coefficients):
    """``sum_k coefficients[k] * u**k``."""
    total = np.full_like(u, coefficients[-1])
    for c in reversed(coefficients[:-1]):
        total *= u
        total += c
    return total


def _raise_past(w, threshold, step):
    """Add 1 to the elements of ``w`` below ``threshold`` until none is, calling ``step(w, mask)`` first
    each time (at most ``threshold + 1`` passes, each over the whole array)."""
    for _ in range(int(threshold) + 2):
        small = w < threshold
        if not small.any():
            break
        step(w, small)
        np.add(w, small, out=w)


def _lgamma(x):
    """log|Gamma(x)| of a float64 array."""
    neg = x < 0
    w = np.where(neg, 1.0 - x, x)  # reflection: lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x)
    prod = np.ones_like(w)
    _raise_past(w, _THRESHOLD, lambda w, small: np.multiply(prod, w, out=prod, where=small))
    u = 1.0 / (w * w)
    result = (w - 0.5) * np.log(w) - w + _HALF_LOG_2PI + _horner(u, _LGAMMA_SERIES) / w
    result -= np.log(np.abs(prod))  # Gamma(z) = Gamma(w) / (z (z+1) ... (w-1))
    if neg.any():
        sin = np.abs(np.sin(np.pi * _nearest_integer_offset(x)))
        result = np.where(neg, np.log(np.pi / sin) - result, result)
    result[np.isinf(x)] = np.inf
    result[(x == 1.0) | (x == 2.0)] = 0.0  # exact zeros, where the series sum cancels to ~1e-15
    return result


@functools.cache
def _polygamma_series(n):
    """Coefficients for polygamma ``n >= 1`` at large w: ``(-1)^(n+1) [(n-1)!/w^n + n!/(2 w^(n+1))
    + w^-n sum_k c_k u^k]`` with ``u = 1/w^2``, ``c_k = B_2k (2k+n-1)! / (2k)!``."""
    return tuple(float(b * Fraction(math.factorial(2 * k + n - 1), math.factorial(2 * k)))
                 for k, b in enumerate(_BERNOULLI, 1))


@functools.cache
def _cot_derivative(n):
    """Coefficients (lowest power first) of P_n with d^n/dx^n cot(pi x) = pi^n P_n(cot(pi x))."""
    p = [0, 1]
    for _ in range(n):  # a static loop over the order (polynomial algebra on Python ints)
        dp = [k * p[k] for k in range(1, len(p))] or [0]
        # -(1 + c^2) * P'(c)
        q = [0] * (len(dp) + 2)
        for k, v in enumerate(dp):
            q[k] -= v
            q[k + 2] -= v
        p = q
    return tuple(p)


def _polygamma_positive(x, n):
    """polygamma(n, x) for float64 ``x >= 0`` (n >= 0); NaN passes through."""
    w = x.copy()
    acc = np.zeros_like(w)
    threshold = _THRESHOLD + n
    if n == 0:
        def step(w, small):
            np.subtract(acc, 1.0 / w, out=acc, where=small)

        _raise_past(w, threshold, step)
        u = 1.0 / (w * w)
        return acc + np.log(w) - 0.5 / w - u * _horner(u, _DIGAMMA_SERIES)
    # psi^(n)(x) = psi^(n)(x + 1) + (-1)^(n+1) n! / x^(n+1)
    sign = -1.0 if n % 2 == 0 else 1.0
    factorial = float(math.factorial(n))

    def step(w, small):
        np.add(acc, 1.0 / w ** (n + 1), out=acc, where=small)

    _raise_past(w, threshold, step)
    u = 1.0 / (w * w)
    tail = (math.factorial(n - 1) + factorial * 0.5 / w + u * _horner(u, _polygamma_series(n))) / w ** n
    return sign * (factorial * acc + tail)


def _polygamma(x, n):
    """polygamma(n, x) of a float64 array (n = 0 is digamma), with PyTorch's values at the poles."""
    neg = x < 0
    result = _polygamma_positive(np.where(neg, 1.0 - x, x), n)
    if neg.any():
        # Reflection: psi^(n)(x) = (-1)^n psi^(n)(1 - x) - pi^(n+1) P_n(cot(pi x)).
        r = _nearest_integer_offset(x)
        cot = 1.0 / np.tan(np.pi * r)
        coefficients = [math.pi ** (n + 1) * c for c in _cot_derivative(n)]
        reflected = (-result if n % 2 else result) - _horner(cot, coefficients)
        pole = neg & (r == 0)
        result = np.where(neg, reflected, result)
        result[pole] = np.nan if n == 0 else (np.inf if n % 2 else -np.inf)
    zero = x == 0
    if zero.any():
        result[zero] = -np.copysign(np.inf, x[zero]) if n == 0 else (np.inf if n % 2 else -np.inf)
    if n == 0:
        result[x == -np.inf] = np.nan
    return result


_WINITZKI_A = 0.147
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _erfinv(x):
    """Inverse error function of a float64 array (+-inf at +-1, NaN outside [-1, 1])."""
    a = np.abs(x)
    log_term = np.log1p(-a * a)  # log(1 - x^2), exact-ish near 0
    t = 2.0 / (math.pi * _WINITZKI_A) + 0.5 * log_term
    y = np.sqrt(np.sqrt(t * t - log_term / _WINITZKI_A) - t)
    upper = a > 0.5
    one_minus = 1.0 - a  # exact for a >= 0.5 (Sterbenz)
    finite = a < 1.0
    for _ in range(2):
        # f(y) = erf(y) - a, with f' = 2/sqrt(pi) exp(-y^2) and f''/f' = -2y (Halley's step)
        residual = np.where(upper, one_minus - erfc(y), erf(y) - a)
        ratio = residual / (_TWO_OVER_SQRT_PI * np.exp(-y * y))
        y = np.where(finite, y - ratio / (1.0 + y * ratio), y)
    y[a == 1.0] = np.inf
    y[a > 1.0] = np.nan
    return np.copysign(y, x)


# -- the ops ------------------------------------------------------------------------------------
def _complex_log1p(z):
    """``log(1 + z)`` of complex ``z`` in complex128: near 0 from its parts, ``Re = log1p(2x + x^2 + y^2) / 2`` and
    ``Im = atan2(y, 1 + x)`` (numpy's complex log1p takes ``log|1 + z|``, which loses small ``z``); elsewhere
    ``log(1 + z)`` itself (the parts' form cancels near ``z = -1``)."""
    w = z.astype(np.complex128)
    x, y = w.real, w.imag
    near = 0.5 * np.log1p(x * (2.0 + x) + y * y) + 1j * np.arctan2(y, 1.0 + x)
    return np.where(np.abs(w) < 0.5, near, np.log(1.0 + w))


def _log1p_kernel():
    def kernel(x, out=None):
        if x.dtype.kind != "c":
            return np.log1p(x, out=out)
        return copy_out(_complex_log1p(x).astype(x.dtype), out)

    return kernel


# Complex (not ONNX): Log1p, Expm1, Log2 and Log10 also take complex input (the principal branch, as torch).
_unary("Log1p", _log1p_kernel, "log(1 + x), accurate for small x.", dt.FLOATS | dt.COMPLEX)
for _name, _ufunc, _doc in (
    ("Expm1", np.expm1, "exp(x) - 1, accurate for small x."),
    ("Log2", np.log2, "Base-2 logarithm (exact at powers of two)."),
    ("Log10", np.log10, "Base-10 logarithm (exact at powers of ten)."),
):
    _unary(_name, ufunc_kernel(_ufunc), _doc, dt.FLOATS | dt.COMPLEX)
_unary("Trunc", ufunc_kernel(np.trunc), "Round toward zero.")

_unary("Erfc", lambda: lambda x, out=None: copy_out(erfc(x), out),
       "Complementary error function 1 - erf(x), without cancellation (float32's precision for float32 and "
       "narrower inputs, computed in float64).")
_unary("Erfinv", lambda: float64_kernel(_erfinv), "Inverse error function on [-1, 1] (+-inf at +-1, NaN outside).")
_unary("Lgamma", lambda: float64_kernel(_lgamma), "log|Gamma(x)| (+inf at the poles 0, -1, -2, ... and at +-inf).")
_unary("Digamma", lambda: float64_kernel(lambda x: _polygamma(x, 0)),
       "Digamma psi(x) = d/dx lgamma(x) (NaN at the negative integers, -+inf at +-0).")


@defop("Polygamma", inputs="input:T", outputs="output:T", types={"T": dt.FLOATS},
       attrs={"n": Attr("int", 1, check=lambda n: None if n >= 0 else "must be >= 0")}, infer=same_as_first)
def polygamma(n):
    """n-th derivative of digamma (``n = 0`` is digamma itself); poles take their limit from the right."""
    return float64_kernel(lambda x: _polygamma(x, n))




@defop("Atan2", inputs="A:T B:T", outputs="C:T", types={"T": dt.FLOATS}, infer=broadcast_infer,
       attrs={"zero_at_origin": Attr("int", 0)})
def atan2(zero_at_origin):
    """atan2(A, B): the angle of the point (B, A), in [-pi, pi].

    ``zero_at_origin`` only changes the gradient where A^2 + B^2 is 0: 0 (torch's) rather than NaN (TF's).
    """
    return np.arctan2  # the ufunc is the kernel (its ``out=`` takes the buffer)


_binary("Hypot", ufunc_kernel(np.hypot), doc="sqrt(A^2 + B^2) without intermediate overflow.")
_binary("Copysign", ufunc_kernel(np.copysign), doc="|A| with the sign bit of B (-0.0 and NaN signs included).")
_binary("FloorDiv", ufunc_kernel(np.floor_divide), types=dt.NUMERIC,
        doc="A // B rounded toward -inf (Python's floor division); integer division by zero gives 0.")


# -- gradients ----------------------------------------------------------------------------------
def _mul(a, b):
    return execute("Mul", a, b)


def _const(value, like):
    return scalar(value, like.array.dtype)  # .array: frontend tensors name their own dtypes in .dtype


@register_gradient("Log1p")
def _log1p_grad(node, g):
    x = node.inputs[0]
    return (execute("Div", g, conj(execute("Add", x, _const(1, g)))),)


@register_gradient("Expm1")
def _expm1_grad(node, g):
    return (_mul(g, conj(execute("Add", node.output(0), _const(1, g)))),)


@register_gradient("Log2", "Log10")
def _log_base_grad(node, g):
    base = 2.0 if node.op.schema.op_type == "Log2" else 10.0
    return (execute("Div", g, conj(_mul(node.inputs[0], _const(math.log(base), g)))),)


@register_gradient("Trunc", "FloorDiv")
def _zero_grad(node, g):
    # Piecewise constant: zero wherever the derivative exists (torch returns zeros too).
    return tuple(zeros_like(x) if need else None for x, need in zip(node.inputs, node.needs_input_grad))


@register_gradient("Erfc")
def _erfc_grad(node, g):
    x = node.inputs[0]
    density = execute("Exp", execute("Neg", _mul(x, x)))
    return (_mul(g, _mul(density, _const(-_TWO_OVER_SQRT_PI, g))),)


@register_gradient("Erfinv")
def _erfinv_grad(node, g):
    y = node.output(0)
    return (_mul(g, _mul(execute("Exp", _mul(y, y)), _const(math.sqrt(math.pi) / 2, g))),)


@register_gradient("Lgamma")
def _lgamma_grad(node, g):
    return (_mul(g, execute("Digamma", node.inputs[0])),)


@register_gradient("Digamma")
def _digamma_grad(node, g):
    return (_mul(g, execute("Polygamma", node.inputs[0], n=1)),)


@register_gradient("Polygamma")
def _polygamma_grad(node, g):
    return (_mul(g, execute("Polygamma", node.inputs[0], n=node.attrs["n"] + 1)),)


def _pair(node, ga, gb):
    a, b = node.inputs
    need_a, need_b = node.needs_input_grad
    return ((unbroadcast(ga(), a.array.shape) if need_a else None),
            (unbroadcast(gb(), b.array.shape) if need_b else None))


@register_gradient("Atan2")
def _atan2_grad(node, g):
    a, b = node.inputs
    # d/dA atan2(A, B) = B / (A^2 + B^2), d/dB = -A / (A^2 + B^2): NaN where A^2 + B^2 is 0 (the origin, or
    # squares underflowing), unless ``zero_at_origin`` takes the reciprocal there as 0 (torch's rule).
    squares = execute("Add", _mul(a, a), _mul(b, b))
    recip = execute("Reciprocal", squares)
    if node.attrs["zero_at_origin"]:
        zero = scalar(0, array_of(squares).dtype)
        recip = execute("Where", execute("Equal", squares, zero), zero, recip)
    scaled = _mul(g, recip)
    return _pair(node, lambda: _mul(scaled, b), lambda: execute("Neg", _mul(scaled, a)))


@register_gradient("Hypot")
def _hypot_grad(node, g):
    a, b = node.inputs
    scaled = execute("Div", g, node.output(0))  # d/dA = A / hypot, d/dB = B / hypot
    return _pair(node, lambda: _mul(scaled, a), lambda: _mul(scaled, b))


@register_gradient("Copysign")
def _copysign_grad(node, g):
    a, b = node.inputs
    # +-1 where A != 0 (whether the sign flipped), 0 at A == 0; Sign has a zero gradient itself.
    flip = _mul(execute("Sign", a), execute("Sign", node.output(0)))
    ga = unbroadcast(_mul(g, flip), a.array.shape) if node.needs_input_grad[0] else None
    return ga, (zeros_like(b) if node.needs_input_grad[1] else None)
