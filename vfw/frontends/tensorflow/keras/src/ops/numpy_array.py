"""keras.ops shape and indexing manipulation: reshape, transpose, concatenate, stack, where, take...

Joining ops (``concatenate``, ``stack``, ``where``...) promote their inputs to a common dtype.
"""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.backend.dtypes import result_type
from vfw.frontends.tensorflow.keras.src.engine.operation import call_reporting_arguments
from vfw.frontends.tensorflow.keras.src.engine.variables import in_symbolic_scope
from vfw.frontends.tensorflow.keras.src.ops._common import (
    axis_tuple,
    canonicalize_axis,
    convert_to_tensor,
    keras_op,
    operand,
    operand_dtype,
    promoted,
)


@keras_op
def array(x, dtype=None):
    """``x`` as a tensor (of ``dtype`` when given)."""
    return convert_to_tensor(x, dtype=dtype)


@keras_op
def copy(x):
    """A copy of ``x``."""
    return tf.identity(convert_to_tensor(x))


@keras_op
def reshape(x, newshape):
    """``x`` with shape ``newshape`` (one entry may be -1)."""
    return tf.reshape(convert_to_tensor(x), newshape)


@keras_op
def ravel(x):
    """``x`` flattened to 1-D."""
    return tf.reshape(convert_to_tensor(x), [-1])


@keras_op
def transpose(x, axes=None):
    """``x`` with its axes permuted (reversed when ``axes`` is None)."""
    x = convert_to_tensor(x)
    if axes:
        axes = tuple(canonicalize_axis(a, len(x.shape)) for a in axes)
        if len(set(axes)) != len(axes):
            raise ValueError(f"`axes` must be a valid permutation of the input dimensions (no duplicates). Received: "
                             f"axes={list(axes)} for input of rank {len(x.shape)}.")
    return tf.transpose(x, perm=axes)


@keras_op
def moveaxis(x, source, destination):
    """``x`` with axes ``source`` moved to positions ``destination`` (the others keep their order)."""
    x = convert_to_tensor(x)
    ndim = len(x.shape)
    sources = tuple(canonicalize_axis(a, ndim) for a in axis_tuple(source))
    destinations = tuple(canonicalize_axis(a, ndim) for a in axis_tuple(destination))
    if len(sources) != len(destinations):
        raise ValueError(f"Inconsistent number of `source` and `destination`. Received: source={source}, "
                         f"destination={destination}")
    if sources == destinations:
        return x
    perm = [i for i in range(ndim) if i not in sources]
    for dest, src in sorted(zip(destinations, sources)):
        perm.insert(dest, src)
    return tf.transpose(x, perm)


@keras_op
def swapaxes(x, axis1, axis2):
    """``x`` with axes ``axis1`` and ``axis2`` exchanged."""
    x = convert_to_tensor(x)
    ndim = len(x.shape)
    axis1, axis2 = canonicalize_axis(axis1, ndim), canonicalize_axis(axis2, ndim)
    if axis1 == axis2:
        return x
    perm = list(range(ndim))
    perm[axis1], perm[axis2] = axis2, axis1
    return tf.transpose(x, perm)


@keras_op
def expand_dims(x, axis):
    """``x`` with size-1 axes inserted at ``axis`` (an int or a sequence, positions in the result)."""
    x = convert_to_tensor(x)
    axes = axis_tuple(axis)
    out_ndim = len(x.shape) + len(axes)
    for a in sorted(canonicalize_axis(a, out_ndim) for a in axes):
        x = tf.expand_dims(x, a)
    return x


@keras_op
def squeeze(x, axis=None):
    """``x`` without its size-1 axes (only those of ``axis`` when given: ValueError if not size 1)."""
    x = convert_to_tensor(x)
    axes = axis_tuple(axis)
    if axes is not None:
        for a in axes:
            if x.shape[a] != 1:
                raise ValueError(f"Cannot squeeze axis={a}, because the dimension is not 1.")
        axes = sorted(canonicalize_axis(a, len(x.shape)) for a in axes)
    return tf.squeeze(x, axis=axes)


