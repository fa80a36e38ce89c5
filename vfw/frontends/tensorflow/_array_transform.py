"""Array ops that rearrange elements: pad, reverse, roll, broadcast_to, repeat, sequence_mask, meshgrid,
reverse_sequence, and the block moves (space_to_depth, depth_to_space, space_to_batch_nd, batch_to_space).

As in ``_array_ops``: TF's argument checks and errors here, engine ops (Pad, Slice, Gather,
GatherElements, Expand, Reshape, Transpose) for the values and the gradients, numpy directly for
constant padding and flips when nothing records. Index arrays computed from tensor values (repeat
counts, sequence lengths) are host computations, PyFunc ops under a trace.
"""

import builtins

import numpy as np

from vfw.core.graph.trace import _active as _tracing
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dtypes, _traced_shapes, errors
from vfw.frontends.tensorflow._array_common import int_values
from vfw.frontends.tensorflow._array_ops import reshape, transpose
from vfw.frontends.tensorflow._creation import cast
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, host, op, op_error, recording, wrap
from vfw.frontends.tensorflow._op_support import I64, INDEX_DTYPES, int64s, same_dtype, shape_text
from vfw.frontends.tensorflow._traced_shapes import checked_at_run, pinned

_SLICE = op("Slice")
_EXPAND = op("Expand")


_PAD_MODES = ("CONSTANT", "REFLECT", "SYMMETRIC")


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """``tensor`` padded by ``paddings[i] = [before, after]`` along each dim i.

    Parameters
    ----------
    mode : {"CONSTANT", "REFLECT", "SYMMETRIC"} (any case)
        Fill with ``constant_values``, mirror without the edge, or mirror with the edge.
    constant_values : scalar of the tensor's dtype
    """
    x = convert_to_tensor(tensor)
    mode = mode.upper()
    if mode not in _PAD_MODES:
        raise ValueError('Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or "SYMMETRIC". '
                         f"Received `mode` = {mode}")
    tf_op = "Pad" if mode == "CONSTANT" else "MirrorPad"
    pads = convert_to_tensor(paddings, dtype_hint=_dtypes.int32)
    if pads.array.dtype not in INDEX_DTYPES:
        raise op_error(f"Value for attr 'Tpaddings' of {_dtypes.of_array(pads.array).name} is not in the list of "
                       "allowed values: int32, int64", tf_op)
    if pads.array.ndim != 2 or pads.array.shape[1] != 2:
        raise op_error(f"paddings must be a matrix with 2 columns: {shape_text(pads.array.shape)}", tf_op)
    shape = x.array.shape
    if pads.array.shape[0] != len(shape):
        raise op_error(f"The first dimension of paddings must be the rank of inputs{shape_text(pads.array.shape)} "
                       f"{shape_text(shape)}", tf_op)
    pairs = [(int(b), int(a)) for b, a in pads.array]
    follows = _tracing and _traced_shapes.varies(pads)  # a graph pads by each call's values
    if not follows:
        pinned(pads, pads.array, "paddings", tf_op)

    def non_negative(values):
        for b, a in values.reshape(-1, 2):
            if b < 0 or a < 0:
                raise op_error(f"Paddings must be non-negative: {b} {a}", tf_op)

    if follows:
        _traced_shapes.checked_at_run(non_negative, pads)
    else:
        non_negative(pads.array)
    if mode == "CONSTANT":
        dtype = _dtypes.of_array(x.array)
        if isinstance(constant_values, CoreTensor):
            value = convert_to_tensor(constant_values)
        elif type(constant_values) is int and constant_values == 0:  # the default: the dtype's zero (b"", False)
            value = wrap(np.array(b"", object) if dtype == _dtypes.string else np.zeros((), x.array.dtype))
        else:
            value = convert_to_tensor(constant_values, dtype)
        if value.array.dtype != x.array.dtype:
            same_dtype("PadV2", x, x, value)
        if follows:
            flat = call("Reshape", call("Transpose", _traced_shapes.as_int64(pads), perm=[1, 0], tf_op="Pad"),
                        int64s([-1]), tf_op="Pad")
            return _traced_shapes.value_shaped(call("Pad", x, flat, value.array.reshape(()), mode="constant",
                                                    tf_op="PadV2"))
        if not recording(x):  # a filled array with the input written in: much cheaper than np.pad
            out = np.full([b + d + a for (b, a), d in zip(pairs, shape)], value.array.reshape(()))
            out[tuple(builtins.slice(b, b + d) for (b, _), d in zip(pairs, shape))] = x.array
            return wrap(out)
        flat = int64s([b for b, _ in pairs] + [a for _, a in pairs])
        return call("Pad", x, flat, value.array.reshape(()), mode="constant", tf_op="PadV2")
    with_edge = mode == "SYMMETRIC"

    def within_dims(values, dims):
        for (b, a), d in zip(values.reshape(-1, 2), dims):
            limit = d if with_edge else d - 1
            if b > limit or a > limit:
                relation = "no greater than" if with_edge else "less than"
                raise op_error(f"paddings must be {relation} the dimension size: {b}, {a} "
                               f"{'greater than' if with_edge else 'not less than'} {d}", tf_op)

    if follows or _traced_shapes.shape_varies(x):  # (a traced graph: each call's paddings and shapes)
        dims = _traced_shapes.shape_of(x)
        checked_at_run(within_dims, pads, dims)
        return _mirror_pad_followed(x, _traced_shapes.as_int64(pads), dims, with_edge, follows)
    within_dims(pads.array, shape)
    return _mirror_pad(x, pairs, with_edge)


