"""tf.experimental.numpy shape manipulation: reshaping, joining, splitting, reordering and indexing."""

import builtins

import numpy as np

from vfw.frontends import tensorflow as tf
from vfw.frontends.tensorflow.experimental.numpy._promotion import asarray, promote


def _normalized_axis(axis, ndim, name):
    if not -ndim <= axis < builtins.max(ndim, 1):
        raise ValueError(f"{name}: axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % builtins.max(ndim, 1)


def reshape(a, newshape, order="C"):
    """``tnp.reshape``: ``a`` with shape ``newshape`` (C or Fortran element order)."""
    if order not in ("C", "F"):
        raise ValueError(f"Unsupported order argument {order}")
    t = asarray(a)
    newshape = [newshape] if isinstance(newshape, (builtins.int, np.integer)) else list(newshape)
    if order == "F":
        return tf.transpose(tf.reshape(tf.transpose(t), newshape[::-1]))
    return tf.reshape(t, newshape)


def ravel(a):
    """``tnp.ravel``: ``a`` flattened to one dimension."""
    return tf.reshape(asarray(a), [-1])


def flatten(a, order="C"):
    """``tnp.flatten``: ``a`` flattened in C or Fortran order."""
    return reshape(a, [-1], order)


def transpose(a, axes=None):
    """``tnp.transpose``: ``a`` with its axes permuted (reversed by default)."""
    return tf.transpose(asarray(a), perm=None if axes is None else list(axes))


def swapaxes(a, axis1, axis2):
    """``tnp.swapaxes``: ``a`` with ``axis1`` and ``axis2`` interchanged."""
    t = asarray(a)
    perm = list(range(t.array.ndim))
    axis1, axis2 = perm[axis1], perm[axis2]
    perm[axis1], perm[axis2] = axis2, axis1
    return tf.transpose(t, perm)


def moveaxis(a, source, destination):
    """``tnp.moveaxis``: ``a`` with axes ``source`` moved to positions ``destination``."""
    t = asarray(a)
    ndim = t.array.ndim
    source = [source] if isinstance(source, (builtins.int, np.integer)) else list(source)
    destination = [destination] if isinstance(destination, (builtins.int, np.integer)) else list(destination)
    if len(source) != len(destination):
        raise ValueError("The number of source axes and destination axes must be equal.")
    source = [_normalized_axis(s, ndim, "moveaxis") for s in source]
    destination = [_normalized_axis(d, ndim, "moveaxis") for d in destination]
    perm = [d for d in range(ndim) if d not in source]
    for dest, src in sorted(zip(destination, source)):
        perm.insert(dest, src)
    return tf.transpose(t, perm)


def expand_dims(a, axis):
    """``tnp.expand_dims``: ``a`` with a new length-1 axis at ``axis``."""
    return tf.expand_dims(asarray(a), axis)


def squeeze(a, axis=None):
    """``tnp.squeeze``: ``a`` without its length-1 axes (those in ``axis``)."""
    axis = [axis] if isinstance(axis, (builtins.int, np.integer)) else axis
    return tf.squeeze(asarray(a), axis)


def _promoted_list(arrays):
    return promote(*arrays) if len(arrays) else []


def concatenate(arys, axis=0):
    """``tnp.concatenate``: the arrays joined along an existing ``axis`` (None: flattened first)."""
    tensors = _promoted_list(list(arys))
    if not tensors:
        raise ValueError("Need at least one array to concatenate.")
    if axis is None:
        return tf.concat([tf.reshape(t, [-1]) for t in tensors], 0)
    return tf.concat(tensors, axis)


def stack(arrays, axis=0):
    """``tnp.stack``: the arrays joined along a new ``axis``."""
    tensors = _promoted_list(list(arrays))
    if not tensors:
        raise ValueError("Need at least one array to stack.")
    return tf.stack(tensors, axis)


def _at_least(ndim, arys):
    out = []
    for a in arys:
        t = asarray(a)
        shape = list(t.array.shape)
        if len(shape) < ndim:
            # NumPy's layouts: 1-d -> (1, n); 2-d -> (m, n, 1); scalars -> all ones.
            if ndim == 3 and len(shape) == 2:
                shape = shape + [1]
            elif ndim == 3 and len(shape) == 1:
                shape = [1] + shape + [1]
            else:
                shape = [1] * (ndim - len(shape)) + shape
            t = tf.reshape(t, shape)
        out.append(t)
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    """``tnp.atleast_1d``: the inputs as arrays of at least one dimension."""
    return _at_least(1, arys)


def atleast_2d(*arys):
    """``tnp.atleast_2d``: the inputs as arrays of at least two dimensions."""
    return _at_least(2, arys)


def atleast_3d(*arys):
    """``tnp.atleast_3d``: the inputs as arrays of at least three dimensions."""
    return _at_least(3, arys)


def _as_list(result):
    return result if isinstance(result, list) else [result]


def hstack(tup):
    """``tnp.hstack``: the arrays joined column-wise (along axis 0 for 1-d arrays)."""
    tensors = _as_list(atleast_1d(*tup))
    return concatenate(tensors, 0 if tensors[0].array.ndim == 1 else 1)


def vstack(tup):
    """``tnp.vstack``: the arrays joined row-wise (1-d arrays become rows)."""
    return concatenate(_as_list(atleast_2d(*tup)), 0)


def dstack(tup):
    """``tnp.dstack``: the arrays joined along the third axis."""
    return concatenate(_as_list(atleast_3d(*tup)), 2)


def split(ary, indices_or_sections, axis=0):
    """``tnp.split``: ``ary`` split into equal sections or at the given indices along ``axis``."""
    t = asarray(ary)
    length = t.array.shape[axis]
    if isinstance(indices_or_sections, (builtins.int, np.integer)):
        return tf.split(t, builtins.int(indices_or_sections), axis)
    bounds = [0] + [builtins.min(builtins.max(i if i >= 0 else i + length, 0), length)
                    for i in indices_or_sections] + [length]
    sizes = [builtins.max(end - start, 0) for start, end in zip(bounds[:-1], bounds[1:])]
    starts = bounds[:-1]
    return [tf.gather(t, tf.range(s, s + n), axis=axis) for s, n in zip(starts, sizes)]


def _split_along(axis, minimum_ndim, name):
    def fn(ary, indices_or_sections):
        t = asarray(ary)
        if t.array.ndim < minimum_ndim:
            raise ValueError(f"{name} only works on arrays of {minimum_ndim} or more dimensions")
        return split(t, indices_or_sections, 0 if axis == 1 and t.array.ndim == 1 else axis)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``tnp.{name}``: ``split`` along axis {axis}."
    return fn


hsplit = _split_along(1, 1, "hsplit")
vsplit = _split_along(0, 2, "vsplit")
dsplit = _split_along(2, 3, "dsplit")


def tile(a, reps):
    """``tnp.tile``: ``a`` repeated ``reps`` times along each axis."""
    t = asarray(a)
    reps = [reps] if isinstance(reps, (builtins.int, np.integer)) else list(reps)
    ndim = builtins.max(t.array.ndim, len(reps))
    t = tf.reshape(t, [1] * (ndim - t.array.ndim) + list(t.array.shape))
    return tf.tile(t, [1] * (ndim - len(reps)) + reps)


def repeat(a, repeats, axis=None):
    """``tnp.repeat``: each element of ``a`` repeated ``repeats`` times along ``axis`` (flattened if None)."""
    return tf.repeat(asarray(a), repeats, axis=axis)


def flip(m, axis=None):
    """``tnp.flip``: ``m`` with the order of elements reversed along ``axis`` (all axes by default)."""
    t = asarray(m)
    if axis is None:
        axes = list(range(t.array.ndim))
    else:
        axes = [axis] if isinstance(axis, (builtins.int, np.integer)) else list(axis)
    return tf.reverse(t, axes)


def fliplr(m):
    """``tnp.fliplr``: ``m`` reversed along axis 1."""
    return flip(m, 1)


def flipud(m):
    """``tnp.flipud``: ``m`` reversed along axis 0."""
    return flip(m, 0)


def roll(a, shift, axis=None):
    """``tnp.roll``: ``a``'s elements shifted by ``shift`` along ``axis`` (the flattened array if None)."""
    t = asarray(a)
    if axis is None:
        return tf.reshape(tf.roll(tf.reshape(t, [-1]), shift, 0), t.array.shape)
    return tf.roll(t, shift, axis)


def rot90(m, k=1, axes=(0, 1)):
    """``tnp.rot90``: ``m`` rotated by ``k`` quarter turns in the plane of ``axes``."""
    t = asarray(m)
    if len(axes) != 2 or axes[0] % t.array.ndim == axes[1] % t.array.ndim:
        raise ValueError("len(axes) must be 2 and the axes must be different.")
    k %= 4
    if k == 0:
        return t
    if k == 2:
        return flip(t, list(axes))
    if k == 1:
        return swapaxes(flip(t, axes[1]), axes[0], axes[1])
    return flip(swapaxes(t, axes[0], axes[1]), axes[1])


def pad(array, pad_width, mode, **kwargs):
    """``tnp.pad``: ``array`` padded by ``pad_width`` in mode constant, reflect or symmetric."""
    t = asarray(array)
    widths = np.broadcast_to(np.asarray(pad_width, np.int64), (t.array.ndim, 2)).tolist()
    mode = mode.upper()
    if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
        raise ValueError(f"Unsupported padding mode: {mode.lower()}")
    constant = kwargs.get("constant_values", 0)
    return tf.pad(t, widths, mode=mode, constant_values=constant)


def take(a, indices, axis=None, out=None, mode="clip"):
    """``tnp.take``: elements of ``a`` at ``indices`` along ``axis`` (the flattened array if None)."""
    if out is not None:
        raise ValueError("out argument is not supported in take.")
    if mode not in ("raise", "clip", "wrap"):
        raise ValueError(f"Invalid mode '{mode}' for take")
    t = asarray(a)
    if axis is None:
        t, axis = tf.reshape(t, [-1]), 0
    index = asarray(indices, np.int64)
    length = t.array.shape[axis]
    index = tf.math.floormod(index, length) if mode == "wrap" else tf.clip_by_value(index, 0, length - 1)
    return tf.gather(t, index, axis=axis)


def take_along_axis(arr, indices, axis):
    """``tnp.take_along_axis``: ``arr``'s elements at ``indices`` along ``axis`` (other axes broadcast)."""
    t = asarray(arr)
    index = asarray(indices, np.int64)
    if axis is None:
        return tf.gather(tf.reshape(t, [-1]), tf.reshape(index, [-1]))
    axis = _normalized_axis(axis, t.array.ndim, "take_along_axis")
    index = tf.where(index < 0, index + t.array.shape[axis], index)
    # With ``axis`` last, every other axis is a batch axis of one gather along the last axis.
    values, index = moveaxis(t, axis, -1), moveaxis(index, axis, -1)
    batch = np.broadcast_shapes(values.array.shape[:-1], index.array.shape[:-1])
    values = tf.broadcast_to(values, batch + values.array.shape[-1:])
    index = tf.broadcast_to(index, batch + index.array.shape[-1:])
    return moveaxis(tf.gather(values, index, axis=-1, batch_dims=len(batch)), -1, axis)


def broadcast_to(array, shape):
    """``tnp.broadcast_to``: ``array`` broadcast to ``shape``."""
    return tf.broadcast_to(asarray(array), shape)


def broadcast_arrays(*args, **kwargs):
    """``tnp.broadcast_arrays``: the arrays broadcast to their common shape."""
    tensors = [asarray(a) for a in args]
    shape = np.broadcast_shapes(*[t.array.shape for t in tensors])
    return [tf.broadcast_to(t, shape) for t in tensors]


def append(arr, values, axis=None):
    """``tnp.append``: ``values`` appended to ``arr`` along ``axis`` (both flattened if None)."""
    return concatenate([asarray(arr), asarray(values)], axis)


def compress(condition, a, axis=None):
    """``tnp.compress``: the slices of ``a`` along ``axis`` where ``condition`` is true."""
    t = asarray(a)
    if axis is None:
        t, axis = tf.reshape(t, [-1]), 0
    keep = asarray(condition, np.bool_)
    length = t.array.shape[axis]
    keep = tf.concat([keep[:length], tf.zeros([builtins.max(length - keep.array.shape[0], 0)], tf.bool)], 0)
    return tf.boolean_mask(t, keep, axis=axis)


def diff(a, n=1, axis=-1):
    """``tnp.diff``: the ``n``-th discrete difference along ``axis``."""
    t = asarray(a)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    for _ in range(n):
        length = t.array.shape[axis]
        later, earlier = tf.gather(t, tf.range(1, length), axis=axis), tf.gather(t, tf.range(0, length - 1), axis=axis)
        t = tf.not_equal(later, earlier) if t.array.dtype == np.bool_ else later - earlier
    return t


def shape(a):
    """``tnp.shape``: ``a``'s shape as a tuple of ints."""
    return tuple(asarray(a).array.shape)


def ndim(a):
    """``tnp.ndim``: ``a``'s number of dimensions."""
    return asarray(a).array.ndim


def size(x, axis=None):
    """``tnp.size``: the number of elements of ``x`` (along ``axis``)."""
    if axis is not None:
        raise NotImplementedError("axis argument is not supported in the current `np.size` implementation")
    return asarray(x).array.size


def isscalar(num):
    """``tnp.isscalar``: whether ``num`` is a 0-d array or Python/NumPy scalar."""
    return ndim(num) == 0

