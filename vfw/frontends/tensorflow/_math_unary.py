"""Unary elementwise functions of tf.math: abs ... tanh, the special functions, is_nan/is_inf/is_finite,
rounding, real/imag/conj/angle of real tensors, ``tf.bitwise.invert`` and ``logical_not``.

Each function checks TF's dtype rules for its raw op, then calls the engine kernel directly when
nothing records.  Gradients are TF's: the rounding functions have none (a tape gives None),
``digamma``/``lgamma`` take TF's value at the poles (NaN at 0), the composed functions
(``rsqrt``, ``log_sigmoid``, ``ndtri``...) differentiate through their engine ops.
"""

import math

import ml_dtypes
import numpy as np

from vfw.core.graph.trace import _active as _tracing
from vfw.frontends.tensorflow import _dispatch, _dtypes
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, op, wrap
from vfw.frontends.tensorflow._math_binary import raw_div_no_nan
from vfw.frontends.tensorflow._op_support import (
    BOOL,
    FLOATS,
    INTEGERS,
    OpTypes,
    detached,
    of_dtype,
    scalar_like,
    with_gradient,
)
from vfw.frontends.tensorflow._tensor import Tensor


def _public(fn, name, doc):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def unary(name, tf_op, allowed, engine_op=None, kernels=None, fast=None, compose=None, differentiable=True,
          doc=None):
    """A unary tf function over raw op ``tf_op``.

    ``engine_op`` computes it (its kernel is called directly when nothing records), or ``compose(x)``
    builds it from engine ops (``fast(array)`` then gives the same values on the hot path).  TF defines
    no gradient for ``differentiable=False`` functions: their input is cut from tapes.
    """
    types = OpTypes(tf_op, allowed, kernels)
    kernel_types = types.kernels
    bound = op(engine_op) if engine_op is not None else None
    if fast is None and bound is not None:
        fast = bound.kernel

    def fn(x, name=None):
        if x.__class__ is not Tensor:
            x = convert_to_tensor(x)
        a = x.array
        if a.dtype not in kernel_types:
            raise types.error(a.dtype)
        if fast is not None and not (_tracing or x.requires_grad):
            result = fast(a)
            if _dispatch.numerics_hook is not None:
                _dispatch.numerics_hook(tf_op, (x,), result, False)
            return wrap(result)
        if not differentiable:
            x = detached(x)
        return compose(x) if compose is not None else call(bound, x, tf_op=tf_op)

    return _public(fn, name, doc or f"Elementwise ``{name}``.")


_FLOAT_OPS = {
    "exp": "Exp", "expm1": "Expm1", "log": "Log", "log1p": "Log1p", "sqrt": "Sqrt", "sin": "Sin", "cos": "Cos",
    "tan": "Tan", "asin": "Asin", "acos": "Acos", "atan": "Atan", "sinh": "Sinh", "cosh": "Cosh", "tanh": "Tanh",
    "asinh": "Asinh", "acosh": "Acosh", "atanh": "Atanh", "sigmoid": "Sigmoid", "softsign": "Softsign",
    "erfc": "Erfc", "floor": "Floor", "ceil": "Ceil",
}
_TF_NAMES = {"log1p": "Log1p", "expm1": "Expm1"}  # the others are the capitalized engine names
_STEP_FUNCTIONS = ("floor", "ceil")  # no gradient in TF
# Those whose engine op also computes complex values (with TF's conjugated gradients), as TF's kernels do.
_COMPLEX_TOO = ("exp", "expm1", "log", "log1p", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
                "tanh", "asinh", "acosh", "atanh", "sigmoid")

_functions = {name: unary(name, _TF_NAMES.get(name, engine_op), "F C" if name in _COMPLEX_TOO else "F", engine_op,
                          differentiable=name not in _STEP_FUNCTIONS)
              for name, engine_op in _FLOAT_OPS.items()}
globals().update(_functions)

abs = unary("abs", "Abs", "F I", "Abs", doc="Elementwise absolute value.")  # noqa: A001  (tf.abs)
negative = unary("negative", "Neg", "F I C", "Neg", doc="Elementwise ``-x``.")
sign = unary("sign", "Sign", "F I C", "Sign", doc="Elementwise sign: -1, 0 or 1 (NaN for NaN).")
reciprocal = unary("reciprocal", "Reciprocal", "F I C", "Reciprocal", kernels="F C", doc="Elementwise ``1 / x``.")
square = unary("square", "Square", "F I U C", fast=np.square, compose=lambda x: call("Mul", x, x, tf_op="Square"),
               doc="Elementwise ``x * x``.")
