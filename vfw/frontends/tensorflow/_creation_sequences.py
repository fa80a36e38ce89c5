"""Tensors of sequences and patterns: range, linspace, eye and one_hot.

Eagerly they are made with numpy (``fresh`` tensors); ``linspace`` is differentiable in start and
stop through engine ops.  Inside tf.function a count or size given by a tensor that varies from
call to call (``tf.range(n)``, ``tf.linspace(a, b, n)``, ``tf.eye(n)``, ``tf.one_hot(i, depth)``)
is read by the graph at every call (``_traced_shapes``).
"""

import builtins

import numpy as np

from vfw.core.graph.trace import _active as _tracing
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dtypes, _traced_shapes, errors
from vfw.frontends.tensorflow._array_common import fresh, int_values, scalar_int
from vfw.frontends.tensorflow._creation import _dims, _nonnegative, _old_repr, cast
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, host, op_error, recording, wrap
from vfw.frontends.tensorflow._op_support import I32, I64, int64s, with_dtype

# -- sequences -------------------------------------------------------------------------------------------------
# TF infers range's dtype as the widest of its arguments' in this order.
_RANGE_ORDER = [_dtypes.int32, _dtypes.int64, _dtypes.float32, _dtypes.float64]
_RANGE_DTYPES = {_dtypes.int32, _dtypes.int64, _dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64}
_RANGE_NO_KERNEL = {_dtypes.int8, _dtypes.int16, _dtypes.uint16, _dtypes.uint32, _dtypes.uint64}


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001  (tf.range)
    """The numbers ``start, start + delta, ...`` up to (excluding) ``limit``, like Python's range.

    Parameters
    ----------
    start, limit, delta : number or scalar tensor
        With ``limit`` omitted, the range is ``[0, start)``.
    dtype : DType, optional
        Default: the widest of the arguments' dtypes (int32 < int64 < float32 < float64).

    Raises
    ------
    InvalidArgumentError
        For ``delta == 0`` or a ``delta`` pointing away from ``limit``.
    """
    if limit is None:
        start, limit = 0, start
    if dtype is None and type(start) is type(limit) is type(delta) is int and delta > 0 and \
            -2 ** 31 <= start <= limit < 2 ** 31:  # the common tf.range(n): int32, no checks left to make
        return fresh(np.arange(start, limit, delta, I32))
    if dtype is not None:
        dtype = _dtypes.as_dtype(dtype)
        values = [with_dtype(v, dtype) for v in (start, limit, delta)]
    else:
        values = [convert_to_tensor(v) for v in (start, limit, delta)]
        found = [_dtypes.of_array(v.array) for v in values]
        dtype = builtins.max(found, key=lambda d: _RANGE_ORDER.index(d) if d in _RANGE_ORDER else -1)
    if dtype in _RANGE_NO_KERNEL:
        raise op_error(f"Could not find device for node: {{{{node Range}}}} = Range[Tidx=DT_{dtype.name.upper()}]",
                       None, errors.NotFoundError)
    if dtype not in _RANGE_DTYPES:
        raise op_error(f"Value for attr 'Tidx' of {dtype.name} is not in the list of allowed values: bfloat16, half, "
                       "float, double, int8, int16, int32, int64, uint16, uint32, uint64", "Range")
    arrays = [v.array.reshape(()).astype(dtype.np) for v in values]
    start, limit, delta = arrays
    if delta == 0:
        raise op_error(f"Requires delta != 0: {_text(delta)}", "Range")
    if delta > 0 and not start <= limit:
        raise op_error(f"Requires start <= limit when delta > 0: {_text(start)}/{_text(limit)}", "Range")
    if delta < 0 and not start >= limit:
        raise op_error(f"Requires start >= limit when delta < 0: {_text(start)}/{_text(limit)}", "Range")
    if recording(*values):  # a traced tensor argument: the graph computes the range from each run's value
        if all(v.array.ndim == 0 for v in values):  # engine ops: ONNX export takes them
            result = (call("Range", *(cast(v, dtype) for v in values)) if dtype.is_integer else
                      _traced_float_range(*(cast(v, dtype) for v in values)))
        else:
            result = host(lambda *args: _range_values(*(a.reshape(()).astype(dtype.np) for a in args)), *values)
        return _traced_shapes.value_shaped(result) if _traced_shapes.varies(*values) else result
    return fresh(_range_values(*arrays))


