"""tf.experimental.numpy products (dot, matmul, tensordot, einsum...), diagonals and type predicates."""

import builtins

import numpy as np

from vfw.frontends import tensorflow as tf
from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow.experimental.numpy._promotion import asarray, promote, to_np_dtype
from vfw.frontends.tensorflow.experimental.numpy._reductions import sum as np_sum
from vfw.frontends.tensorflow.experimental.numpy._shapes import moveaxis


def matmul(x1, x2):
    """``tnp.matmul``: the matrix product (1-d operands are promoted to matrices and the axis dropped)."""
    a, b = promote(x1, x2)
    if a.array.ndim == 0 or b.array.ndim == 0:
        raise ValueError("matmul: an input is a scalar; use multiply for scalars.")
    if a.array.ndim == 1 or b.array.ndim == 1:
        product = tf.tensordot(a, b, [[a.array.ndim - 1], [builtins.max(b.array.ndim - 2, 0)]]) \
            if b.array.ndim <= 2 else tf.linalg.matvec(tf.linalg.matrix_transpose(b), a)
        return product
    return tf.linalg.matmul(a, b)


def dot(a, b):
    """``tnp.dot``: products summed over the last axis of ``a`` and the second-to-last of ``b``."""
    a, b = promote(a, b)
    if a.array.ndim == 0 or b.array.ndim == 0:
        return a * b
    return tf.tensordot(a, b, [[a.array.ndim - 1], [builtins.max(b.array.ndim - 2, 0)]])


def tensordot(a, b, axes=2):
    """``tnp.tensordot``: products summed over ``axes`` (a count or a pair of axis lists)."""
    a, b = promote(a, b)
    return tf.tensordot(a, b, axes)


def inner(a, b):
    """``tnp.inner``: products summed over the last axes of ``a`` and ``b``."""
    a, b = promote(a, b)
    if a.array.ndim == 0 or b.array.ndim == 0:
        return a * b
    return tf.tensordot(a, b, [[-1 % a.array.ndim], [-1 % b.array.ndim]])


def outer(a, b):
    """``tnp.outer``: the outer product of the flattened ``a`` and ``b``."""
    a, b = promote(a, b)
    return tf.reshape(a, [-1, 1]) * tf.reshape(b, [1, -1])


def vdot(a, b):
    """``tnp.vdot``: the dot product of the flattened arrays, conjugating ``a``."""
    a, b = promote(a, b)
    return tf.reduce_sum(tf.math.conj(tf.reshape(a, [-1])) * tf.reshape(b, [-1]))


