"""Shape ops: Identity, Reshape, Transpose, Squeeze, Unsqueeze, Flatten, Concat, Split, Expand, Tile.

Slice, Pad, DepthToSpace, SpaceToDepth and Trilu live in :mod:`vfw.core.ops.shape_layout`
(imported at the end of this module so that importing the family registers them all).

Data-movement kernels return numpy *views* of their input where the op allows
it (each op's docstring says whether the result can alias the input); given
``out=`` they copy into ``out`` and return it instead.  Shape inference uses
the values of shape-deciding inputs when known (``TensorInfo.value``) and
otherwise returns what is still certain (rank, untouched dims).
"""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import register_gradient
from vfw.core.errors import OpAttributeError, OpInputError, ShapeError
from vfw.core.ops._common import (
    array_of,
    copy_out,
    execute,
    int64s,
    normalize_axes,
    normalize_axis,
    positive,
    require,
    reshape_to,
    same_as_first,
    unbroadcast,
)
from vfw.core.ops._varying_shapes import follows_runs, moved_elements_grad, shape_input, shape_varies
from vfw.core.registry import Attr, TensorInfo, defop

DATA = dt.FIXED_SIZE | {dt.string}  # data movement: complex values too
"""Pure data movement works for every engine dtype, strings included."""

_CACHE_SIZE = 256


# -- helpers shared with shape_layout --------------------------------------------------------------------------
def int_list(op_type, name, x):
    """Python ints of the 1-D integer input ``x`` (a ShapeError if it is not 1-D)."""
    if x.ndim != 1:
        raise ShapeError(f"{op_type}: input '{name}' must be 1-D, got shape {x.shape}")
    return x.tolist()


def known_value(info):
    """The value of a 1-D input as a list of Python ints if inference knows it, else ``None``."""
    if info is None or info.value is None:
        return None
    return np.asarray(info.value).reshape(-1).tolist()


def known_length(info):
    """Number of elements of a 1-D input known to inference (from its value or shape), else ``None``."""
    if info is None:
        return None
    if info.value is not None:
        return np.asarray(info.value).size
    if info.shape is not None and len(info.shape) == 1:
        return info.shape[0]
    return None


def pad_infos(infos, n):
    """``infos`` extended with None for absent trailing optional inputs."""
    infos = list(infos)
    return infos + [None] * (n - len(infos))


def cached(cache, key, fn, *args):
    """``cache[key]``, computed as ``fn(*args)`` on a miss (the cache is bounded: cleared when full)."""
    plan = cache.get(key)
    if plan is None:
        plan = fn(*args)
        if len(cache) >= _CACHE_SIZE:
            cache.clear()
        cache[key] = plan
    return plan


# -- Identity -------------------------------------------------------------------------------------------------
@defop("Identity", inputs="input:T", outputs="output:T", types={"T": DATA}, infer=same_as_first)
def identity():
    """Return the input unchanged.

    The result *is* the input array (it aliases it) unless ``out`` is given.
    """

    def kernel(x, out=None):
        return copy_out(x, out)

    return kernel


@register_gradient("Identity")
def _identity_grad(node, g):
    return (g,)


# -- Reshape --------------------------------------------------------------------------------------------------
def reshape_dims(shape, dims, allowzero, op_type="Reshape"):
    """Output shape of reshaping a tensor of ``shape`` to the ONNX shape spec ``dims``.

    ``shape`` may be ``None`` (unknown rank) or hold ``None`` dims during inference; the
    affected output dims are then ``None``.
    """
    dims = tuple(dims)
    result = list(dims)
    infer_at = None
    for i, d in enumerate(dims):
        if d == -1:
            require(op_type, infer_at is None, f"shape {dims} has more than one -1", OpInputError)
            infer_at = i
        elif d == 0 and not allowzero:
            if shape is None:
                result[i] = None
            else:
                require(op_type, i < len(shape),
                        f"shape {dims} copies dim {i} (a 0) but data has rank {len(shape)}", OpInputError)
                result[i] = shape[i]
        elif d < 0:
            raise OpInputError(f"{op_type}: shape {dims} has the invalid dim {d} (only -1 may be negative)")
    if allowzero and infer_at is not None and 0 in dims:
        raise OpInputError(f"{op_type}: shape {dims} has both 0 and -1, which allowzero=1 makes ambiguous")
    others = [d for i, d in enumerate(result) if i != infer_at]
    if shape is None or None in shape or None in others:
        if infer_at is not None:
            result[infer_at] = None
        return tuple(result)
    size = math.prod(shape)
    known = math.prod(others)
    if infer_at is not None:
        if known == 0 or size % known:
            raise ShapeError(f"{op_type}: cannot reshape data of shape {tuple(shape)} ({size} elements) "
                             f"into shape {dims}: the -1 has no integer solution")
        result[infer_at] = size // known
    elif known != size:
        raise ShapeError(f"{op_type}: cannot reshape data of shape {tuple(shape)} ({size} elements) "
                         f"into shape {tuple(result)} ({known} elements)")
    return tuple(result)


