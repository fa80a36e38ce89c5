"""keras.ops products and linear algebra: matmul, dot, tensordot, einsum, outer, norm, qr, inv, solve...

Products promote their operands (``result_type``) and compute integer products in a float type,
casting back, as Keras does on TensorFlow (int8 x int8 matmul/einsum accumulate into int32).
"""


import numpy as np

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.backend import config
from vfw.frontends.tensorflow.keras.src.backend.dtypes import result_type
from vfw.frontends.tensorflow.keras.src.ops._common import cast_to, convert_to_tensor, float_of, keras_op
from vfw.frontends.tensorflow.keras.src.ops.numpy_array import moveaxis


def _product_operands(x1, x2):
    """Both operands cast to the float compute type of their promoted dtype; and that result dtype."""
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    out = result_type(x1.dtype.name, x2.dtype.name)
    compute = result_type(out, float)
    return cast_to(x1, compute), cast_to(x2, compute), out


@keras_op
def matmul(x1, x2):
    """Matrix product with numpy's broadcasting and 1-D rules (int8 x int8 gives int32)."""
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    rank1, rank2 = x1.ndim, x2.ndim
    dtype1, dtype2 = x1.dtype.name, x2.dtype.name
    if dtype1 == "int8" and dtype2 == "int8" and rank1 != 1 and rank2 != 1:
        return tf.matmul(x1, x2, output_type="int32")
    out = result_type(dtype1, dtype2)
    compute = result_type(dtype1, dtype2, float)
    x1, x2 = cast_to(x1, compute), cast_to(x2, compute)
    if rank1 == 2 and rank2 == 2:
        product = tf.matmul(x1, x2)
    elif rank2 == 1:
        product = tf.tensordot(x1, x2, axes=1)
    elif rank1 == 1:
        product = tf.tensordot(x1, x2, axes=[[0], [-2]])
    elif rank2 == 2 and rank1 > 2:
        product = tf.tensordot(x1, x2, axes=[[-1], [0]])
    else:
        product = tf.matmul(x1, x2)
    return cast_to(product, out)


@keras_op
def dot(x1, x2):
    """numpy's dot: products of scalars, inner products of vectors, matrix products otherwise."""
    x1, x2, out = _product_operands(x1, x2)
    if not x1.shape.rank or not x2.shape.rank:
        product = x1 * x2
    elif x2.shape.rank == 1:
        product = tf.tensordot(x1, x2, axes=[[-1], [-1]])
    else:
        product = tf.tensordot(x1, x2, axes=[[-1], [-2]])
    return tf.cast(product, out)


@keras_op
def tensordot(x1, x2, axes=2):
    """Sum of products over ``axes`` (an int: the last/first axes; or a pair of axis lists)."""
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    out = result_type(x1.dtype.name, x2.dtype.name)
    exact = ("int32", "int64", "float16", "float32", "float64", "bfloat16", "complex64", "complex128")
    compute = out if out in exact else result_type(out, float)
    return tf.cast(tf.tensordot(tf.cast(x1, compute), tf.cast(x2, compute), axes=axes), out)


@keras_op
def outer(x1, x2):
    """The outer product of the flattened ``x1`` and ``x2``."""
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    dtype = result_type(x1.dtype.name, x2.dtype.name)
    return tf.reshape(tf.cast(x1, dtype), [-1, 1]) * tf.reshape(tf.cast(x2, dtype), [-1])


@keras_op
def inner(x1, x2):
    """Sum of products over the last axes (a plain product when one is a scalar)."""
    x1, x2, out = _product_operands(x1, x2)
    if not x1.shape.rank or not x2.shape.rank:
        return tf.cast(x1 * x2, out)
    return tf.cast(tf.tensordot(x1, x2, axes=[[-1], [-1]]), out)


@keras_op
def vdot(x1, x2):
    """The inner product of the flattened ``x1`` and ``x2``."""
    x1, x2, out = _product_operands(x1, x2)
    return tf.cast(tf.tensordot(tf.reshape(x1, [-1]), tf.reshape(x2, [-1]), axes=1), out)


@keras_op
def einsum(subscripts, *operands, **kwargs):
    """Einstein summation (integer operands computed in floatx and cast back; all-int8 gives int32)."""
    operands = [convert_to_tensor(x) for x in operands]
    dtypes = {x.dtype.name for x in operands}
    if dtypes == {"int8"}:
        out, compute = "int32", config.floatx()
    else:
        out = result_type(*dtypes)
        compute = config.floatx() if "int" in out else out
    return tf.cast(tf.einsum(subscripts, *(tf.cast(x, compute) for x in operands), **kwargs), out)


