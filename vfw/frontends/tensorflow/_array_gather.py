"""Gathering and scattering: gather, gather_nd, scatter_nd, tensor_scatter_nd_*, boolean_mask, where.

Engine ops (Gather, GatherND, ScatterND, Compress, NonZero, Where) compute and differentiate;
this module adds TF's argument handling and TF's errors. Engine gather ops wrap negative
indices (ONNX), so indices are range-checked here first: out-of-range indices raise
InvalidArgumentError, as TF does on CPU.

Gradients are TF's, as dense tensors: TF returns ``tf.IndexedSlices`` for the gradient of
``gather``'s params, vfw the equivalent dense tensor (duplicate indices summed).
"""

import numpy as np

from vfw.core import autograd
from vfw.core.eager import execute
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow._array_common import int_values, scalar_int
from vfw.frontends.tensorflow._dispatch import (
    as_tf,
    call,
    convert_to_tensor,
    host,
    op,
    op_error,
    recording,
    wrap,
)
from vfw.frontends.tensorflow._op_support import (
    BOOL,
    I64,
    int64s,
    matching,
    same_dtype,
    shape_text,
    with_dtype,
)
from vfw.frontends.tensorflow._sparse_gradients import ROW_GATHER
from vfw.frontends.tensorflow._tensor import Tensor
from vfw.frontends.tensorflow._traced_shapes import checked_at_run, deferrable_check, deferred, pinned_to

_INDEX_TYPES = (np.dtype(np.int16), np.dtype(np.int32), I64)
_TO_INT64 = op("Cast", to=I64)
_TO_BOOL = op("Cast", to=BOOL)


def _indices(indices, tf_op, int64=True):
    """``indices`` as an integer tensor (int16/int32/int64 accepted, as TF's kernels); int64 when ``int64``."""
    t = convert_to_tensor(indices)
    if t.array.dtype not in _INDEX_TYPES:
        raise op_error(f"Value for attr 'Tindices' of {_dtypes.of_array(t.array).name} is not in the list of allowed "
                       "values: int16, int32, int64", tf_op)
    return t if t.array.dtype == I64 or not int64 else call(_TO_INT64, t, tf_op=tf_op)


def _first_bad(values, size):
    """The position (tuple) and value of the first entry of ``values`` outside ``[0, size)``, or None."""
    if not values.size or 0 <= values.min() and values.max() < size:
        return None
    bad = (values < 0) | (values >= size)
    position = np.unravel_index(int(np.argmax(bad)), values.shape)
    return position, int(values[position])


def _check_range(t, size, what, tf_op, kernel=False, named=True, deferrable=False):
    """TF's error for an entry of the integer tensor ``t`` outside ``[0, size)``: now, and at every run of the graph
    being traced where ``t`` varies.  ``kernel``: the message carries the prefix of TF's kernel errors (GatherV2);
    ``named`` False: without the trailing " name: " (TF's eager fallback path, taken for Python-list inputs).
    ``deferrable``: while a tf.function traces, the error for a ``t`` that does not vary is returned, not raised
    (see ``deferrable_check``)."""
    def check(values):
        bad = _first_bad(values, size)
        if bad is not None:
            from vfw.frontends.tensorflow._image_patches import kernel_prefix  # (it imports the package)

            where = f"[{','.join(str(int(p)) for p in bad[0])}]" if bad[0] else ""
            message = f"{kernel_prefix(tf_op) if kernel else ''}{what}{where} = {bad[1]} is not in [0, {size})"
            if not named:
                raise errors.InvalidArgumentError(None, None, f"{message} [Op:{tf_op}]")
            raise op_error(message, tf_op)
    if deferrable:
        return deferrable_check(check, t)
    checked_at_run(check, t)
    return None


