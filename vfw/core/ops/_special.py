"""Special functions numpy lacks: the error function and its complement.

The approximations are W. J. Cody's rational Chebyshev approximations
("Rational Chebyshev approximations for the error function", Math. Comp. 23,
1969, pp. 631-637), with the coefficient sets published for double precision.
Three intervals of ``|x|``:

* ``|x| <= 0.46875``: ``erf(x) = x * R1(x**2)``;
* ``0.46875 < |x| <= 4``: ``erfc(|x|) = exp(-x**2) * R2(|x|)``;
* ``|x| > 4``: ``erfc(|x|) = exp(-x**2) / |x| * (1/sqrt(pi) - R3(1/x**2) / x**2)``.

``exp(-x**2)`` is evaluated as ``exp(-h**2) * exp(-(x-h)(x+h))`` with ``h`` the
value of ``x`` rounded down to a multiple of 1/16, which keeps the relative
error of ``erfc`` near machine precision where ``x**2`` is large (Cody's
trick).  Both functions are accurate to about 1e-15 relative in float64.
"""

import numpy as np

_A = (3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
      3.20937758913846947e03, 1.85777706184603153e-1)
_B = (2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
      2.84423683343917062e03)
_C = (5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01,
      2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03,
      2.05107837782607147e03, 1.23033935479799725e03, 2.15311535474403846e-8)
_D = (1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
      1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03,
      3.43936767414372164e03, 1.23033935480374942e03)
_P = (3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
      1.60837851487422766e-2, 6.58749161529837803e-4, 1.63153871373020978e-2)
_Q = (2.56852019228982242e00, 1.87295284992346725e00, 5.27905102951428412e-1,
      6.05183413124413191e-2, 2.33520497626869185e-3)
_ONE_OVER_SQRT_PI = 5.6418958354775628695e-1
_SMALL = 0.46875
# erfc(x) * exp(x**2) needs no care past this; exp(-x**2) is 0 in float64 long before.
_HUGE = 64.0


def _table(num, den):
    """Coefficients of ``(num[-1] t^n + num[0] t^(n-1) + ... + num[n-1])`` and of
    ``(t^n + den[0] t^(n-1) + ... + den[n-1])`` (Cody's nested layout), lowest power first,
    as a ``(n + 1, 2)`` matrix: ``powers(t) @ table`` gives both polynomials at once.
    """
    n = len(den)
    table = np.empty((n + 1, 2))
    for k in range(n):
        table[k] = num[n - 1 - k], den[n - 1 - k]
    table[n] = num[-1], 1.0
    return table, np.arange(n + 1, dtype=np.float64), [tuple(map(float, row)) for row in table]


_R1 = _table(_A, _B)  # erf(x) / x in t = x**2, |x| <= 0.46875
_R2 = _table(_C, _D)  # erfc(y) * exp(y**2) in y, 0.46875 <= y <= 4
_R3 = _table(_P, _Q)  # tail correction in t = 1 / y**2, y >= 4
# Below this many elements one power and one matrix product beat Horner's 4n
# passes (per-call overhead dominates); above it the power calls cost more.
_HORNER_FROM = 512


def _ratio(t, table):
    """Rational function of ``t >= 0`` from a :func:`_table`."""
    if t.size < _HORNER_FROM:
        # Every coefficient is positive and so is t: summing monomials loses
        # nothing to cancellation, it is as accurate as Horner's scheme.
        both = np.power(t[..., None], table[1]) @ table[0]
        return both[..., 0] / both[..., 1]
    rows = table[2]
    num = t * rows[-1][0]
    num += rows[-2][0]
    den = t + rows[-2][1]
    for c_num, c_den in reversed(rows[:-2]):
        num *= t
        num += c_num
        den *= t
        den += c_den
    num /= den
    return num


def _erf_small(x):
    """erf on ``|x| <= 0.46875`` (float64 array; other values give garbage)."""
    return x * _ratio(x * x, _R1)


def _erfc_abs(y):
    """erfc on ``y = |x| >= 0.46875`` (float64 array; nan stays nan, other values give garbage)."""
    mid = _ratio(np.clip(y, _SMALL, 4.0), _R2)
    yt = np.maximum(y, 4.0)
    inv2 = 1.0 / (yt * yt)
    tail = (_ONE_OVER_SQRT_PI - inv2 * _ratio(inv2, _R3)) / yt
    ys = np.minimum(y, _HUGE)  # keeps inf out of exp(-(y - h)(y + h)): exp(-h*h) is already 0
    head = np.floor(ys * 16.0) / 16.0
    scale = np.exp(-head * head) * np.exp(-(ys - head) * (ys + head))
    return np.where(y <= 4.0, mid, tail) * scale


def _as_f64(x):
    x = np.asarray(x)
    return x, x.astype(np.float64, copy=False)


def _restore(x, result):
    if x.dtype.kind == "f" or x.dtype.name == "bfloat16":
        return result.astype(x.dtype, copy=False)
    return result


def erf(x):
    """Error function, elementwise.

    Parameters
    ----------
    x : numpy.ndarray
        Any real dtype.  float16, bfloat16 and float32 are computed in float64
        and rounded back; non-float inputs give float64.

    Returns
    -------
    numpy.ndarray
        ``erf(x)`` with ``x``'s (float) dtype and shape; ``erf(+-inf) = +-1``,
        ``erf(nan) = nan``, ``erf(-0.0) = -0.0``.
    """
    x, v = _as_f64(x)
    y = np.abs(v)
    result = np.where(y <= _SMALL, _erf_small(v), np.copysign(1.0 - _erfc_abs(y), v))
    return _restore(x, result)


def erfc(x):
    """Complementary error function ``1 - erf(x)``, elementwise, without cancellation.

    Parameters
    ----------
    x : numpy.ndarray
        Any real dtype; see :func:`erf` for the dtype rules.

    Returns
    -------
    numpy.ndarray
        ``erfc(x)``; ``erfc(inf) = 0``, ``erfc(-inf) = 2``, ``erfc(nan) = nan``.
    """
    x, v = _as_f64(x)
    y = np.abs(v)
    tail = _erfc_abs(y)
    result = np.where(y <= _SMALL, 1.0 - _erf_small(v), np.where(v < 0, 2.0 - tail, tail))
    return _restore(x, result)
