"""torch.linalg.cond / vander / tensorinv / tensorsolve / householder_product, and the removed
``torch.lstsq`` / ``torch.matrix_rank`` (which raise torch's messages). All are compositions of
differentiable operations, so gradients follow."""

import math

from vfw.frontends.torch import _creation, _joining, _linalg, _linalg_decomp, _linalg_norms
from vfw.frontends.torch._grad_fn_names import names_grad_fn
from vfw.frontends.torch._pointwise import tensor_arg

__all__ = ["lstsq", "matrix_rank"]  # torch.* (removed functions)
LINALG = ["cond", "householder_product", "tensorinv", "tensorsolve", "vander"]  # torch.linalg.*

_NORM_ORDERS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def cond(A, p=None, *, out=None):
    """Condition number of (batches of) matrices: ``sigma_max / sigma_min`` for ``p`` None/2 (``-2``: the
    inverse), else ``norm(A, p) * norm(inv(A), p)`` (square matrices; ``inf`` where ``A`` is singular)."""
    tensor_arg(A, "linalg.cond", "A")
    if p not in (None,) + _NORM_ORDERS:
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if A.dim() < 2:
        raise RuntimeError("linalg.cond: The input tensor A must have at least 2 dimensions.")
    if p in (None, 2, -2):
        s = _linalg_decomp.svdvals(A)
        return s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.cond(ord={p}): A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    inverse, info = _linalg_decomp.inv_ex(A)
    result = _linalg_norms.matrix_norm(A, p) * _linalg_norms.matrix_norm(inverse, p)
    return result.masked_fill(info > 0, math.inf)


def vander(x, *, N=None):
    """Vandermonde matrix ``[x^0, x^1, ..., x^(N-1)]`` along a new last dim (``N`` defaults to ``x.shape[-1]``)."""
    tensor_arg(x, "linalg.vander", "x")
    if x.dim() < 1:
        raise RuntimeError("linalg.vander: x must have at least one dimension.")
    count = x.shape[-1] if N is None else N
    if count <= 1:
        raise RuntimeError("N must be greater than 1.")
    columns = [_creation.ones_like(x), x]
    for _ in range(count - 2):
        columns.append(columns[-1] * x)
    return _joining.stack(columns, -1)


def tensorinv(A, ind=2, *, out=None):
    """The tensor ``X`` with ``tensordot(A, X, ind)`` the identity: ``A`` reshaped to a square matrix and
    inverted, shape ``A.shape[ind:] + A.shape[:ind]``."""
    tensor_arg(A, "linalg.tensorinv", "A")
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = math.prod(A.shape[:ind]), math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    return _linalg_decomp.inv(A.reshape(rows, cols)).reshape(tuple(A.shape[ind:]) + tuple(A.shape[:ind]))


def tensorsolve(A, B, dims=None, *, out=None):
    """The tensor ``X`` with ``tensordot(A, X, X.ndim) == B`` (``dims``: dims of ``A`` moved to the end first)."""
    tensor_arg(A, "linalg.tensorsolve", "A")
    tensor_arg(B, "linalg.tensorsolve", "B", 2)
    if dims is not None:
        moved = [d % A.dim() for d in dims]
        A = A.permute([d for d in range(A.dim()) if d not in moved] + moved)
    solution_shape = tuple(A.shape[B.dim():])
    rows, cols = B.numel(), math.prod(solution_shape)
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                           f"prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    return _linalg_decomp.solve(A.reshape(rows, cols), B.reshape(rows)).reshape(solution_shape)


@names_grad_fn("LinalgHouseholderProductBackward0")
def householder_product(A, tau, *, out=None):
    """The first ``n`` columns of ``H_1 H_2 ... H_k``, ``H_i = I - tau_i v_i v_i^H`` with ``v_i`` column ``i`` of
    ``A`` below the diagonal (1 on it), as LAPACK's ``orgqr`` builds ``Q`` from ``geqrf``'s output."""
    tensor_arg(A, "linalg.householder_product", "A")
    tensor_arg(tau, "linalg.householder_product", "tau", 2)
    m, n = A.shape[-2], A.shape[-1]
    if m < n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if tau.shape[-1] > n:
        raise RuntimeError("torch.linalg.householder_product: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    eye = _creation.eye(m, dtype=A.dtype)
    reflectors = A.tril(-1) + eye[:, :n]
    q = eye.expand(tuple(A.shape[:-2]) + (m, m))
    for i in range(tau.shape[-1] - 1, -1, -1):  # Q = H_1 (H_2 (... H_k)), applied right to left
        v = reflectors[..., :, i:i + 1]
        q = q - tau[..., i, None, None] * _linalg.matmul(v, _linalg.matmul(v.mH, q))
    return q[..., :, :n]


def lstsq(input, A, *, out=None):
    """Removed from torch (use ``torch.linalg.lstsq``): raises torch's RuntimeError."""
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed. `torch.lstsq` is deprecated in favor of "
        "`torch.linalg.lstsq`.\n`torch.linalg.lstsq` has reversed arguments and does not return the QR decomposition "
        "in the returned tuple (although it returns other information about the problem).\n\nTo get the QR "
        "decomposition consider using `torch.linalg.qr`.\n\nThe returned solution in `torch.lstsq` stored the "
        "residuals of the solution in the last m - n columns of the returned value whenever m > n. In "
        "torch.linalg.lstsq, the residuals are in the field 'residuals' of the returned named tuple.\n\nThe unpacking "
        "of the solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced with:\nX = "
        "torch.linalg.lstsq(A, B).solution")


def matrix_rank(input, tol=None, symmetric=False, *, out=None):
    """Removed from torch (use ``torch.linalg.matrix_rank``): raises torch's RuntimeError."""
    raise RuntimeError("This function was deprecated since version 1.9 and is now removed.\nPlease use the "
                       "`torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed in "
                       "`torch.linalg.matrix_rank()` to 'hermitian'.")