def _range_values(start, limit, delta):
    """``start, start + delta, ...`` up to ``limit`` (0-d arrays of the result's dtype)."""
    if start.dtype.kind in "iu":
        n = (builtins.abs(int(limit) - int(start)) + builtins.abs(int(delta)) - 1) // builtins.abs(int(delta))
    else:
        size = np.ceil(np.abs((limit - start) / delta))
        if not size <= np.iinfo(np.int64).max:
            raise op_error(f"Requires ((limit - start) / delta) <= {np.iinfo(np.int64).max}", "Range")
        n = int(size)
    return (start + np.arange(n, dtype=start.dtype) * delta).astype(start.dtype, copy=False)


def _traced_float_range(start, limit, delta):
    """A float range as engine ops with TF's float arithmetic (``start + k * delta`` in the dtype, for ``k`` below
    ``ceil(|limit - start| / delta)``), where Range would add ``delta`` step by step."""
    size = call("Ceil", call("Abs", call("Div", call("Sub", limit, start), delta)))
    count = call("Range", np.array(0, I64), call("Cast", size, to=I64), np.array(1, I64), tf_op="Range")
    if _traced_shapes.varies(start, limit, delta):  # its size follows each run's values
        count = _traced_shapes.value_shaped(count)
    return call("Add", start, call("Mul", call("Cast", count, to=start.array.dtype), delta))


def _text(value):
    """A range bound as TF's messages print it (``5``, ``1.5``, ``nan``)."""
    value = value.item()
    return f"{value:g}" if isinstance(value, float) else str(value)


