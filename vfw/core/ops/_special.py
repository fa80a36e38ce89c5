"""Special functions numpy lacks: the error function and its complement.

The approximations are W. J. Cody's rational Chebyshev approximations
("Rational Chebyshev approximations for the error function", Math. Comp. 23,
1969, pp. 631-637), with the coefficient sets published for double precision.
Three intervals of ``|x|``:

* ``|x| <= 0.46875``: ``erf(x) = x * R1(x**2)``;
* ``0.46875 < |x| <= 4``: ``erfc(|x|) = exp(-x**2) * R2(|x|)``;
* ``|x| > 4``: ``erfc(|x|) = exp(-x**2) / |x| * (1/sqrt(pi) + R3(1/x**2) / x**2)``.

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


def _ratio(t, num, den, n):
    """``(num[n] t^n + ... ) / (den ...)`` in Cody's nested layout (last ``num`` leads)."""
    xnum = num[-1] * t
    xden = t
    for i in range(n):
        xnum = (xnum + num[i]) * t
        xden = (xden + den[i]) * t
    return (xnum + num[n]) / (xden + den[n])


def _erf_small(x):
    """erf on ``|x| <= 0.46875`` (float64 array)."""
    return x * _ratio(x * x, _A, _B, 3)


def _erfc_large(y):
    """erfc on ``y > 0.46875`` (float64 array of positive, finite or inf values)."""
    out = np.empty_like(y)
    mid = y <= 4.0
    ym = y[mid]
    out[mid] = _ratio(ym, _C, _D, 7)
    yt = y[~mid]
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        inv2 = 1.0 / (yt * yt)
        out[~mid] = (_ONE_OVER_SQRT_PI - inv2 * _ratio(inv2, _P, _Q, 4)) / yt
        head = np.floor(y * 16.0) / 16.0
        scale = np.exp(-head * head) * np.exp(-(y - head) * (y + head))
    out *= scale
    out[np.isposinf(y)] = 0.0  # exp(-inf) * exp(nan) above
    return out


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
    small = y <= _SMALL
    result = np.empty_like(v)
    result[small] = _erf_small(v[small])
    large = ~small  # includes nan, which the erfc path carries through
    vl = v[large]
    result[large] = np.copysign(1.0 - _erfc_large(np.abs(vl)), vl)
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
    small = y <= _SMALL
    result = np.empty_like(v)
    result[small] = 1.0 - _erf_small(v[small])
    large = ~small
    vl = v[large]
    tail = _erfc_large(np.abs(vl))
    result[large] = np.where(vl < 0, 2.0 - tail, tail)
    return _restore(x, result)
