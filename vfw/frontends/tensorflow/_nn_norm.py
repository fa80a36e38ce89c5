"""tf.nn statistics and normalization: moments, sufficient_statistics, normalize_moments, weighted_moments,
batch_normalization, batch_norm_with_global_normalization, bias_add, embedding_lookup.

Everything is TF's formula in engine ops (reductions, Where, Gather), so gradients are the
formulas' gradients as in TF; embedding_lookup's parameter gradient is dense where TF returns
IndexedSlices with the same values.
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _math_ops
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, op_error, wrap
from vfw.frontends.tensorflow._op_support import (
    BOOL,
    F16,
    F32,
    FLOATS,
    I64,
    SIGNED,
    UNSIGNED,
    OpTypes,
    cast,
    int64s,
    reduce,
    reshape,
    same_dtype,
    scalar_like,
)
from vfw.frontends.tensorflow._sparse_gradients import ROW_GATHER
from vfw.frontends.tensorflow._traced_shapes import pinned

_MOMENT_TYPES = FLOATS | {np.dtype(np.int32), I64}


_MEAN_TYPES = OpTypes("Mean", _MOMENT_TYPES)
_BIAS_ADD_TYPES = OpTypes("BiasAdd", FLOATS | SIGNED | UNSIGNED | {np.dtype(np.complex64), np.dtype(np.complex128)})
_SQRT_TYPES = OpTypes("Sqrt", FLOATS)


def _axes(axes, keepdims=True):
    if hasattr(axes, "array"):
        if not keepdims:
            raise TypeError(f"Expected list for 'axis' argument to 'squeeze' Op, not {axes!r}.")
        given, axes = axes, axes.array
        pinned(given, axes, "axes", "Mean")
    return [int(a) for a in np.asarray(axes).reshape(-1)]


def _squeeze(x, axes):
    return call("Squeeze", x, int64s(axes), tf_op="Squeeze")


def _operand(value, like):
    """A scalar or tensor argument as an operand of ``like``'s dtype (Python numbers take that dtype)."""
    return convert_to_tensor(value, dtype_hint=like.array.dtype)


def moments(x, axes, shift=None, keepdims=False, name=None):
    """Mean and variance of ``x`` over ``axes`` (float16 computed in float32; ``shift`` is ignored, as in TF2).

    Returns
    -------
    tuple
        ``(mean, variance)``.
    """
    x = convert_to_tensor(x)
    _MEAN_TYPES.check(x.array.dtype)
    axes = _axes(axes, keepdims)
    y = cast(x, F32) if x.array.dtype == F16 else x
    mean = reduce("ReduceMean", y, axes, True, "Mean")
    centered = call("Sub", y, wrap(mean.array), tf_op="SquaredDifference")  # TF stops the mean's gradient here
    variance = reduce("ReduceMean", call("Mul", centered, centered, tf_op="SquaredDifference"), axes, True, "Mean")
    if not keepdims:
        mean, variance = _squeeze(mean, axes), _squeeze(variance, axes)
    return cast(mean, x.array.dtype), cast(variance, x.array.dtype)


def sufficient_statistics(x, axes, shift=None, keepdims=False, name=None):
    """``(count, sum(x - shift), sum((x - shift) ** 2), shift)`` over ``axes`` (unshifted sums when ``shift`` is None).

    ``count`` is the number of reduced elements in ``x``'s dtype.
    """
    x = convert_to_tensor(x)
    if x.array.dtype == BOOL:
        raise TypeError("Expected numeric or variant tensor, got dtype tf.bool.")
    axes = _axes(axes)
    count = convert_to_tensor(math.prod(x.array.shape[a] for a in axes), dtype=x.dtype)
    if shift is not None:
        shift = _operand(shift, x)
        x = call("Sub", x, shift, tf_op="Sub")
    mean_ss = reduce("ReduceSum", x, axes, keepdims, "Sum")
    variance_ss = reduce("ReduceSum", call("Mul", x, x, tf_op="Square"), axes, keepdims, "Sum")
    return count, mean_ss, variance_ss, shift


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """``(mean, variance)`` from the sufficient statistics (see :func:`sufficient_statistics`)."""
    divisor = _math_ops.reciprocal(counts)
    shifted_mean = _math_ops.multiply(mean_ss, divisor)
    mean = shifted_mean if shift is None else _math_ops.add(shifted_mean, shift)
    variance = _math_ops.subtract(_math_ops.multiply(variance_ss, divisor), _math_ops.square(shifted_mean))
    return mean, variance


def _divide_no_nan(x, y):
    zero = call("Equal", y, scalar_like(0, y), tf_op="DivNoNan")
    safe = call("Where", zero, scalar_like(1, y), y, tf_op="DivNoNan")
    return call("Where", zero, scalar_like(0, y), call("Div", x, safe, tf_op="DivNoNan"), tf_op="DivNoNan")