# -- gather ------------------------------------------------------------------------------------------------------
def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Slices of ``params`` along ``axis`` at ``indices``.

    The result's shape is ``params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:]``.

    Parameters
    ----------
    axis : int, default ``batch_dims``
    batch_dims : int
        Leading dims shared by ``params`` and ``indices`` (gathered per batch entry); negative
        counts from the rank of ``indices``.

    Raises
    ------
    InvalidArgumentError
        For indices outside ``[0, params.shape[axis])`` (negative ones included), as on TF's CPU.
    """
    first = batch_dims if axis is None else axis
    # TF reads a variable's rows with its ResourceGather (sparse_read), which names its errors
    range_op = "ResourceGather" if hasattr(params, "sparse_read") and type(first) is int and first == 0 else "GatherV2"
    x = convert_to_tensor(params)
    idx = _indices(indices, "GatherV2", int64=False)
    rank, index_rank = x.array.ndim, idx.array.ndim
    axis = batch_dims if axis is None else scalar_int(axis, "axis")  # (TF: before batch_dims is normalized)
    if batch_dims < 0:
        batch_dims += index_rank
    if rank == 0:
        raise op_error("params must be at least 1 dimensional", "GatherV2")
    if not -rank <= axis < rank:
        raise op_error(f"Shape must be at least rank {(axis if axis >= 0 else -axis - 1) + 1} but is rank {rank}",
                       "GatherV2")
    axis %= rank
    if batch_dims > index_rank or batch_dims > axis:
        raise op_error(f"Shape must be at least rank {batch_dims + 1} but is rank {min(rank, index_rank)}",
                       "GatherV2")
    failure = _check_range(idx, x.array.shape[axis], "indices", range_op, kernel=True,
                           named=type(indices) is not list, deferrable=x.array.shape[axis] > 0)
    if failure is not None:
        # Out of range in a tf.function: TF prunes the gather if nothing uses it (the tf.function guide's
        # `tf.gather(x, [1])` on a 1-element x), and fails only if the graph needs it.  A stand-in gather of
        # indices clipped into range takes its place in the trace.
        safe = wrap(np.clip(idx.array, 0, x.array.shape[axis] - 1))
        return deferred(gather(x, safe, axis=axis, batch_dims=batch_dims), failure)
    if batch_dims == 0:
        if not recording(x, idx):
            return wrap(np.take(x.array, idx.array, axis))
    if batch_dims == 0:  # (int32 ids stay int32: the IndexedSlices gradient of a row gather keeps their dtype)
        return call(ROW_GATHER if axis == 0 else op("Gather", axis=axis), x, idx, tf_op="GatherV2")
    if idx.array.dtype != I64:
        idx = call(_TO_INT64, idx, tf_op="GatherV2")
    for i in range(batch_dims):
        if x.array.shape[i] != idx.array.shape[i]:
            raise op_error(f"params.shape[{i}]: {x.array.shape[i]} should be equal to indices.shape[{i}]: "
                           f"{idx.array.shape[i]}", "GatherV2")
    return _batched_gather(x, idx, axis, batch_dims)


def _batched_gather(x, idx, axis, batch_dims):
    """``gather`` with batch dims as GatherND over the batch dims (axis moved next to them and back)."""
    rank = x.array.ndim
    if axis != batch_dims:
        order = list(range(batch_dims)) + [axis] + [d for d in range(batch_dims, rank) if d != axis]
        x = call("Transpose", x, perm=tuple(order), tf_op="GatherV2")
    tuples = call("Unsqueeze", idx, int64s([-1]), tf_op="GatherV2")
    out = call("GatherND", x, tuples, batch_dims=batch_dims, tf_op="GatherV2")
    if axis == batch_dims:
        return out
    gathered = idx.array.ndim - batch_dims  # the index dims sit after the batch dims; move them past params[b:axis]
    moved = axis - batch_dims
    b = batch_dims
    order = (list(range(b)) + list(range(b + gathered, b + gathered + moved)) + list(range(b, b + gathered))
             + list(range(b + gathered + moved, out.array.ndim)))
    return call("Transpose", out, perm=tuple(order), tf_op="GatherV2")


def _check_tuples(idx, shape, first, tf_op, what):
    """TF's error for an index tuple (last dim of ``idx``) that addresses no element of ``shape[first:]``."""
    k = idx.array.shape[-1]
    if not idx.array.size:
        return
    limits = np.array(shape[first:first + k], I64)

    def check(values):
        bad = ((values < 0) | (values >= limits)).any(axis=-1)
        if bad.any():
            position = np.unravel_index(int(np.argmax(bad)), bad.shape)
            entry = ", ".join(str(int(v)) for v in values[position])
            where = ",".join(str(int(p)) for p in position)
            raise op_error(f"indices[{where}] = [{entry}] does not index into {what} {shape_text(shape)}", tf_op)
    checked_at_run(check, idx)


def gather_nd(params, indices, batch_dims=0, name=None):
    """Slices of ``params`` addressed by the index tuples in the last dim of ``indices``."""
    x = convert_to_tensor(params)
    idx = _indices(indices, "GatherNd")
    if idx.array.ndim < 1:
        raise op_error("indices must be at least a vector", "GatherNd")
    k = idx.array.shape[-1]
    if k > x.array.ndim - batch_dims:
        raise op_error(f"index innermost dimension length must be <= params rank; saw: {k} vs. "
                       f"{x.array.ndim - batch_dims}", "GatherNd")
    for i in range(batch_dims):
        if x.array.shape[i] != idx.array.shape[i]:
            raise op_error(f"Batch dimensions of params and indices must match: params.shape[{i}] = "
                           f"{x.array.shape[i]} vs indices.shape[{i}] = {idx.array.shape[i]}", "GatherNd")
    _check_tuples(idx, x.array.shape, batch_dims, "GatherNd", "param shape")
    return call("GatherND", x, idx, batch_dims=batch_dims, tf_op="GatherNd")