@keras_op
def cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross products of 3-vectors (or 2-vectors, giving their z component) along the given axes."""
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    dtype = result_type(x1.dtype.name, x2.dtype.name)
    if axis is not None:
        axisa = axisb = axisc = axis
    x1 = moveaxis.eager(tf.cast(x1, dtype), axisa, -1)
    x2 = moveaxis.eager(tf.cast(x2, dtype), axisb, -1)
    planar = x1.shape[-1] == 2 and x2.shape[-1] == 2

    def to_3d(x):
        return tf.pad(x, [[0, 0]] * (len(x.shape) - 1) + [[0, 1]]) if x.shape[-1] == 2 else x

    x1, x2 = to_3d(x1), to_3d(x2)
    shape = tf.broadcast_dynamic_shape(tf.shape(x1), tf.shape(x2))
    product = tf.linalg.cross(tf.broadcast_to(x1, shape), tf.broadcast_to(x2, shape))
    return product[..., 2] if planar else moveaxis.eager(product, -1, axisc)


# -- keras.ops.linalg ----------------------------------------------------------------------------------------------
def _check_matrices(*arrays, square=True):
    for a in arrays:
        if len(a.shape) < 2:
            raise ValueError(f"Expected input to have rank >= 2. Received input with shape {a.shape}.")
        if square and a.shape[-2] != a.shape[-1]:
            raise ValueError(f"Expected a square matrix. Received non-square input with shape {a.shape}")


@keras_op
def norm(x, ord=None, axis=None, keepdims=False):
    """Vector norms (one axis) or matrix norms (two axes; ``"fro"``, ``"nuc"``, +-1, +-2, +-inf)."""
    x = float_of(x)
    ndim = x.shape.rank
    axes = tuple(range(ndim)) if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
    if any(a < -ndim or a >= ndim for a in axes):
        raise ValueError(f"All `axis` values must be in the range [-ndim, ndim). Received inputs with ndim={ndim}, "
                         f"while axis={axes}")
    if len(axes) == 1:
        return _vector_norm(x, ord, axes[0], keepdims)
    if len(axes) == 2:
        return _matrix_norm(x, ord, axes, keepdims)
    raise ValueError(f"Invalid axis values. Received: axis={axis}")


def _vector_norm(x, ord, axis, keepdims):
    if ord is None or ord == 2:
        return tf.sqrt(tf.reduce_sum(x * x, axis=axis, keepdims=keepdims))
    if ord == float("inf"):
        return tf.reduce_max(tf.abs(x), axis=axis, keepdims=keepdims)
    if ord == float("-inf"):
        return tf.reduce_min(tf.abs(x), axis=axis, keepdims=keepdims)
    if ord == 0:
        return tf.reduce_sum(tf.cast(tf.not_equal(x, 0), x.dtype), axis=axis, keepdims=keepdims)
    if isinstance(ord, str):
        raise ValueError(f"Invalid `ord` argument for vector norm. Received: ord={ord}")
    ord = convert_to_tensor(ord, dtype=x.dtype)
    return tf.pow(tf.reduce_sum(tf.pow(tf.abs(x), ord), axis=axis, keepdims=keepdims), 1.0 / ord)


def _matrix_norm(x, ord, axes, keepdims):
    ndim = x.shape.rank
    rows, cols = (a % ndim for a in axes)
    if ord is None or ord == "fro":
        return tf.sqrt(tf.reduce_sum(x * x, axis=axes, keepdims=keepdims))
    if ord in (1, -1, float("inf"), float("-inf")):
        summed, kept = (rows, cols) if ord in (1, -1) else (cols, rows)
        if not keepdims and kept > summed:
            kept -= 1
        reduce = tf.reduce_max if ord in (1, float("inf")) else tf.reduce_min
        return reduce(tf.reduce_sum(tf.abs(x), axis=summed, keepdims=keepdims), axis=kept, keepdims=keepdims)
    if ord in ("nuc", 2, -2):
        singular = tf.linalg.svd(moveaxis.eager(x, axes, (-2, -1)), compute_uv=False)
        reduce = {"nuc": tf.reduce_sum, 2: tf.reduce_max, -2: tf.reduce_min}[ord]
        out = reduce(singular, axis=-1)
        if keepdims:
            out = tf.expand_dims(tf.expand_dims(out, axes[0]), axes[1])
        return out
    raise ValueError(f"Invalid `ord` argument for matrix norm. Received: ord={ord}")


@keras_op
def qr(x, mode="reduced"):
    """``(q, r)`` of ``x`` (``mode`` "reduced" or "complete")."""
    if mode not in ("reduced", "complete"):
        raise ValueError("`mode` argument value not supported. Expected one of {'reduced', 'complete'}. Received: "
                         f"mode={mode}")
    return tf.linalg.qr(convert_to_tensor(x), full_matrices=mode == "complete")


@keras_op
def inv(x):
    """The inverse of the square matrices ``x``."""
    x = convert_to_tensor(x)
    _check_matrices(x)
    return tf.linalg.inv(x)


@keras_op
def det(x):
    """The determinant of the square matrices ``x``."""
    x = convert_to_tensor(x)
    _check_matrices(x)
    return tf.linalg.det(x)


@keras_op
def solve(a, b):
    """``x`` with ``a @ x = b`` (``b`` a vector or matrix)."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    _check_matrices(a)
    if len(b.shape) == len(a.shape) - 1:
        return tf.squeeze(tf.linalg.solve(a, tf.expand_dims(b, -1)), axis=-1)
    return tf.linalg.solve(a, b)


