"""LAPACK-style QR pieces (``torch.geqrf`` / ``orgqr`` / ``ormqr``), the ``Tensor.lu`` / ``Tensor.lu_solve`` methods,
and the removed ``torch.symeig`` / ``solve`` / ``eig`` (which raise torch's messages).

``geqrf`` is LAPACK's Householder QR as numpy exposes it (``numpy.linalg.qr(mode="raw")``): ``a`` holds ``R`` on
and above the diagonal and the reflectors below it, ``tau`` their scales (torch has no derivative for it);
``orgqr`` and ``ormqr`` build/apply ``Q = H_1 ... H_k`` with differentiable operations.
"""

import numpy as np

from vfw.frontends.torch import _creation, _dispatch, _joining, _linalg, _linalg_lu, return_types
from vfw.frontends.torch._linalg_extras import householder_product, lstsq
from vfw.frontends.torch._pointwise import tensor_arg

__all__ = ["geqrf", "orgqr", "ormqr", "symeig", "solve", "eig"]

_REMOVED = "This function was deprecated since version 1.9 and is now removed. "


def geqrf(input, *, out=None):
    """``(a, tau)``: LAPACK's ``geqrf`` QR factorization of (batches of) ``m x n`` matrices.

    ``a`` (column-major strides, as LAPACK writes it) holds ``R`` on and above the diagonal and the Householder
    vectors below it; ``tau`` (``min(m, n)`` per matrix) their scales. Not differentiable (as in torch).
    """
    tensor_arg(input, "geqrf")
    if input.dim() < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    arr = input.array
    if arr.dtype not in (np.float32, np.float64):
        raise NotImplementedError(f'"geqrf_cpu" not implemented for \'{_dispatch.type_name(arr.dtype)}\'')
    m, n = arr.shape[-2:]
    if arr.size:
        reflectors_t, tau = np.linalg.qr(arr.astype(np.float64), mode="raw")  # LAPACK's output, transposed
        reflectors_t, tau = reflectors_t.astype(arr.dtype), tau.astype(arr.dtype)
    else:
        reflectors_t, tau = np.zeros(arr.shape[:-2] + (n, m), arr.dtype), np.zeros(arr.shape[:-2] + (min(m, n),),
                                                                                   arr.dtype)
    a = _dispatch.wrap(np.swapaxes(np.ascontiguousarray(reflectors_t), -1, -2))  # column-major, as LAPACK
    tau = _dispatch.wrap(np.ascontiguousarray(tau))
    if input.requires_grad:
        message = "the derivative for 'geqrf' is not implemented."
        a, tau = not_differentiable(a, input, message), not_differentiable(tau, input, message)
    result = return_types.geqrf((a, tau))
    if out is not None:
        for target, value in zip(out, result):
            _dispatch.finish(value, target, "geqrf")
        return return_types.geqrf_out(tuple(out))
    return result


def not_differentiable(value, input, message):
    """``value`` with a history through ``input`` whose backward raises torch's RuntimeError ``message`` (as torch's
    functions without a derivative: ``geqrf``, ``ldl_factor``...)."""
    from vfw.frontends.torch.autograd import Function

    class GeqrfBackward(Function):
        @staticmethod
        def forward(ctx, x):
            return value.clone()

        @staticmethod
        def backward(ctx, grad):
            raise RuntimeError(message)

    return GeqrfBackward.apply(input)


def orgqr(input, tau):
    """``Q``'s first ``n`` columns from ``geqrf``'s output: ``torch.linalg.householder_product(input, tau)``."""
    return householder_product(input, tau)


def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """``op(Q) @ other`` (``left``) or ``other @ op(Q)``, ``Q = H_1 ... H_k`` the full ``m x m`` orthogonal matrix of
    ``geqrf``'s ``(input, tau)`` and ``op`` the conjugate transpose when ``transpose``; differentiable."""
    tensor_arg(input, "ormqr")
    tensor_arg(tau, "ormqr", "tau", 2)
    tensor_arg(other, "ormqr", "other", 3)
    if input.dim() < 2 or other.dim() < 2:
        raise RuntimeError("torch.ormqr: input and other must have at least 2 dimensions.")
    m = other.shape[-2] if left else other.shape[-1]
    if input.shape[-2] != m:
        raise RuntimeError(f"torch.ormqr: other.shape[{-2 if left else -1}] must be equal to input.shape[-2]")
    if tau.shape[-1] != min(m, input.shape[-1]):
        raise RuntimeError(f"torch.ormqr: tau.shape[-1] must be equal to min(other.shape[{-2 if left else -1}], "
                           "input.shape[-1])")
    n = input.shape[-1]
    if n < m:  # reflectors padded with zero columns give the square Q
        input = _joining.cat([input, _creation.zeros(tuple(input.shape[:-1]) + (m - n,), dtype=input.dtype)], -1)
    q = householder_product(input[..., :m], tau)
    if transpose:
        q = q.mH
    result = _linalg.matmul(q, other) if left else _linalg.matmul(other, q)
    return _dispatch.finish(result, out, "ormqr")


def _lu_method(self, pivot=True, get_infos=False):
    """``torch.lu(self, pivot, get_infos)`` (deprecated, as in torch)."""
    return _linalg_lu.lu(self, pivot, get_infos)


def _lu_solve_method(self, LU_data, LU_pivots):  # noqa: N803  (torch's argument names)
    """``torch.lu_solve(self, LU_data, LU_pivots)`` (deprecated, as in torch)."""
    return _linalg_lu.lu_solve(self, LU_data, LU_pivots)


def symeig(input, eigenvectors=False, upper=True, *, out=None):
    """Removed from torch (use ``torch.linalg.eigh`` / ``eigvalsh``): raises torch's RuntimeError."""
    raise RuntimeError(
        _REMOVED + "The default behavior has changed from using the upper triangular portion of the matrix by default "
        "to using the lower triangular portion.\n\nL, _ = torch.symeig(A, upper=upper) should be replaced with:\nL = "
        "torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, eigenvectors=True) "
        "should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')")


def solve(input, A, *, out=None):
    """Removed from torch (use ``torch.linalg.solve``): raises torch's RuntimeError."""
    raise RuntimeError(
        _REMOVED + "`torch.solve` is deprecated in favor of `torch.linalg.solve`. `torch.linalg.solve` has its "
        "arguments reversed and does not return the LU factorization.\n\nTo get the LU factorization see `torch.lu`, "
        "which can be used with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should be "
        "replaced with:\nX = torch.linalg.solve(A, B)")


def eig(self, eigenvectors=False, *, e=None, v=None):
    """Removed from torch (use ``torch.linalg.eig``): raises torch's RuntimeError."""
    raise RuntimeError(
        _REMOVED + "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` rather than real tensors "
        "mimicking complex tensors.\n\nL, _ = torch.eig(A) should be replaced with:\nL_complex = "
        "torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, eigenvectors=True) should be replaced with:\n"
        "L_complex, V_complex = torch.linalg.eig(A)")


TENSOR_METHODS = {"geqrf": geqrf, "orgqr": orgqr, "ormqr": ormqr, "lu": _lu_method, "lu_solve": _lu_solve_method,
                  "symeig": symeig, "solve": solve, "eig": eig, "lstsq": lstsq}
