"""keras.ops numpy functions that count, bin, search and select: ``bincount``, ``digitize``, ``histogram``,
``unique``, ``argpartition``, ``unravel_index`` and the NaN-ignoring quantiles."""

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends.tensorflow._dispatch import op_error
from vfw.frontends.tensorflow.keras.src.backend import config
from vfw.frontends.tensorflow.keras.src.backend.dtypes import result_type
from vfw.frontends.tensorflow.keras.src.ops._common import (
    axis_tuple,
    canonicalize_axis,
    cast_to,
    convert_to_tensor,
    keras_op,
)
from vfw.frontends.tensorflow.keras.src.ops.numpy_extra import quantile


# -- counting and binning --------------------------------------------------------------------------------------------
@keras_op
def bincount(x, weights=None, minlength=0, sparse=False):
    """Counts (or summed ``weights``) of each non-negative int in ``x`` (per row when 2-D); int32 without
    weights, else the promoted dtype of ``x`` and ``weights``."""
    if sparse:
        raise NotImplementedError("`bincount(..., sparse=True)` needs tf.SparseTensor, which vfw does not provide.")
    x = convert_to_tensor(x)
    dtype = "int32"
    if weights is not None:
        weights = convert_to_tensor(weights)
        dtype = result_type(x.dtype.name, weights.dtype.name)
        if weights.dtype.name not in ("int32", "int64", "float32", "float64"):
            weights = tf.cast(weights, "int32" if "int" in weights.dtype.name else "float32")
    if x.dtype.name not in ("int32", "int64"):
        x = tf.cast(x, "int32")
    return cast_to(tf.math.bincount(x, weights=weights, minlength=minlength, axis=-1), dtype)


@keras_op
def digitize(x, bins):
    """For each value of ``x``, the index of the bin of the increasing ``bins`` it falls in (``bins[i - 1] <= x <
    bins[i]``), as int32."""
    x = convert_to_tensor(x)
    # The bin edges are single-precision floats, as in TF's Bucketize; the comparison is exact in float64.
    edges = tf.constant(np.asarray([float(b) for b in bins], "float32").astype("float64"))
    flat = tf.reshape(tf.cast(x, "float64"), [-1])
    return tf.reshape(tf.searchsorted(edges, flat, side="right", out_type="int32"), tf.shape(x))


@keras_op
def histogram(x, bins=10, range=None):
    """``(counts, edges)``: the counts of the values of 1-D ``x`` in ``bins`` equal bins over ``range``
    (default: ``x``'s extent), both in ``x``'s dtype; the last bin includes its right edge."""
    if not isinstance(bins, int):
        raise TypeError(f"Argument `bins` must be of type `int`. Received: bins={bins}")
    if bins < 0:
        raise ValueError(f"Argument `bins` should be a non-negative integer. Received: bins={bins}")
    if range:
        if len(range) < 2 or not isinstance(range, tuple):
            raise ValueError(f"Argument `range` must be a tuple of two elements. Received: range={range}")
        if range[1] < range[0]:
            raise ValueError(f"The second element of `range` must be greater than the first. Received: range={range}")
    x = convert_to_tensor(x)
    if x.shape.rank > 1:
        raise ValueError(f"Input tensor must be 1-dimensional. Received: input.shape={x.shape}")
    if bins == 0:  # TF's scatter into an empty histogram fails
        raise op_error("Indices and updates specified for empty output shape", "ScatterNd")
    low, high = (tf.reduce_min(x), tf.reduce_max(x)) if range is None else range
    inside = tf.boolean_mask(x, (x >= low) & (x <= high))
    edges = cast_to(tf.linspace(low, high, bins + 1), x.dtype.name)
    index = tf.searchsorted(edges[1:-1], inside, side="right", out_type="int32")
    counts = tf.math.unsorted_segment_sum(tf.ones_like(index), index, bins)
    return cast_to(counts, x.dtype.name), edges


