"""Special and number-theoretic elementwise functions: logaddexp, sinc, i0, mvlgamma, polygamma,
frexp, ldexp, nextafter, gcd, lcm and isin.

Differentiable functions are engine ops (``i0``: BesselI0) or compositions of them (autograd comes
with them); ``nextafter`` is the engine's NextAfter (no gradient); the integer and bool results (gcd,
lcm, isin, frexp's exponent) never carry gradients and are computed with numpy directly.
"""

import math

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import return_types
from vfw.frontends.torch._dispatch import finish, inplace, promoted, result_dtype, to_tensor, wrap
from vfw.frontends.torch._dtype import default_float_np
from vfw.frontends.torch._linalg import run
from vfw.frontends.torch._pointwise import _floating, _op, not_implemented, tensor_arg

__all__ = ["logaddexp", "logaddexp2", "sinc", "sinc_", "i0", "i0_", "mvlgamma", "polygamma", "frexp", "ldexp",
           "ldexp_", "nextafter", "gcd", "gcd_", "lcm", "lcm_", "isin"]

_BOOL = np.dtype(np.bool_)


def _is_float(d):
    return d.kind == "f" or d.name == "bfloat16"


def _c(value, d):
    return np.asarray(value, d)


def _binary_float(name, kernel, input, other):
    """Two tensors promoted to one floating dtype (torch's ``<name>_cpu`` refuses integer dtypes)."""
    tensor_arg(input, name)
    tensor_arg(other, name, "other", 2)
    (a, b), d = promoted(input, other)
    if not _is_float(d):
        raise not_implemented(kernel, d)
    return a, b, d


# -- log-sum-exp pairs -------------------------------------------------------------------------------
def _values(x):
    """``x``'s values without its autograd history (arrays pass through)."""
    return wrap(x.array) if isinstance(x, CoreTensor) else x


def _logaddexp(name, input, other, base_two):
    a, b, d = _binary_float(name, f"{name}_cpu", input, other)
    # The shift is a constant (no gradient: it is computed from the values alone, with engine ops so
    # that graph traces recompute it): d/da = base**(a - result) exactly, ties split evenly.
    m = run(_op("Max"), _values(a), _values(b))
    m = run(_op("Where"), run(_op("IsInf"), m), _c(0, d), m)
    pow_op, log_op = (_op("Pow"), _op("Log2")) if base_two else (None, _op("Log"))

    def power(x):
        shifted = run(_op("Sub"), x, m)
        return run(pow_op, _c(2, d), shifted) if base_two else run(_op("Exp"), shifted)

    total = run(_op("Add"), power(a), power(b))
    return run(_op("Add"), run(log_op, total), m)


def logaddexp(input, other, *, out=None):
    """``log(exp(input) + exp(other))`` without overflow (floating dtypes only)."""
    return finish(_logaddexp("logaddexp", input, other, False), out, "logaddexp")


def logaddexp2(input, other, *, out=None):
    """``log2(2**input + 2**other)`` without overflow (floating dtypes only)."""
    return finish(_logaddexp("logaddexp2", input, other, True), out, "logaddexp2")


# -- sinc, i0 ----------------------------------------------------------------------------------------
def sinc(input, *, out=None):
    """The normalized sinc ``sin(pi x) / (pi x)``, 1 at 0; integer inputs give the default float."""
    x = _floating(input, "sinc")
    d = x.array.dtype
    zero = run(_op("Equal"), x, _c(0, d))
    safe = run(_op("Where"), zero, _c(1, d), x)  # keeps 0/0 out of the value and the gradient
    px = run(_op("Mul"), safe, _c(math.pi, d))
    ratio = run(_op("Div"), run(_op("Sin"), px), px)
    return finish(run(_op("Where"), zero, _c(1, d), ratio), out, "sinc")


def i0(input, *, out=None):
    """The modified Bessel function of the first kind of order 0 (floats; integers give the default float)."""
    return finish(run(_op("BesselI0"), _floating(input, "i0")), out, "i0")


# -- gamma family ------------------------------------------------------------------------------------
def mvlgamma(input, p, *, out=None):
    """The multivariate log-gamma of dimension ``p``: ``sum_i lgamma(x - i/2) + p(p-1)/4 log(pi)``."""
    x = _floating(input, "mvlgamma")
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
        raise TypeError(f"mvlgamma(): argument 'p' (position 2) must be int, not {type(p).__name__}")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    d = x.array.dtype
    total = None
    for i in range(p):
        term = run(_op("Lgamma"), run(_op("Sub"), x, _c(i / 2, d)))
        total = term if total is None else run(_op("Add"), total, term)
    return finish(run(_op("Add"), total, _c(p * (p - 1) / 4 * math.log(math.pi), d)), out, "mvlgamma")