def _common_dtype(xs):
    """``xs`` converted to one dtype (Python scalars weak), unchanged when they already agree."""
    xs = [operand(x) for x in xs]
    dtypes = {operand_dtype(x) for x in xs}
    if len(dtypes) > 1:
        dtype = result_type(*dtypes)
        return [convert_to_tensor(x, dtype) for x in xs]
    return [convert_to_tensor(x) for x in xs]


@keras_op
def concatenate(xs, axis=0):
    """The tensors ``xs`` joined along ``axis`` (promoted to a common dtype)."""
    return tf.concat(_common_dtype(xs), axis=axis)


@keras_op
def stack(x, axis=0):
    """The tensors ``x`` stacked along a new ``axis`` (promoted to a common dtype)."""
    return tf.stack(_common_dtype(x), axis=axis)


@keras_op
def hstack(xs):
    """``xs`` joined along axis 1 (axis 0 for 1-D tensors)."""
    xs = _common_dtype(xs)
    return tf.concat(xs, axis=0 if len(xs[0].shape) == 1 else 1)


@keras_op
def vstack(xs):
    """``xs`` joined along axis 0."""
    return tf.concat(_common_dtype(xs), axis=0)


@keras_op
def append(x1, x2, axis=None):
    """``x2`` appended to ``x1`` along ``axis`` (both flattened when None)."""
    x1, x2 = _common_dtype([convert_to_tensor(x1), convert_to_tensor(x2)])
    if axis is None:
        return tf.concat([tf.reshape(x1, [-1]), tf.reshape(x2, [-1])], axis=0)
    return tf.concat([x1, x2], axis=axis)


@keras_op
def split(x, indices_or_sections, axis=0):
    """``x`` split into equal sections (an int) or at ``indices`` along ``axis``; a list."""
    x = convert_to_tensor(x)
    if isinstance(indices_or_sections, int):
        return tf.split(x, indices_or_sections, axis=axis)
    bounds = [0, *[int(i) for i in indices_or_sections], x.shape[axis]]
    return tf.split(x, [b - a for a, b in zip(bounds[:-1], bounds[1:])], axis=axis)


@keras_op
def array_split(x, indices_or_sections, axis=0):
    """``x`` split into ``indices_or_sections`` nearly equal parts (the first ones one longer)."""
    x = convert_to_tensor(x)
    count = indices_or_sections
    total = x.shape[axis]
    size, extra = divmod(total, count)
    return tf.split(x, [size + 1] * extra + [size] * (count - extra), axis=axis)


@keras_op
def where(condition, x1=None, x2=None):
    """``x1`` where ``condition`` holds, else ``x2`` (promoted; scalars weak); without ``x1``/``x2``,
    the indices of the true elements (``nonzero``)."""
    condition = tf.cast(condition, "bool")
    if x1 is not None and x2 is not None:
        x1, x2 = promoted(operand(x1), operand(x2))
        return tf.where(condition, x1, x2)
    if x1 is None and x2 is None:
        return nonzero.eager(condition)
    raise ValueError("`x1` and `x2` either both should be `None` or both should have non-None value.")


@keras_op
def nonzero(x):
    """A list of int32 index tensors (one per axis) of the nonzero elements of ``x``."""
    x = convert_to_tensor(x)
    indices = tf.where(tf.cast(x, "bool"))
    return [tf.cast(i, "int32") for i in tf.unstack(indices, len(x.shape), axis=1)]


@keras_op
def select(condlist, choicelist, default=0):
    """Per element, the entry of the first ``choicelist`` tensor whose condition holds, else ``default``."""
    choices = _common_dtype([*choicelist, default])
    out = choices[-1]
    for condition, choice in reversed(list(zip(condlist, choices[:-1]))):
        out = tf.where(tf.cast(condition, "bool"), choice, out)
    return out