def _reshape_infer(attrs, infos):
    data, shape = infos
    dims = known_value(shape)
    if dims is None:
        n = known_length(shape)
        return [TensorInfo(None if n is None else (None,) * n, data.dtype)]
    return [TensorInfo(reshape_dims(data.shape, dims, attrs["allowzero"]), data.dtype)]


@defop("Reshape", inputs="data:T shape:int64", outputs="reshaped:T", types={"T": DATA},
       attrs={"allowzero": Attr("int", 0, choices=(0, 1))}, infer=_reshape_infer, value_inputs=("shape",))
def reshape(allowzero):
    """Reshape to the ``shape`` input (-1 inferred, 0 copies the input dim unless allowzero).

    The result is a view of (aliases) the input when numpy can reshape without a copy.
    """

    cache = {}

    def kernel(data, shape, out=None):
        if shape.ndim != 1:
            raise ShapeError(f"Reshape: input 'shape' must be 1-D, got shape {shape.shape}")
        target = cached(cache, (data.shape, shape.tobytes()), _reshape_plan, data.shape, shape, allowzero)
        return copy_out(data.reshape(target), out)

    return kernel


def _reshape_plan(data_shape, shape, allowzero):
    return reshape_dims(data_shape, shape.tolist(), allowzero)


def _to_input_shape_grad(node, g):
    """Gradient of an op that only reshapes its first input (Reshape, Squeeze, Unsqueeze, Flatten)."""
    return (execute("Reshape", g, shape_input(node.inputs[0]), allowzero=1),) + (None,) * (len(node.inputs) - 1)


register_gradient("Reshape")(_to_input_shape_grad)


# -- Transpose ------------------------------------------------------------------------------------------------
def _check_perm(perm):
    return None if sorted(perm) == list(range(len(perm))) else f"must be a permutation of 0..{len(perm) - 1}"


def _transpose_infer(attrs, infos):
    (data,) = infos
    perm = attrs["perm"]
    if data.shape is None:
        return [TensorInfo(None if perm is None else (None,) * len(perm), data.dtype)]
    if perm is None:
        return [TensorInfo(data.shape[::-1], data.dtype)]
    _check_transpose_rank(perm, data.shape)
    return [TensorInfo(tuple(data.shape[p] for p in perm), data.dtype)]


def _check_transpose_rank(perm, shape):
    if len(perm) != len(shape):
        raise ShapeError(f"Transpose: perm={perm} has {len(perm)} entries but data has shape {tuple(shape)} "
                         f"(rank {len(shape)})")


@defop("Transpose", inputs="data:T", outputs="transposed:T", types={"T": DATA},
       attrs={"perm": Attr("ints", None, check=_check_perm)}, infer=_transpose_infer)
def transpose(perm):
    """Permute the axes (``perm`` defaults to reversing them).

    The result is a view of (aliases) the input.
    """
    if perm is None:
        def kernel(data, out=None):
            return copy_out(data.T, out)
    else:
        def kernel(data, out=None):
            if data.ndim != len(perm):
                _check_transpose_rank(perm, data.shape)
            return copy_out(data.transpose(perm), out)

    return kernel


@register_gradient("Transpose")
def _transpose_grad(node, g):
    perm = node.attrs["perm"]
    return (execute("Transpose", g, perm=None if perm is None else tuple(np.argsort(perm).tolist())),)


