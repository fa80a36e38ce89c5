"""Special functions numpy lacks: the error function and its complement.

Two precisions, chosen by the input's dtype; both compute in float64 and round once.

**float64 (and integer) inputs** use W. J. Cody's rational Chebyshev
approximations ("Rational Chebyshev approximations for the error function",
Math. Comp. 23, 1969, pp. 631-637), with the coefficient sets published for
double precision, on three intervals of ``|x|``:

* ``|x| <= 0.46875``: ``erf(x) = x * R1(x**2)``;
* ``0.46875 < |x| <= 4``: ``erfc(|x|) = exp(-x**2) * R2(|x|)``;
* ``|x| > 4``: ``erfc(|x|) = exp(-x**2) / |x| * (1/sqrt(pi) - R3(1/x**2) / x**2)``.

``exp(-x**2)`` is evaluated as ``exp(-h**2) * exp(-(x-h)(x+h))`` with ``h`` the
value of ``x`` rounded down to a multiple of 1/16, which keeps the relative
error of ``erfc`` near machine precision where ``x**2`` is large (Cody's
trick).  Both functions are accurate to about 1e-15 relative.  Each element is
evaluated on its own interval only (index lists, not masks over every element).

**float32, float16 and bfloat16 inputs** need only float32's precision, which
one approximation gives on the whole line, several times faster:

* ``erfc(a) = exp(-a**2) * Q((a - 3) / (a + 3))`` for ``a = |x|``, with ``Q`` a
  degree-10 polynomial fitted to ``exp(a**2) erfc(a)`` on ``[0, 10.5]`` (past
  that the float32 result is 0) with relative error below 1.5e-9; ``a**2`` of a
  float32 value is exact in float64, so ``exp`` adds only float64 round-off;
* ``erf(x) = sign(x) * (1 - erfc(|x|))``, except ``erf(x) = x * P(x**2)`` on
  ``|x| < 0.25`` (a degree-3 polynomial, relative error below 6e-10), where the
  difference would lose relative precision.

The coefficients ``Q`` and ``P`` were fitted here (iteratively reweighted least
squares on Chebyshev nodes against 40-digit values).  Results rounded to
float32 are within 0.54 ulp of the exact value (faithful rounding).
"""

import numpy as np

_F64 = np.dtype(np.float64)

# -- float64: Cody's coefficients ---------------------------------------------------------------
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
_MID = 4.0
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
    return table


_R1 = _table(_A, _B)  # erf(x) / x in t = x**2, |x| <= 0.46875
_R2 = _table(_C, _D)  # erfc(y) * exp(y**2) in y, 0.46875 <= y <= 4
_R3 = _table(_P, _Q)  # tail correction in t = 1 / y**2, y >= 4

# -- float32 and narrower: own fits (see the module docstring) --------------------------------
_SINGLE_SHIFT = 3.0  # Q's variable is (a - 3) / (a + 3), in [-1, 0.56] on the fitted range
_SINGLE_Q = np.array([
    0.17900115127717706, -0.32623356382978574, 0.24560379622499715, -0.15011578235473294,
    0.0716658860819776, -0.024394212163964743, 0.004268765623784597, 0.0007155809487688858,
    -0.0005944306690992658, 2.919655663018544e-05, 5.605203187110235e-05])
# Where exp(-a**2) is exactly 0 in float64: clamping there keeps inf out of Q's variable (inf / inf)
# and gives exact 0 (and 2) at the infinities.  Q stays finite and close to erfc * exp(a**2) up to it.
_SINGLE_CLAMP = 28.0
_SINGLE_SMALL = 0.25
_SINGLE_P = np.array([1.1283791664821514, -0.3761260756117696, 0.11281283416781261, -0.02622184549644766])

# Below this many elements one power and one matrix product beat Horner's passes
# (per-call overhead dominates); above it the power calls cost more.
_HORNER_FROM = 512


def _ratio(t, table, num, den):
    """Rational function of ``t >= 0`` from a :func:`_table`, in ``num`` (``den``: scratch)."""
    if t.size < _HORNER_FROM:
        # Every coefficient is positive and so is t: summing monomials loses
        # nothing to cancellation, it is as accurate as Horner's scheme.
        both = np.power(t[..., None], np.arange(len(table))) @ table
        return np.divide(both[..., 0], both[..., 1], out=num)
    np.multiply(t, table[-1, 0], out=num)
    num += table[-2, 0]
    np.add(t, table[-2, 1], out=den)
    for c_num, c_den in table[-3::-1].tolist():
        num *= t
        num += c_num
        den *= t
        den += c_den
    num /= den
    return num


