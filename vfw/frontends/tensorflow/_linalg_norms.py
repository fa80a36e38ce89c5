"""tf.norm / tf.linalg.norm, global_norm, l2_normalize (also in tf.math and tf.nn) and normalize, with TF's
checks of ``ord`` and ``axis`` and its formulas (so gradients, at zero vectors too, are TF's)."""

import collections.abc

import numpy as np

from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor
from vfw.frontends.tensorflow._indexed_slices import IndexedSlices
from vfw.frontends.tensorflow._linalg_decomp import singular_values
from vfw.frontends.tensorflow._op_support import (
    BOOL,
    FLOATS,
    SIGNED,
    UNSIGNED,
    OpTypes,
    int64s,
    reduce,
    reshape,
    same_dtype,
    scalar_like,
)
from vfw.frontends.tensorflow._traced_shapes import pinned

_SQRT_TYPES = OpTypes("Sqrt", FLOATS)
_ABS_TYPES = OpTypes("Abs", FLOATS | SIGNED)
_POW_TYPES = OpTypes("Pow", FLOATS)
_L2_LOSS_TYPES = OpTypes("L2Loss", FLOATS)
_SQUARE_TYPES = OpTypes("Square", FLOATS | SIGNED | UNSIGNED)


def _is_ord(ord, choices):  # noqa: A002  (TF's name)
    if isinstance(ord, str):
        return ord in choices
    return any(not isinstance(c, str) and ord == c for c in choices)


def _check_norm_args(ord, axis):  # noqa: A002
    """Whether ``axis`` selects matrices, after TF's checks of ``ord`` and ``axis``."""
    matrix = isinstance(axis, (tuple, list)) and len(axis) == 2
    if matrix:
        axis = tuple(axis)
        if not all(isinstance(i, int) for i in axis) or axis[0] == axis[1]:
            raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
        if not _is_ord(ord, ("euclidean", "fro", 1, 2, np.inf)):
            raise ValueError(f"'ord' must be a supported matrix norm in ['euclidean', 'fro', 1, 2, inf], got {ord}")
        return True
    if not (axis is None or isinstance(axis, int)):
        raise ValueError(f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}")
    positive = isinstance(ord, (int, float, np.number)) and not isinstance(ord, bool) and ord > 0
    if not positive and not _is_ord(ord, ("euclidean", 1, 2, np.inf)):
        raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
    return False


def _spectral_norm(x, axis):
    """Largest singular value of the matrices in dims ``axis``, kept as size-1 dims there."""
    rank = x.array.ndim
    pair = [i % rank for i in axis]
    perm = [i for i in range(rank) if i not in pair] + pair
    values = singular_values(call("Transpose", x, perm=perm, tf_op="Transpose"))
    largest = reduce("ReduceMax", values, [-1], True, "Max")
    kept = call("Unsqueeze", largest, int64s([-1]), tf_op="ExpandDims")
    return call("Transpose", kept, perm=list(np.argsort(perm)), tf_op="Transpose")


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):  # noqa: A002  (TF's names)
    """Vector norm (``axis`` None or an int) or matrix norm (``axis`` a pair) of ``tensor``.

    Parameters
    ----------
    ord : 'euclidean', 'fro', 1, 2, np.inf or a positive number
        Vector norms: euclidean/2, 1, inf, any p > 0. Matrix norms: 'fro'/'euclidean'
        (Frobenius), 1 (max column sum), 2 (largest singular value), inf (max row sum).
    axis : None, int or pair of ints
        None flattens the whole tensor into one vector.
    keepdims : bool

    Returns
    -------
    Tensor
    """
    matrix = _check_norm_args(ord, axis)
    x = convert_to_tensor(tensor)
    axes = None if axis is None else (list(axis) if matrix else [axis])
    if _is_ord(ord, ("euclidean", "fro", 2)):
        if matrix and ord == 2:
            result = _spectral_norm(x, axes)
        else:
            if x.array.dtype == BOOL:
                raise TypeError("Expected numeric or variant tensor, got dtype tf.bool.")
            _SQRT_TYPES.check(x.array.dtype)
            result = call("Sqrt", reduce("ReduceSum", call("Mul", x, x, tf_op="Mul"), axes, True, "Sum"), tf_op="Sqrt")
    else:
        _ABS_TYPES.check(x.array.dtype)
        result = call("Abs", x, tf_op="Abs")
        if ord == 1:
            result = reduce("ReduceSum", result, None if axes is None else axes[:1], True, "Sum")
            if matrix:
                result = reduce("ReduceMax", result, axes[1:], True, "Max")
        elif ord == np.inf:
            if matrix:
                result = reduce("ReduceSum", result, axes[1:], True, "Sum")
            result = reduce("ReduceMax", result, None if axes is None else axes[:1], True, "Max")
        else:
            _POW_TYPES.check(x.array.dtype)
            powered = call("Pow", result, scalar_like(ord, x), tf_op="Pow")
            total = reduce("ReduceSum", powered, axes, True, "Sum")
            result = call("Pow", total, scalar_like(1.0 / ord, x), tf_op="Pow")
    if keepdims:
        return result
    squeezed = list(range(x.array.ndim)) if axes is None else axes
    return call("Squeeze", result, int64s(squeezed), tf_op="Squeeze")


def global_norm(t_list, name=None):
    """sqrt of the sum of squares of every element of the tensors in ``t_list`` (None entries skipped)."""
    if not isinstance(t_list, collections.abc.Sequence) or isinstance(t_list, str):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    # an IndexedSlices counts its rows' values (repeated rows not summed), as TF
    values = [convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t)
              for t in t_list if t is not None]
    if not values:
        return convert_to_tensor(0.0)
    sums = []
    same_dtype("Pack", *values)
    for v in values:
        _L2_LOSS_TYPES.check(v.array.dtype)
        sums.append(reduce("ReduceSum", call("Mul", v, v, tf_op="Mul"), None, True, "Sum"))
    total = call("Concat", *[reshape(s, (1,)) for s in sums], axis=0, tf_op="Pack")
    return call("Sqrt", reduce("ReduceSum", total, None, False, "Sum"), tf_op="Sqrt")


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """``x / sqrt(max(sum(x**2, axis), epsilon))``: unit L2 norm along ``axis`` (all axes when None)."""
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'dim' and 'axis'.")
        axis = dim
    x = convert_to_tensor(x)
    _SQUARE_TYPES.check(x.array.dtype)
    floor = convert_to_tensor(epsilon, dtype=x.dtype)  # TypeError for integer x, as TF
    axes = None if axis is None else np.asarray(axis.array if hasattr(axis, "array") else axis).reshape(-1).tolist()
    if hasattr(axis, "array"):
        pinned(axis, axes, "axis", "Sum")
    squares = reduce("ReduceSum", call("Mul", x, x, tf_op="Square"), axes, True, "Sum")
    root = call("Sqrt", call("Max", squares, floor, tf_op="Maximum"), tf_op="Rsqrt")
    inverse = call("Reciprocal", root, tf_op="Rsqrt")
    return call("Mul", x, inverse, tf_op="Mul")


def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002  (TF's names)
    """``(tensor / norm, norm)`` with the norm taken as :func:`norm` does, its reduced dims kept."""
    x = convert_to_tensor(tensor)
    size = norm(x, ord=ord, axis=axis, keepdims=True)
    return call("Div", x, size, tf_op="RealDiv"), size


NAMESPACES = {
    "tf": ["norm"],
    "linalg": ["norm", "global_norm", "l2_normalize", "normalize"],
    "math": ["l2_normalize"],
    "nn": ["l2_normalize"],
}
TENSOR_METHODS = {}
