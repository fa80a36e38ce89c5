"""torch.special: special functions, most under their torch.special names over vfw.torch's own.

The new ones compose differentiable vfw.torch functions: ndtr, ndtri, log_ndtr, erfcx,
entr and xlog1py (asymptotic series where the direct formula underflows or overflows).
"""

import math

from vfw.frontends.torch import _dispatch, _dtype, _pointwise
from vfw.frontends.torch._arithmetic import xlogy
from vfw.frontends.torch._bessel import (
    i0e,
    i1,
    i1e,
    modified_bessel_i0,
    modified_bessel_i1,
    modified_bessel_k0,
    modified_bessel_k1,
    scaled_modified_bessel_k0,
    scaled_modified_bessel_k1,
)
from vfw.frontends.torch._comparison import where
from vfw.frontends.torch._gamma_inc import gammainc, gammaincc
from vfw.frontends.torch._native_extras import airy_ai
from vfw.frontends.torch._special_extra import (
    bessel_j0,
    bessel_j1,
    bessel_y0,
    bessel_y1,
    chebyshev_polynomial_t,
    chebyshev_polynomial_u,
    chebyshev_polynomial_v,
    chebyshev_polynomial_w,
    hermite_polynomial_h,
    hermite_polynomial_he,
    laguerre_polynomial_l,
    legendre_polynomial_p,
    shifted_chebyshev_polynomial_t,
    shifted_chebyshev_polynomial_u,
    shifted_chebyshev_polynomial_v,
    shifted_chebyshev_polynomial_w,
    spherical_bessel_j0,
    zeta,
)
from vfw.frontends.torch._special_functions import i0, mvlgamma, polygamma, sinc
from vfw.frontends.torch._statistics import logsumexp

__all__ = ["expit", "erf", "erfc", "erfinv", "erfcx", "logit", "gammaln", "digamma", "psi", "polygamma",
           "multigammaln", "xlogy", "xlog1py", "log1p", "expm1", "exp2", "round", "sinc", "i0", "softmax",
           "log_softmax", "logsumexp", "ndtr", "ndtri", "log_ndtr", "entr"]
__all__ += ["gammainc", "gammaincc", "i0e", "i1", "i1e", "modified_bessel_i0", "modified_bessel_i1",
            "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1"]
__all__ += ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t", "chebyshev_polynomial_u",
            "chebyshev_polynomial_v", "chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
            "laguerre_polynomial_l", "legendre_polynomial_p", "shifted_chebyshev_polynomial_t",
            "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
            "spherical_bessel_j0", "zeta"]
__all__ += ["airy_ai"]

expit = _pointwise.sigmoid
erf, erfc, erfinv, logit = _pointwise.erf, _pointwise.erfc, _pointwise.erfinv, _pointwise.logit
gammaln = _pointwise.lgamma
digamma = psi = _pointwise.digamma
multigammaln = mvlgamma
log1p, expm1, exp2, round = _pointwise.log1p, _pointwise.expm1, _pointwise.exp2, _pointwise.round  # noqa: A001
softmax, log_softmax = _pointwise.softmax, _pointwise.log_softmax
_SQRT2 = math.sqrt(2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)


def _float(input):
    """``input`` as a tensor, integers and bools converted to the default float dtype (as torch does)."""
    x = _dispatch.to_tensor(input)
    if x.array.dtype.kind == "f" or x.array.dtype.name == "bfloat16":
        return x
    return _dispatch.cast(x, _dtype.default_float_np())


def ndtr(input, *, out=None):
    """Tensor: the standard normal CDF, ``(1 + erf(x / sqrt(2))) / 2``."""
    x = _float(input)
    return _dispatch.finish(erfc(x * (-1.0 / _SQRT2)) * 0.5, out, "special_ndtr")


def ndtri(input, *, out=None):
    """Tensor: the inverse of :func:`ndtr` (``-inf`` at 0, ``inf`` at 1, NaN outside [0, 1])."""
    p = _float(input)
    return _dispatch.finish(erfinv(p * 2.0 - 1.0) * _SQRT2, out, "special_ndtri")


def _asymptotic(z2):
    """``1 - 1/z2 + 3/z2**2 - 15/z2**3 + 105/z2**4``: the tail series of Mills' ratio (z2 = x**2)."""
    inv = z2.reciprocal()
    return 1.0 - inv * (1.0 - inv * (3.0 - inv * (15.0 - inv * 105.0)))


def log_ndtr(input, *, out=None):
    """Tensor: ``log(ndtr(x))``, accurate far into the lower tail."""
    x = _float(input)
    far = x < -10.0
    safe = where(far, x, x.new_full((), -20.0))  # the series branch only sees tail values
    tail = -0.5 * safe * safe - (-safe).log() - _LOG_SQRT_2PI + _asymptotic(safe * safe).log()
    near = where(far, x.new_zeros(()), x)
    return _dispatch.finish(where(far, tail, ndtr(near).log()), out, "special_log_ndtr")


def erfcx(input, *, out=None):
    """Tensor: the scaled complementary error function ``exp(x**2) * erfc(x)``."""
    x = _float(input)
    wide = x.double()
    far = wide > 10.0
    safe = where(far, wide, wide.new_full((), 20.0))
    tail = _asymptotic(2.0 * safe * safe) / (safe * math.sqrt(math.pi))
    near = where(far, wide.new_zeros(()), wide)
    result = where(far, tail, (near * near).exp() * erfc(near))
    return _dispatch.finish(result.to(x.dtype), out, "special_erfcx")


def entr(input, *, out=None):
    """Tensor: the entropy term ``-x log x`` (0 at 0, ``-inf`` below 0)."""
    x = _float(input)
    positive = x > 0
    terms = -xlogy(x, where(positive, x, x.new_ones(())))
    result = where(positive, terms, where(x < 0, x.new_full((), -math.inf), x * 0.0))
    return _dispatch.finish(result, out, "special_entr")


def xlog1py(input, other, *, out=None):
    """Tensor: ``input * log1p(other)``, 0 where ``input`` is 0 (unless ``other`` is NaN)."""
    x, y = _dispatch.to_tensor(input), _dispatch.to_tensor(other)
    (x, y), _ = _dispatch.promoted(x, y, np_dtype=_dispatch.result_dtype(x, y, 1.0))
    zero = x.new_zeros(())
    # where x is 0 the result is 0 unless y is NaN: log1p is taken of 0 there, so that -1 and inf give no
    # -inf * 0 or inf * 0 (NaN)
    x_zero = (x == 0) & ~y.isnan()
    return _dispatch.finish(where(x_zero, zero, x * log1p(where(x_zero, zero, y))), out, "special_xlog1py")