def _mirror_pad(x, pairs, with_edge):
    """Mirror padding as one Gather per padded axis (indices reflect at the borders): differentiable."""
    for axis, ((before, after), d) in enumerate(zip(pairs, x.array.shape)):
        if before == after == 0:
            continue
        positions = np.arange(-before, d + after)
        period = 2 * d if with_edge else 2 * d - 2
        folded = np.mod(positions, period) if period else np.zeros_like(positions)
        mirrored = period - folded - (1 if with_edge else 0)
        indices = np.where(folded < d, folded, mirrored)
        x = call("Gather", x, indices.astype(I64), axis=axis, tf_op="MirrorPad")
    return x


def _mirror_pad_followed(x, pads, dims, with_edge, pads_vary):
    """``_mirror_pad`` with the gather indices computed by the graph from each call's ``pads`` (an int64 (rank, 2)
    tensor) and ``dims`` (the shape of ``x``, int64), for a traced graph where they vary."""
    one, zero = np.ones((), np.int64), np.zeros((), np.int64)
    # The dims known whatever the call: an input's static dim grown by paddings that do not vary.
    known = [None if pads_vary or d is None else d for d in _traced_shapes.static_shape(x)]
    for axis in range(x.array.ndim):
        if not pads_vary and not pads.array[axis].any():
            continue
        d = call("Gather", dims, np.array(axis, np.int64), axis=0, tf_op="MirrorPad")
        row = call("Gather", pads, np.array(axis, np.int64), axis=0, tf_op="MirrorPad")
        before = call("Gather", row, zero, axis=0, tf_op="MirrorPad")
        after = call("Gather", row, one, axis=0, tf_op="MirrorPad")
        positions = call("Range", call("Neg", before, tf_op="MirrorPad"), call("Add", d, after, tf_op="MirrorPad"),
                         one, tf_op="MirrorPad")
        period = call("Sub", call("Add", d, d, tf_op="MirrorPad"), zero if with_edge else 2 * one, tf_op="MirrorPad")
        folded = call("Mod", positions, call("Max", period, one, tf_op="MirrorPad"), tf_op="MirrorPad")
        mirrored = call("Sub", period, call("Add", folded, one if with_edge else zero, tf_op="MirrorPad"),
                        tf_op="MirrorPad")
        indices = call("Where", call("Less", folded, d, tf_op="MirrorPad"), folded, mirrored, tf_op="MirrorPad")
        x = call("Gather", x, indices, axis=axis, tf_op="MirrorPad")
    return _traced_shapes.value_shaped(x, known)