def kron(a, b):
    """``tnp.kron``: the Kronecker product."""
    a, b = promote(a, b)
    ndim = builtins.max(a.array.ndim, b.array.ndim)
    a = tf.reshape(a, [1] * (ndim - a.array.ndim) + list(a.array.shape))
    b = tf.reshape(b, [1] * (ndim - b.array.ndim) + list(b.array.shape))
    # Interleave the axes: result[i0, j0, i1, j1, ...] = a[i0, i1, ...] * b[j0, j1, ...].
    spread_a = tf.reshape(a, [d for n in a.array.shape for d in (n, 1)])
    spread_b = tf.reshape(b, [d for n in b.array.shape for d in (1, n)])
    shape = [m * n for m, n in zip(a.array.shape, b.array.shape)]
    return tf.reshape(spread_a * spread_b, shape)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """``tnp.cross``: the cross product of 3-vectors (2-vectors get a zero z component)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = promote(a, b)
    a, b = moveaxis(a, axisa, -1), moveaxis(b, axisb, -1)
    sizes = (a.array.shape[-1], b.array.shape[-1])
    if builtins.any(n not in (2, 3) for n in sizes):
        raise ValueError("incompatible dimensions for cross product (dimension must be 2 or 3)")
    a3, b3 = [tf.pad(t, [[0, 0]] * (t.array.ndim - 1) + [[0, 3 - t.array.shape[-1]]]) for t in (a, b)]
    shape = np.broadcast_shapes(a3.array.shape, b3.array.shape)
    product = tf.linalg.cross(tf.broadcast_to(a3, shape), tf.broadcast_to(b3, shape))
    if sizes == (2, 2):
        return product[..., 2]
    return moveaxis(product, -1, axisc)


def einsum(subscripts, *operands, **kwargs):
    """``tnp.einsum``: Einstein summation over operands promoted to one dtype."""
    tensors = promote(*operands)
    return tf.einsum(subscripts, *tensors)


def diagonal(a, offset=0, axis1=0, axis2=1):
    """``tnp.diagonal``: the diagonal at ``offset`` of the planes ``axis1 x axis2``, as the last axis."""
    t = asarray(a)
    planes = moveaxis(t, [axis1, axis2], [-2, -1])
    return tf.linalg.diag_part(planes, k=offset)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """``tnp.trace``: the sum of ``diagonal(a, offset, axis1, axis2)``."""
    return np_sum(diagonal(a, offset, axis1, axis2), -1, dtype)


def polyval(p, x):
    """``tnp.polyval``: the polynomial with coefficients ``p`` (highest power first) at ``x`` (Horner)."""
    coefficients, x = promote(p, x)
    if coefficients.array.ndim != 1:
        raise ValueError(f"p must be a 1-d array, got shape {coefficients.array.shape}")
    result = tf.zeros_like(x)
    for c in tf.unstack(coefficients):
        result = result * x + c
    return result


def _predicate(fn, name, doc):
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``tnp.{name}``: {doc}"
    return fn


def _elementwise_test(tf_test, name, default, scalar_for_exact=False):
    def fn(x):
        t = asarray(x)
        if t.array.dtype.kind not in "fc":
            # TF NumPy's isinf/isposinf/isneginf answer a plain False for integer and bool arrays.
            return default if scalar_for_exact else tf.fill(tf.shape(t), default)
        return tf_test(t)

    return _predicate(fn, name, "elementwise test; integers and bools give a constant.")


isfinite = _elementwise_test(tf.math.is_finite, "isfinite", True)
isnan = _elementwise_test(tf.math.is_nan, "isnan", False)
isinf = _elementwise_test(tf.math.is_inf, "isinf", False, scalar_for_exact=True)
isposinf = _elementwise_test(lambda t: tf.equal(t, np.inf), "isposinf", False, scalar_for_exact=True)
isneginf = _elementwise_test(lambda t: tf.equal(t, -np.inf), "isneginf", False, scalar_for_exact=True)


def iscomplex(x):
    """``tnp.iscomplex``: True where the imaginary part of ``x`` is nonzero."""
    t = asarray(x)
    return tf.not_equal(tf.math.imag(t), 0) if t.array.dtype.kind == "c" else tf.fill(tf.shape(t), False)


def isreal(x):
    """``tnp.isreal``: True where the imaginary part of ``x`` is zero."""
    return tf.logical_not(iscomplex(x))


def iscomplexobj(x):
    """``tnp.iscomplexobj``: whether ``x``'s dtype is complex."""
    return asarray(x).array.dtype.kind == "c"


def isrealobj(x):
    """``tnp.isrealobj``: whether ``x``'s dtype is not complex."""
    return not iscomplexobj(x)


def _as_numpy_type(arg):
    if isinstance(arg, _dtypes.DType):
        return arg.as_numpy_dtype
    if isinstance(arg, type) and issubclass(arg, np.generic):
        return arg
    return to_np_dtype(arg)


def issubdtype(arg1, arg2):
    """``tnp.issubdtype``: NumPy's ``issubdtype`` (tf.DTypes accepted)."""
    return np.issubdtype(_as_numpy_type(arg1), _as_numpy_type(arg2))


def finfo(dtype):
    """``tnp.finfo``: NumPy's float type information for ``dtype`` (tf.DTypes accepted)."""
    return np.finfo(_as_numpy_type(dtype))
