"""Clipping (tf.clip_by_value, tf.clip_by_norm, tf.clip_by_global_norm) and tf.math.polyval.

Each is composed of the tf.math functions the way TF documents it, so values, dtype errors and
gradients follow from those functions: ``clip_by_value`` is ``maximum(minimum(t, max), min)``
(the gradient goes to ``t`` on the boundaries), ``clip_by_norm`` scales by
``clip_norm / max(norm, clip_norm)`` with a NaN-free norm at zero, ``clip_by_global_norm`` by
``clip_norm * min(1 / global_norm, 1 / clip_norm)`` (NaN everywhere when the norm is infinite).
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, is_tensor_like
from vfw.frontends.tensorflow._indexed_slices import IndexedSlices
from vfw.frontends.tensorflow._math_binary import add, maximum, minimum, multiply, subtract, truediv
from vfw.frontends.tensorflow._math_logic import greater
from vfw.frontends.tensorflow._math_reduce import reduce_sum
from vfw.frontends.tensorflow._math_unary import sqrt
from vfw.frontends.tensorflow._op_support import OpTypes, cast, matching
from vfw.frontends.tensorflow._shape import TensorShape


def _same_shape(values, clipped):
    """TF's ValueError when broadcasting against a bound changed the shape of the clipped tensor."""
    if values.array.shape != clipped.array.shape:
        raise ValueError(f"Shapes {TensorShape(values.array.shape)} and {TensorShape(clipped.array.shape)} are "
                         "incompatible")


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """``t`` limited to ``[clip_value_min, clip_value_max]`` elementwise (bounds broadcast, not enlarging ``t``).

    An ``IndexedSlices`` gives one with each row of values clipped (repeated rows not summed first), as TF.
    """
    if isinstance(t, IndexedSlices):
        return IndexedSlices(clip_by_value(t.values, clip_value_min, clip_value_max), t.indices, t.dense_shape)
    values = convert_to_tensor(t)
    upper = minimum(values, clip_value_max)
    _same_shape(values, upper)
    clipped = maximum(upper, clip_value_min)
    _same_shape(values, clipped)
    return clipped


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t * clip_norm / max(l2norm(t, axes), clip_norm)``: ``t`` rescaled so its L2 norm is at most ``clip_norm``.

    An ``IndexedSlices`` gives one with its values clipped (their norm, repeated rows not summed), as TF.
    """
    if isinstance(t, IndexedSlices):
        return IndexedSlices(clip_by_norm(t.values, clip_norm, axes), t.indices, t.dense_shape)
    values = convert_to_tensor(t)
    squares = reduce_sum(multiply(values, values), axes, keepdims=True)
    positive = greater(squares, np.zeros((), squares.array.dtype))
    # The norm where the sum is positive, the (zero) sum elsewhere: no NaN gradient at a zero tensor.
    safe = call("Where", positive, squares, np.ones((), squares.array.dtype))
    norm = call("Where", positive, sqrt(safe), squares)
    scaled = multiply(values, clip_norm)
    _same_shape(values, scaled)
    return truediv(scaled, maximum(norm, clip_norm))


_L2_LOSS = OpTypes("L2Loss", "F")


def _global_norm(t_list):
    """``sqrt(sum of squares of every tensor in t_list)`` (Nones skipped), as clip_by_global_norm computes it."""
    present = [convert_to_tensor(t.values if isinstance(t, IndexedSlices) else t) for t in t_list if t is not None]
    for t in present:
        _L2_LOSS.check(t.array.dtype)
    sums = matching("Pack", *[reduce_sum(multiply(t, t)) for t in present])
    total = sums[0]
    for s in sums[1:]:
        total = add(total, s)
    return sqrt(total)


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Every tensor of ``t_list`` scaled by ``clip_norm / max(global_norm, clip_norm)``.

    Returns
    -------
    (list, Tensor)
        The clipped tensors (None entries kept) and the global norm (``use_norm`` itself when given).
    """
    if not isinstance(t_list, (list, tuple)) or is_tensor_like(t_list):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    if use_norm is None:
        use_norm = _global_norm(t_list)
    norm = convert_to_tensor(use_norm)
    dtype = _dtypes.of_array(norm.array)
    limit = convert_to_tensor(clip_norm, dtype)
    one = convert_to_tensor(1.0, dtype)
    # Finite norms scale by min(1 / norm, 1 / clip_norm) * clip_norm; ``norm - norm`` turns an infinite norm into NaN.
    scale = add(multiply(limit, minimum(truediv(one, norm), truediv(one, limit))), subtract(norm, norm))
    clipped = [None if t is None else _scaled(t, scale) for t in t_list]
    return clipped, use_norm  # as given (TF returns the caller's object)


def _scaled(t, scale):
    """``t * scale`` (``scale`` cast to ``t``'s dtype); an ``IndexedSlices`` keeps its rows, scaled."""
    if isinstance(t, IndexedSlices):
        return IndexedSlices(_scaled(t.values, scale), t.indices, t.dense_shape)
    return multiply(t, cast(scale, convert_to_tensor(t).array.dtype))


def polyval(coeffs, x, name=None):
    """The polynomial ``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` at ``x`` (Horner's scheme).

    Parameters
    ----------
    coeffs : list
        Coefficients (Python numbers or tensors), highest degree first.
    x : tensor
    """
    if not isinstance(coeffs, list):
        raise ValueError(f"Argument coeffs must be list type. Received type {type(coeffs)}.")
    x = convert_to_tensor(x)
    if not coeffs:
        return convert_to_tensor(np.zeros_like(x.array))
    # TF converts each coefficient on its own: [1., 2] mixes a float and an int tensor (its InvalidArgumentError).
    coeffs = [convert_to_tensor(c) for c in coeffs]
    p = coeffs[0]
    for c in coeffs[1:]:
        p = c + p * x
    return p


NAMESPACES = {
    "tf": ["clip_by_value", "clip_by_norm", "clip_by_global_norm"],
    "math": ["polyval"],
}
TENSOR_METHODS = {}