# -- Squeeze / Unsqueeze / Flatten ----------------------------------------------------------------------------
def squeeze_dims(shape, axes):
    """Output shape of Squeeze (``axes`` None: every 1 dim; a None dim is then unknown)."""
    if axes is None:
        if None in shape:
            return None
        return tuple(d for d in shape if d != 1)
    axes = normalize_axes("Squeeze", axes, len(shape))
    for a in axes:
        if shape[a] is not None and shape[a] != 1:
            raise ShapeError(f"Squeeze: cannot squeeze axis {a} of data shape {tuple(shape)}: "
                             f"its size is {shape[a]}, not 1")
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _squeeze_infer(attrs, infos):
    data, axes = pad_infos(infos, 2)
    if data.shape is None:
        return [TensorInfo(None, data.dtype)]
    if axes is None:
        return [TensorInfo(squeeze_dims(data.shape, None), data.dtype)]
    values = known_value(axes)
    if values is None:
        n = known_length(axes)
        return [TensorInfo(None if n is None else (None,) * (len(data.shape) - n), data.dtype)]
    return [TensorInfo(squeeze_dims(data.shape, values), data.dtype)]


@defop("Squeeze", inputs="data:T axes?:int64", outputs="squeezed:T", types={"T": DATA},
       infer=_squeeze_infer, value_inputs=("axes",))
def squeeze():
    """Remove size-1 dims: those in ``axes``, or all of them when ``axes`` is absent.

    The result is a view of (aliases) the input.  An empty ``axes`` squeezes nothing
    (the ONNX reference's reading of the spec).
    """
    cache = {}

    def kernel(data, axes=None, out=None):
        if axes is None:
            return copy_out(data.squeeze(), out)
        squeezed = cached(cache, (data.shape, axes.tobytes()), _squeeze_plan, data.shape, axes)
        return copy_out(data.squeeze(squeezed), out)

    return kernel


def _squeeze_plan(shape, axes):
    axes = int_list("Squeeze", "axes", axes)
    squeeze_dims(shape, axes)  # validates
    return normalize_axes("Squeeze", axes, len(shape))


def unsqueeze_dims(shape, axes):
    """Output shape of Unsqueeze; ``axes`` index the output's dims."""
    rank = len(shape) + len(axes)
    axes = set(normalize_axes("Unsqueeze", axes, rank))
    dims = iter(shape)
    return tuple(1 if i in axes else next(dims) for i in range(rank))


def _unsqueeze_infer(attrs, infos):
    data, axes = infos
    values = known_value(axes)
    if data.shape is None:
        return [TensorInfo(None, data.dtype)]
    if values is None:
        n = known_length(axes)
        return [TensorInfo(None if n is None else (None,) * (len(data.shape) + n), data.dtype)]
    return [TensorInfo(unsqueeze_dims(data.shape, values), data.dtype)]


@defop("Unsqueeze", inputs="data:T axes:int64", outputs="expanded:T", types={"T": DATA},
       infer=_unsqueeze_infer, value_inputs=("axes",))
def unsqueeze():
    """Insert size-1 dims at ``axes`` (positions in the output, negative counting from its end).

    The result is a view of (aliases) the input.
    """
    cache = {}

    def kernel(data, axes, out=None):
        dims = cached(cache, (data.shape, axes.tobytes()), _unsqueeze_plan, data.shape, axes)
        return copy_out(data.reshape(dims), out)

    return kernel


def _unsqueeze_plan(shape, axes):
    return unsqueeze_dims(shape, int_list("Unsqueeze", "axes", axes))


register_gradient("Squeeze", "Unsqueeze")(_to_input_shape_grad)


def flatten_dims(shape, axis):
    """Output shape of Flatten (None dims make the affected product None)."""
    rank = len(shape)
    if not -rank <= axis <= rank:
        raise ShapeError(f"Flatten: axis={axis} is out of range for data of shape {tuple(shape)} "
                         f"(accepted: [{-rank}, {rank}])")
    axis = axis + rank if axis < 0 else axis
    head, tail = shape[:axis], shape[axis:]
    return (None if None in head else math.prod(head), None if None in tail else math.prod(tail))


