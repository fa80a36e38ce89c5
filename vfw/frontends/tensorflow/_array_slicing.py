"""Slicing: tf.slice, tf.strided_slice and ``Tensor.__getitem__`` (TF's strided-slice indexing).

An index is normalized to a tuple of ints, slices of ints, ``None`` (new axis) and ``Ellipsis``: TF's
strided-slice semantics for such a tuple are numpy's basic indexing (negative indices count from
the end, slice bounds clamp as Python's), except that bad indices raise InvalidArgumentError.
Without a tape or a trace the tuple indexes the numpy array directly (a view); otherwise the
selection runs as engine Slice + Reshape ops, which carry the gradient. Under a graph trace, scalar
tensors used as indices or slice bounds stay tensors: the selection then reads them in the graph
(Slice bounds built with engine ops, Gather for an index) so that each run uses its own values.
TF tensors have no ``__setitem__``: assigning into one raises TypeError, as in TF.
"""

import numpy as np

from vfw.core.graph.trace import _active as _tracing
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _traced_shapes, errors
from vfw.frontends.tensorflow._array_common import int_values
from vfw.frontends.tensorflow._array_gather import boolean_mask
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, op, op_error, recording, wrap
from vfw.frontends.tensorflow._op_support import I64, int64s

_PySlice = slice  # this module's ``slice`` is tf.slice
_SLICE = op("Slice")
_RESHAPE = op("Reshape", allowzero=1)
_SQUEEZE = op("Squeeze")
_UNSQUEEZE = op("Unsqueeze")
_TO_INT64 = op("Cast", to=I64)
_INT64_MIN, _INT64_MAX = np.iinfo(np.int64).min, np.iinfo(np.int64).max
_INDEX_TENSOR_DTYPES = (np.dtype(np.int16), np.dtype(np.int32), I64)
_VALID = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar tf.int32/tf.int64 tensors "
          "are valid indices, got ")


def _scalar_index(value):
    """An int for an integer index (Python/numpy int, 0-d integer array or tensor), else None.

    Under a graph trace a tensor stays a tensor (the graph reads its value on each run).
    """
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, CoreTensor):
        t = convert_to_tensor(value)
        if t.array.ndim == 0 and t.array.dtype in _INDEX_TENSOR_DTYPES:
            return t if _tracing else int(t.array)
    elif isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iu":
        return int(value)
    return None


def _bound(value):
    if value is None:
        return None
    index = _scalar_index(value)
    if index is None:
        raise TypeError(_VALID + repr(value))
    return index


def _normalized(items):
    """The index items as ints, slices of ints, None and Ellipsis (TypeError for anything else)."""
    out = []
    for item in items:
        if item is None or item is Ellipsis:
            out.append(item)
        elif isinstance(item, _PySlice):
            out.append(_PySlice(_bound(item.start), _bound(item.stop), _bound(item.step)))
        else:
            index = _scalar_index(item)
            if index is None:
                raise TypeError(_VALID + repr(item))
            out.append(index)
    return tuple(out)


def _plan(shape, items, tf_op="StridedSlice"):
    """(starts, ends, axes, steps, output shape) of a normalized index on ``shape``, with TF's errors."""
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise op_error("Multiple ellipses in slice spec not allowed", tf_op)
    rank = len(shape)
    consuming = sum(1 for i in items if i is not None and i is not Ellipsis)
    if rank == 0 and consuming:
        raise op_error("Attempting to slice scalar input.", tf_op)
    if consuming > rank:
        raise op_error(f"Index out of range using input dim {rank}; input has only {rank} dims", tf_op)
    if not _has_ellipsis(items):
        items = items + (Ellipsis,)
    starts, ends, axes, steps, out = [], [], [], [], []
    dim = 0
    for position, item in enumerate(items):
        if item is None:
            out.append(1)
        elif item is Ellipsis:
            covered = rank - consuming
            out.extend(shape[dim:dim + covered])
            dim += covered
        elif isinstance(item, _PySlice):
            if item.step == 0:
                raise op_error(f"strides[{position}] must be non-zero", tf_op)
            start, stop, step = item.indices(shape[dim])
            if (start, stop, step) != (0, shape[dim], 1):
                starts.append(start)
                ends.append(_INT64_MIN if stop < 0 else stop)
                axes.append(dim)
                steps.append(step)
            out.append(len(range(start, stop, step)))
            dim += 1
        else:
            index = item + shape[dim] if item < 0 else item
            if not 0 <= index < shape[dim]:
                raise op_error(f"slice index {index} of dimension {dim} out of bounds.", tf_op)
            starts.append(index)
            ends.append(index + 1)
            axes.append(dim)
            steps.append(1)
            dim += 1
    return starts, ends, axes, steps, out


def _has_ellipsis(items):
    return any(i is Ellipsis for i in items)  # (``in`` would compare tensors elementwise)


def _holds_tensor(item):
    if isinstance(item, _PySlice):
        return any(isinstance(v, CoreTensor) for v in (item.start, item.stop, item.step))
    return isinstance(item, CoreTensor)


