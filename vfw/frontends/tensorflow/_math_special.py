"""tf.math special functions: modified Bessel functions ``bessel_i0/i0e/i1/i1e``, the Hurwitz ``zeta``,
``polygamma`` and ``nextafter``.

Thin adapters of engine ops (``BesselI0/I0e/I1/I1e``: ``vfw/core/ops/special_bessel.py``; ``Zeta``:
``special_gamma.py``; ``Digamma``, ``Lgamma``) with TF's dtype rules and gradients: the engine ops'
gradients (``i0' = i1``, ``d zeta(x, q) / dq = -x zeta(x + 1, q)``; none for ``x`` of zeta), except
``bessel_i1``, whose TF gradient ``i0 - i1 / x`` takes ``i1(x) / x`` as 0 at ``x = 0`` (gradient 1 there,
where the engine's is the limit 1/2). ``polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x)`` (digamma for
``n = 0``, NaN for other orders) is composed of engine ops (digamma: TF's, NaN at 0), so its gradient in ``x`` is
``polygamma(n + 1, x)``; none for the order. ``nextafter`` is the engine's NextAfter (no gradient).

tf.math.special's ``bessel_j0/j1/y0/y1/k0/k0e/k1/k1e`` (engine ``special_bessel.py``) and ``dawsn``, ``expint``,
``fresnel_cos/sin``, ``spence`` (engine ``special_integrals.py``) take TF's (Cephes') values off the engine's
domain: ``y0/y1`` are -inf and the ``k`` functions +inf for x < 0 (``y1(0)`` NaN below float64), ``expint`` is NaN
at +inf and overflows to +inf where ``e^x`` does in the input dtype, the Fresnel integrals are exactly +-1/2 past
|x| = 36974, ``spence(inf)`` is NaN. Their gradients are TF's formulas written with these functions (so TF's
NaN/inf follow at the same points).
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor
from vfw.frontends.tensorflow._math_unary import _digamma_values
from vfw.frontends.tensorflow._op_support import OpTypes, detached, matching, scalar_like, with_gradient

_BESSEL_TYPES = {name: OpTypes(name, "bfloat16 float16 float32 float64", "float16 float32 float64")
                 for name in ("BesselI0", "BesselI0e", "BesselI1", "BesselI1e")}


def _bessel(tf_op, x):
    x = convert_to_tensor(x)
    _BESSEL_TYPES[tf_op].check(x.array.dtype)
    return call(tf_op, x)


def _i1_gradient(g, x):
    """TF's ``d bessel_i1 / dx = i0(x) - i1(x) / x`` with ``i1(x) / x`` taken as 0 at ``x = 0``."""
    dtype = x.array.dtype
    zero = call("Equal", x, np.zeros((), dtype))
    ratio = call("Where", zero, np.zeros((), dtype),
                 call("Div", call("BesselI1", x), call("Where", zero, np.ones((), dtype), x)))
    return (call("Mul", g, call("Sub", call("BesselI0", x), ratio)),)


def bessel_i0(x, name=None):
    """Modified Bessel function of the first kind of order 0, elementwise."""
    return _bessel("BesselI0", x)


def bessel_i0e(x, name=None):
    """``exp(-|x|) * bessel_i0(x)``, elementwise."""
    return _bessel("BesselI0e", x)


def bessel_i1(x, name=None):
    """Modified Bessel function of the first kind of order 1, elementwise."""
    x = convert_to_tensor(x)
    _BESSEL_TYPES["BesselI1"].check(x.array.dtype)
    return with_gradient(lambda x: call("BesselI1", detached(x)), _i1_gradient, x)


def bessel_i1e(x, name=None):
    """``exp(-|x|) * bessel_i1(x)``, elementwise."""
    return _bessel("BesselI1e", x)


_ZETA_TYPES = OpTypes("Zeta", "float32 float64")


def zeta(x, q, name=None):
    """Hurwitz zeta function ``sum_{k >= 0} (k + q)^-x`` (float32/float64; x and q broadcast)."""
    x, q = matching("Zeta", x, q, types=_ZETA_TYPES)
    return call("Zeta", x, q)