def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    """Frequency-weighted mean and variance of ``x`` over ``axes`` (0 where the weights sum to 0).

    Returns
    -------
    tuple
        ``(mean, variance)``.
    """
    x = convert_to_tensor(x)
    weights = convert_to_tensor(frequency_weights)
    if x.array.dtype not in FLOATS:  # TF's integer mean is a float64 quotient: SquaredDifference refuses the mix
        raise op_error(f"cannot compute SquaredDifference as input #1(zero-based) was expected to be a "
                       f"{x.dtype.name} tensor but is a double tensor", "SquaredDifference")
    axes = _axes(axes)
    dtype = x.array.dtype
    if dtype == F16:
        x, weights = cast(x, F32), cast(weights, F32)
    weights = cast(weights, x.array.dtype)
    total = reduce("ReduceSum", call("Mul", weights, x, tf_op="Mul"), axes, True, "Sum")
    spread = call("Add", weights, call("Mul", x, scalar_like(0, x), tf_op="ZerosLike"), tf_op="AddV2")
    weight_sum = reduce("ReduceSum", spread, axes, True, "Sum")
    mean = _divide_no_nan(total, weight_sum)
    deviation = call("Sub", x, mean, tf_op="SquaredDifference")
    squared = call("Mul", deviation, deviation, tf_op="SquaredDifference")
    spread_sq = reduce("ReduceSum", call("Mul", weights, squared, tf_op="Mul"), axes, True, "Sum")
    variance = _divide_no_nan(spread_sq, weight_sum)
    if not keepdims:
        mean, variance = _squeeze(mean, axes), _squeeze(variance, axes)
    return cast(mean, dtype), cast(variance, dtype)


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """``scale * (x - mean) / sqrt(variance + variance_epsilon) + offset`` (``offset``/``scale`` may be None).

    As TF, the statistics are combined in their own dtype (Python numbers: float32) and cast to
    ``x``'s dtype at the end.
    """
    x = convert_to_tensor(x)
    if isinstance(variance, CoreTensor) or hasattr(variance, "_as_tensor"):
        shifted = _math_ops.add(variance, variance_epsilon)
    else:
        shifted = variance + variance_epsilon  # Python/numpy arithmetic, as TF (a list fails here)
    inverse = _math_ops.rsqrt(shifted)
    if scale is not None:
        inverse = _math_ops.multiply(inverse, scale)
    shift = _math_ops.multiply(mean, inverse)
    shift = _math_ops.negative(shift) if offset is None else _math_ops.subtract(offset, shift)
    return _math_ops.add(_math_ops.multiply(x, cast(inverse, x.array.dtype)), cast(shift, x.array.dtype))


def batch_norm_with_global_normalization(input, mean, variance, beta, gamma, variance_epsilon,  # noqa: A002
                                         scale_after_normalization, name=None):
    """:func:`batch_normalization` with offset ``beta`` and, if ``scale_after_normalization``, scale ``gamma``."""
    return batch_normalization(input, mean, variance, beta, gamma if scale_after_normalization else None,
                               variance_epsilon)


def _channel_axis(data_format, rank):
    if data_format is None or data_format.startswith("N") and data_format.endswith("C"):
        return rank - 1
    if data_format.startswith("NC"):
        return 1
    raise ValueError(f"`data_format` must be of the form `N...C` or `NC...`. Received: data_format={data_format}")


def bias_add(value, bias, data_format=None, name=None):
    """``value + bias`` with the 1-D ``bias`` along the channel dim (last for ``N...C``, 1 for ``NC...``)."""
    x = convert_to_tensor(value)
    b = convert_to_tensor(bias, dtype_hint=x.array.dtype)
    axis = _channel_axis(data_format, x.array.ndim)
    same_dtype("BiasAdd", x, b)
    _BIAS_ADD_TYPES.check(x.array.dtype)
    if x.array.ndim < 2:
        raise op_error(f"Input tensor must be at least 2D: {list(x.array.shape)}", "BiasAdd")
    if b.array.ndim != 1:
        raise op_error(f"Biases must be 1D: {list(b.array.shape)}", "BiasAdd")
    if b.array.shape[0] != x.array.shape[axis]:
        raise op_error(f"Must provide as many biases as the last dimension of the input tensor: {list(b.array.shape)} "
                       f"vs. {list(x.array.shape)}", "BiasAdd")
    if axis != x.array.ndim - 1:
        b = reshape(b, (-1,) + (1,) * (x.array.ndim - 2))
    elif x.array.dtype == dt.bfloat16:
        # TF sums a bfloat16 bias gradient in bfloat16 (the engine's BiasAdd); other dtypes are plain Adds, which
        # ONNX export knows
        return call("BiasAdd", x, b, tf_op="BiasAdd")
    return call("Add", x, b, tf_op="BiasAdd")


