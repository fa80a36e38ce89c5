"""Complex numbers in tf.math: ``tf.complex``, and ``real``/``imag``/``conj``/``angle``/``abs`` of complex tensors.

Real tensors keep the behaviour of ``_math_unary`` (``real`` of a float tensor is itself...); complex
ones run the engine's ``Real``/``Imag``/``Conj``/``Angle``/``ComplexAbs`` ops, whose gradients follow
TF's convention for real-valued losses (the gradient of ``L`` with respect to ``z = x + iy`` is
``dL/dx + i dL/dy``).  The arithmetic, ``matmul`` and sum/mean reductions of complex tensors are the
ordinary math functions, which allow complex dtypes as TF's kernels do.
"""

import numpy as np

from vfw.frontends.tensorflow import _math_unary
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, is_tensor_like, tensor_of
from vfw.frontends.tensorflow._op_support import F32, F64, check_broadcast

_COMPLEX_OF = {F32: np.dtype(np.complex64), F64: np.dtype(np.complex128)}


def _is_complex(x):
    return x.array.dtype.kind == "c"


def complex(real, imag, name=None):  # noqa: A001  (tf.complex)
    """Complex numbers ``real + i imag`` from broadcast parts.

    Parameters
    ----------
    real, imag : tensor-like
        Parts of one dtype, float32 (complex64 result) or float64 (complex128 result); Python values
        take the other part's dtype, float32 when both are Python values.

    Raises
    ------
    TypeError
        When the parts differ in dtype or are not float32/float64.
    InvalidArgumentError
        When their shapes do not broadcast.
    """
    hint = next((tensor_of(v).array.dtype for v in (real, imag) if is_tensor_like(v)), None)
    real = convert_to_tensor(real, dtype_hint=hint)
    imag = convert_to_tensor(imag, dtype_hint=hint)
    a, b = real.array.dtype, imag.array.dtype
    if a != b or a not in _COMPLEX_OF:
        raise TypeError(f"The `real` and `imag` components have incorrect types: {a.name} {b.name}. They must be "
                        "consistent, and one of [tf.float32, tf.float64]")
    check_broadcast("Complex", real.array, imag.array)
    return call("ComplexMake", real, imag, tf_op="Complex")


def real(input, name=None):  # noqa: A002  (TF's argument name)
    """The real part of a complex tensor (float32 for complex64, float64 for complex128); a real tensor itself."""
    x = convert_to_tensor(input)
    return call("Real", x, tf_op="Real") if _is_complex(x) else _math_unary.real(x)


def imag(input, name=None):  # noqa: A002
    """The imaginary part of a complex tensor; zeros for a real tensor."""
    x = convert_to_tensor(input)
    return call("Imag", x, tf_op="Imag") if _is_complex(x) else _math_unary.imag(x)


def conj(x, name=None):
    """The complex conjugate ``Re x - i Im x``; a real tensor itself."""
    x = convert_to_tensor(x)
    return call("Conj", x, tf_op="Conj") if _is_complex(x) else _math_unary.conj(x)


def angle(input, name=None):  # noqa: A002
    """The argument ``atan2(Im x, Re x)`` of a complex tensor; pi where a real tensor is negative, else 0."""
    x = convert_to_tensor(input)
    return call("Angle", x, tf_op="Angle") if _is_complex(x) else _math_unary.angle(x)


def abs(x, name=None):  # noqa: A001  (tf.abs)
    """The elementwise absolute value; the modulus (a real tensor) of a complex tensor."""
    x = convert_to_tensor(x)
    return call("ComplexAbs", x, tf_op="ComplexAbs") if _is_complex(x) else _math_unary.abs(x)


NAMESPACES = {
    "tf": ["complex", "abs"],
    "math": ["abs", "real", "imag", "conj", "angle"],
    "dtypes": ["complex"],
}
TENSOR_METHODS = {"__abs__": abs}