# -- scatter -----------------------------------------------------------------------------------------------------
def _check_updates(idx, updates, shape, tf_op):
    k = idx.array.shape[-1]
    outer = idx.array.shape[:-1]
    expected = outer + tuple(shape[k:])
    got = updates.array.shape
    if got[:len(outer)] != outer:
        raise op_error(f"Outer dimensions of indices and update must match. Indices shape: "
                       f"{shape_text(idx.array.shape)}, updates shape:{shape_text(got)}", tf_op)
    if got != expected:
        raise op_error(f"Dimensions [{k},{len(shape)}) of input[shape={shape_text(shape)}] must match dimensions "
                       f"[{len(outer)},{len(got)}) of updates[shape={shape_text(got)}]", tf_op)


def scatter_nd(indices, updates, shape, name=None):
    """Zeros of ``shape`` with ``updates`` added at the index tuples of ``indices`` (duplicates add up)."""
    idx = _indices(indices, "ScatterNd")
    values = convert_to_tensor(updates)
    dims = int_values(shape, "Tindices", "ScatterNd")
    _check_updates(idx, values, dims, "ScatterNd")
    _check_tuples(idx, dims, 0, "ScatterNd", "shape")
    zeros = np.zeros(dims, values.array.dtype) if values.array.dtype != object else np.full(dims, b"", object)
    if values.array.dtype == BOOL:  # TF ORs booleans
        return call("ScatterND", zeros, idx, values, reduction="max", tf_op="ScatterNd")
    return call("ScatterND", zeros, idx, values, reduction="add", tf_op="ScatterNd")


def _scatter_args(tensor_, indices, updates, tf_op):
    x = convert_to_tensor(tensor_)
    idx = _indices(indices, tf_op)
    values = with_dtype(updates, _dtypes.of_array(x.array))
    same_dtype(tf_op, x, values)
    if idx.array.ndim < 1:
        raise op_error("Indices shape must have rank at least one.", tf_op)
    if idx.array.shape[-1] > x.array.ndim:
        raise op_error(f"Index innermost dimension length must be <= tensor rank; saw: {idx.array.shape[-1]} vs. "
                       f"{x.array.ndim}", tf_op)
    _check_updates(idx, values, x.array.shape, tf_op)
    _check_tuples(idx, x.array.shape, 0, tf_op, "shape")
    return x, idx, values


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """A copy of ``tensor`` with the slices at ``indices`` replaced by ``updates`` (the last duplicate wins).

    The gradient of ``updates`` is the output gradient at each update's index (duplicates
    included), as in TF.
    """
    x, idx, values = _scatter_args(tensor, indices, updates, "TensorScatterUpdate")
    if x.array.dtype == object:  # strings: the engine's ScatterND holds numbers only
        return host(_scatter_strings, x, idx, values)
    scatter = op("ScatterND", reduction="none")
    if not recording(x, values):
        return call(scatter, x, idx, values, tf_op="TensorScatterUpdate")

    def forward(x, values):
        def backward(g):
            zeros = np.zeros(values.array.shape, g.array.dtype)
            return execute("ScatterND", g, idx, zeros, reduction="none"), execute("GatherND", g, idx)
        return execute(scatter, x, idx, values), backward

    return as_tf(autograd.custom_gradient(forward)(x, values))


def _scatter_strings(data, indices, updates):
    out = data.copy()
    out[tuple(np.moveaxis(indices, -1, 0))] = updates
    return out


def _reducing_scatter(reduction, tf_op, negate=False):
    def fn(tensor, indices, updates, name=None):
        x, idx, values = _scatter_args(tensor, indices, updates, tf_op)
        if x.array.dtype.kind not in "iuf":
            raise op_error(f"Could not find device for node: {{{{node {tf_op}}}}} = {tf_op}[T=DT_"
                           f"{_dtypes.of_array(x.array).name.upper()}]", None, errors.NotFoundError)
        if negate:
            values = call("Neg", values, tf_op=tf_op)
        return call("ScatterND", x, idx, values, reduction=reduction, tf_op=tf_op)
    return fn


