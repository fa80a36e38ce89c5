"""torch.linalg: decompositions, solvers, inverses, norms and products of (batches of) matrices.

Everything here broadcasts over leading batch dims, as in torch; decompositions need
float32, float64, complex64 or complex128 input. The implementations live in ``_linalg``
(products), ``_linalg_decomp`` (LAPACK-backed functions), ``_linalg_ldl`` (LDL factorization) and
``_linalg_norms`` (norms, vector products).
"""

from vfw.frontends.torch._linalg import matmul
from vfw.frontends.torch._linalg_decomp import (
    LinAlgError,
    cholesky_ex,
    det,
    eigh,
    eigvalsh,
    inv,
    inv_ex,
    lstsq,
    matrix_exp,
    matrix_power,
    matrix_rank,
    pinv,
    solve,
    solve_ex,
    solve_triangular,
    svdvals,
)
from vfw.frontends.torch._linalg_decomp import linalg_cholesky as cholesky
from vfw.frontends.torch._linalg_decomp import linalg_qr as qr
from vfw.frontends.torch._linalg_decomp import linalg_slogdet as slogdet
from vfw.frontends.torch._linalg_decomp import linalg_svd as svd
from vfw.frontends.torch._linalg_eig import eig, eigvals
from vfw.frontends.torch._linalg_extras import cond, householder_product, tensorinv, tensorsolve, vander
from vfw.frontends.torch._linalg_ldl import ldl_factor, ldl_factor_ex, ldl_solve
from vfw.frontends.torch._linalg_lu import linalg_lu as lu
from vfw.frontends.torch._linalg_lu import linalg_lu_solve as lu_solve
from vfw.frontends.torch._linalg_lu import lu_factor, lu_factor_ex
from vfw.frontends.torch._linalg_norms import (
    diagonal,
    matrix_norm,
    multi_dot,
    norm,
    vecdot,
    vector_norm,
)
from vfw.frontends.torch._linalg_norms import linalg_cross as cross

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh",
           "inv", "inv_ex", "lstsq", "matmul", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot",
           "norm", "pinv",
           "qr", "slogdet", "solve", "solve_ex", "solve_triangular", "svd", "svdvals", "vecdot", "vector_norm"]
__all__ += ["cond", "householder_product", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "tensorinv", "tensorsolve",
            "vander"]
__all__ += ["ldl_factor", "ldl_factor_ex", "ldl_solve"]
