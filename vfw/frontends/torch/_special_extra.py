"""More of torch.special: Bessel functions of the first and second kind (orders 0 and 1),
``spherical_bessel_j0``, the Hurwitz zeta function and the classical orthogonal polynomials.

The Bessel functions and zeta are thin adapters of engine ops (``BesselJ0/J1/Y0/Y1``,
``SphericalBesselJ0``: ``vfw/core/ops/special_bessel.py``; ``Zeta``: ``special_gamma.py``) with torch's
dtype rules, as are the polynomials (``OrthogonalPolynomial``: ``special_polynomials.py``) of degree ``n``
(truncated to an integer; negative: 0). None of these has a derivative in torch except ``zeta`` with
respect to ``q``.
"""

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _dispatch, _dtype
from vfw.frontends.torch._gamma_inc import no_derivative
from vfw.frontends.torch._linalg import run
from vfw.frontends.torch._pointwise import _op

__all__ = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t", "chebyshev_polynomial_u",
           "chebyshev_polynomial_v", "chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w",
           "spherical_bessel_j0", "zeta"]


def _result_dtype(name, *values):
    """The result's numpy dtype (torch's promotion; integers give the default dtype; half precision refused as
    torch's kernels do)."""
    tensors = [v for v in values if isinstance(v, CoreTensor)]
    dtypes = [t.array.dtype for t in tensors] or [np.dtype(np.float64)]
    result = dtypes[0]
    for d in dtypes[1:]:
        result = _dtype.promote_types(result, d)
    if not tensors:
        result = _dtype.default_float_np()
    if not _dtype.from_numpy_dtype(result).is_floating_point:
        result = _dtype.default_float_np()
    if result.itemsize < 4 or result.name == "bfloat16":
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_dispatch.type_name(result)}'")
    return result


def _operand(value, np_dtype):
    """``value`` (a tensor or a number) as a tensor of ``np_dtype``."""
    if not isinstance(value, CoreTensor):
        return _dispatch.wrap(np.asarray(value, np_dtype))
    return _dispatch.cast(value, np_dtype)


# --- Bessel functions and zeta (engine ops) ------------------------------------------------------------------

def _engine(op_type, name, *values, out=None):
    np_dtype = _result_dtype(name, *values)
    result = run(_op(op_type), *[_operand(v, np_dtype) for v in values])
    return result if out is None else _dispatch.finish(result, out, name)


def bessel_j0(input, *, out=None):
    """Bessel function of the first kind of order 0."""
    return _engine("BesselJ0", "bessel_j0", input, out=out)


def bessel_j1(input, *, out=None):
    """Bessel function of the first kind of order 1."""
    return _engine("BesselJ1", "bessel_j1", input, out=out)


def bessel_y0(input, *, out=None):
    """Bessel function of the second kind of order 0 (-inf at 0, NaN below)."""
    return _engine("BesselY0", "bessel_y0", input, out=out)


def bessel_y1(input, *, out=None):
    """Bessel function of the second kind of order 1 (-inf at 0, NaN below)."""
    return _engine("BesselY1", "bessel_y1", input, out=out)


def spherical_bessel_j0(input, *, out=None):
    """``sin(x) / x`` (1 at 0, 0 at +-inf)."""
    return _engine("SphericalBesselJ0", "spherical_bessel_j0", input, out=out)


def zeta(input, other, *, out=None):
    """Hurwitz zeta ``sum_k (k + other)^-input`` (Riemann's for ``other`` = 1); differentiable in ``other``."""
    np_dtype = _result_dtype("zeta", input, other)
    x, q = _operand(input, np_dtype), _operand(other, np_dtype)
    result = run(_op("Zeta"), x, q)
    if x.requires_grad:
        result = no_derivative(result, "zeta")
    return result if out is None else _dispatch.finish(result, out, "zeta")


# --- orthogonal polynomials (engine op OrthogonalPolynomial) -------------------------------------------------

def _polynomial(name, family, shifted=False):
    bound = _op("OrthogonalPolynomial", family=family, shifted=int(shifted))

    def polynomial(input, n, *, out=None):
        np_dtype = _result_dtype(name, input, n)
        result = run(bound, _operand(input, np_dtype), _operand(n, np_dtype))
        return result if out is None else _dispatch.finish(result, out, name)

    polynomial.__name__ = polynomial.__qualname__ = name
    polynomial.__doc__ = f"``{name}(input, n)``: the polynomial of degree ``n`` (truncated; negative: 0) at ``input``."
    return polynomial


chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t", "chebyshev_t")
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u", "chebyshev_u")
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v", "chebyshev_v")
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w", "chebyshev_w")
hermite_polynomial_h = _polynomial("hermite_polynomial_h", "hermite_h")
hermite_polynomial_he = _polynomial("hermite_polynomial_he", "hermite_he")
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l", "laguerre_l")
legendre_polynomial_p = _polynomial("legendre_polynomial_p", "legendre_p")
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t", "chebyshev_t", shifted=True)
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u", "chebyshev_u", shifted=True)
shifted_chebyshev_polynomial_v = _polynomial("shifted_chebyshev_polynomial_v", "chebyshev_v", shifted=True)
shifted_chebyshev_polynomial_w = _polynomial("shifted_chebyshev_polynomial_w", "chebyshev_w", shifted=True)