def reverse(tensor, axis, name=None):
    """``tensor`` with the order of elements reversed along each dim of ``axis`` (a 1-D list)."""
    x = convert_to_tensor(tensor)
    rank = x.array.ndim
    axes_arg = convert_to_tensor(axis, dtype_hint=_dtypes.int32)
    if axes_arg.array.ndim != 1:
        raise op_error(f"'dims' must be 1-dimension, not {axes_arg.array.ndim}", "ReverseV2")
    axes = []
    for i, a in enumerate(int_values(axes_arg, "Tidx", "ReverseV2", python_error=errors.InvalidArgumentError)):
        if not -rank <= a < rank:
            raise op_error(f"'axis'[{i}] = {a} is out of valid range [0, {rank - 1}", "ReverseV2")
        if a % rank in axes:
            raise op_error(f"axis {a % rank} specified more than once.", "ReverseV2")
        axes.append(a % rank)
    if not axes:
        return x
    if not recording(x):
        return wrap(np.flip(x.array, axes))
    n = len(axes)
    return call(_SLICE, x, int64s([-1] * n), int64s([np.iinfo(np.int64).min] * n), int64s(axes),
                int64s([-1] * n), tf_op="ReverseV2")


def roll(input, shift, axis, name=None):
    """``input`` with elements shifted by ``shift`` along ``axis`` (wrapping around; repeated axes add up)."""
    x = convert_to_tensor(input)
    shifts, axes = (int_values(v, "Tshift", "Roll", python_error=errors.InvalidArgumentError) for v in (shift, axis))
    if len(shifts) != len(axes):
        raise op_error("shift and axis must have the same size", "Roll")
    rank = x.array.ndim
    total = {}
    for s, a in zip(shifts, axes):
        if not -rank <= a < rank:
            raise op_error(f"axis {a} is out of range", "Roll")
        total[a % rank] = total.get(a % rank, 0) + s
    if not recording(x):
        return wrap(np.roll(x.array, list(total.values()), list(total.keys())))
    for a, s in total.items():
        d = x.array.shape[a]
        if d and s % d:
            x = call("Gather", x, (np.arange(d) - s) % d, axis=a, tf_op="Roll")
    return x


def broadcast_to(input, shape, name=None):
    """``input`` broadcast to ``shape`` (each input dim is 1 or equal to the target's)."""
    x = convert_to_tensor(input)
    if _tracing and (_traced_shapes.varies(shape) or _traced_shapes.shape_varies(x)):
        # The input's shape or the target follows each call's values: the graph broadcasts, each run checks.
        dims = _traced_shapes.dims_tensor(shape, "BroadcastTo", "Tidx")
        _traced_shapes.checked_at_run(lambda src, wanted: _check_broadcast(tuple(src), tuple(wanted)),
                                      _traced_shapes.shape_of(x), dims)
        result = call(_EXPAND, x, dims, tf_op="BroadcastTo")
        return _traced_shapes.value_shaped(result) if _traced_shapes.varies(shape) else result
    dims = int_values(shape, "Tidx", "BroadcastTo", python_error=errors.InvalidArgumentError)
    _check_broadcast(x.array.shape, dims)
    if x.array.shape == tuple(dims):
        return x
    return call(_EXPAND, x, int64s(dims), tf_op="BroadcastTo")


def _check_broadcast(src, dims):
    """TF's errors for broadcasting a tensor of shape ``src`` to ``dims``."""
    for d in dims:
        if d < 0:
            raise op_error(f"Dimension {d} must be >= 0", "BroadcastTo")
    if len(src) > len(dims):
        raise op_error(f"Rank of input ({len(src)}) must be no greater than rank of output shape ({len(dims)}).",
                       "BroadcastTo")
    for s, d in zip(src[::-1], dims[::-1]):
        if s != d and s != 1:
            raise op_error(f"Incompatible shapes: {shape_text(src)} vs. {shape_text(dims)}", "BroadcastTo")


