"""tf.linalg matrix functions computed through eigendecompositions: sqrtm, logm, eigh_tridiagonal.

``sqrtm`` and ``logm`` apply the scalar function to the eigenvalues of each (diagonalizable) matrix,
``V f(diag(w)) V^-1``, which is the principal square root / logarithm TF's Schur and Pade methods
compute; they are host computations (not differentiable, as TF registers no gradient for logm).
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, op_error

_SQRTM_TYPES = (_dtypes.float16, _dtypes.float32, _dtypes.float64, _dtypes.complex64, _dtypes.complex128)
_LOGM_TYPES = (_dtypes.complex64, _dtypes.complex128)


def _square(x, tf_op):
    if x.shape.rank is not None and x.shape.rank < 2:
        raise op_error(f"Input must have rank >= 2, got {x.shape.rank}", tf_op)
    if x.shape[-1] != x.shape[-2]:
        raise op_error("Input matrix must be square.", tf_op)


def _type_error(x, tf_op, allowed):
    names = ", ".join(d.name.replace("float32", "float").replace("float64", "double").replace("float16", "half")
                      for d in allowed)
    return op_error(f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values: {names}\n\t; "
                    f"NodeDef: {{{{node {tf_op}}}}}", tf_op)


def _matrix_function(array, scalar_fn):
    """``V f(w) V^-1`` per matrix of ``array`` (eigenvalues ``w``, eigenvectors ``V``), in complex."""
    wide = array.astype(np.complex128)
    values, vectors = np.linalg.eig(wide)
    result = (vectors * scalar_fn(values)[..., None, :]) @ np.linalg.inv(vectors)
    return result


def sqrtm(input, name=None):  # noqa: A002  (TF's name)
    """The principal square root of each square matrix of ``input`` (``[..., N, N]``)."""
    x = convert_to_tensor(input)
    if x.dtype not in _SQRTM_TYPES:
        raise _type_error(x, "MatrixSquareRoot", _SQRTM_TYPES)
    _square(x, "MatrixSquareRoot")

    def run(array):
        if array.size == 0:
            return array.copy()
        root = _matrix_function(array, np.sqrt)
        return (root if array.dtype.kind == "c" else root.real).astype(array.dtype)
    return host(run, x)


def logm(input, name=None):  # noqa: A002  (TF's name)
    """The principal logarithm of each square complex matrix of ``input`` (``[..., N, N]``)."""
    x = convert_to_tensor(input)
    if x.dtype not in _LOGM_TYPES:
        raise _type_error(x, "MatrixLogarithm", _LOGM_TYPES)
    _square(x, "MatrixLogarithm")
    return host(lambda array: array.copy() if array.size == 0 else
                _matrix_function(array, np.log).astype(array.dtype), x)


def _tridiagonal(alpha, beta):
    """Dense Hermitian tridiagonal matrix: ``alpha`` on the diagonal, ``beta`` above it, ``conj(beta)`` below."""
    n = alpha.shape[-1]
    dtype = np.result_type(alpha, beta)
    dense = np.zeros((n, n), dtype)
    dense[np.arange(n), np.arange(n)] = alpha
    dense[np.arange(n - 1), np.arange(1, n)] = beta
    dense[np.arange(1, n), np.arange(n - 1)] = np.conj(beta)
    return dense


def eigh_tridiagonal(alpha, beta, eigvals_only=True, select="a", select_range=None, tol=None, name=None):
    """Eigenvalues (and eigenvectors) of the Hermitian tridiagonal matrix with diagonal ``alpha`` (``[N]``)
    and superdiagonal ``beta`` (``[N - 1]``), ascending.

    Parameters
    ----------
    select : {"a", "v", "i"}
        All eigenvalues, those in the half-open interval ``(lo, hi]`` of ``select_range``, or those with
        indices ``lo..hi`` (inclusive).
    eigvals_only : bool
        Return only the eigenvalues, else ``(eigenvalues, eigenvectors)`` with eigenvectors as columns.
    """
    alpha = convert_to_tensor(alpha)
    beta = convert_to_tensor(beta)
    if alpha.dtype != beta.dtype:
        raise ValueError("alpha.dtype != beta.dtype")
    if alpha.shape.rank != 1:
        raise ValueError("alpha must be a vector")
    if beta.shape.rank != 1 or beta.shape[0] != max(alpha.shape[0] - 1, 0):
        # TF fails in its first elementwise step combining alpha with beta padded by one
        raise op_error(f"Incompatible shapes: [{alpha.shape[0]}] vs. [{beta.shape[0] + 1}]", "AddV2")
    if select not in ("a", "v", "i"):
        raise ValueError("'select must have a value in {'a', 'i', 'v'}.")
    if select != "a" and select_range is None:
        raise ValueError(f"select_range must be provided when select is {select!r}.")
    bounds = None if select == "a" else np.asarray(getattr(select_range, "array", select_range))

    def run(alpha_array, beta_array):
        dense = _tridiagonal(alpha_array, beta_array)
        values, vectors = np.linalg.eigh(dense)
        if select == "v":
            keep = (values > bounds[0]) & (values <= bounds[1])
        elif select == "i":
            keep = (np.arange(len(values)) >= bounds[0]) & (np.arange(len(values)) <= bounds[1])
        else:
            keep = np.ones(len(values), bool)
        values = values[keep].astype(alpha_array.real.dtype)
        return values if eigvals_only else (values, vectors[:, keep].astype(dense.dtype))
    return host(run, alpha, beta)


NAMESPACES = {"linalg": ["sqrtm", "logm", "eigh_tridiagonal"]}
TENSOR_METHODS = {}
