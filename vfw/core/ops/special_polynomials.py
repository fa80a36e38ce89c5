"""The classical orthogonal polynomials as one engine op (not an ONNX operator):
``OrthogonalPolynomial(x, n)``, the polynomial of the ``family`` attribute (Chebyshev of the four kinds
``chebyshev_t/u/v/w``, the physicists' and probabilists' Hermite ``hermite_h/he``, Laguerre
``laguerre_l``, Legendre ``legendre_p``), of degree ``n`` (truncated to an integer; negative or non-finite
degrees give 0), at ``x`` (or at ``2x - 1`` with ``shifted=1``).

``x`` and ``n`` broadcast and share one float dtype; values are computed in float64 by the three-term
recurrences (a static loop over the degree, each step on whole arrays), Chebyshev polynomials inside
(-1, 1) with degree > 6 by their trigonometric forms, and rounded once.  Not differentiable (neither
framework defines a derivative).
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable
from vfw.core.ops._common import broadcast_infer
from vfw.core.ops.special_math import float64_kernel
from vfw.core.registry import Attr, defop


def _recurrence(x, degree, first, step):
    """``p_degree(x)`` from ``p_0 = 1``, ``p_1 = first(x)``, ``p_(k+1) = step(k, x, p_k, p_(k-1))``."""
    previous, current = np.ones_like(x), first(x)
    out = np.where(degree == 0, previous, np.where(degree == 1, current, 0.0))
    top = int(degree.max()) if degree.size else 0
    for k in range(1, top):
        previous, current = current, step(k, x, current, previous)
        out = np.where(degree == k + 1, current, out)
    return out


def _chebyshev(kind):
    first = {"t": lambda x: x, "u": lambda x: 2 * x, "v": lambda x: 2 * x - 1, "w": lambda x: 2 * x + 1}[kind]
    trig = {"t": lambda th, n: np.cos(n * th),
            "u": lambda th, n: np.sin((n + 1) * th) / np.sin(th),
            "v": lambda th, n: np.cos((n + 0.5) * th) / np.cos(th / 2),
            "w": lambda th, n: np.sin((n + 0.5) * th) / np.sin(th / 2)}[kind]

    def values(x, degree):
        inside = (np.abs(x) < 1) & (degree > 6)
        out = _recurrence(x, np.where(inside, 0, degree), first, lambda k, x, p, q: 2 * x * p - q)
        theta = np.arccos(np.clip(x, -1, 1))
        return np.where(inside, trig(theta, degree), out)

    return values


FAMILIES = {
    "chebyshev_t": _chebyshev("t"), "chebyshev_u": _chebyshev("u"),
    "chebyshev_v": _chebyshev("v"), "chebyshev_w": _chebyshev("w"),
    "hermite_h": lambda x, n: _recurrence(x, n, lambda x: 2 * x, lambda k, x, p, q: 2 * x * p - 2 * k * q),
    "hermite_he": lambda x, n: _recurrence(x, n, lambda x: x, lambda k, x, p, q: x * p - k * q),
    "laguerre_l": lambda x, n: _recurrence(x, n, lambda x: 1 - x,
                                           lambda k, x, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1)),
    "legendre_p": lambda x, n: _recurrence(x, n, lambda x: x,
                                           lambda k, x, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1)),
}


@defop("OrthogonalPolynomial", inputs="x:T n:T", outputs="y:T", types={"T": dt.FLOATS}, infer=broadcast_infer,
       attrs={"family": Attr("string", choices=tuple(FAMILIES)), "shifted": Attr("int", 0, choices=(0, 1))})
def orthogonal_polynomial(family, shifted):
    """The orthogonal polynomial ``family`` of degree ``trunc(n)`` at ``x`` (``2x - 1`` if ``shifted``)."""
    values = FAMILIES[family]

    def evaluate(x, n):
        degree = np.trunc(n)
        degree = np.where(np.isfinite(degree), degree, -1).astype(np.int64)
        return np.where(degree < 0, 0.0, values(2 * x - 1 if shifted else x, np.maximum(degree, 0)))

    return float64_kernel(evaluate)


not_differentiable("OrthogonalPolynomial")