tensor_scatter_nd_add = _reducing_scatter("add", "TensorScatterAdd")
tensor_scatter_nd_add.__doc__ = "A copy of ``tensor`` with ``updates`` added at the index tuples ``indices``."
tensor_scatter_nd_sub = _reducing_scatter("add", "TensorScatterSub", negate=True)
tensor_scatter_nd_sub.__doc__ = "A copy of ``tensor`` with ``updates`` subtracted at the index tuples ``indices``."
tensor_scatter_nd_min = _reducing_scatter("min", "TensorScatterMin")
tensor_scatter_nd_min.__doc__ = "A copy of ``tensor`` with the minimum of each entry and its ``updates``."
tensor_scatter_nd_max = _reducing_scatter("max", "TensorScatterMax")
tensor_scatter_nd_max.__doc__ = "A copy of ``tensor`` with the maximum of each entry and its ``updates``."


# -- masks -------------------------------------------------------------------------------------------------------
def _as_bool(t, tf_op):
    return t if t.array.dtype == BOOL else call(_TO_BOOL, t, tf_op=tf_op)


def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """The entries of ``tensor`` where ``mask`` is true, ``mask`` covering dims ``axis .. axis + mask.ndim``.

    The masked dims are flattened into one dim holding the selected entries.
    """
    x = convert_to_tensor(tensor)
    m = convert_to_tensor(mask)
    if m.array.ndim == 0:
        raise ValueError("mask cannot be scalar.")
    axis = 0 if axis is None else scalar_int(axis, "axis")
    shape = x.array.shape
    n = m.array.ndim
    covered = shape[axis:axis + n]  # Python slicing, as TF (a negative axis works only where it slices right)
    if covered != m.array.shape:
        raise ValueError(f"Shapes {covered} and {m.array.shape} are incompatible")
    axis = len(shape[:axis])
    flat = shape[:axis] + (int(np.prod(covered)),) + shape[axis + n:]
    if flat != shape:
        x = call("Reshape", x, int64s(flat), allowzero=1, tf_op="Reshape")
    condition = _as_bool(call("Reshape", m, int64s([-1]), allowzero=1, tf_op="Reshape"), "Cast")
    return call("Compress", x, condition, axis=axis, tf_op="GatherV2")


def where(condition, x=None, y=None, name=None):
    """``where(c)``: int64 coordinates ``[n, rank]`` of the true (non-zero) entries of ``c``;
    ``where(c, x, y)``: elements of ``x`` where ``c`` is true, else of ``y`` (all three broadcast).
    """
    if (x is None) != (y is None):
        raise ValueError("x and y must both be non-None or both be None.")
    if x is None:
        c = convert_to_tensor(condition)
        if c.array.ndim == 0:
            raise op_error("WhereOp : Unhandled input dimensions: 0", "Where")
        if c.array.dtype.kind == "c":  # (TF's Where takes complex: an entry is true when either part is non-zero)
            c = call("Not", call("Equal", c, wrap(np.zeros((), c.array.dtype)), tf_op="Where"), tf_op="Where")
        coordinates = call("NonZero", c, tf_op="Where")
        return call("Transpose", coordinates, perm=(1, 0), tf_op="Where")
    c = condition if type(condition) is Tensor and condition.array.dtype == BOOL else convert_to_tensor(
        condition, _dtypes.bool)
    a, b = matching("SelectV2", x, y)
    try:
        if not c.array.shape == a.array.shape == b.array.shape:
            np.broadcast_shapes(c.array.shape, a.array.shape, b.array.shape)
    except ValueError:
        raise op_error(f"condition {shape_text(c.array.shape)}, then {shape_text(a.array.shape)}, and else "
                       f"{shape_text(b.array.shape)} must be broadcastable", "SelectV2") from None
    return call("Where", c, a, b, tf_op="SelectV2")


# -- partitions and flat indices ---------------------------------------------------------------------------------
def dynamic_partition(data, partitions, num_partitions, name=None):
    """``num_partitions`` tensors: the slices of ``data`` whose ``partitions`` entry is 0, 1, ...

    ``data.shape`` starts with ``partitions.shape``; those dims are flattened into one.
    Differentiable in ``data``.
    """
    x = convert_to_tensor(data)
    p = convert_to_tensor(partitions, _dtypes.int32) if not isinstance(partitions, CoreTensor) else convert_to_tensor(
        partitions)
    lead = p.array.shape
    if x.array.shape[:len(lead)] != lead:
        raise op_error(f"data.shape must start with partitions.shape, got data.shape = {shape_text(x.array.shape)}, "
                       f"partitions.shape = {shape_text(lead)}", "DynamicPartition")
    _check_range(p, num_partitions, "partitions", "DynamicPartition")
    flat = call("Reshape", x, int64s((-1,) + x.array.shape[len(lead):]), allowzero=1, tf_op="DynamicPartition") \
        if len(lead) != 1 else x
    keys = call("Reshape", p, int64s([-1]), allowzero=1, tf_op="DynamicPartition")
    return [call("Compress", flat, call("Equal", keys, np.array(i, p.array.dtype)), axis=0, tf_op="DynamicPartition")
            for i in range(num_partitions)]