def _shard_rows(ids, sizes):
    """Global row numbers of ``ids`` in the concatenated shards, under TF's "div" partition strategy.

    Ids are spread over shards in contiguous blocks, the first ``total % n`` shards holding one more
    id than the others; TF maps ids this way whatever the shards' real sizes, and checks each
    local id against its shard's size.
    """
    total, count = sum(sizes), len(sizes)
    per, extras = divmod(total, count)
    shard = np.where(ids < extras * (per + 1), ids // (per + 1), (ids - extras) // max(per, 1))
    local = np.where(shard < extras, ids % (per + 1), (ids - extras) % max(per, 1))
    outside = (shard < 0) | (shard >= count)
    if outside.any():
        i = int(np.flatnonzero(outside.reshape(-1))[0])
        raise op_error(f"partitions[{i}] = {shard.reshape(-1)[i]} is not in [0, {count})", "DynamicPartition")
    limits = np.asarray(sizes)[shard]
    bad = (local < 0) | (local >= limits) | (ids < 0)
    if bad.any():
        i = int(np.flatnonzero(bad.reshape(-1))[0])
        raise op_error(f"indices[{i}] = {local.reshape(-1)[i]} is not in [0, {limits.reshape(-1)[i]})", "GatherV2")
    return (np.concatenate([[0], np.cumsum(sizes)[:-1]])[shard] + local).astype(ids.dtype)


def _div_layout(sizes):
    """Whether shards of these sizes are TF's "div" split (the first ``total % n`` one row longer)."""
    per, extras = divmod(sum(sizes), len(sizes))
    return list(sizes) == [per + 1] * extras + [per] * (len(sizes) - extras)


def _clip_rows(rows, max_norm, ids_rank):
    """``rows`` scaled down where their L2 norm (over the dims past ``ids_rank``) exceeds ``max_norm``."""
    _SQRT_TYPES.check(rows.array.dtype)
    limit = convert_to_tensor(max_norm, dtype=rows.dtype)
    axes = list(range(ids_rank, rows.array.ndim))
    squares = reduce("ReduceSum", call("Mul", rows, rows, tf_op="Mul"), axes, True, "Sum") if axes else \
        call("Mul", rows, rows, tf_op="Mul")
    positive = call("Greater", squares, scalar_like(0, squares), tf_op="Greater")
    safe = call("Where", positive, squares, scalar_like(1, squares), tf_op="SelectV2")
    length = call("Where", positive, call("Sqrt", safe, tf_op="Sqrt"), squares, tf_op="SelectV2")
    scaled = call("Mul", rows, limit, tf_op="Mul")
    return call("Div", scaled, call("Max", length, limit, tf_op="Maximum"), tf_op="RealDiv")


def embedding_lookup(params, ids, max_norm=None, name=None):
    """Rows of ``params`` (a tensor, or a list of shards split by TF's "div" strategy) at ``ids``.

    Parameters
    ----------
    params : Tensor or list of Tensor
    ids : int32/int64 Tensor of any shape
    max_norm : float, optional
        Rows whose L2 norm exceeds it are rescaled to it.

    Returns
    -------
    Tensor
        Shape ``ids.shape + params.shape[1:]``.
    """
    # a list holds shards; a tuple is one tensor (TF packs it)
    shards = [convert_to_tensor(p) for p in params] if isinstance(params, list) else [convert_to_tensor(params)]
    if not shards:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    ids = convert_to_tensor(ids)
    if ids.array.dtype.kind not in "iu" or ids.array.dtype == np.dtype(np.uint8):
        raise op_error(f"Value for attr 'Tindices' of {ids.dtype.name.replace('32', '')} is not in the list of allowed "
                       "values: int16, int32, int64", "GatherV2")
    values = ids.array
    if len(shards) == 1:
        table, rows = shards[0], ids
        size = table.array.shape[0] if table.array.ndim else 0
        if values.size and (values.min() < 0 or values.max() >= size):  # the engine's Gather would wrap negatives
            from vfw.frontends.tensorflow._image_patches import kernel_prefix  # (it imports the package)

            i = np.unravel_index(int(np.flatnonzero(((values < 0) | (values >= size)).reshape(-1))[0]), values.shape)
            where = f"[{','.join(map(str, i))}]" if values.ndim else ""
            raise op_error(f"{kernel_prefix('GatherV2')}indices{where} = {values[i]} is not in [0, {size})",
                           "GatherV2")
    else:
        for s in shards[1:]:
            same_dtype("ConcatV2", shards[0], s)
        table = call("Concat", *shards, axis=0, tf_op="ConcatV2")
        sizes = [s.array.shape[0] for s in shards]
        rows = _shard_rows(values, sizes)
        if _div_layout(sizes):
            rows = ids  # the concatenated shards hold row i at i: the ids tensor itself (traced graphs stay general)
    found = call(ROW_GATHER, table, rows, tf_op="GatherV2")
    return found if max_norm is None else _clip_rows(found, max_norm, ids.array.ndim)


NAMESPACES = {
    "nn": ["moments", "sufficient_statistics", "normalize_moments", "weighted_moments", "batch_normalization",
           "batch_norm_with_global_normalization", "bias_add", "embedding_lookup"],
}
TENSOR_METHODS = {}