def _select(x, items, tf_op="StridedSlice"):
    """``x`` indexed by the normalized ``items``."""
    if _tracing and (any(_holds_tensor(i) for i in items) or _traced_shapes.shape_varies(x)):
        # (for an x whose shape follows values, Python bounds are resolved against each run's shape too)
        bounds = [b for i in items if isinstance(i, _PySlice) for b in (i.start, i.stop, i.step)
                  if isinstance(b, CoreTensor)]  # (a tensor index picks one element: a fixed shape)
        result = _traced_select(x, items, tf_op)
        return _traced_shapes.value_shaped(result) if _traced_shapes.varies(*bounds) else result
    if not recording(x):
        try:  # numpy's basic indexing is TF's strided slice; the trailing ... keeps 0-d results arrays
            return wrap(x.array[items if _has_ellipsis(items) else items + (Ellipsis,)])
        except (IndexError, ValueError):
            pass  # _plan raises TF's error
    starts, ends, axes, steps, out = _plan(x.array.shape, items, tf_op)
    if axes:
        x = call(_SLICE, x, np.array(starts, I64), np.array(ends, I64), np.array(axes, I64),
                 np.array(steps, I64), tf_op=tf_op)
    if x.array.shape != tuple(out):
        x = call(_RESHAPE, x, np.array(out, I64), tf_op=tf_op)
    return x


def _traced_select(x, items, tf_op):
    """``_select`` for items holding traced scalar tensors, or of an ``x`` whose shape varies: engine ops read the
    values and the shape on each graph run."""
    rank = x.array.ndim
    static = tuple(_PySlice(None) if _holds_tensor(i) else i for i in items)
    _plan(x.array.shape, static, tf_op)  # TF's errors for the static parts
    if not _has_ellipsis(items):
        items = items + (Ellipsis,)
    consuming = sum(1 for i in items if i is not None and i is not Ellipsis)
    starts, ends, axes, steps, picks, squeezed, new_axes = [], [], [], [], [], [], []
    dim = out = 0
    for item in items:
        if item is None:
            new_axes.append(out)
            out += 1
        elif item is Ellipsis:
            dim += rank - consuming
            out += rank - consuming
        elif isinstance(item, _PySlice):
            step = 1 if item.step is None else item.step
            forward = (int(step.array) if isinstance(step, CoreTensor) else step) > 0  # (the direction is traced)
            starts.append(item.start if item.start is not None else 0 if forward else _INT64_MAX)
            ends.append(item.stop if item.stop is not None else _INT64_MAX if forward else _INT64_MIN)
            steps.append(step)
            axes.append(dim)
            dim, out = dim + 1, out + 1
        else:
            if isinstance(item, CoreTensor):
                picks.append((dim, item))
            else:
                end = item + 1 if item != -1 else _INT64_MAX  # (Slice counts a negative index from each run's end)
                starts, ends, axes, steps = starts + [item], ends + [end], axes + [dim], steps + [1]
            squeezed.append(dim)
            dim += 1
    if axes:
        x = call(_SLICE, x, _entries(starts), _entries(ends), int64s(axes), _entries(steps), tf_op=tf_op)
    for axis, index in picks:
        x = call("Gather", x, _entries([index]), axis=axis, tf_op=tf_op)
    if squeezed:
        x = call(_SQUEEZE, x, int64s(squeezed), tf_op=tf_op)
    return call(_UNSQUEEZE, x, int64s(new_axes), tf_op=tf_op) if new_axes else x


def _entries(values):
    """A 1-D int64 input from ints and scalar tensors (a Concat of their values when tensors are among them)."""
    if not any(isinstance(v, CoreTensor) for v in values):
        return int64s(values)
    parts = []
    for v in values:
        if isinstance(v, CoreTensor):
            v = call(_RESHAPE, v if v.array.dtype == I64 else call(_TO_INT64, v), int64s([1]))
        else:
            v = int64s([v])
        parts.append(v)
    return call("Concat", *parts, axis=0) if len(parts) > 1 else parts[0]


