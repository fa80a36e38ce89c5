"""Array ops, reshaping and joining: reshape, transpose, expand_dims, squeeze, concat, stack, unstack, split, tile.

Each function validates its arguments the way TF's kernel does (TF's messages, InvalidArgumentError
naming TF's op) and then runs engine ops (Reshape, Transpose, Concat, Split, Pad, Slice, Gather...),
which carry the gradients. When no tape watches an input and no graph trace is open, the cheap
view-making ops (reshape, transpose, expand_dims, squeeze, split, unstack) call numpy directly.
Padding, reversing, rolling, broadcasting and other rearrangements live in ``_array_transform``,
gathering, scattering, masks and ``where`` in ``_array_gather``, slicing in ``_array_slicing``,
sorting and searching in ``_array_sorting``.
"""

import builtins
import math

import numpy as np

from vfw.core.graph.trace import _active as _tracing
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _traced_shapes, errors
from vfw.frontends.tensorflow._array_common import int_values, scalar_int
from vfw.frontends.tensorflow._dispatch import (
    call,
    convert_to_tensor,
    is_tensor_like,
    op,
    op_error,
    pack,
    recording,
    wrap,
)
from vfw.frontends.tensorflow._op_support import int64s, matching, shape_text

_RESHAPE = op("Reshape", allowzero=1)  # TF's 0 is a zero-size dim, never "copy the input's"
_UNSQUEEZE = op("Unsqueeze")
_SQUEEZE = op("Squeeze")
_TILE = op("Tile")


# -- reshaping ---------------------------------------------------------------------------------------------------
def _reshape_dims(shape, source, tf_op="Reshape"):
    """The target dims of a reshape of an array of shape ``source`` (one -1 inferred), with TF's errors."""
    dims = list(shape)
    size = math.prod(source)
    unknown = [i for i, d in enumerate(dims) if d == -1]
    if len(unknown) > 1:
        raise op_error(f"Only one input size may be -1, not both {unknown[0]} and {unknown[1]}", tf_op)
    for i, d in enumerate(dims):
        if d < -1:
            raise op_error(f"Size {i} must be non-negative, not {d}", tf_op)
    known = 1
    for d in dims:
        if d != -1:
            known *= d
    if unknown:
        if known == 0 and size == 0:  # TF infers the -1 from the non-zero dims on both sides
            nonzero = int(np.prod([d for d in dims if d > 0]))
            dims[unknown[0]] = int(np.prod([d for d in source if d])) // nonzero
            return dims
        if known == 0 or size % known:
            raise op_error(f"Input to reshape is a tensor with {size} values, but the requested shape requires a "
                           f"multiple of {known}", tf_op)
        dims[unknown[0]] = size // known
    elif known != size:
        raise op_error(f"Input to reshape is a tensor with {size} values, but the requested shape has {known}",
                       tf_op)
    return dims


def reshape(tensor, shape, name=None):
    """``tensor`` with the same values in a new ``shape`` (one dim may be -1: inferred).

    Raises
    ------
    InvalidArgumentError
        When the element counts differ (TF's "Input to reshape is a tensor with 6 values, but
        the requested shape has 4").
    """
    x = convert_to_tensor(tensor)
    if _tracing and (_traced_shapes.varies(shape) or _traced_shapes.shape_varies(x)):
        # The graph infers the -1 and checks the sizes on each run, from that run's shape values.
        target = _traced_shapes.dims_tensor(shape, "Reshape", "Tshape")
        dims = _traced_shapes.resolved(lambda source, wanted: (_reshape_dims(wanted, source),),
                                       _traced_shapes.shape_of(x), target)
        result = call(_RESHAPE, x, dims[0], tf_op="Reshape")
        # Python ints of a shape list are static dims (as TF's): the others follow each call's values.
        known = [d if type(d) is int and d >= 0 else None for d in shape] if type(shape) in (list, tuple) else None
        return _traced_shapes.value_shaped(result, known if known and len(known) == result.array.ndim else None)
    values = int_values(shape, "Tshape", "Reshape", python_error=errors.InvalidArgumentError)
    dims = _reshape_dims(values, x.array.shape)
    if recording(x):
        return call(_RESHAPE, x, int64s(dims), tf_op="Reshape")
    return wrap(x.array.reshape(dims))