def polygamma(n, input, *, out=None):
    """The ``n``-th derivative of digamma (``n = 0``: digamma); integer inputs give the default float."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    x = _floating(input, "polygamma")
    return finish(run(_op("Polygamma", n=int(n)), x), out, "polygamma")


def _polygamma_method(self, n):
    return polygamma(n, self)


def _polygamma_inplace(self, n):
    return inplace(lambda t: polygamma(n, t), self, name="polygamma_")


# -- floating-point decomposition ---------------------------------------------------------------------
def frexp(input, *, out=None):
    """``(mantissa, exponent)`` with ``input = mantissa * 2**exponent``, ``|mantissa|`` in [0.5, 1)."""
    x = tensor_arg(input, "frexp")
    d = x.array.dtype
    if not _is_float(d):
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    with np.errstate(invalid="ignore", over="ignore"):
        _, exponent = np.frexp(x.array.astype(np.float32) if d.name == "bfloat16" else x.array)
    exponent = exponent.astype(np.int32)
    # The mantissa as x / 2**exponent (exact), so it carries the gradient 1 / 2**exponent as torch's.
    scale = np.ldexp(np.ones((), d if d.name != "bfloat16" else np.float32), exponent).astype(d)
    mantissa = run(_op("Div"), x, scale)
    result = return_types.frexp((mantissa, wrap(exponent)))
    if out is not None:
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError("frexp(): argument 'out' must be tuple of Tensors")
        if out[0].array.dtype != d:
            raise RuntimeError("torch.frexp() expects mantissa to have dtype "
                               f"{out[0].dtype} but got {x.dtype}")
        if out[1].array.dtype != np.int32:
            raise RuntimeError(f"torch.frexp() expects exponent to have int dtype but got {out[1].dtype}")
        return return_types.frexp_out(finish(result, out, "frexp"))
    return result


def ldexp(input, other, *, out=None):
    """``input * 2**other`` (integer results become the default float dtype)."""
    tensor_arg(input, "ldexp")
    tensor_arg(other, "ldexp", "other", 2)
    d = result_dtype(input, other)
    (a, b), d = promoted(input, other, np_dtype=d if _is_float(d) else default_float_np())
    return finish(run(_op("Mul"), a, run(_op("Pow"), _c(2, d), b)), out, "ldexp")


def nextafter(input, other, *, out=None):
    """The next representable float after ``input`` towards ``other`` (no gradient)."""
    a, b, d = _binary_float("nextafter", "nextafter_cpu", input, other)
    return finish(run(_op("NextAfter"), a, b), out, "nextafter")


# -- integers ------------------------------------------------------------------------------------------
def _integer_pair(name, input, other):
    tensor_arg(input, name)
    tensor_arg(other, name, "other", 2)
    (a, b), d = promoted(input, other)
    if d.kind not in "iu":
        raise not_implemented(f"{name}_cpu", d)
    return a.array, b.array, d


def gcd(input, other, *, out=None):
    """The elementwise greatest common divisor (non-negative) of integer tensors."""
    a, b, d = _integer_pair("gcd", input, other)
    return finish(wrap(np.asarray(np.gcd(a, b), d)), out, "gcd")


def lcm(input, other, *, out=None):
    """The elementwise least common multiple (non-negative) of integer tensors."""
    a, b, d = _integer_pair("lcm", input, other)
    with np.errstate(over="ignore"):
        return finish(wrap(np.asarray(np.lcm(a, b), d)), out, "lcm")


def _inplace_of(fn, name):
    def method(self, other):
        return inplace(fn, self, other, name=name)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place ``{name[:-1]}``."
    return method


def isin(elements, test_elements, *, assume_unique=False, invert=False, out=None):
    """Whether each of ``elements`` occurs in ``test_elements`` (either may be a number); bool result."""
    if not isinstance(elements, CoreTensor) and not isinstance(test_elements, CoreTensor):
        raise TypeError("isin() received an invalid combination of arguments: elements and test_elements "
                        "cannot both be numbers")
    for arg, value in (("elements", elements), ("test_elements", test_elements)):
        if not isinstance(value, (CoreTensor, int, float, bool, np.number)):
            raise TypeError(f"isin(): argument '{arg}' must be Tensor or Number, not {type(value).__name__}")
    d = result_dtype(elements, test_elements)
    if any(isinstance(v, CoreTensor) and v.array.dtype == _BOOL for v in (elements, test_elements)):
        raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    e = to_tensor(elements).array
    t = to_tensor(test_elements).array
    found = np.isin(e.astype(d), t.astype(d).ravel(), invert=bool(invert))
    if out is not None and out.array.dtype != _BOOL:
        raise RuntimeError(f"isin: Expected out tensor to have dtype Bool, but got {out.dtype} instead")
    return finish(wrap(np.asarray(found)), out, "isin")


def _unary_inplace(fn, name):
    def method(self):
        return inplace(fn, self, name=name)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In-place ``{name[:-1]}``."
    return method


def _mvlgamma_inplace(self, p):
    return inplace(mvlgamma, self, p, name="mvlgamma_")


sinc_ = _unary_inplace(sinc, "sinc_")
i0_ = _unary_inplace(i0, "i0_")
ldexp_ = _inplace_of(ldexp, "ldexp_")
gcd_ = _inplace_of(gcd, "gcd_")
lcm_ = _inplace_of(lcm, "lcm_")

TENSOR_METHODS = {
    "logaddexp": logaddexp, "logaddexp2": logaddexp2, "sinc": sinc, "sinc_": sinc_, "i0": i0, "i0_": i0_,
    "mvlgamma": mvlgamma, "mvlgamma_": _mvlgamma_inplace, "polygamma": _polygamma_method,
    "polygamma_": _polygamma_inplace, "frexp": frexp, "ldexp": ldexp, "ldexp_": ldexp_, "nextafter": nextafter,
    "nextafter_": _inplace_of(nextafter, "nextafter_"), "gcd": gcd, "gcd_": gcd_, "lcm": lcm, "lcm_": lcm_,
}