def repeat(input, repeats, axis=None, name=None):
    """``input`` with each element (slice along ``axis``; of the flattened input when None) repeated.

    ``repeats`` is one count for all or one per element along the axis (negative counts as 0).
    """
    x = convert_to_tensor(input)
    counts = convert_to_tensor(repeats, dtype_hint=_dtypes.int32)
    if counts.array.dtype.kind not in "iu":
        raise TypeError(f"Argument `tensor` (name: repeats) must be of type integer. Received `tensor` = {repeats} "
                        f"of dtype: <dtype: '{_dtypes.of_array(counts.array).name}'>")
    if axis is None:
        x = reshape(x, [-1])
        axis = 0
    rank = x.array.ndim
    if not -rank <= axis < rank:
        raise ValueError(f"axis={axis} out of bounds: expected {-rank}<=axis<{rank}")
    axis %= rank
    d = x.array.shape[axis]
    if counts.array.size != 1 and counts.array.size != d:
        raise ValueError(f"Dimensions {d} and {counts.array.size} are not compatible")

    def positions(n):  # each position along the axis, repeated (negative counts as 0)
        return np.repeat(np.arange(d, dtype=I64), np.broadcast_to(np.maximum(n.reshape(-1), 0), (d,)))

    if _tracing and counts.array.size == 1 and not _traced_shapes.varies(counts):  # engine ops: ONNX takes them
        return _traced_repeat(x, builtins.max(int(counts.array.reshape(-1)[0]), 0), axis)
    return call("Gather", x, host(positions, counts), axis=axis, tf_op="Repeat")


def _traced_repeat(x, count, axis):
    """``repeat`` by one fixed ``count`` as engine ops over each run's shape: each slice along ``axis`` tiled along a
    new axis after it, the two axes merged."""
    rank = x.array.ndim
    tiled = call("Tile", call("Unsqueeze", x, int64s([axis + 1])),
                 int64s([1] * (axis + 1) + [count] + [1] * (rank - axis - 1)), tf_op="Repeat")
    shape = call("Shape", x, tf_op="Shape")  # (not the traced one: the merged size follows the input's)

    def dims(start, stop):
        return call("Slice", shape, int64s([start]), int64s([stop]), int64s([0]), tf_op="Repeat")

    merged = call("Mul", dims(axis, axis + 1), np.array([count], I64), tf_op="Repeat")
    return call("Reshape", tiled, call("Concat", dims(0, axis), merged, dims(axis + 1, rank), axis=0), allowzero=1,
                tf_op="Repeat")  # (allowzero: a 0 dim is 0, not a copy of the input's)


def sequence_mask(lengths, maxlen=None, dtype=_dtypes.bool, name=None):
    """``mask[..., j] = j < lengths[...]``: a mask of shape ``lengths.shape + [maxlen]``.

    ``maxlen`` defaults to the largest length.
    """
    lengths = convert_to_tensor(lengths)
    if maxlen is not None:
        limit = convert_to_tensor(maxlen)
        if limit.array.ndim:
            raise ValueError("Argument `maxlen` must be scalar for sequence_mask, received `maxlen` = "
                             f"{maxlen} with shape '{limit.array.shape}' instead")

    def mask(n, *limit):
        size = int(limit[0]) if limit else int(n.max()) if n.size else 0
        return np.arange(builtins.max(size, 0)).astype(n.dtype) < np.expand_dims(n, -1)

    if _tracing and lengths.array.dtype.kind in "iuf":  # engine ops, which ONNX export takes (a callback it cannot)
        result = _traced_sequence_mask(lengths, None if maxlen is None else limit)
    else:
        result = host(mask, lengths) if maxlen is None else host(mask, lengths, limit)
    return result if _dtypes.as_dtype(dtype) == _dtypes.bool else cast(result, dtype)