def polygamma(a, x, name=None):
    """The ``a``-th derivative of digamma at ``x`` (``a`` integer-valued floats; NaN for other orders)."""
    a, x = matching("Polygamma", a, x, types=_ZETA_TYPES)
    n = detached(a)  # TF has no gradient for the order
    dtype = x.array.dtype
    order = call("Add", n, np.ones((), dtype))  # n + 1
    signed_factorial = call("Mul", call("Pow", np.asarray(-1, dtype), order), call("Exp", call("Lgamma", order)))
    value = call("Where", call("Equal", n, np.zeros((), dtype)), _digamma_values(x),
                 call("Mul", signed_factorial, call("Zeta", order, x)))
    invalid = call("Or", call("Less", n, np.zeros((), dtype)), call("Not", call("Equal", n, call("Floor", n))))
    return call("Where", invalid, np.asarray(np.nan, dtype), value)


_NEXTAFTER_TYPES = OpTypes("NextAfter", "float32 float64")


def nextafter(x1, x2, name=None):
    """The next representable value after ``x1`` towards ``x2``, elementwise (no gradient)."""
    # the op's type attribute defaults to float32, which TF gives as the hint to non-tensor arguments
    x1, x2 = (convert_to_tensor(x, dtype_hint=_dtypes.float32) for x in (x1, x2))
    x1, x2 = matching("NextAfter", x1, x2, types=_NEXTAFTER_TYPES)
    return call("NextAfter", x1, x2, tf_op="NextAfter")


# -- tf.math.special ---------------------------------------------------------------------------------------
_BESSEL_KERNELS = "float16 float32 float64"
_SPECIAL_TYPES = {name: OpTypes(name, "bfloat16 float16 float32 float64", kernels)
                  for names, kernels in ((("BesselJ0", "BesselJ1", "BesselY0", "BesselY1", "BesselK0", "BesselK0e",
                                           "BesselK1", "BesselK1e"), _BESSEL_KERNELS),
                                         (("Dawsn", "Expint", "FresnelCos", "FresnelSin", "Spence"), "float32 float64"))
                  for name in names}
_FRESNEL_CEPHES_LIMIT = 36974.0  # past it Cephes returns exactly 1/2


def _special(tf_op, x, derivative, tf_values=None):
    """Engine op ``tf_op`` of ``x`` with TF's values ``tf_values(x, y)`` and gradient ``g * derivative(x)``."""
    x = convert_to_tensor(x)
    _SPECIAL_TYPES[tf_op].check(x.array.dtype)

    def forward(x):
        x = detached(x)
        y = call(tf_op, x, tf_op=tf_op)
        return y if tf_values is None else tf_values(x, y)

    return with_gradient(forward, lambda g, x: (call("Mul", g, derivative(x)),), x)


def _below_zero(fill):
    """TF's ``fill`` for x < 0 (where the engine gives NaN)."""
    return lambda x, y: call("Where", call("Less", x, scalar_like(0, x)), scalar_like(fill, x), y)


def _over_x(y, x):
    return call("Div", y, x)


def bessel_j0(x, name=None):
    """Bessel function of the first kind of order 0, elementwise (NaN at +-inf, as TF)."""
    return _special("BesselJ0", x, lambda x: call("Neg", bessel_j1(x)))


def bessel_j1(x, name=None):
    """Bessel function of the first kind of order 1, elementwise; gradient ``j0 - j1 / x`` (1/2 at 0)."""
    def derivative(x):
        slope = call("Sub", bessel_j0(x), _over_x(bessel_j1(x), x))
        return call("Where", call("Equal", x, scalar_like(0, x)), scalar_like(0.5, x), slope)
    return _special("BesselJ1", x, derivative)


def bessel_y0(x, name=None):
    """Bessel function of the second kind of order 0, elementwise (-inf for x <= 0)."""
    return _special("BesselY0", x, lambda x: call("Neg", bessel_y1(x)), _below_zero(-np.inf))


def _y1_values(x, y):
    y = _below_zero(-np.inf)(x, y)
    if x.array.dtype == np.float64:
        return y
    # TF's single-precision kernel (also computing float16) gives NaN at 0
    return call("Where", call("Equal", x, scalar_like(0, x)), scalar_like(np.nan, x), y)


def bessel_y1(x, name=None):
    """Bessel function of the second kind of order 1, elementwise (-inf for x < 0, and at 0 in float64: NaN in
    float16/float32 as TF); gradient ``y0 - y1 / x``."""
    return _special("BesselY1", x, lambda x: call("Sub", bessel_y0(x), _over_x(bessel_y1(x), x)), _y1_values)