@keras_op
def solve_triangular(a, b, lower=False):
    """``x`` with ``a @ x = b`` for triangular ``a`` (lower or upper)."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    _check_matrices(a)
    if len(b.shape) == len(a.shape) - 1:
        return tf.squeeze(tf.linalg.triangular_solve(a, tf.expand_dims(b, -1), lower=lower), axis=-1)
    return tf.linalg.triangular_solve(a, b, lower=lower)


@keras_op
def cholesky(x, upper=False):
    """The Cholesky factor of the symmetric positive-definite matrices ``x`` (lower unless ``upper``)."""
    x = convert_to_tensor(x)
    _check_matrices(x)
    factor = tf.linalg.cholesky(x)
    if not bool(tf.reduce_all(tf.math.is_finite(factor))):
        raise tf.errors.InvalidArgumentError(None, None, "Cholesky : Tensor had NaN values")
    return tf.linalg.adjoint(factor) if upper else factor


@keras_op
def cholesky_inverse(a, upper=False):
    """The inverse of ``L @ L^T`` (``U^T @ U`` if ``upper``) from its Cholesky factor ``a``."""
    a = convert_to_tensor(a)
    identity = tf.eye(a.shape[-1], dtype=a.dtype)
    inverse_factor = tf.linalg.triangular_solve(a, identity, lower=not upper)
    if upper:
        return tf.matmul(inverse_factor, inverse_factor, transpose_b=True)
    return tf.matmul(inverse_factor, inverse_factor, transpose_a=True)


@keras_op
def lstsq(a, b, rcond=None):
    """The least-squares solution ``x`` of ``a @ x = b`` (``a`` 2-D; singular values below ``rcond``
    times the largest are dropped, ``eps * max(shape)`` by default)."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if a.shape[0] != b.shape[0]:
        raise ValueError("Leading dimensions of input arrays must match")
    vector = b.shape.rank == 1
    if vector:
        b = b[:, None]
    if a.shape.rank != 2:
        raise TypeError(f"{a.shape.rank}-dimensional array given. Array must be two-dimensional")
    if b.shape.rank != 2:
        raise TypeError(f"{b.shape.rank}-dimensional array given. Array must be one or two-dimensional")
    m, n = a.shape
    eps = float(np.finfo(a.dtype.name).eps)
    rcond = eps * max(n, m) if rcond is None else (eps if rcond < 0 else rcond)
    u, s, vt = svd.eager(a, full_matrices=False)
    keep = s >= tf.convert_to_tensor(rcond, dtype=s.dtype) * s[0]
    inverse_s = tf.where(keep, 1 / tf.where(keep, s, tf.ones_like(s)), tf.zeros_like(s))[:, None]
    x = tf.matmul(tf.transpose(vt), inverse_s * tf.matmul(tf.transpose(u), b))
    return tf.reshape(x, [-1]) if vector else x


@keras_op
def svd(x, full_matrices=True, compute_uv=True):
    """``(u, s, vh)`` with ``x = u @ diag(s) @ vh`` (only ``s`` when not ``compute_uv``)."""
    x = convert_to_tensor(x)
    if not compute_uv:
        return tf.linalg.svd(x, full_matrices=full_matrices, compute_uv=False)
    s, u, v = tf.linalg.svd(x, full_matrices=full_matrices)
    return u, s, tf.linalg.adjoint(v)


@keras_op
def eigh(x):
    """``(eigenvalues, eigenvectors)`` of the symmetric matrices ``x`` (ascending eigenvalues)."""
    x = convert_to_tensor(x)
    _check_matrices(x)
    return tf.linalg.eigh(x)


@keras_op
def logdet(x):
    """``log(det(x))`` of positive-definite matrices."""
    return tf.linalg.logdet(convert_to_tensor(x))


@keras_op
def slogdet(x):
    """``(sign, log|det|)`` of the square matrices ``x``."""
    return tf.linalg.slogdet(convert_to_tensor(x))


@keras_op
def pinv(x, rcond=None):
    """The Moore-Penrose pseudo-inverse of ``x``."""
    return tf.linalg.pinv(convert_to_tensor(x), rcond=rcond)


@keras_op
def matrix_rank(x, tol=None):
    """The rank of the matrices ``x`` (singular values above ``tol``)."""
    return tf.linalg.matrix_rank(convert_to_tensor(x), tol=tol)


