"""``tf.linalg.eig`` / ``tf.eig`` and ``eigvals``: the eigen decomposition of general square matrices, over the
engine's ``Eig`` op (``vfw/core/ops/linalg_eig.py``).

Results are complex of the input's precision (float32/complex64 -> complex64, float64/complex128 ->
complex128).  Eigenvalues come in LAPACK's order and eigenvectors as unit-norm columns; TF's solver
(Eigen's) can order them differently and give the columns other phases ``e^{i phi}``, as any two
eigensolvers may.  Gradients are the engine's: a loss that depends on the eigenvectors' phases
is refused (RuntimeError) where TF returns a phase-dependent value.
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, op_error

_EIG_DTYPES = frozenset(np.dtype(d) for d in (np.float32, np.float64, np.complex64, np.complex128))


def eig(tensor, name=None):
    """Eigenvalues ``(..., N)`` and eigenvectors (columns, ``(..., N, N)``) of the square matrices in ``tensor``.

    Raises
    ------
    TypeError
        For dtypes other than float32/float64/complex64/complex128.
    InvalidArgumentError
        For inputs of rank below 2 or non-square matrices.
    """
    x = convert_to_tensor(tensor)
    if x.array.dtype not in _EIG_DTYPES:
        raise TypeError(f"eig: tensor must be float32, float64, complex64 or complex128, got "
                        f"{_dtypes.of_array(x.array).name}")
    if x.array.ndim < 2:
        raise op_error(f"Input tensor 0 must have rank >= 2, got {x.array.ndim}", "Eig")
    if x.array.shape[-1] != x.array.shape[-2]:
        raise op_error("Input matrix must be square.", "Eig")
    return call("Eig", x, tf_op="Eig")


def eigvals(tensor, name=None):
    """The eigenvalues ``(..., N)`` of the square matrices in ``tensor`` (see ``eig``)."""
    return eig(tensor)[0]


NAMESPACES = {"tf": ["eig", "eigvals"], "linalg": ["eig", "eigvals"]}
TENSOR_METHODS = {}