def dynamic_stitch(indices, data, name=None):
    """One tensor with ``merged[indices[m][i]] = data[m][i]`` (later entries win for repeated indices).

    Differentiable in ``data`` (every entry, repeated ones included, gets the gradient at its index, as in TF).
    """
    index_tensors = [_indices(i, "DynamicStitch") if isinstance(i, CoreTensor) else _indices(
        convert_to_tensor(i, _dtypes.int32), "DynamicStitch") for i in indices]
    values = matching("DynamicStitch", *data)
    rest = None
    for m, (i, d) in enumerate(zip(index_tensors, values)):
        if d.array.shape[:i.array.ndim] != i.array.shape:
            raise op_error(f"data[{m}].shape = {shape_text(d.array.shape)} does not start with indices[{m}].shape = "
                           f"{shape_text(i.array.shape)}", "DynamicStitch")
        tail = d.array.shape[i.array.ndim:]
        rest = tail if rest is None else rest
        if tail != rest:
            raise op_error(f"Need data[0].shape[1:] = {shape_text(rest)} to equal data[{m}].shape[1:] = "
                           f"{shape_text(tail)}", "DynamicStitch")
    size = _stitched_size(*[i.array for i in index_tensors])
    pinned_to(index_tensors, _stitched_size, (size,), "the size of the result (the largest index + 1)",
              "DynamicStitch")
    flat_indices = [call("Reshape", i, int64s([-1, 1]), allowzero=1, tf_op="DynamicStitch")
                    for i in index_tensors]
    flat_values = [call("Reshape", d, int64s((-1,) + rest), allowzero=1, tf_op="DynamicStitch") for d in values]
    all_indices = call("Concat", *flat_indices, axis=0, tf_op="DynamicStitch")
    all_values = call("Concat", *flat_values, axis=0, tf_op="DynamicStitch")
    zeros = np.zeros((size,) + rest, values[0].array.dtype)
    return tensor_scatter_nd_update(wrap(zeros), all_indices, all_values)


def _stitched_size(*indices):
    """The length of dynamic_stitch's result for these index arrays (TF's error for a negative one)."""
    for m, i in enumerate(indices):
        if i.size and i.min() < 0:
            raise op_error(f"indices[{m}] is out of range", "DynamicStitch")
    return max((int(i.max()) + 1 for i in indices if i.size), default=0)


def unravel_index(indices, dims, name=None):
    """The coordinates of flat ``indices`` in an array of shape ``dims``: shape ``[len(dims)] + indices.shape``."""
    idx = convert_to_tensor(indices, dtype_hint=_dtypes.int32)
    shape = with_dtype(dims, _dtypes.of_array(idx.array))
    if idx.array.dtype not in (np.dtype(np.int32), I64):
        raise op_error(f"Value for attr 'Tidx' of {_dtypes.of_array(idx.array).name} is not in the list of allowed "
                       "values: int32, int64", "UnravelIndex")
    same_dtype("UnravelIndex", idx, shape)
    if idx.array.ndim > 1:
        raise op_error(f'The indices can only be scalar or vector, got "{shape_text(idx.array.shape)}"',
                       "UnravelIndex")
    def check(flat, sizes):
        if flat.size and int(flat.max()) >= int(np.prod(sizes)):
            raise op_error("index is out of bound as with dims", "UnravelIndex")
    checked_at_run(check, idx, shape)

    def coordinates(flat, sizes):
        out = []
        for size in sizes[::-1]:  # C++ integer division (truncating), as TF's kernel
            out.append(np.fmod(flat, size))
            flat = (flat - out[-1]) // size
        return np.stack(out[::-1]).astype(flat.dtype)

    return host(coordinates, idx, shape)


NAMESPACES = {
    "tf": ["gather", "gather_nd", "scatter_nd", "tensor_scatter_nd_update", "tensor_scatter_nd_add",
           "tensor_scatter_nd_sub", "tensor_scatter_nd_min", "tensor_scatter_nd_max", "boolean_mask", "where",
           "dynamic_partition", "dynamic_stitch", "unravel_index"],
}
TENSOR_METHODS = {}