# -- unique ------------------------------------------------------------------------------------------------------------
def _unique_positions(values, axis, keep_sorted):
    """numpy bookkeeping for ``unique``: positions (along ``axis``) of the kept entries in output order, the
    inverse map and the counts."""
    moved = np.moveaxis(values, axis, 0).reshape(values.shape[axis], -1)
    _, first, inverse, counts = np.unique(moved, axis=0, return_index=True, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    if not keep_sorted:  # order of first appearance
        order = np.argsort(first, kind="stable")
        first, counts = first[order], counts[order]
        inverse = np.argsort(order)[inverse]
    return first, inverse, counts


@keras_op
def unique(x, sorted=True, return_index=False, return_inverse=False, return_counts=False, axis=None, size=None,
           fill_value=None):
    """The unique values of ``x`` (flattened, or the unique slices along ``axis``), sorted or in order of first
    appearance, with optional first indices, inverse map and counts (int32); ``size`` pads with ``fill_value``
    (0) or truncates to a fixed length."""
    x = convert_to_tensor(x)
    flatten = axis is None
    source = tf.reshape(x, [-1]) if flatten else x
    axis = 0 if flatten else canonicalize_axis(axis, x.shape.rank)
    first, inverse, counts = _unique_positions(source.numpy(), axis, sorted)
    if size is not None:
        kept = min(size, len(first))
        pad = size - kept
        first, counts = first[:kept], counts[:kept]
    values = tf.gather(source, tf.constant(first, "int32"), axis=axis)
    index = tf.constant(first, "int32")
    counts = tf.constant(counts, "int32")
    if size is not None and pad:
        widths = [[0, 0]] * values.shape.rank
        widths[axis] = [0, pad]
        values = tf.pad(values, widths, constant_values=tf.cast(0 if fill_value is None else fill_value,
                                                                values.dtype))
        index = tf.pad(index, [[0, pad]], constant_values=1)
        counts = tf.pad(counts, [[0, pad]])
    inverse = tf.constant(inverse, "int32")
    if flatten:
        inverse = tf.reshape(inverse, tf.shape(x))
    results = [values] + [part for part, wanted in ((index, return_index), (inverse, return_inverse),
                                                     (counts, return_counts)) if wanted]
    return tuple(results) if len(results) > 1 else values


# -- selection and indices -------------------------------------------------------------------------------------------
@keras_op
def argpartition(x, kth, axis=-1):
    """Indices that partition ``x`` (as int32, as Keras' TF backend casts it) along ``axis``: the ``kth + 1``
    smallest first, in increasing order, then the rest (in decreasing order of their values, the smallest
    ones read as 0).

    (Keras' TF backend mixes the rows of inputs of rank > 1, giving repeated indices; vfw partitions each
    row as numpy does.)"""
    x = convert_to_tensor(x, "int32")
    if axis is None:
        x, axis = tf.reshape(x, [-1]), 0
    axis = canonicalize_axis(axis, x.shape.rank)
    perm = list(range(x.shape.rank))
    perm[axis], perm[-1] = perm[-1], perm[axis]
    x = tf.transpose(x, perm)
    n = x.shape[-1]
    kth = min(max(int(kth), 0), n - 1)
    smallest = tf.math.top_k(-x, kth + 1).indices
    chosen = tf.reduce_sum(tf.one_hot(smallest, n, dtype="int32"), axis=-2) > 0
    rest = tf.math.top_k(tf.where(chosen, tf.zeros_like(x), x), n - kth - 1).indices
    return tf.transpose(tf.concat([smallest, rest], axis=-1), perm)


@keras_op
def unravel_index(indices, shape):
    """The coordinates in an array of ``shape`` of the flat ``indices``, as a tuple of tensors of ``indices``'
    dtype.  (Indices that are not 1-D take their digits in Keras' TF-backend order.)"""
    indices = tf.convert_to_tensor(indices)
    if None in shape:
        raise ValueError(f"`shape` argument cannot contain `None`. Received: shape={shape}")
    coordinates = []
    # For 1-D indices the last dimension varies fastest (numpy's order); Keras' TF backend reads the
    # dimensions in the opposite order for indices of any other rank, which is kept here.
    dims = reversed(shape) if indices.shape.rank == 1 else shape
    for dim in dims:
        coordinates.append(tf.math.floormod(indices, dim))
        indices = tf.math.floordiv(indices, dim)
    return tuple(reversed(coordinates))


# -- NaN-ignoring quantiles ------------------------------------------------------------------------------------------
@keras_op
def nanquantile(x, q, axis=None, method="linear", keepdims=False):
    """``quantile`` ignoring NaNs (NaN where a slice has no other value).

    (Keras' TF backend fails for a 1-D ``q`` with ``axis`` given; vfw returns numpy's result.)"""
    x = convert_to_tensor(x)
    q = convert_to_tensor(q, config.floatx())
    if not x.dtype.is_floating:
        return quantile.eager(x, q, axis=axis, method=method, keepdims=keepdims)
    ndim = x.shape.rank
    axes = list(range(ndim)) if axis is None else sorted(canonicalize_axis(a, ndim) for a in axis_tuple(axis))
    others = [d for d in range(ndim) if d not in axes]
    rows = tf.reshape(tf.transpose(x, others + axes), [-1, int(np.prod([x.shape[d] for d in axes]))])
    missing = tf.math.is_nan(rows)
    valid = tf.reduce_sum(tf.cast(~missing, "int32"), axis=-1)
    # NaNs sort last as +inf; each row's quantile positions then use its own count of valid values.
    ordered = tf.sort(tf.where(missing, tf.constant(np.inf, rows.dtype), rows), axis=-1)
    position = tf.cast(tf.maximum(valid - 1, 0), "float64")[:, None] * tf.cast(tf.reshape(q, [-1]), "float64")
    last = tf.maximum(valid - 1, 0)[:, None]

    def take(at):
        return tf.gather(ordered, tf.minimum(tf.cast(at, "int32"), last), axis=1, batch_dims=1)

    if method == "lower":
        out = take(tf.math.floor(position))
    elif method == "higher":
        out = take(tf.math.ceil(position))
    elif method == "nearest":
        out = take(tf.math.round(position))
    elif method == "midpoint":
        out = 0.5 * (take(tf.math.floor(position)) + take(tf.math.ceil(position)))
    elif method == "linear":
        below = tf.math.floor(position)
        fraction = tf.cast(position - below, rows.dtype)
        out = take(below) * (1 - fraction) + take(below + 1) * fraction
    else:
        raise ValueError(f"Invalid `method`: {method}. Expected one of 'linear', 'lower', 'higher', 'nearest', "
                         "'midpoint'.")
    out = tf.where((valid > 0)[:, None], out, tf.constant(np.nan, out.dtype))
    out = tf.reshape(tf.transpose(out), [*q.shape.as_list(), *[x.shape[d] for d in others]])
    if keepdims:
        for d in axes:
            out = tf.expand_dims(out, d + q.shape.rank)
    return out


@keras_op
def nanpercentile(x, q, axis=None, method="linear", keepdims=False):
    """``nanquantile`` with ``q`` in percent."""
    return nanquantile.eager(x, convert_to_tensor(q, config.floatx()) / 100.0, axis=axis, method=method,
                             keepdims=keepdims)


@keras_op
def nanmedian(x, axis=None, keepdims=False):
    """The median over ``axis`` ignoring NaNs."""
    if axis == () or axis == []:
        return convert_to_tensor(x)
    return nanquantile.eager(x, 0.5, axis=axis, keepdims=keepdims)