def bessel_k0(x, name=None):
    """Modified Bessel function of the second kind of order 0, elementwise (+inf for x <= 0)."""
    return _special("BesselK0", x, lambda x: call("Neg", bessel_k1(x)), _below_zero(np.inf))


def bessel_k0e(x, name=None):
    """``exp(x) * bessel_k0(x)``, elementwise (+inf for x <= 0); gradient ``k0e - k1e``."""
    return _special("BesselK0e", x, lambda x: call("Sub", bessel_k0e(x), bessel_k1e(x)), _below_zero(np.inf))


def bessel_k1(x, name=None):
    """Modified Bessel function of the second kind of order 1, elementwise (+inf for x <= 0); gradient
    ``-k0 - k1 / x``."""
    return _special("BesselK1", x, lambda x: call("Sub", call("Neg", bessel_k0(x)), _over_x(bessel_k1(x), x)),
                    _below_zero(np.inf))


def bessel_k1e(x, name=None):
    """``exp(x) * bessel_k1(x)``, elementwise (+inf for x <= 0); gradient ``k1e (1 - 1/x) - k0e``."""
    def derivative(x):
        one_less_reciprocal = call("Sub", scalar_like(1, x), call("Reciprocal", x))
        return call("Sub", call("Mul", bessel_k1e(x), one_less_reciprocal), bessel_k0e(x))
    return _special("BesselK1e", x, derivative, _below_zero(np.inf))


def dawsn(x, name=None):
    """Dawson's integral ``exp(-x^2) int_0^x exp(t^2) dt``, elementwise; gradient ``1 - 2 x dawsn(x)``."""
    def derivative(x):
        return call("Sub", scalar_like(1, x), call("Mul", call("Mul", scalar_like(2, x), x), dawsn(x)))
    return _special("Dawsn", x, derivative)


def _expint_values(x, y):
    # NaN at +inf; +inf where TF's e^x overflows in the input dtype
    overflow = call("Greater", x, scalar_like(np.log(np.finfo(x.array.dtype).max), x))
    y = call("Where", overflow, scalar_like(np.inf, x), y)
    return call("Where", call("IsInf", x), scalar_like(np.nan, x), y)


def expint(x, name=None):
    """Exponential integral ``Ei(x)``, elementwise (NaN for x < 0 and at +inf); gradient ``exp(x) / x``."""
    return _special("Expint", x, lambda x: call("Div", call("Exp", x), x), _expint_values)


def _fresnel_values(x, y):
    beyond = call("Greater", call("Abs", x), scalar_like(_FRESNEL_CEPHES_LIMIT, x))
    return call("Where", beyond, call("Mul", call("Sign", x), scalar_like(0.5, x)), y)


def _half_pi_square(x):
    return call("Mul", call("Mul", x, x), scalar_like(np.pi / 2, x))


def fresnel_cos(x, name=None):
    """Fresnel cosine integral ``int_0^x cos(pi t^2 / 2) dt``, elementwise; gradient ``cos(pi x^2 / 2)``."""
    return _special("FresnelCos", x, lambda x: call("Cos", _half_pi_square(x)), _fresnel_values)


def fresnel_sin(x, name=None):
    """Fresnel sine integral ``int_0^x sin(pi t^2 / 2) dt``, elementwise; gradient ``sin(pi x^2 / 2)``."""
    return _special("FresnelSin", x, lambda x: call("Sin", _half_pi_square(x)), _fresnel_values)


def _spence_derivative(x):
    slope = call("Div", call("Log", x), call("Sub", scalar_like(1, x), x))
    return call("Where", call("Equal", x, scalar_like(1, x)), scalar_like(-1, x), slope)


def spence(x, name=None):
    """Spence's function ``int_1^x log(t) / (1 - t) dt = Li2(1 - x)``, elementwise (NaN for x < 0 and at +inf);
    gradient ``log(x) / (1 - x)`` (-1 at 1)."""
    return _special("Spence", x, _spence_derivative,
                    lambda x, y: call("Where", call("IsInf", x), scalar_like(np.nan, x), y))


_SPECIAL = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e",
            "dawsn", "expint", "fresnel_cos", "fresnel_sin", "spence"]
NAMESPACES = {"math": ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "zeta", "polygamma", "nextafter"],
              "math.special": ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"] + _SPECIAL}
