"""tf.math special functions: modified Bessel functions ``bessel_i0/i0e/i1/i1e``, the Hurwitz ``zeta``,
``polygamma`` and ``nextafter``.

Thin adapters of engine ops (``BesselI0/I0e/I1/I1e``: ``vfw/core/ops/special_bessel.py``; ``Zeta``:
``special_gamma.py``; ``Digamma``, ``Lgamma``) with TF's dtype rules and gradients: the engine ops'
gradients (``i0' = i1``, ``d zeta(x, q) / dq = -x zeta(x + 1, q)``; none for ``x`` of zeta), except
``bessel_i1``, whose TF gradient ``i0 - i1 / x`` takes ``i1(x) / x`` as 0 at ``x = 0`` (gradient 1 there,
where the engine's is the limit 1/2). ``polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x)`` (digamma for
``n = 0``, NaN for other orders) is composed of engine ops (digamma: TF's, NaN at 0), so its gradient in ``x`` is
``polygamma(n + 1, x)``; none for the order. ``nextafter`` is the engine's NextAfter (no gradient).
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor
from vfw.frontends.tensorflow._math_unary import _digamma_values
from vfw.frontends.tensorflow._op_support import OpTypes, detached, matching, with_gradient

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


NAMESPACES = {"math": ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "zeta", "polygamma", "nextafter"],
              "math.special": ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"]}