rsqrt = unary("rsqrt", "Rsqrt", "F C", fast=lambda a: np.reciprocal(np.sqrt(a)),
              compose=lambda x: call("Reciprocal", call("Sqrt", x)), doc="Elementwise ``1 / sqrt(x)``.")
rint = unary("rint", "Rint", "F", "Round", kernels="float32 float64", differentiable=False,
             doc="Elementwise rounding to the nearest integer, halves to even.")
log_sigmoid = unary("log_sigmoid", "Softplus", "F",
                    compose=lambda x: call("Neg", call("Softplus", call("Neg", x))),
                    doc="Elementwise ``log(sigmoid(x)) = -softplus(-x)``.")
erfinv = unary("erfinv", "Erfinv", "F", "Erfinv", kernels="float32 float64", doc="Inverse error function.")
is_nan = unary("is_nan", "IsNan", "F", "IsNaN", doc="Elementwise ``x != x``: True where ``x`` is NaN.")
is_inf = unary("is_inf", "IsInf", "F", "IsInf", doc="True where ``x`` is +inf or -inf.")
is_finite = unary("is_finite", "IsFinite", "F", fast=np.isfinite,
                  compose=lambda x: call("Not", call("Or", call("IsNaN", x), call("IsInf", x))),
                  doc="True where ``x`` is neither infinite nor NaN.")


_F64 = np.dtype(np.float64)
_erf_kernel = op("Erf").kernel


def _erf_values(a):
    values = _erf_kernel(a)
    return np.where(np.isinf(a), np.nan, values) if a.dtype == _F64 else values  # TF's double kernel: NaN at +-inf


def _erf(x):
    values = call("Erf", x)
    if x.array.dtype != _F64:
        return values
    return call("Where", call("IsInf", x), scalar_like(np.nan, x), values)


erf = unary("erf", "Erf", "F", fast=_erf_values, compose=_erf, doc="Elementwise error function.")

# TF's softplus kernel returns x above -(log(eps) + 2) and exp(x) below log(eps) + 2 (eps of the dtype);
# only in half precision does that differ from rounding log1p(exp(x)) (the gradient stays sigmoid's
# elsewhere, TF's).
_softplus_kernel = op("Softplus").kernel
_SOFTPLUS_CUTS = {np.dtype(d): math.log(float(ml_dtypes.finfo(d).eps)) + 2.0 for d in (np.float16, ml_dtypes.bfloat16)}


def _softplus_values(a):
    values = _softplus_kernel(a)
    cut = _SOFTPLUS_CUTS.get(a.dtype)
    if cut is None:
        return values
    tails = np.where(a < cut, np.exp(a.astype(np.float32)).astype(a.dtype), values)
    return np.where(a > -cut, a, tails)


def _softplus(x):
    values = call("Softplus", x)
    cut = _SOFTPLUS_CUTS.get(x.array.dtype)
    if cut is None:
        return values
    tails = call("Where", call("Less", x, scalar_like(cut, x)), call("Exp", x), values)
    return call("Where", call("Greater", x, scalar_like(-cut, x)), x, tails)


softplus = unary("softplus", "Softplus", "F", fast=_softplus_values, compose=_softplus,
                 doc="Elementwise ``log(1 + exp(x))`` (TF's kernel, half-precision cut-offs included).")


def _ndtri(x):
    # The standard normal quantile: sqrt(2) * erfinv(2p - 1).
    two_p = call("Mul", x, scalar_like(2, x))
    return call("Mul", call("Erfinv", call("Sub", two_p, scalar_like(1, x))), scalar_like(math.sqrt(2.0), x))


ndtri = unary("ndtri", "Ndtri", "F", kernels="float32 float64", compose=_ndtri,
              doc="Inverse of the standard normal CDF.")


def erfcinv(x, name=None):
    """Inverse of the complementary error function, ``-ndtri(x / 2) / sqrt(2)``."""
    x = convert_to_tensor(x)
    if x.array.dtype not in FLOATS:
        convert_to_tensor(0.5, _dtypes.of_array(x.array))  # TF's TypeError: it scales x by 0.5 first
    return call("Mul", call("Neg", ndtri(call("Mul", x, scalar_like(0.5, x)))), scalar_like(math.sqrt(0.5), x))