def _poly(t, coeffs, out):
    """Polynomial (coefficients lowest power first) of a 1-d float64 array with ``|t| <= 1``, in ``out``."""
    if t.size < _HORNER_FROM:
        # |t| <= 1: summing monomials loses at most sum(|coeffs|) / |p| (under 60 here) float64 ulps,
        # far below the fits' own errors.
        return np.matmul(np.power(t[:, None], np.arange(len(coeffs))), coeffs, out=out)
    np.multiply(t, coeffs[-1], out=out)
    out += coeffs[-2]
    for c in coeffs[-3::-1].tolist():
        out *= t
        out += c
    return out


def _work_rows(n, count):
    """``count`` float64 work arrays of ``n`` elements, carved from one buffer.

    One allocation per call rather than one per temporary: freeing many large temporaries lets
    the C allocator hand their pages back to the system, and touching fresh pages on the next
    call (page faults) then costs more than the arithmetic.
    """
    buffer = np.empty(count * n)
    return [buffer[k * n:(k + 1) * n] for k in range(count)]


def _finish(x, erfc_abs, complement, scratch):
    """erfc(x) (``complement``) or erf(x) in place from ``erfc_abs = erfc(|x|)``."""
    if complement:
        return _reflect_negative(x, erfc_abs, scratch)
    np.subtract(1.0, erfc_abs, out=erfc_abs)
    return np.copysign(erfc_abs, x, out=erfc_abs)


def _reflect_negative(x, erfc_abs, sign):
    """``erfc(x)`` from ``erfc(|x|)`` in place: ``2 - erfc(|x|)`` where ``x < 0``, branch-free
    (``(1 - s) + s * r`` with ``s = sign(x)`` is ``r`` exactly for ``x >= 0``); ``sign``: scratch."""
    np.copysign(1.0, x, out=sign)
    erfc_abs *= sign
    np.subtract(1.0, sign, out=sign)
    erfc_abs += sign
    return erfc_abs


# -- float64 -------------------------------------------------------------------------------------
# Each region function takes the signed inputs of its elements and four scratch arrays of their
# size, and returns erf or erfc (``complement``) in one of them.

def _small_region(x, complement, s1, s2, s3, s4):
    """``|x| <= 0.46875``: erf(x) = x * R1(x**2)."""
    np.multiply(x, x, out=s1)
    r = _ratio(s1, _R1, s2, s3)
    r *= x
    return np.subtract(1.0, r, out=r) if complement else r


def _exp_minus_square(y, out, scratch):
    """``exp(-y**2)`` for ``0 <= y <= 64`` in ``out`` with the relative accuracy of exp itself (Cody's
    split: ``exp(-h**2) * exp(-(y - h)(y + h))``, ``h`` = y rounded down to a multiple of 1/16);
    overwrites ``y``."""
    head = np.multiply(y, 16.0, out=out)
    np.floor(head, out=head)
    head *= 1.0 / 16.0
    np.subtract(y, head, out=scratch)  # exact
    y += head
    y *= scratch  # (y - h)(y + h)
    np.negative(y, out=y)
    np.exp(y, out=y)
    head *= head
    np.negative(head, out=head)
    np.exp(head, out=head)
    head *= y
    return head


def _mid_region(x, complement, s1, s2, s3, s4):
    """``0.46875 < |x| <= 4``: erfc(|x|) = exp(-x**2) * R2(|x|)."""
    y = np.abs(x, out=s1)
    r = _ratio(y, _R2, s2, s3)
    r *= _exp_minus_square(y, s3, s4)
    return _finish(x, r, complement, s3)


def _tail_region(x, complement, s1, s2, s3, s4):
    """``|x| > 4``: erfc(|x|) = exp(-x**2) / |x| * (1/sqrt(pi) - R3(1/x**2) / x**2); inf gives 0, nan stays."""
    # exp(-x**2) is 0 in float64 long before 64: clamping keeps inf out of the arithmetic.
    y = np.minimum(np.abs(x, out=s1), _HUGE, out=s1)
    inv2 = np.multiply(y, y, out=s2)
    np.divide(1.0, inv2, out=inv2)
    r = _ratio(inv2, _R3, s3, s4)
    r *= inv2
    np.subtract(_ONE_OVER_SQRT_PI, r, out=r)
    r /= y
    r *= _exp_minus_square(y, s2, s4)
    return _finish(x, r, complement, s2)