def transpose(a, perm=None, conjugate=False, name="transpose"):
    """``a`` with its dims permuted by ``perm`` (reversed by default); ``conjugate`` also conjugates."""
    x = convert_to_tensor(a)
    rank = x.array.ndim
    if perm is None:
        perm = tuple(builtins.range(rank - 1, -1, -1))
    else:
        perm = int_values(perm, "Tperm", "Transpose", python_error=errors.InvalidArgumentError)
        if len(perm) != rank:
            raise op_error(f"transpose expects a vector of size {rank}. But input(1) is a vector of size {len(perm)}",
                           "Transpose")
        for p in perm:
            if not -rank <= p < rank:
                raise op_error(f"{p} is out of range [0 .. {rank})", "Transpose")
        perm = tuple(p % rank for p in perm)
        for i in builtins.range(rank):
            if i not in perm:
                raise op_error(f"{i} is missing from {{{','.join(map(str, perm))}}}.", "Transpose")
    if conjugate and x.array.dtype.kind == "c":
        return wrap(np.conj(x.array).transpose(perm))
    if recording(x):
        return call("Transpose", x, perm=perm, tf_op="Transpose")
    return wrap(x.array.transpose(perm))


def expand_dims(input, axis, name=None):
    """``input`` with a size-1 dim inserted at ``axis`` (in ``[-rank - 1, rank]``)."""
    x = convert_to_tensor(input)
    rank = x.array.ndim
    if type(axis) is not int:
        values = int_values(axis, "Tdim", "ExpandDims")
        if len(values) != 1:
            raise op_error("'dim' must be a tensor with a single value", "ExpandDims")
        axis = values[0]
    if not -rank - 1 <= axis <= rank:
        raise op_error(f"Tried to expand dim index {axis} for tensor with {rank} dimensions.", "ExpandDims")
    axis %= rank + 1
    if recording(x):
        return call(_UNSQUEEZE, x, int64s([axis]), tf_op="ExpandDims")
    return wrap(np.expand_dims(x.array, axis))


def squeeze(input, axis=None, name=None, squeeze_dims=None):
    """``input`` without its size-1 dims (only those in ``axis`` when given)."""
    x = convert_to_tensor(input)
    shape = x.array.shape
    axis = squeeze_dims if axis is None else axis
    if axis is None:
        axes = tuple(i for i, d in enumerate(shape) if d == 1)
    else:
        axes = set()
        for a in ([axis] if isinstance(axis, int) else int_values(axis, "squeeze_dims", "Squeeze")):
            if not -len(shape) <= a < len(shape):
                raise op_error(f"Tried to squeeze dim index {a} for tensor with {len(shape)} dimensions.", "Squeeze")
            a %= len(shape)
            if shape[a] != 1:
                raise op_error(f"Can not squeeze dim[{a}], expected a dimension of 1, got {shape[a]}", "Squeeze")
            axes.add(a)
        axes = tuple(sorted(axes))
    if recording(x):
        return call(_SQUEEZE, x, int64s(axes), tf_op="Squeeze")
    return wrap(x.array.reshape([d for i, d in enumerate(shape) if i not in axes]))


# -- joining and splitting ---------------------------------------------------------------------------------------
def concat(values, axis, name="concat"):
    """The tensors of ``values`` joined along ``axis`` (all other dims must match)."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    tensors = matching("ConcatV2", *values)
    if not tensors:
        raise op_error("OpKernel 'ConcatV2' has constraint on attr 'T' not in NodeDef '[N=0, Tidx=DT_INT32]'",
                       "ConcatV2")
    axis = scalar_int(axis, "axis")
    if len(tensors) == 1:
        return tensors[0]
    first = tensors[0].array.shape
    rank = len(first)
    if rank == 0:
        raise op_error("ConcatOp : Can't concatenate scalars (use tf.stack instead)", "ConcatV2")
    if not -rank <= axis < rank:
        raise op_error(f"ConcatOp : Expected concatenating dimensions in the range [{-rank}, {rank}), but got {axis}",
                       "ConcatV2")
    axis %= rank
    for i, t in enumerate(tensors[1:], 1):
        shape = t.array.shape
        if len(shape) != rank:
            raise op_error(f"ConcatOp : Ranks of all input tensors should match: shape[0] = {shape_text(first)} vs. "
                           f"shape[{i}] = {shape_text(shape)}", "ConcatV2")
        for d in builtins.range(rank):
            if d != axis and shape[d] != first[d]:
                raise op_error(f"ConcatOp : Dimension {d} in both shapes must be equal: shape[0] = "
                               f"{shape_text(first)} vs. shape[{i}] = {shape_text(shape)}", "ConcatV2")
    return call("Concat", *tensors, axis=axis, tf_op="ConcatV2")


def _axis_in_range(axis, rank):
    """TF's Python-level ValueError for ``axis`` outside ``[-rank, rank)``."""
    if not -rank <= axis < rank:
        raise ValueError(f"Argument `axis` = {axis} not in range [{-rank}, {rank})")
    return axis % rank