def _traced_sequence_mask(lengths, limit):
    """``sequence_mask`` as engine ops: positions ``0 .. maxlen - 1`` (in the lengths' dtype) below each length.

    ``maxlen`` is ``limit`` (a tensor), else the largest length (none for no lengths); a negative one gives no
    positions, as eagerly."""
    zero, one = np.array(0, I64), np.array(1, I64)
    if limit is None:
        largest = call("ReduceMax", lengths, keepdims=0, tf_op="Max") if lengths.array.size else zero
        size = call("Cast", largest, to=I64)
    else:
        size = call("Cast", call("Reshape", limit, int64s([]), tf_op="Reshape"), to=I64)
    positions = call("Range", zero, call("Max", size, zero), one, tf_op="Range")
    if limit is None or _traced_shapes.varies(limit):  # its size follows each run's values
        positions = _traced_shapes.value_shaped(positions)
    positions = call("Cast", positions, to=lengths.array.dtype)
    return call("Less", positions, call("Unsqueeze", lengths, int64s([-1])), tf_op="Less")


def meshgrid(*args, **kwargs):
    """Coordinate grids from 1-D coordinate vectors (``indexing="xy"``: the first two dims swapped)."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this function")
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Argument `indexing` parameter must be either 'xy' or 'ij', got '{indexing}'")
    if not args:
        return []
    vectors = [reshape(convert_to_tensor(a), [-1]) for a in args]
    same_dtype("Mul", *vectors)
    sizes = [v.array.shape[0] for v in vectors]
    if indexing == "xy" and len(sizes) > 1:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    grids = []
    for i, v in enumerate(vectors):
        position = (1 - i if i < 2 else i) if indexing == "xy" and len(vectors) > 1 else i
        shape = [1] * len(vectors)
        shape[position] = sizes[position]
        grids.append(broadcast_to(reshape(v, shape), sizes))
    return grids


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None):
    """For each batch entry b, its first ``seq_lengths[b]`` elements along ``seq_axis`` reversed."""
    if seq_axis is None:
        raise TypeError("Expected int for argument 'seq_dim' not None.")
    batch_axis = 0 if batch_axis is None else batch_axis
    x = convert_to_tensor(input)
    lengths = convert_to_tensor(seq_lengths)
    shape = x.array.shape
    rank = len(shape)
    seq_axis, batch_axis = seq_axis % builtins.max(rank, 1), batch_axis % builtins.max(rank, 1)
    if lengths.array.shape != (shape[batch_axis],):
        raise op_error(f"Length of seq_lengths != input.dims({batch_axis}), ({lengths.array.size} vs. "
                       f"{shape[batch_axis]})", "ReverseSequence")

    def lengths_in_range(values):
        for b, n in enumerate(values.tolist()):
            if n > shape[seq_axis]:
                raise op_error(f"seq_lens({b}) > input.dims({seq_axis})", "ReverseSequence")
            if n < 0:
                raise op_error(f"seq_lens({b}) < 0", "ReverseSequence")

    checked_at_run(lengths_in_range, lengths)
    if _tracing and rank >= 2 and seq_axis != batch_axis:  # the engine's op, which ONNX export takes
        return _traced_reverse_sequence(x, cast(lengths, _dtypes.int64), seq_axis, batch_axis)
    steps = np.arange(shape[seq_axis]).reshape([-1 if i == seq_axis else 1 for i in builtins.range(rank)])

    def positions(n):  # where each element comes from along the sequence axis
        counts = n.astype(I64).reshape([-1 if i == batch_axis else 1 for i in builtins.range(rank)])
        return np.ascontiguousarray(np.broadcast_to(np.where(steps < counts, counts - 1 - steps, steps), shape))

    return call("GatherElements", x, host(positions, lengths), axis=seq_axis, tf_op="ReverseSequence")


def _traced_reverse_sequence(x, lengths, seq_axis, batch_axis):
    """``reverse_sequence`` as the engine's ReverseSequence (ONNX's), which takes batch and time among the first two
    axes: other axes are moved there and back."""
    if {seq_axis, batch_axis} == {0, 1}:
        return call("ReverseSequence", x, lengths, batch_axis=batch_axis, time_axis=seq_axis)
    rank = x.array.ndim
    order = [batch_axis, seq_axis] + [a for a in builtins.range(rank) if a not in (batch_axis, seq_axis)]
    moved = call("ReverseSequence", transpose(x, order), lengths, batch_axis=0, time_axis=1)
    return transpose(moved, np.argsort(order).tolist())


# -- space <-> depth (NHWC) --------------------------------------------------------------------------------------
def _block_check(x, block_size, tf_op):
    if x.array.ndim != 4:
        raise op_error(f"input rank should be 4 instead of {x.array.ndim}", tf_op)
    if block_size < 2:
        raise op_error(f"Value for attr 'block_size' of {block_size} must be at least minimum 2", tf_op)


def space_to_depth(input, block_size, data_format="NHWC", name=None):
    """Move ``block_size x block_size`` spatial blocks of an NHWC tensor into its channels."""
    x = convert_to_tensor(input)
    _block_check(x, block_size, "SpaceToDepth")
    n, h, w, c = x.array.shape
    if h % block_size or w % block_size:
        raise op_error(f"Image width {w} and height {h} should be divisible by block_size: {block_size}",
                       "SpaceToDepth")
    blocks = reshape(x, [n, h // block_size, block_size, w // block_size, block_size, c])
    return reshape(transpose(blocks, [0, 1, 3, 2, 4, 5]), [n, h // block_size, w // block_size, c * block_size ** 2])


def depth_to_space(input, block_size, data_format="NHWC", name=None):
    """Move channel groups of an NHWC tensor into ``block_size x block_size`` spatial blocks."""
    x = convert_to_tensor(input)
    _block_check(x, block_size, "DepthToSpace")
    n, h, w, c = x.array.shape
    if c % (block_size ** 2):
        raise op_error(f"Input depth dimension {c} should be divisible by: {block_size ** 2}", "DepthToSpace")
    out_c = c // block_size ** 2
    blocks = reshape(x, [n, h, w, block_size, block_size, out_c])
    return reshape(transpose(blocks, [0, 1, 3, 2, 4, 5]), [n, h * block_size, w * block_size, out_c])


# -- space <-> batch (the spatial dims after the batch dim) ------------------------------------------------------
def _block_args(x, block_shape, pairs, what, tf_op):
    blocks = int_values(block_shape, "Tblock_shape", tf_op, python_error=errors.InvalidArgumentError)
    amounts = convert_to_tensor(pairs, dtype_hint=_dtypes.int32)
    m = len(blocks)
    if amounts.array.shape != (m, 2):
        raise op_error(f"{what} should have shape [{m}, 2] instead of {shape_text(amounts.array.shape)}", tf_op)
    if x.array.ndim < m + 1:
        raise op_error(f"input rank should be >= {m + 1} instead of {x.array.ndim}", tf_op)
    for i, b in enumerate(blocks):
        if b < 1:
            raise op_error(f"block_shape[{i}] = {b} must be positive", tf_op)
    pairs = [(int(a), int(b)) for a, b in amounts.array]
    if any(a < 0 or b < 0 for a, b in pairs):
        raise op_error(f"{what} must be non-negative", tf_op)
    return blocks, pairs


def space_to_batch_nd(input, block_shape, paddings, name=None):
    """Zero-pad the M spatial dims after the batch dim, then move ``block_shape`` blocks of them into the batch.

    Output ``[batch * prod(block_shape), padded_1 / block_1, ..., padded_M / block_M, remaining dims...]``.
    """
    x = convert_to_tensor(input)
    blocks, pads = _block_args(x, block_shape, paddings, "paddings", "SpaceToBatchND")
    m = len(blocks)
    shape = x.array.shape
    padded = [d + a + b for d, (a, b) in zip(shape[1:m + 1], pads)]
    for i, (p, b) in enumerate(zip(padded, blocks)):
        if p % b:
            raise op_error(f"padded_shape[{i}]={p} is not divisible by block_shape[{i}]={b}", "SpaceToBatchND")
    if any(a or b for a, b in pads):
        x = pad(x, [[0, 0]] + [list(p) for p in pads] + [[0, 0]] * (len(shape) - m - 1))
    rest = list(shape[m + 1:])
    split = [shape[0]] + [v for p, b in zip(padded, blocks) for v in (p // b, b)] + rest
    order = [2 + 2 * i for i in builtins.range(m)] + [0] + [1 + 2 * i for i in builtins.range(m)] + \
        list(builtins.range(2 * m + 1, 2 * m + 1 + len(rest)))
    moved = transpose(reshape(x, split), order)
    return reshape(moved, [shape[0] * int(np.prod(blocks))] + [p // b for p, b in zip(padded, blocks)] + rest)


def batch_to_space(input, block_shape, crops, name=None):
    """The inverse of ``space_to_batch_nd``: move batch blocks back into the spatial dims, then crop them."""
    x = convert_to_tensor(input)
    blocks, cuts = _block_args(x, block_shape, crops, "crops", "BatchToSpaceND")
    m = len(blocks)
    shape = x.array.shape
    count = int(np.prod(blocks))
    if shape[0] % count:
        raise op_error(f"Input batch dimension ({shape[0]}) is not divisible by product of block sizes ({count})",
                       "BatchToSpaceND")
    batch, spatial, rest = shape[0] // count, list(shape[1:m + 1]), list(shape[m + 1:])
    for i, ((a, b), s, blk) in enumerate(zip(cuts, spatial, blocks)):
        if a + b > s * blk:
            raise op_error(f"crops must be less than or equal to the spatial size: crop_start[{i}]={a}, "
                           f"crop_end[{i}]={b}, input_shape[{i + 1}]={s}, block_shape[{i}]={blk}", "BatchToSpaceND")
    split = list(blocks) + [batch] + spatial + rest
    order = [m] + [v for i in builtins.range(m) for v in (m + 1 + i, i)] + \
        list(builtins.range(2 * m + 1, 2 * m + 1 + len(rest)))
    merged = reshape(transpose(reshape(x, split), order), [batch] + [s * b for s, b in zip(spatial, blocks)] + rest)
    if not any(a or b for a, b in cuts):
        return merged
    starts = [a for a, _ in cuts]
    ends = [s * blk - b for (_, b), s, blk in zip(cuts, spatial, blocks)]
    return call(_SLICE, merged, int64s(starts), int64s(ends), int64s(list(builtins.range(1, m + 1))),
                tf_op="BatchToSpaceND")


def space_to_batch(input, block_shape, paddings, name=None):
    """``space_to_batch_nd`` (TF 2's ``tf.space_to_batch`` takes the same arguments)."""
    return space_to_batch_nd(input, block_shape, paddings)


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """``(paddings, crops)``: the least padding (beyond ``base_paddings``) making each dim divisible by its block."""
    shape = np.array(int_values(input_shape, "input_shape"))
    blocks = np.array(int_values(block_shape, "block_shape"))
    base = np.zeros((len(blocks), 2), np.int64) if base_paddings is None else np.asarray(
        convert_to_tensor(base_paddings, dtype_hint=_dtypes.int32).array, np.int64)
    extra = (-(shape + base[:, 0] + base[:, 1])) % blocks
    paddings = np.stack([base[:, 0], base[:, 1] + extra], axis=1).astype(np.int32)
    crops = np.stack([np.zeros_like(extra), extra], axis=1).astype(np.int32)
    return wrap(paddings), wrap(crops)


NAMESPACES = {
    "tf": ["pad", "reverse", "roll", "broadcast_to", "repeat", "sequence_mask", "meshgrid", "reverse_sequence",
           "space_to_batch_nd", "space_to_batch", "batch_to_space", "required_space_to_batch_paddings"],
    "nn": ["space_to_depth", "depth_to_space", "space_to_batch"],
}
TENSOR_METHODS = {}