@keras_op
def tile(x, repeats):
    """``x`` repeated ``repeats`` times along each axis (leading axes added as needed)."""
    x = convert_to_tensor(x)
    repeats = [repeats] if isinstance(repeats, int) else [int(r) for r in repeats]
    rank = len(x.shape)
    if len(repeats) < rank:
        repeats = [1] * (rank - len(repeats)) + repeats
    while len(repeats) > len(x.shape):
        x = tf.expand_dims(x, 0)
    return tf.tile(x, repeats)


@keras_op
def repeat(x, repeats, axis=None):
    """Each element of ``x`` repeated ``repeats`` times along ``axis`` (of the flattened tensor when None)."""
    x = convert_to_tensor(x)
    if x.dtype.name == "uint16":
        return tf.cast(tf.repeat(tf.cast(x, "uint32"), repeats, axis=axis), "uint16")
    return tf.repeat(x, repeats, axis=axis)


def _pad_pairs(pad_width):
    """Keras' ``(before, after)`` pairs: an int or one flat pair is one pair (for every axis), a 1-entry pair
    pads both sides alike; otherwise ``pad_width`` as given (error messages show it as the caller wrote it)."""
    if isinstance(pad_width, int):
        return ((pad_width, pad_width),)
    if isinstance(pad_width, (tuple, list)) and isinstance(pad_width[0], int):
        return (pad_width,)
    first_length = len(pad_width[0])
    pairs = list(pad_width) if isinstance(pad_width, list) else pad_width
    for i, pair in enumerate(pad_width):
        if len(pair) != first_length:
            raise ValueError(f"`pad_width` should be a list of tuples of length 1 or 2. Received: "
                             f"pad_width={pad_width}")
        if len(pair) == 1:
            pairs[i] = (pair[0], pair[0])  # a tuple of pairs raises Keras' TypeError (item assignment) here
    return pairs


@keras_op
def pad(x, pad_width, mode="constant", constant_values=None):
    """``x`` padded by ``pad_width`` (``[[before, after], ...]``, one pair, or an int); modes constant, reflect,
    symmetric.

    As Keras' ``Pad`` operation, errors in the padding itself are reported with the call's arguments
    ("Exception encountered when calling Pad.call()"); a single pair pads one axis when computing and
    every axis when inferring the output shape of a KerasTensor (Keras' ``compute_output_spec``).
    """
    pairs = _pad_pairs(pad_width)

    def call(x, constant_values=None):
        # Keras reads ``x.shape`` before converting ``x``: a Python list with several pairs is an AttributeError.
        if len(pairs) > 1 and len(pairs) != len(x.shape):
            raise ValueError(f"`pad_width` must have the same length as `x.shape`. Received: pad_width={pairs} "
                             f"(of length {len(pairs)}) and x.shape={tuple(x.shape)} (of length {len(x.shape)})")
        x = convert_to_tensor(x)
        paddings = list(pairs) * len(x.shape) if len(pairs) == 1 and in_symbolic_scope() else pairs
        kwargs = {}
        if constant_values is not None:
            if mode != "constant":
                raise ValueError("Argument `constant_values` can only be provided when `mode == 'constant'`. "
                                 f"Received: mode={mode}")
            kwargs["constant_values"] = constant_values
        return tf.pad(x, convert_to_tensor(paddings, "int32"), mode.upper(), **kwargs)

    return call_reporting_arguments(call, "Pad.call()", (x,), {"constant_values": constant_values})


@keras_op
def broadcast_to(x, shape):
    """``x`` broadcast to ``shape``."""
    return tf.broadcast_to(x, shape)


@keras_op
def flip(x, axis=None):
    """``x`` reversed along ``axis`` (all axes when None)."""
    x = convert_to_tensor(x)
    rank = len(x.shape)
    axes = list(range(rank)) if axis is None else [canonicalize_axis(a, rank) for a in axis_tuple(axis)]
    return tf.reverse(x, axes)