def stack(values, axis=0, name="stack"):
    """The tensors of ``values`` (all of one shape) joined along a new ``axis``."""
    if isinstance(values, CoreTensor):
        values = unstack(values)
    if not any(is_tensor_like(v) for v in values):  # Python data converts as one value, as in TF
        joined = convert_to_tensor(list(values))
        rank = joined.array.ndim
        axis = _axis_in_range(axis, builtins.max(rank, 1))
        return joined if axis == 0 else transpose(joined, [*builtins.range(1, axis + 1), 0,
                                                           *builtins.range(axis + 1, rank)])
    tensors = matching("Pack", *values)
    return pack(tensors, _axis_in_range(axis, tensors[0].array.ndim + 1))


def parallel_stack(values, name="parallel_stack"):
    """Refused, as in TF: ``tf.parallel_stack`` works only in graphs (use ``tf.stack``)."""
    raise RuntimeError("tf.parallel_stack() is not compatible with eager execution.")


def unstack(value, num=None, axis=0, name="unstack"):
    """The slices of ``value`` along ``axis``, as a list of tensors of rank one less."""
    x = convert_to_tensor(value)
    shape = x.array.shape
    axis = _axis_in_range(axis, len(shape))
    n = shape[axis]
    if num is not None and num != n:
        raise op_error(f"Input shape axis {axis} must equal {num}, got shape {shape_text(shape)}", "Unpack")
    if not recording(x):
        return [wrap(a) for a in (x.array if axis == 0 else np.moveaxis(x.array, axis, 0))]
    if n == 0:
        return []
    parts = call("Split", x, axis=axis, num_outputs=n, tf_op="Unpack")
    parts = parts if isinstance(parts, tuple) else (parts,)
    axes = int64s([axis])
    return [call(_SQUEEZE, p, axes, tf_op="Unpack") for p in parts]


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """``value`` cut along ``axis`` into ``num_or_size_splits`` equal parts, or parts of the given sizes.

    Parameters
    ----------
    num_or_size_splits : int, or 1-D sequence/tensor of int
        A count (the dim must divide evenly) or the sizes (one may be -1: the rest).
    """
    x = convert_to_tensor(value)
    rank = x.array.ndim
    axis = scalar_int(axis, "axis")
    if isinstance(num_or_size_splits, CoreTensor) and convert_to_tensor(num_or_size_splits).array.ndim == 0:
        raise ValueError("Rank-0 tensors are not supported as the num_or_size_splits argument to split. Argument "
                         f"provided: {num_or_size_splits}")
    run_sizes = None  # the sizes as a tensor the graph computes, when they follow each call's values
    if isinstance(num_or_size_splits, (int, np.integer)):
        count = int(num_or_size_splits)
        tf_op = "Split"
        sizes = None
    elif _tracing and _traced_shapes.varies(num_or_size_splits):
        run_sizes = _traced_shapes.dims_tensor(num_or_size_splits, "SplitV", "Tlen")
        sizes = run_sizes.array.tolist()
        count, tf_op = len(sizes), "SplitV"
    else:
        sizes = list(int_values(num_or_size_splits, "Tlen", "SplitV", python_error=errors.InvalidArgumentError))
        count, tf_op = len(sizes), "SplitV"
        if num is not None and num != count:
            raise op_error(f"size of the split_tensor must be 1-D and have the same elements as outputs got 1 -D and "
                           f"{count} elements", tf_op)
    if count < 1:
        raise op_error(f"Value for attr 'num_split' of {count} must be at least minimum 1", tf_op)
    if not -rank <= axis < rank:
        raise op_error(f"-input rank(-{rank}) <= split_dim < input rank ({rank}), but got {axis}", tf_op)
    axis %= rank
    if run_sizes is not None or _tracing and _traced_shapes.shape_varies(x):
        if run_sizes is None and sizes is not None:  # the given sizes, checked against each run's dim
            run_sizes = np.array(sizes, np.int64)
        return _traced_split(x, count, run_sizes, axis, tf_op)
    dim = x.array.shape[axis]
    if sizes is None:
        if dim % count:
            raise op_error(f"Number of ways to split should evenly divide the split dimension, but got split_dim "
                           f"{axis} (size = {dim}) and num_split {count}", tf_op)
        sizes = [dim // count] * count
    else:
        sizes = _split_sizes(sizes, dim, tf_op)
    if not recording(x):
        lead = (builtins.slice(None),) * axis
        parts, start = [], 0
        for size in sizes:
            parts.append(wrap(x.array[lead + (builtins.slice(start, start + size),)]))
            start += size
        return parts
    parts = call("Split", x, int64s(sizes), axis=axis, tf_op=tf_op)
    return list(parts) if isinstance(parts, tuple) else [parts]


def _traced_split(x, count, sizes, axis, tf_op):
    """``split`` of ``x`` along ``axis`` where the graph computes the sizes of the parts at each run, from that run's
    ``sizes`` (a 1-D int64 tensor, None for ``count`` equal parts) and shape of ``x``, with TF's errors then."""
    def run_sizes(shape, *given):
        dim = shape[axis]
        if given:
            return (_split_sizes(list(given[0]), dim, tf_op),)
        if dim % count:
            raise op_error(f"Number of ways to split should evenly divide the split dimension, but got split_dim "
                           f"{axis} (size = {dim}) and num_split {count}", tf_op)
        return ([dim // count] * count,)

    given = () if sizes is None else (sizes,)
    split_sizes = _traced_shapes.resolved(run_sizes, _traced_shapes.shape_of(x), *given)[0]
    parts = call("Split", x, split_sizes, axis=axis, tf_op=tf_op)
    return [_traced_shapes.value_shaped(p) for p in (parts if isinstance(parts, tuple) else (parts,))]


def _split_sizes(sizes, dim, tf_op):
    unknown = [i for i, s in enumerate(sizes) if s == -1]
    if len(unknown) > 1:
        raise op_error("There can only be one -1 in the input.", tf_op)
    known = builtins.sum(s for s in sizes if s != -1)
    if (not unknown and known != dim) or (unknown and known > dim):
        raise op_error("Determined shape must either match input shape along split_dim exactly if fully specified, "
                       "or be less than the size of the input along split_dim if not fully specified.  Got: "
                       f"{known}", tf_op)
    if builtins.any(s < -1 for s in sizes):
        raise op_error(f"Split sizes must be non-negative, got {sizes}", tf_op)
    if unknown:
        sizes[unknown[0]] = dim - known
    return sizes


def tile(input, multiples, name=None):
    """``input`` repeated ``multiples[i]`` times along each dim i."""
    x = convert_to_tensor(input)
    if _tracing and _traced_shapes.varies(multiples):
        reps = _traced_shapes.dims_tensor(multiples, "Tile", "Tmultiples")
        _tile_length(x, reps.array.size)
        _traced_shapes.checked_at_run(_tile_reps, reps)
        return _traced_shapes.value_shaped(call(_TILE, x, reps, tf_op="Tile"))
    reps = int_values(multiples, "Tmultiples", "Tile", python_error=errors.InvalidArgumentError)
    _tile_length(x, len(reps))
    return call(_TILE, x, int64s(_tile_reps(reps)), tf_op="Tile")


def _tile_length(x, length):
    if length != x.array.ndim:
        raise op_error(f"Expected multiples argument to be a vector of length {x.array.ndim} but got length "
                       f"{length}", "Tile")


def _tile_reps(reps):
    for i, r in enumerate(reps):
        if r < 0:
            raise op_error(f"Expected multiples[{i}] >= 0, but got {int(r)}", "Tile")
    return reps


NAMESPACES = {
    "tf": ["reshape", "transpose", "expand_dims", "squeeze", "concat", "stack", "parallel_stack", "unstack", "split",
           "tile"],
}
TENSOR_METHODS = {}