def getitem(self, key):
    """``tensor[key]``: ints, slices, ``tf.newaxis``/None, ``...`` and scalar int tensors (TF's strided slice).

    A boolean tensor or numpy array as the whole key applies ``tf.boolean_mask``, as in TF.
    """
    if isinstance(key, bool) or isinstance(key, np.ndarray) and key.dtype == np.bool_ or \
            isinstance(key, CoreTensor) and convert_to_tensor(key).array.dtype == np.bool_:
        return boolean_mask(self, key)
    if type(key) is int:
        items = (key,)
    elif isinstance(key, (tuple, list)):
        if key and isinstance(key[0], bool):  # TF builds its begin list with the first entry's dtype
            if all(isinstance(k, bool) for k in key):
                raise op_error("Value for attr 'Index' of bool is not in the list of allowed values: int16, int32, "
                               "int64", "StridedSlice")
            raise TypeError(f"Cannot convert {next(k for k in key if not isinstance(k, bool))} to EagerTensor of "
                            "dtype bool")
        items = _normalized(key)
    else:
        items = _normalized((key,))
    return _select(self, items)


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0, var=None, name=None):
    """``input_[begin:end:strides]`` per dim, with TF's masks.

    Parameters
    ----------
    begin, end, strides : 1-D int sequences of one length n
        The sparse spec: entry i describes one dim (or the dims an ellipsis stands for).
    begin_mask, end_mask : int
        Bit i set: ignore ``begin[i]`` / ``end[i]`` (the widest range).
    ellipsis_mask : int
        Bit i set: entry i is ``...``.
    new_axis_mask : int
        Bit i set: entry i inserts a size-1 dim.
    shrink_axis_mask : int
        Bit i set: entry i takes index ``begin[i]`` and removes the dim.
    """
    x = convert_to_tensor(input_)
    if _tracing and _traced_shapes.varies(begin, end, strides):
        begin, end, strides = (None if v is None else _elements(v, "StridedSlice") for v in (begin, end, strides))
    else:
        invalid = errors.InvalidArgumentError
        begin, end = (int_values(v, "Index", "StridedSlice", python_error=invalid) for v in (begin, end))
        if strides is not None:
            strides = int_values(strides, "Index", "StridedSlice", python_error=invalid)
    if strides is None:
        strides = (1,) * len(begin)
    if not len(begin) == len(end) == len(strides):
        raise op_error(f"Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
                       f"[{len(begin)}], [{len(end)}], and [{len(strides)}] instead.", "StridedSlice")
    items = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if ellipsis_mask & bit:
            items.append(Ellipsis)
        elif new_axis_mask & bit:
            items.append(None)
        elif shrink_axis_mask & bit:
            if (s.array if isinstance(s, CoreTensor) else s) < 0:  # (a varying stride's direction is the traced one)
                raise op_error("only stride 1 allowed on non-range indexing.", "StridedSlice")
            items.append(b)
        else:
            items.append(_PySlice(None if begin_mask & bit else b, None if end_mask & bit else e, s))
    return _select(x, tuple(items))


def slice(input_, begin, size, name=None):  # noqa: A001  (tf.slice)
    """The block of ``input_`` starting at ``begin`` with ``size`` (-1: to the end) elements per dim."""
    x = convert_to_tensor(input_)
    shape = x.array.shape
    if _tracing and (_traced_shapes.varies(begin, size) or _traced_shapes.shape_varies(x)):
        # as TF's shape inference: a size known when traced (not -1) is the result's static dim
        known = None if _traced_shapes.varies(size) else [
            None if n == -1 else n
            for n in int_values(size, "Index", "Slice", python_error=errors.InvalidArgumentError)]
        begin, size = (_traced_shapes.dims_tensor(v, "Slice", "Index") for v in (begin, size))
        _slice_lengths(begin.array.size, size.array.size, len(shape))
        # The graph checks the bounds and resolves the -1 sizes on each run, from that run's values.
        starts, ends = _traced_shapes.resolved(_slice_bounds, begin, size, _traced_shapes.shape_of(x))
        everything = int64s(range(len(shape)))
        result = call(_SLICE, x, starts, ends, everything, np.ones(len(shape), I64), tf_op="Slice")
        return _traced_shapes.value_shaped(result, known)
    begin, size = (int_values(v, "Index", "Slice", python_error=errors.InvalidArgumentError) for v in (begin, size))
    _slice_lengths(len(begin), len(size), len(shape))
    starts, ends = _slice_bounds(begin, size, shape)
    return _select(x, tuple(_PySlice(b, e) for b, e in zip(starts, ends)), "Slice")


def _slice_lengths(begins, sizes, rank):
    if not begins == sizes == rank:
        raise op_error(f"Expected begin and size arguments to be 1-D tensors of size {rank}, but got shapes "
                       f"[{begins}] and [{sizes}] instead.", "Slice")


def _slice_bounds(begin, size, shape):
    """The starts and ends of ``tf.slice``'s block (-1 sizes reach the end), with TF's errors."""
    ends = []
    for i, (b, n, d) in enumerate(zip(begin, size, shape)):
        if not 0 <= b <= d:
            raise op_error(f"Expected begin[{i}] in [0, {d}], but got {b}", "Slice")
        n = d - b if n == -1 else n
        if not 0 <= n <= d - b:
            raise op_error(f"Expected size[{i}] in [0, {d - b}], but got {n}", "Slice")
        ends.append(b + n)
    return begin, ends


def _elements(value, tf_op):
    """A varying 1-D index argument as its 0-d int64 element tensors (computed by the graph)."""
    t = _traced_shapes.dims_tensor(value, tf_op, "Index")
    return [_select(t, (k,), tf_op) for k in range(t.array.size)]


NAMESPACES = {"tf": ["slice", "strided_slice"]}
TENSOR_METHODS = {"__getitem__": getitem}