@keras_op
def roll(x, shift, axis=None):
    """``x`` rotated by ``shift`` along ``axis`` (of the flattened tensor when None)."""
    x = convert_to_tensor(x)
    if axis is not None:
        return tf.roll(x, shift=shift, axis=axis)
    return tf.reshape(tf.roll(tf.reshape(x, [-1]), shift, 0), tf.shape(x))


@keras_op
def take(x, indices, axis=None):
    """The elements of ``x`` at ``indices`` along ``axis`` (of the flattened tensor when None);
    negative indices count from the end."""
    x = convert_to_tensor(x)
    if axis is None:
        x = tf.reshape(x, [-1])
        axis = 0
    indices = convert_to_tensor(indices)
    indices = tf.where(indices < 0, indices + tf.cast(tf.shape(x)[axis], indices.dtype), indices)
    return tf.gather(x, indices, axis=axis)


@keras_op
def take_along_axis(x, indices, axis=None):
    """``x`` gathered along ``axis`` at ``indices`` (broadcast against ``x`` on the other axes)."""
    x = convert_to_tensor(x)
    indices = convert_to_tensor(indices, "int64")
    if axis is None:
        if len(indices.shape) != 1:
            raise ValueError(f"`indices` must be 1D if axis=None. Received: indices.shape={indices.shape}")
        return take_along_axis.eager(tf.reshape(x, [-1]), indices, 0)
    rank = len(x.shape)
    if not -rank <= axis < rank:
        raise ValueError(f"Invalid axis: {axis} for input rank: {rank}")
    axis %= rank
    x_dims, index_dims = list(x.shape), list(indices.shape)
    x_dims[axis] = index_dims[axis] = 1
    batch = list(tf.broadcast_static_shape(tf.TensorShape(x_dims), tf.TensorShape(index_dims)).as_list())
    x = tf.broadcast_to(x, batch[:axis] + [x.shape[axis]] + batch[axis + 1:])
    indices = tf.broadcast_to(indices, batch[:axis] + [indices.shape[axis]] + batch[axis + 1:])
    indices = tf.where(indices < 0, indices + x.shape[axis], indices)
    x = swapaxes.eager(x, axis, -1)
    indices = swapaxes.eager(indices, axis, -1)
    out_shape = tf.shape(indices)
    out = tf.gather(tf.reshape(x, [-1, x.shape[-1]]), tf.reshape(indices, [-1, indices.shape[-1]]), batch_dims=1)
    return swapaxes.eager(tf.reshape(out, out_shape), axis, -1)


@keras_op
def sort(x, axis=-1):
    """``x`` sorted ascending along ``axis`` (of the flattened tensor when None)."""
    x = convert_to_tensor(x)
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    if x.dtype.name == "bool":
        return tf.cast(tf.sort(tf.cast(x, "int8"), axis=axis), "bool")
    return tf.sort(x, axis=axis)


@keras_op
def argsort(x, axis=-1):
    """The int32 indices that sort ``x`` along ``axis``."""
    x = convert_to_tensor(x)
    if x.dtype.name == "bool":
        x = tf.cast(x, "uint8")
    if not x.shape.rank:
        return tf.cast([0], "int32")
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    return tf.argsort(x, axis=axis)


@keras_op
def diagonal(x, offset=0, axis1=0, axis2=1):
    """The ``offset`` diagonal of the planes of axes ``axis1``, ``axis2`` (on the last axis of the result)."""
    x = moveaxis.eager(convert_to_tensor(x), (axis1, axis2), (-2, -1))
    rows, cols = x.shape[-2], x.shape[-1]
    if offset <= -rows or offset >= cols:
        return tf.zeros([*x.shape[:-2], 0], dtype=x.dtype)
    return tf.linalg.diag_part(x, k=offset)