def linspace(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` (both included), along a new ``axis``.

    ``start`` and ``stop`` may be tensors of any (broadcastable) shape; integer ones give float64
    values, as TF's. Differentiable in ``start`` and ``stop``.
    """
    start = convert_to_tensor(start)
    try:
        stop = convert_to_tensor(stop, _dtypes.of_array(start.array))
    except ValueError as e:
        raise ValueError(f"stop: {e}") from None
    if start.array.dtype.kind in "iu":
        start, stop = (cast(v, _dtypes.float64) for v in (start, stop))
    if isinstance(num, float) or isinstance(num, CoreTensor) and num.array.dtype.kind not in "iu":
        raise TypeError(f"Argument `tensor` (name: num) must be of type integer. Received `tensor` = {num} of dtype: "
                        f"{_dtypes.of_array(convert_to_tensor(num).array)!r}")
    # A count given by a tensor while tracing: the graph computes the values from each call's num (no values of the
    # traced count for an exported model with dynamic axes to keep).
    run_num = _tracing and isinstance(num, CoreTensor)
    n = None if run_num else _linspace_count(scalar_int(num, "num"))
    shape = np.broadcast_shapes(start.array.shape, stop.array.shape)
    rank = len(shape)
    if not -rank - 1 <= axis <= rank:
        raise op_error(f"Tried to expand dim index {axis} for tensor with {rank} dimensions.", "ExpandDims")
    axis = axis % (rank + 1)
    first, last = (_at_axis(v, shape, axis) for v in (start, stop))
    if run_num:
        return _traced_linspace(first, last, _traced_shapes.scalar_int64(num, "Range"), axis, rank)
    if n <= 1:  # stop stays connected (a zero gradient), as in TF
        both = call("Concat", first, last, axis=axis, tf_op="ConcatV2")
        return call("Slice", both, int64s([0]), int64s([n]), int64s([axis]), tf_op="StridedSlice")
    steps = np.arange(1, n - 1, dtype=start.array.dtype).reshape((n - 2,) + (1,) * (rank - axis))
    delta = call("Div", call("Sub", last, first), np.array(n - 1, start.array.dtype))
    middle = call("Add", first, call("Mul", delta, steps))
    return call("Concat", first, middle, last, axis=axis, tf_op="ConcatV2")


def _linspace_count(n):
    if n < 0:
        raise op_error(f"Requires start <= limit when delta > 0: 1/{n}", "Range")
    return n


def _traced_linspace(first, last, n, axis, rank):
    """``linspace`` from ``first`` to ``last`` (size 1 at ``axis``) for the int64 count tensor ``n`` of each run:
    ``[first, first + delta * k for k in 1..n-2, last]`` cut to ``n`` values, as eagerly for any ``n``."""
    _traced_shapes.checked_at_run(lambda count: _linspace_count(int(count)), n)
    varies = _traced_shapes.varies(n)
    one = np.array(1, np.int64)
    steps = call("Cast", call("Range", one, call("Sub", n, one), one, tf_op="Range"), to=first.array.dtype)
    steps = call("Reshape", steps, int64s((-1,) + (1,) * (rank - axis)), tf_op="Reshape")
    intervals = call("Cast", call("Max", call("Sub", n, one), one), to=first.array.dtype)  # (unused when n < 3)
    middle = call("Add", first, call("Mul", call("Div", call("Sub", last, first), intervals), steps))
    both = call("Concat", first, middle, last, axis=axis, tf_op="ConcatV2")
    values = call("Slice", both, int64s([0]), call("Reshape", n, int64s([1])), int64s([axis]), tf_op="StridedSlice")
    return _traced_shapes.value_shaped(values, [None if k == axis else k for k in builtins.range(rank + 1)]) \
        if varies else values


def _at_axis(t, shape, axis):
    """``t`` broadcast to ``shape`` with a size-1 dim inserted at ``axis`` (engine ops: differentiable)."""
    if t.array.shape != tuple(shape):
        t = call("Expand", t, int64s(shape))
    return call("Unsqueeze", t, int64s([axis]))


def eye(num_rows, num_columns=None, batch_shape=None, dtype=_dtypes.float32, name=None):
    """Identity matrices: ``batch_shape + [num_rows, num_columns]`` with ones on the diagonal."""
    if any(isinstance(v, float) for v in (num_rows, num_columns)):
        raise TypeError("Arguments `num_rows` and `num_columns` must be positive integer values. Received: "
                        f"num_rows={num_rows}, num_columns={num_rows if num_columns is None else num_columns}")
    dtype = _dtypes.as_dtype(dtype)
    if _tracing and _traced_shapes.varies(num_rows, num_columns, batch_shape):  # made at each run
        if dtype == _dtypes.string:
            raise TypeError("Cannot convert 1 to EagerTensor of dtype string")
        rows = _traced_shapes.scalar_int64(num_rows, "Fill")
        cols = rows if num_columns is None else _traced_shapes.scalar_int64(num_columns, "Fill")
        batch = int64s(()) if batch_shape is None else _traced_shapes.dims_tensor(batch_shape, "Fill")
        return _traced_shapes.value_shaped(host(
            lambda r, c, b: _identities(tuple(b.tolist()), int(r), int(c), dtype), rows, cols, batch))
    rows = scalar_int(num_rows, "num_rows")
    cols = rows if num_columns is None else scalar_int(num_columns, "num_columns")
    batch = () if batch_shape is None else int_values(batch_shape, "batch_shape", "Fill")
    if dtype == _dtypes.string:
        _dims(batch + (rows, cols))
        raise TypeError("Cannot convert 1 to EagerTensor of dtype string")
    if _tracing and any(isinstance(v, CoreTensor) for v in (num_rows, num_columns)):
        _nonnegative(batch + (rows, cols))  # (TF's errors)
        return _traced_identities(num_rows, num_columns, batch, dtype)
    return fresh(_identities(batch, rows, cols, dtype))


def _traced_identities(num_rows, num_columns, batch, dtype):
    """``eye`` as engine ops over the sizes given by tensors, so that no matrix of the traced size is kept (an
    exported model whose sizes follow dynamic axes): ones where the column equals the row."""
    zero, one = np.array(0, I64), np.array(1, I64)
    rows = _traced_shapes.scalar_int64(num_rows, "Fill")
    cols = rows if num_columns is None else _traced_shapes.scalar_int64(num_columns, "Fill")
    row_steps = call("Unsqueeze", call("Range", zero, rows, one, tf_op="Range"), int64s([1]))
    col_steps = call("Unsqueeze", call("Range", zero, cols, one, tf_op="Range"), int64s([0]))
    matrix = call("Cast", call("Equal", row_steps, col_steps), to=dtype.np)
    if batch:
        size = call("Concat", int64s(batch), call("Shape", matrix), axis=0)
        matrix = call("Expand", matrix, size, tf_op="Fill")
    return matrix


def _identities(batch, rows, cols, dtype):
    """``batch + (rows, cols)`` identity matrices of DType ``dtype`` (TF's errors for negative dims)."""
    dims = _nonnegative(batch + (rows, cols))
    matrix = np.eye(rows, cols, dtype=dtype.np)
    return np.broadcast_to(matrix, dims).copy() if batch else matrix


_ONE_HOT_INDICES = {np.dtype(np.uint8), np.dtype(np.int8), I32, I64}


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """One-hot vectors: ``on_value`` at each index along a new axis of size ``depth``, ``off_value`` elsewhere.

    Indices outside ``[0, depth)`` (negative ones included) give all-off vectors. The dtype is
    ``dtype``, else that of ``on_value``/``off_value``, else float32. Not differentiable (as in TF).
    """
    indices = convert_to_tensor(indices, dtype_hint=_dtypes.int32)  # as TF, so that [] gives int indices
    if indices.array.dtype not in _ONE_HOT_INDICES:
        raise op_error(f"Value for attr 'TI' of {_dtypes.of_array(indices.array).name} is not in the list of allowed "
                       "values: uint8, int8, int32, int64", "OneHot")
    depth_tensor = convert_to_tensor(depth, _dtypes.int32) if isinstance(depth, CoreTensor) else None
    run_depth = _tracing and _traced_shapes.varies(depth_tensor)  # then each run encodes with its depth
    depth = (depth_tensor.array.reshape(-1).tolist() if run_depth else
             int_values(depth if depth_tensor is None else depth_tensor, "depth"))
    if len(depth) != 1:
        raise op_error(f"depth must be a scalar, but got: {list(depth)}", "OneHot")
    depth = depth[0]
    if dtype is not None:
        dtype = _dtypes.as_dtype(dtype)
    on, off = (None if v is None else _one_hot_value(v, dtype) for v in (on_value, off_value))
    if dtype is None:
        if on is not None and off is not None and on.array.dtype != off.array.dtype:
            raise TypeError(f"dtype {_old_repr(_dtypes.of_array(on.array))} of on_value does not match dtype "
                            f"{_old_repr(_dtypes.of_array(off.array))} of off_value")
        given = on if on is not None else off
        dtype = _dtypes.float32 if given is None else _dtypes.of_array(given.array)
    values = []
    for name_, v, default in (("off_value", off, 0), ("on_value", on, 1)):
        if v is None:
            v = wrap(np.array(default, dtype.np)) if dtype.is_floating or dtype.is_integer or dtype.is_bool else \
                convert_to_tensor(b"" if dtype == _dtypes.string and not default else default, dtype)
        if v.array.ndim:
            raise op_error(f"{name_} must be a scalar, but got: {list(v.array.shape)}", "OneHot")
        values.append(v)
    rank = indices.array.ndim
    axis = -1 if axis is None else axis
    if axis != -1 and not 0 <= axis <= rank:
        raise op_error(f"Expected axis to be -1 or between [0, {rank + 1}).  But received: {axis}", "OneHot")
    axis = rank if axis == -1 else axis

    def encode(index, off, on, *count):
        n = _one_hot_depth(int(count[0].reshape(-1)[0]) if count else depth)
        positions = np.arange(n).reshape((n,) + (1,) * (rank - axis))
        return np.where(np.expand_dims(index, axis) == positions, on, off)  # negative indices match no position

    if not run_depth:
        _one_hot_depth(depth)
    if _tracing and dtype != _dtypes.string:  # engine ops, which ONNX export takes (a host callback it cannot)
        result = _traced_one_hot(indices, depth_tensor if run_depth else depth, *values, axis, rank)
    else:
        result = host(encode, indices, *values, *([depth_tensor] if run_depth else []))
    return _traced_shapes.value_shaped(result) if run_depth else result


def _traced_one_hot(indices, depth, off, on, axis, rank):
    """``one_hot`` as engine ops: ``on`` where an index equals its position along the new ``axis``, else ``off``.

    ``depth`` is an int, or a tensor each run reads. Negative indices equal no position, so their vectors are all
    off, as TF's (ONNX's OneHot would count them from the end).
    """
    if isinstance(depth, CoreTensor):
        count = _traced_shapes.scalar_int64(depth, "OneHot")
        _traced_shapes.checked_at_run(lambda n: _one_hot_depth(int(n)), count)
        positions = _traced_shapes.value_shaped(call("Range", np.array(0, I64), count, np.array(1, I64),
                                                      tf_op="OneHot"))
    else:
        positions = np.arange(depth, dtype=I64)
    positions = call("Reshape", positions, int64s((-1,) + (1,) * (rank - axis)), tf_op="OneHot")
    index = call("Unsqueeze", cast(indices, _dtypes.int64), int64s([axis]), tf_op="OneHot")
    hot = call("Equal", index, positions, tf_op="OneHot")
    if on.array.dtype == np.bool_:  # (onnxruntime has no bool Where)
        return call("Or", call("And", hot, on), call("And", call("Not", hot), off), tf_op="OneHot")
    return call("Where", hot, on, off, tf_op="OneHot")


def _one_hot_depth(n):
    if n < 0:
        raise op_error(f"depth must be non-negative, got: {n}", "OneHot")
    return n


def _one_hot_value(value, dtype):
    """An on/off value as a tensor of ``dtype`` (when given): TypeError for a tensor of another dtype."""
    if dtype is None or not isinstance(value, CoreTensor):
        return convert_to_tensor(value, dtype)
    found = _dtypes.of_array(convert_to_tensor(value).array)
    if found != dtype:
        raise TypeError(f"dtype {_old_repr(found)} of on_value does not match dtype parameter {_old_repr(dtype)}")
    return convert_to_tensor(value)


NAMESPACES = {
    "tf": ["range", "linspace", "eye", "one_hot"],
    "linalg": ["eye"],
}
TENSOR_METHODS = {}