def _flatten_infer(attrs, infos):
    (data,) = infos
    if data.shape is None:
        return [TensorInfo((None, None), data.dtype)]
    return [TensorInfo(flatten_dims(data.shape, attrs["axis"]), data.dtype)]


@defop("Flatten", inputs="input:T", outputs="output:T", types={"T": DATA},
       attrs={"axis": Attr("int", 1)}, infer=_flatten_infer)
def flatten(axis):
    """Flatten to 2-D: dims before ``axis`` form the rows, the rest the columns.

    The result is a view of (aliases) the input when numpy can reshape without a copy.
    """

    def kernel(x, out=None):
        return copy_out(x.reshape(flatten_dims(x.shape, axis)), out)

    return kernel


register_gradient("Flatten")(_to_input_shape_grad)


# -- Concat ---------------------------------------------------------------------------------------------------
def concat_dims(shapes, axis):
    """Output shape of Concat along ``axis`` (shapes may hold None dims)."""
    rank = len(shapes[0])
    shown = ", ".join(str(tuple(s)) for s in shapes)
    if rank == 0:
        raise ShapeError(f"Concat: inputs must have rank >= 1, got shapes {shown}")
    axis = normalize_axis("Concat", axis, rank)
    result = list(shapes[0])
    for s in shapes[1:]:
        if len(s) != rank:
            raise ShapeError(f"Concat: inputs must have the same rank, got shapes {shown}")
        for i, d in enumerate(s):
            if i == axis:
                result[i] = None if result[i] is None or d is None else result[i] + d
            elif result[i] is None:
                result[i] = d
            elif d is not None and d != result[i]:
                raise ShapeError(f"Concat: inputs must match in every dim but axis {axis}, got shapes {shown}")
    return tuple(result)


def _concat_infer(attrs, infos):
    if any(i.shape is None for i in infos):
        ranks = {len(i.shape) for i in infos if i.shape is not None}
        return [TensorInfo((None,) * ranks.pop() if len(ranks) == 1 else None, infos[0].dtype)]
    return [TensorInfo(concat_dims([i.shape for i in infos], attrs["axis"]), infos[0].dtype)]


@defop("Concat", inputs="inputs*:T", outputs="concat_result:T", types={"T": DATA},
       attrs={"axis": Attr("int")}, infer=_concat_infer)
def concat(axis):
    """Concatenate the inputs along ``axis`` (zero-size inputs take part like any other).

    The result is a new array (never aliases an input).
    """

    def kernel(*inputs, out=None):
        try:
            return np.concatenate(inputs, axis=axis, out=out)
        except (ValueError, IndexError):
            concat_dims([x.shape for x in inputs], axis)  # raises the descriptive error
            raise

    return kernel


@register_gradient("Concat")
def _concat_grad(node, g):
    axis = node.attrs["axis"]
    if any(shape_varies(x) for x in node.inputs):  # (in a traced graph, the sizes of each run)
        sizes = execute("Concat", *[execute("Gather", execute("Shape", x), int64s((axis,)), axis=0)
                                    for x in node.inputs], axis=0)
    else:
        sizes = int64s([array_of(x).shape[axis] for x in node.inputs])
    parts = execute("Split", g, sizes, axis=axis)
    return tuple(p if need else None for p, need in zip(parts, node.needs_input_grad))