@keras_op
def diag(x, k=0):
    """The ``k``-th diagonal of a matrix, or a matrix with the vector ``x`` on its ``k``-th diagonal."""
    x = convert_to_tensor(x)
    if len(x.shape) == 1:
        return tf.linalg.diag(x, k=k)
    if len(x.shape) == 2:
        return diagonal.eager(x, offset=k)
    raise ValueError(f"`x` must be 1d or 2d. Received: x.shape={x.shape}")


@keras_op
def trace(x, offset=0, axis1=0, axis2=1):
    """Sum of the ``offset`` diagonal of the planes of axes ``axis1``, ``axis2`` (small ints widened)."""
    x = convert_to_tensor(x)
    dtype = {"bool": "int32", "int8": "int32", "int16": "int32", "uint8": "uint32",
             "uint16": "uint32"}.get(x.dtype.name, x.dtype.name)
    return tf.reduce_sum(diagonal.eager(tf.cast(x, dtype), offset, axis1, axis2), axis=-1)


@keras_op
def diff(a, n=1, axis=-1):
    """``n``-th order differences along ``axis`` (``!=`` for bools); errors are reported with the call's
    arguments, as Keras' ``Diff`` operation does."""

    def call(a):
        a = convert_to_tensor(a)
        if n == 0:
            return a
        if n < 0:
            raise ValueError(f"Order `n` must be non-negative. Received n={n}")
        if not a.shape.rank:
            raise ValueError(f"`diff` requires input that is at least one dimensional. Received: a={a}")
        along = canonicalize_axis(axis, len(a.shape))
        later = tuple(slice(1, None) if i == along else slice(None) for i in range(len(a.shape)))
        earlier = tuple(slice(None, -1) if i == along else slice(None) for i in range(len(a.shape)))
        for _ in range(n):
            a = tf.math.not_equal(a[later], a[earlier]) if a.dtype.name == "bool" else a[later] - a[earlier]
        return a

    return call_reporting_arguments(call, "Diff.call()", (a,), {})
    if n < 0:
        raise ValueError(f"Order `n` must be non-negative. Received n={n}")
    if not a.shape.rank:
        raise ValueError(f"`diff` requires input that is at least one dimensional. Received: a={a}")
    axis = canonicalize_axis(axis, len(a.shape))
    later = tuple(slice(1, None) if i == axis else slice(None) for i in range(len(a.shape)))
    earlier = tuple(slice(None, -1) if i == axis else slice(None) for i in range(len(a.shape)))
    for _ in range(n):
        a = tf.math.not_equal(a[later], a[earlier]) if a.dtype.name == "bool" else a[later] - a[earlier]
    return a


@keras_op
def meshgrid(*x, indexing="xy"):
    """Coordinate grids of the 1-D tensors ``x`` (``indexing`` "xy" or "ij")."""
    return tf.meshgrid(*x, indexing=indexing)


@keras_op
def searchsorted(sorted_sequence, values, side="left"):
    """Indices (int32) where ``values`` would be inserted in the 1-D ``sorted_sequence``."""
    sorted_sequence = convert_to_tensor(sorted_sequence)
    if len(sorted_sequence.shape) != 1:
        raise ValueError(f"`searchsorted` only supports 1-D sorted sequences. You can use `keras.ops.vectorized_map` to"
                         f" extend it to N-D sequences. Received: sorted_sequence.shape={sorted_sequence.shape}")
    values = convert_to_tensor(values)
    out_type = "int32" if sorted_sequence.shape[0] <= 2 ** 31 - 1 else "int64"
    return tf.searchsorted(sorted_sequence, values, side=side, out_type=out_type)


@keras_op
def size(x):
    """The number of elements of ``x`` (an int32 tensor)."""
    return tf.size(convert_to_tensor(x))


@keras_op
def ndim(x):
    """The rank of ``x`` (an int)."""
    return convert_to_tensor(x).shape.rank
