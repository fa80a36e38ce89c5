"""tf.math incomplete gamma and beta functions: ``igamma`` (P), ``igammac`` (Q = 1 - P) and ``betainc``.

Thin adapters of the engine ops ``Igamma``, ``Igammac`` and ``Betainc`` (``vfw/core/ops/special_gamma.py``,
which holds the numerics and the gradients: the densities with respect to ``x``, a Richardson-extrapolated
central difference with respect to ``a`` of igamma/igammac (TF's IgammaGradA is exact; the difference
agrees to about 1e-9 relative), none with respect to ``a`` and ``b`` of betainc), with TF's dtype and
shape rules and TF's values at ``a = 0``: NaN, except ``igamma(0, 0) = 0`` (the engine takes the limits
``P(0, x > 0) = 1``, ``Q(0, x > 0) = 0`` there).
"""

import numpy as np

from vfw.frontends.tensorflow._dispatch import call, op_error
from vfw.frontends.tensorflow._op_support import OpTypes, check_broadcast, matching

_IGAMMA_TYPES = OpTypes("Igamma", "bfloat16 float16 float32 float64", "float32 float64")
_IGAMMAC_TYPES = OpTypes("Igammac", "bfloat16 float16 float32 float64", "float32 float64")
_BETAINC_TYPES = OpTypes("Betainc", "float32 float64")


def _incomplete_gamma(a, x, upper, types):
    a, x = matching(types.name, a, x, types=types)
    check_broadcast(types.name, a.array, x.array)
    dtype = a.array.dtype
    zero, nan = np.zeros((), dtype), np.asarray(np.nan, dtype)
    at_zero = nan if upper else call("Where", call("Equal", x, zero), zero, nan)
    return call("Where", call("Equal", a, zero), at_zero, call("Igammac" if upper else "Igamma", a, x))


def igamma(a, x, name=None):
    """The regularized lower incomplete gamma function ``P(a, x)`` (float32/float64; NaN for ``a <= 0`` or
    ``x < 0``)."""
    return _incomplete_gamma(a, x, False, _IGAMMA_TYPES)


def igammac(a, x, name=None):
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return _incomplete_gamma(a, x, True, _IGAMMAC_TYPES)


def betainc(a, b, x, name=None):
    """The regularized incomplete beta function ``I_x(a, b)`` (float32/float64; ``a``, ``b``, ``x`` of one
    shape, or scalars; NaN for ``a <= 0``, ``b <= 0`` or ``x`` outside [0, 1]).  Differentiable in ``x``
    only (as TF)."""
    a, b, x = matching("Betainc", a, b, x, types=_BETAINC_TYPES)
    shapes = [t.array.shape for t in (a, b, x)]
    full = [s for s in shapes if s != ()]
    for label, shape in zip("abx", shapes):
        if shape != () and shape != full[0]:
            first = "abx"[shapes.index(full[0])]
            raise op_error(f"Shapes of {first} and {label} are inconsistent: {_dims(full[0])} vs. {_dims(shape)}",
                           "Betainc")
    return call("Betainc", a, b, x)


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


NAMESPACES = {"math": ["igamma", "igammac", "betainc"]}
TENSOR_METHODS = {}