# -- gamma functions: TF's digamma is NaN at 0 (the engine's is -+inf, the one-sided limits) -----------
def _digamma_values(x):
    return call("Where", call("Equal", x, scalar_like(0, x)), scalar_like(np.nan, x), call("Digamma", x))


def _digamma(x):
    return with_gradient(_digamma_values, lambda g, x: (call("Mul", g, call("Polygamma", x, n=1)),), x)


def _lgamma(x):
    return with_gradient(lambda x: call("Lgamma", x), lambda g, x: (call("Mul", g, _digamma(x)),), x)


digamma = unary("digamma", "Digamma", "F", kernels="float16 float32 float64", compose=_digamma,
                doc="Elementwise digamma ``d/dx lgamma(x)`` (NaN at 0 and the negative integers).")
lgamma = unary("lgamma", "Lgamma", "F", kernels="float16 float32 float64", compose=_lgamma,
               doc="Elementwise ``log|Gamma(x)|``.")


# -- rounding: integers pass through -------------------------------------------------------------
_round_floats = unary("round", "Round", "F I", "Round", kernels="F int32 int64", differentiable=False)


def round(x, name=None):  # noqa: A001  (tf.round)
    """Elementwise rounding to the nearest integer, halves to even; integer tensors are returned as they are."""
    x = convert_to_tensor(x)
    if x.array.dtype in INTEGERS:
        return x
    return _round_floats(x)


# -- complex parts of real tensors ---------------------------------------------------------------
def _real_numeric(x, fn):
    x = convert_to_tensor(x)
    if x.array.dtype not in FLOATS and x.array.dtype not in INTEGERS:
        raise TypeError(f"{fn}: expected a numeric tensor, got {_dtypes.of_array(x.array)!r}")
    return x


def real(input, name=None):  # noqa: A002  (TF's argument name)
    """The real part: a real tensor itself."""
    return _real_numeric(input, "real")


def conj(x, name=None):
    """The complex conjugate: a real tensor itself."""
    return _real_numeric(x, "conj")


def imag(input, name=None):  # noqa: A002
    """The imaginary part: zeros for a real (or bool) tensor (no gradient, as TF)."""
    return wrap(np.zeros_like(convert_to_tensor(input).array))  # depends on the shape alone: a constant in traces


def angle(input, name=None):  # noqa: A002
    """The argument of a real tensor: pi where it is negative, else 0 (no gradient, as TF)."""
    x = convert_to_tensor(input)
    if x.array.dtype not in FLOATS:
        raise TypeError(f"angle: expected a float tensor for a real input, got {_dtypes.of_array(x.array)!r}")
    x = detached(x)
    return call("Where", call("Less", x, scalar_like(0, x)), scalar_like(np.pi, x), scalar_like(0, x))


def reciprocal_no_nan(x, name=None):
    """Elementwise ``1 / x``, 0 where ``x`` is 0."""
    x = convert_to_tensor(x)
    return raw_div_no_nan(convert_to_tensor(1, _dtypes.of_array(x.array)), x)


# -- logical and bitwise NOT ---------------------------------------------------------------------
def logical_not(x, name=None):
    """Elementwise NOT of a bool tensor."""
    (x,) = of_dtype("LogicalNot", [x], BOOL)
    return call("Not", x, tf_op="LogicalNot")


invert = unary("invert", "Invert", "I U", "BitwiseNot", doc="Elementwise bitwise NOT of an integer tensor.")


NAMESPACES = {
    "tf": ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp", "floor", "negative",
           "round", "sigmoid", "sign", "sin", "sinh", "sqrt", "square", "tan", "tanh", "logical_not"],
    "math": ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "digamma", "erf",
             "erfc", "erfcinv", "erfinv", "exp", "expm1", "floor", "is_finite", "is_inf", "is_nan", "lgamma", "log",
             "log1p", "log_sigmoid", "ndtri", "negative", "reciprocal", "reciprocal_no_nan", "rint", "round",
             "rsqrt", "sigmoid", "sign", "sin", "sinh", "softplus", "softsign", "sqrt", "square", "tan", "tanh",
             "real", "imag", "conj", "angle", "logical_not"],
    "bitwise": ["invert"],
}
TENSOR_METHODS = {}