def _double(v, complement):
    """erf or erfc (``complement``) of a 1-d float64 array to float64 round-off, in new memory.

    Each element is evaluated on its own interval only, gathered by index lists (a boolean mask
    would cost five times more to gather by).
    """
    y = np.abs(v)
    small = y <= _SMALL
    up_to_mid = y <= _MID  # nan compares false: it goes to the tail, whose formula keeps it
    regions = ((np.flatnonzero(small), _small_region), (np.flatnonzero(up_to_mid & ~small), _mid_region),
               (np.flatnonzero(~up_to_mid), _tail_region))
    result = np.empty_like(v)
    rows = _work_rows(max(len(idx) for idx, _ in regions), 5)
    for idx, region in regions:
        if idx.size:
            part = [row[:idx.size] for row in rows]
            np.take(v, idx, out=part[0])
            result.put(idx, region(*part[:1], complement, *part[1:]))
    return result


# -- float32 and narrower ------------------------------------------------------------------------
def _erfc_abs_single(a, u, p):
    """erfc of ``a >= 0`` (nan stays nan) to about 1.5e-9 relative, written into ``a``; ``u`` and
    ``p`` are scratch of the same size."""
    np.minimum(a, _SINGLE_CLAMP, out=a)
    np.add(a, _SINGLE_SHIFT, out=u)
    np.divide(-2 * _SINGLE_SHIFT, u, out=u)
    u += 1.0  # (a - 3) / (a + 3)
    # exact for float32 values; otherwise its rounding moves exp(-a**2) by < 2e-13 relative (a <= 28)
    a *= a
    np.negative(a, out=a)
    np.exp(a, out=a)
    a *= _poly(u, _SINGLE_Q, p)
    return a


def _single(v, complement, a, u, p):
    """erf or erfc (``complement``) of a 1-d float64 array ``v`` holding float32 (or narrower) values
    to float32's precision, in ``a`` (``u``, ``p``: scratch)."""
    np.abs(v, out=a)
    small = None if complement else np.flatnonzero(a < _SINGLE_SMALL)
    result = _finish(v, _erfc_abs_single(a, u, p), complement, u)
    if small is not None and small.size:
        s = v.take(small)
        np.multiply(s, s, out=u[:small.size])
        result.put(small, s * _poly(u[:small.size], _SINGLE_P, p[:small.size]))
    return result


def _evaluate(x, complement, scale=None):
    """erf or erfc (``complement``) of ``scale * x`` (the product in float64) as float64, x's shape."""
    x = np.asarray(x)
    if x.dtype == _F64 or not (x.dtype.kind == "f" or x.dtype.name == "bfloat16"):
        v = x.astype(_F64, copy=False).reshape(-1)
        return _double(v if scale is None else v * scale, complement).reshape(x.shape)
    v, a, u, p = _work_rows(x.size, 4)
    v[...] = x.reshape(-1)
    if scale is not None:
        v *= scale  # in float64: x * scale in x's own type would round there
    return _single(v, complement, a, u, p).reshape(x.shape)


def erfc_scaled(x, scale):
    """``erfc(scale * x)`` as float64, with ``scale * x`` rounded only in float64.

    Parameters
    ----------
    x : numpy.ndarray
        Any real dtype; the precision follows :func:`erf`'s rules (float32's for float32 and
        narrower inputs, float64's otherwise).
    scale : float

    Returns
    -------
    numpy.ndarray
        float64, ``x``'s shape; new memory the caller may write (possibly a view of a larger
        work buffer).
    """
    return _evaluate(x, True, scale)


def _cast_back(x, result):
    x = np.asarray(x)
    if x.dtype.kind == "f" or x.dtype.name == "bfloat16":
        return result.astype(x.dtype, copy=False)
    return result


def erf(x):
    """Error function, elementwise.

    Parameters
    ----------
    x : numpy.ndarray
        Any real dtype.  float64 and non-float inputs are computed to float64
        round-off (non-float inputs give float64); float32, float16 and bfloat16
        inputs are computed to float32's precision (in float64) and rounded back.

    Returns
    -------
    numpy.ndarray
        ``erf(x)`` with ``x``'s (float) dtype and shape; ``erf(+-inf) = +-1``,
        ``erf(nan) = nan``, ``erf(-0.0) = -0.0``.
    """
    return _cast_back(x, _evaluate(x, False))


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
    return _cast_back(x, _evaluate(x, True))