# -- Split ----------------------------------------------------------------------------------------------------
def split_sizes(dim, split, num_outputs):
    """Sizes of the Split outputs along the axis of size ``dim`` (None when ``dim`` is unknown)."""
    if split is not None and num_outputs is not None:
        raise OpAttributeError("Split: give either the 'split' input or the 'num_outputs' attribute, not both")
    if split is not None:
        if any(s < 0 for s in split):
            raise OpInputError(f"Split: split sizes {tuple(split)} must be >= 0")
        if dim is not None and sum(split) != dim:
            raise ShapeError(f"Split: split sizes {tuple(split)} sum to {sum(split)}, "
                             f"but the split axis has size {dim}")
        return tuple(split)
    if num_outputs is None:
        raise OpAttributeError("Split: needs the 'split' input or the 'num_outputs' attribute")
    if dim is None:
        return (None,) * num_outputs
    chunk = -(-dim // num_outputs)
    last = dim - chunk * (num_outputs - 1)
    if last < 0:
        raise ShapeError(f"Split: an axis of size {dim} cannot be split into num_outputs={num_outputs} "
                         f"chunks of {chunk} (the last chunk would have size {last})")
    return (chunk,) * (num_outputs - 1) + (last,)


def _split_plan(shape, split, axis, num_outputs):
    if not shape:
        raise ShapeError("Split: input must have rank >= 1, got a scalar")
    axis = normalize_axis("Split", axis, len(shape))
    sizes = split_sizes(shape[axis], None if split is None else int_list("Split", "split", split), num_outputs)
    lead = (slice(None),) * axis
    index, start = [], 0
    for size in sizes:
        index.append(lead + (slice(start, start + size),))
        start += size
    return index


def _split_infer(attrs, infos):
    data, split = pad_infos(infos, 2)
    num_outputs = attrs["num_outputs"]
    values = known_value(split)
    sizes = None
    if split is not None and values is None:
        if num_outputs is not None:
            split_sizes(None, (), num_outputs)  # raises: both given
        n = known_length(split)
        if n is None:
            return []  # the number of outputs is unknown
        sizes = (None,) * n
    if data.shape is None:
        if sizes is None:
            sizes = split_sizes(None, values, num_outputs)
        return [TensorInfo(None, data.dtype) for _ in sizes]
    if not data.shape:
        raise ShapeError("Split: input must have rank >= 1, got a scalar")
    axis = normalize_axis("Split", attrs["axis"], len(data.shape))
    if sizes is None:
        sizes = split_sizes(data.shape[axis], values, num_outputs)
    shape = list(data.shape)
    infos = []
    for size in sizes:
        shape[axis] = size
        infos.append(TensorInfo(shape, data.dtype))
    return infos


@defop("Split", inputs="input:T split?:int64", outputs="outputs*:T", types={"T": DATA},
       attrs={"axis": Attr("int", 0), "num_outputs": Attr("int", None, check=positive)},
       infer=_split_infer, value_inputs=("split",))
def split(axis, num_outputs):
    """Split along ``axis`` into the ``split`` sizes, or into ``num_outputs`` chunks of ceil(dim / n).

    With ``num_outputs`` the last chunk is the remainder (smaller, possibly empty); a split whose
    last chunk would be negative is an error.  Returns a tuple of views of (aliasing) the input.
    """
    cache = {}

    def kernel(x, split=None, out=None):
        key = (x.shape, None if split is None else (split.shape, split.tobytes()))
        return tuple([x[i] for i in cached(cache, key, _split_plan, x.shape, split, axis, num_outputs)])

    return kernel


@register_gradient("Split")
def _split_grad(node, *grads):
    return execute("Concat", *grads, axis=node.attrs["axis"]), None


# -- Expand ---------------------------------------------------------------------------------------------------
def expand_dims(shape, dims):
    """ONNX bidirectional broadcast of ``shape`` with the Expand ``dims`` (None dims allowed in ``shape``)."""
    if any(d < 0 for d in dims):
        raise OpInputError(f"Expand: shape {tuple(dims)} has a negative dim")
    rank = max(len(shape), len(dims))
    a = (1,) * (rank - len(shape)) + tuple(shape)
    b = (1,) * (rank - len(dims)) + tuple(dims)
    result = []
    for x, y in zip(a, b):
        if y == 1 or x == y:
            result.append(x)
        elif x == 1:
            result.append(y)
        elif x is None:
            result.append(y)  # a valid input can only have 1 or y there
        else:
            raise ShapeError(f"Expand: input of shape {tuple(shape)} cannot be broadcast to shape {tuple(dims)}")
    return tuple(result)


def _expand_infer(attrs, infos):
    data, shape = infos
    dims = known_value(shape)
    if data.shape is None:
        return [TensorInfo(None, data.dtype)]
    if dims is None:
        n = known_length(shape)
        return [TensorInfo(None if n is None else (None,) * max(n, len(data.shape)), data.dtype)]
    return [TensorInfo(expand_dims(data.shape, dims), data.dtype)]


@defop("Expand", inputs="input:T shape:int64", outputs="output:T", types={"T": DATA},
       infer=_expand_infer, value_inputs=("shape",))
def expand():
    """Broadcast the input with ``shape`` (bidirectionally: 1s in ``shape`` keep the input's dim).

    The result is a read-only broadcast view of (aliasing) the input.
    """
    cache = {}

    def kernel(x, shape, out=None):
        target, strides = cached(cache, (x.shape, x.itemsize, shape.tobytes()), _expand_plan, x.shape, x.itemsize,
                                 shape)
        if out is not None:
            np.copyto(out, x)
            return out
        if not x.flags.c_contiguous:
            return np.broadcast_to(x, target)
        # A zero-stride view built directly: np.broadcast_to costs several microseconds per call.
        view = np.ndarray(target, x.dtype, buffer=x, strides=strides)
        view.flags.writeable = False
        return view

    return kernel


def _expand_plan(shape, itemsize, dims):
    target = expand_dims(shape, int_list("Expand", "shape", dims))
    own = np.empty(shape, np.dtype(f"V{itemsize}")).strides if shape else ()
    lead = len(target) - len(shape)
    strides = tuple(0 if i < lead or shape[i - lead] == 1 else own[i - lead] for i in range(len(target)))
    return target, strides


@register_gradient("Expand")
def _expand_grad(node, g):
    return unbroadcast(g, node.inputs[0].array.shape), None


# -- Tile -----------------------------------------------------------------------------------------------------
def tile_plan(shape, repeats):
    """(source shape with 1s interleaved, (repeat, dim) pairs shape, output shape) of Tile; validates ``repeats``."""
    if len(repeats) != len(shape):
        raise ShapeError(f"Tile: repeats {tuple(repeats)} must have one entry per dim of input shape {tuple(shape)}")
    if any(r < 0 for r in repeats):
        raise OpInputError(f"Tile: repeats {tuple(repeats)} must be >= 0")
    source = tuple(v for d in shape for v in (1, d))
    spread = tuple(v for d, r in zip(shape, repeats) for v in (r, d))
    return source, spread, tuple(None if d is None else d * r for d, r in zip(shape, repeats))


def _tile_infer(attrs, infos):
    data, repeats = infos
    values = known_value(repeats)
    if data.shape is None:
        n = known_length(repeats)
        return [TensorInfo(None if n is None else (None,) * n, data.dtype)]
    if values is None:
        return [TensorInfo((None,) * len(data.shape), data.dtype)]
    return [TensorInfo(tile_plan(data.shape, values)[2], data.dtype)]


@defop("Tile", inputs="input:T repeats:int64", outputs="output:T", types={"T": DATA},
       infer=_tile_infer, value_inputs=("repeats",))
def tile():
    """Repeat the input ``repeats[i]`` times along each dim i (no broadcasting of ranks).

    The result is a new array (never aliases the input).
    """
    cache = {}

    def kernel(x, repeats, out=None):
        source, spread, target = cached(cache, (x.shape, repeats.tobytes()), _tile_plan, x.shape, repeats)
        y = out if out is not None and out.flags.c_contiguous else np.empty(target, x.dtype)
        np.copyto(y.reshape(spread), x.reshape(source))  # y is contiguous: reshape is a view; copyto broadcasts
        return copy_out(y, out) if y is not out else y

    return kernel


def _tile_plan(shape, repeats):
    return tile_plan(shape, int_list("Tile", "repeats", repeats))


@register_gradient("Tile")
def _tile_grad(node, g):
    x, repeats = node.inputs
    if follows_runs(node, (repeats,)):  # (a traced graph whose shapes or repeats vary from run to run)
        return moved_elements_grad(x, g, lambda t: execute("Tile", t, repeats)), None
    shape = x.array.shape
    if g.array.shape == shape:  # every repeat is 1 (or a scalar input)
        return g, None
    _, spread, _ = tile_plan(shape, array_of(node.inputs[1]).tolist())
    # Output dim i is (repeat, dim) in row-major order: sum over the repeat halves of the pairs.
    return execute("ReduceSum", reshape_to(g, spread), int64s(range(0, len(spread), 2)),
                   keepdims=0), None


from vfw.core.ops import shape_layout  # noqa: E402,F401  (Slice, Pad, DepthToSpace, SpaceToDepth, Trilu)
