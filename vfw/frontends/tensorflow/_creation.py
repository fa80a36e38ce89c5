"""Tensor creation and shape queries: constant, zeros/ones/fill, range, linspace, eye, one_hot, identity,
shape/size/rank, ensure_shape and the broadcast shape helpers.

Factories make their arrays with numpy directly (a few microseconds); what TF differentiates
(``fill`` in its value, ``linspace`` in start and stop, ``identity``) runs through engine ops
when a tape watches an input or a graph trace is open.
"""

import builtins

import numpy as np

from vfw.core.graph.trace import _active as _tracing
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dispatch, _dtypes, _traced_shapes, errors
from vfw.frontends.tensorflow._array_common import fresh, int_values, scalar_int
from vfw.frontends.tensorflow._conversion import MIXED
from vfw.frontends.tensorflow._dispatch import (
    call,
    convert_to_tensor,
    holds_tensors,
    host,
    is_tensor_like,
    op,
    op_error,
    recording,
    wrap,
)
from vfw.frontends.tensorflow._op_support import I32, I64, INDEX_DTYPES, int64s, same_dtype, with_dtype
from vfw.frontends.tensorflow._shape import TensorShape, as_shape

_IDENTITY = op("Identity")


def constant(value, dtype=None, shape=None, name="Const"):
    """A tensor from a Python or numpy value.

    Parameters
    ----------
    value : scalar, nested sequence, numpy array or Tensor
        Unlike ``convert_to_tensor``, a sequence holding tensors raises ValueError (TF does not pack it).
    dtype : DType, optional
        The element type (inferred as TF does when omitted: ints int32, floats float32).
    shape : sequence of int, optional
        The result's shape: a scalar is broadcast to it; a value with as many elements is reshaped.
    name : str
        Ignored (eager tensors have no names).
    """
    if isinstance(value, CoreTensor) and dtype is not None:
        t = convert_to_tensor(value)
        if t.dtype != _dtypes.as_dtype(dtype):
            raise TypeError(f"Expected tensor {t.array} with dtype {_dtypes.as_dtype(dtype)!r}, but got dtype "
                            f"{t.dtype!r}.")
    else:
        if (value.__class__ is list or value.__class__ is tuple) and holds_tensors(value):
            raise ValueError(_unpacked_message(value))
        t = convert_to_tensor(value, dtype)
    if shape is None:
        return t
    dims = TensorShape(shape).as_list()
    if t.array.size == 1:
        return fresh(np.broadcast_to(t.array.reshape(()), dims).copy())
    if t.array.size != int(np.prod(dims)):
        raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {t.array} (converted from "
                        f"{value!r}) has {t.array.size} elements, but got `shape` {tuple(dims)} with "
                        f"{int(np.prod(dims))} elements).")
    return wrap(t.array.reshape(dims))


def _unpacked_message(value):
    """TF's ValueError text for ``tf.constant`` of a sequence holding tensors (its data conversion reads each
    element as a number or a sequence)."""
    first = value
    while first.__class__ is list or first.__class__ is tuple:
        first = first[0] if first else None
    if isinstance(first, CoreTensor):
        return "TypeError: Scalar tensor has no `len()`"
    if is_tensor_like(first):
        return f"TypeError: object of type '{type(first).__name__}' has no len()"
    return MIXED


# -- filled tensors ----------------------------------------------------------------------------------------------
def _dims(shape, tf_op="Fill"):
    """A ``shape`` argument as a tuple of non-negative ints, with TF's errors."""
    if type(shape) is list or type(shape) is tuple:
        for d in shape:
            if type(d) is not int or d < 0:
                break
        else:
            return tuple(shape)
    if not isinstance(shape, (int, np.integer, TensorShape)):
        converted = convert_to_tensor(shape, dtype_hint=_dtypes.int32)
        if converted.array.ndim > 1:
            raise op_error(f"dims must represent a vector, got shape {list(converted.array.shape)}", tf_op)
    dims = int_values(shape, "index_type", tf_op)
    for d in dims:
        if d < 0:
            raise op_error(f"Dimension {d} must be >= 0", tf_op)
    return dims


def _nonnegative(dims, tf_op="Fill"):
    for d in dims:
        if d < 0:
            raise op_error(f"Dimension {d} must be >= 0", tf_op)
    return dims


def _run_dims(shape):
    """A varying ``shape`` argument as the int64 dims the graph computes on each run (TF's errors then)."""
    return _traced_shapes.resolved(lambda dims: (_nonnegative(dims),), _traced_shapes.dims_tensor(shape, "Fill"))[0]


def _expanded(value, dims, tf_op):
    """The scalar tensor or array ``value`` broadcast to the run-time ``dims`` (a value-shaped result)."""
    return _traced_shapes.value_shaped(call("Expand", value, dims, tf_op=tf_op))


def _filled(shape, dtype, value, fn):
    dtype = _dtypes.as_dtype(dtype)
    if _tracing and dtype.np is not None and dtype != _dtypes.string and _traced_shapes.varies(shape):
        return _expanded(np.array(value, dtype.np), _run_dims(shape), "Fill")
    dims = _dims(shape)
    if dtype == _dtypes.string:
        if value:
            raise TypeError(f"Cannot convert {value} to EagerTensor of dtype string")
        return fresh(np.full(dims, b"", dtype=object))
    if dtype.np is None:
        raise TypeError(f"{fn}: dtype {dtype.name} cannot hold values")
    return fresh(np.full(dims, value, dtype.np) if value else np.zeros(dims, dtype.np))


def zeros(shape, dtype=_dtypes.float32, name=None, layout=None):
    """A tensor of ``shape`` filled with zeros (empty strings for ``tf.string``).

    Parameters
    ----------
    shape : int, sequence of int, TensorShape or 1-D integer tensor
    dtype : DType, default tf.float32
    """
    return _filled(shape, dtype, 0, "zeros")


def ones(shape, dtype=_dtypes.float32, name=None, layout=None):
    """A tensor of ``shape`` filled with ones (True for bool; strings raise TypeError as in TF)."""
    return _filled(shape, dtype, 1, "ones")


def fill(dims, value, name=None, layout=None):
    """A tensor of shape ``dims`` filled with the scalar ``value`` (its dtype is the value's).

    Differentiable in ``value`` (the gradient is the sum of the output gradient), as in TF.
    """
    run_dims = _run_dims(dims) if _tracing and _traced_shapes.varies(dims) else None
    shape = _dims(dims) if run_dims is None else None
    value = convert_to_tensor(value)
    if value.array.ndim:
        raise op_error(f"value must represent a scalar, got shape {list(value.array.shape)}", "Fill")
    if run_dims is not None:
        return _expanded(value, run_dims, "Fill")
    if recording(value):
        return call("Expand", value, int64s(shape), tf_op="Fill")
    return fresh(np.full(shape, value.array))


def _like(input, dtype, value, fn):
    x = convert_to_tensor(input)
    dtype = _dtypes.of_array(x.array) if dtype is None else _dtypes.as_dtype(dtype)
    if value and dtype == _dtypes.string:
        raise op_error("Value for attr 'T' of string is not in the list of allowed values: bfloat16, half, float, "
                       "double, int8, uint8, int16, uint16, int32, uint32, int64, uint64, complex64, complex128, bool",
                       "OnesLike")
    if _tracing and dtype != _dtypes.string and _traced_shapes.shape_varies(x):
        return _expanded(np.array(value, dtype.np), _traced_shapes.shape_of(x), "Fill")
    return _filled(x.array.shape, dtype, value, fn)


def zeros_like(input, dtype=None, name=None, layout=None):
    """Zeros shaped like ``input``, of its dtype unless ``dtype`` is given."""
    return _like(input, dtype, 0, "zeros_like")


def ones_like(input, dtype=None, name=None, layout=None):
    """Ones shaped like ``input``, of its dtype unless ``dtype`` is given."""
    return _like(input, dtype, 1, "ones_like")


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
    run_num = _tracing and _traced_shapes.varies(num)  # then the graph computes the values from each call's num
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
    one = np.array(1, np.int64)
    steps = call("Cast", call("Range", one, call("Sub", n, one), one, tf_op="Range"), to=first.array.dtype)
    steps = call("Reshape", steps, int64s((-1,) + (1,) * (rank - axis)), tf_op="Reshape")
    intervals = call("Cast", call("Max", call("Sub", n, one), one), to=first.array.dtype)  # (unused when n < 3)
    middle = call("Add", first, call("Mul", call("Div", call("Sub", last, first), intervals), steps))
    both = call("Concat", first, middle, last, axis=axis, tf_op="ConcatV2")
    values = call("Slice", both, int64s([0]), call("Reshape", n, int64s([1])), int64s([axis]), tf_op="StridedSlice")
    return _traced_shapes.value_shaped(values, [None if k == axis else k for k in builtins.range(rank + 1)])


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
    return fresh(_identities(batch, rows, cols, dtype))


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

    if run_depth:
        return _traced_shapes.value_shaped(host(encode, indices, *values, depth_tensor))
    _one_hot_depth(depth)
    return host(encode, indices, *values)


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


def _old_repr(dtype):
    """TF's older DType repr used in some messages: ``<dtype: 'float32'>``."""
    return f"<dtype: '{dtype.name}'>"


# -- casts -------------------------------------------------------------------------------------------------------
def cast(x, dtype, name=None):
    """``x`` converted to ``dtype`` (floats truncate toward zero; complex to real keeps the real part).

    Differentiable between float dtypes (the gradient is cast back); casts to or from
    integers give no gradient, as in TF. Out-of-range float -> integer conversions follow the
    CPU's conversion (as numpy's ``astype``): TF's own results for them depend on its
    vectorization and differ between elements of one tensor.

    Raises
    ------
    UnimplementedError
        Casts between strings and numbers.
    """
    dtype = _dtypes.as_dtype(dtype)
    if hasattr(x, "_as_tensor") or not isinstance(x, CoreTensor):
        x = convert_to_tensor(x)
    source = x.array.dtype
    if source == dtype.np:
        return x
    if dtype == _dtypes.string or source.kind in "OSU" or dtype.np is None:
        raise op_error(f"Cast {_dispatch.kernel_type_name(_dtypes.of_array(x.array))} to "
                       f"{_dispatch.kernel_type_name(dtype)} is not supported", "Cast", errors.UnimplementedError)
    if source.kind == "c" or dtype.is_complex:  # the engine has no complex dtypes: numpy, no gradient
        return wrap((x.array.real if not dtype.is_complex else x.array).astype(dtype.np))
    return call("Cast", x, to=dtype.np, tf_op="Cast")


def saturate_cast(value, dtype, name=None):
    """``value`` cast to ``dtype``, first clamped to the range both dtypes hold (no wrap-around, inf -> max)."""
    dtype = _dtypes.as_dtype(dtype)
    value = convert_to_tensor(value)
    source = _dtypes.of_array(value.array)
    if source.is_complex and not dtype.is_complex:
        value = wrap(value.array.real)
        source = _dtypes.of_array(value.array)
    for d in (source, dtype):
        if not (d.is_floating or d.is_integer or d.is_complex):
            raise TypeError(f"Cannot find minimum value of {_old_repr(d)} with type {_old_repr(d)}.")
    if source.np.kind == "u" and source.size >= 4:
        raise op_error(f"Could not find device for node: {{{{node ClipByValue}}}} = ClipByValue[T=DT_"
                       f"{source.name.upper()}]", None, errors.NotFoundError)
    if not source.is_complex:
        low, high = _clamp_bounds(source, dtype)
        value = call("Min", call("Max", value, low, tf_op="ClipByValue"), high, tf_op="ClipByValue")
    return cast(value, dtype)


def _clamp_bounds(source, dtype):
    """The range of values of DType ``source`` that fit in ``dtype``, as 0-d arrays of ``source``."""
    target = dtype.real_dtype
    convert = float if source.is_floating else int  # (ml_dtypes converts no Python int to bfloat16)
    low = np.asarray(convert(builtins.max(_number(source.min), _number(target.min)))).astype(source.np)
    high = np.asarray(convert(builtins.min(_number(source.max), _number(target.max)))).astype(source.np)
    if low.item() < _number(target.min):  # rounded outside the range: the next representable value inside
        low = np.asarray(np.nextafter(low, np.array(np.inf, source.np)), source.np)
    if high.item() > _number(target.max):
        high = np.asarray(np.nextafter(high, np.array(-np.inf, source.np)), source.np)
    return low, high


def _number(limit):
    """A dtype limit as a Python number (numpy/ml_dtypes scalars compare badly with big ints)."""
    return limit if isinstance(limit, int) else float(limit)


# -- identity and shapes -----------------------------------------------------------------------------------------
def identity(input, name=None):
    """A tensor with the values of ``input`` (the gradient passes through)."""
    return call(_IDENTITY, convert_to_tensor(input), tf_op="Identity")


def identity_n(input, name=None):
    """``identity`` of each tensor of the list ``input``."""
    return [identity(x) for x in input]


def _out_type(out_type, tf_op):
    dtype = _dtypes.as_dtype(out_type)
    if dtype.np not in INDEX_DTYPES:
        raise op_error(f"Value for attr 'out_type' of {_dispatch.kernel_type_name(dtype)} is not in the list of "
                       "allowed values: int32, int64", tf_op)
    return dtype.np


def shape(input, out_type=None, name=None):
    """The shape of ``input`` as a 1-D int32 (or ``out_type``) tensor."""
    out = I32 if out_type is None else _out_type(out_type, "Shape")
    x = convert_to_tensor(input)
    if _tracing and _traced_shapes.shape_varies(x):
        return cast(call("Shape", x, tf_op="Shape"), out)
    return fresh(np.array(x.array.shape, out))


def shape_n(input, out_type=_dtypes.int32, name=None):
    """``shape`` of each tensor of the list ``input``."""
    return [shape(x, out_type) for x in input]


def size(input, out_type=None, name=None):
    """The number of elements of ``input`` as a scalar int32 (or ``out_type``) tensor."""
    dtype = I32 if out_type is None else _dtypes.as_dtype(out_type).np
    x = convert_to_tensor(input)
    if _tracing and _traced_shapes.shape_varies(x):
        return cast(call("Size", x, tf_op="Size"), dtype)
    return fresh(np.array(x.array.size, dtype))


def rank(input, name=None):
    """The number of dimensions of ``input`` as a scalar int32 tensor."""
    return fresh(np.array(convert_to_tensor(input).array.ndim, I32))


def ensure_shape(x, shape, name=None):
    """``x`` itself, after checking its shape is compatible with ``shape`` (None dims match anything)."""
    x = convert_to_tensor(x)
    expected = as_shape(shape)
    if not expected.is_compatible_with(x.array.shape):
        found = ",".join(str(d) for d in x.array.shape)
        wanted = ",".join("?" if d is None else str(d) for d in expected.as_list())
        raise op_error(f"Shape of tensor input [{found}] is not compatible with expected shape [{wanted}].",
                       "EnsureShape")
    return call(_IDENTITY, x, tf_op="EnsureShape")


def broadcast_static_shape(shape_x, shape_y):
    """The TensorShape two TensorShapes broadcast to (None dims stay unknown unless the other dim decides).

    Raises
    ------
    ValueError
        When the shapes cannot broadcast.
    """
    if shape_x.rank is None or shape_y.rank is None:
        return TensorShape(None)
    x, y = shape_x.as_list()[::-1], shape_y.as_list()[::-1]
    out = []
    for i in builtins.range(builtins.max(len(x), len(y))):
        a = x[i] if i < len(x) else 1
        b = y[i] if i < len(y) else 1
        if a is None or b is None:
            known = b if a is None else a
            out.append(known if known is not None and known > 1 else None)
        elif a == b or b == 1:
            out.append(a)
        elif a == 1:
            out.append(b)
        else:
            raise ValueError("Incompatible shapes for broadcasting. Two shapes are compatible if for each dimension "
                             "pair they are either equal or one of them is 1. Received: "
                             f"{_tuple_text(shape_x)} and {_tuple_text(shape_y)}.")
    return TensorShape(out[::-1])


def _tuple_text(shape):
    return str(tuple(shape.as_list()))


def broadcast_dynamic_shape(shape_x, shape_y):
    """The shape (a 1-D integer tensor) two shapes given as 1-D integer tensors broadcast to."""
    x = convert_to_tensor(shape_x)
    y = convert_to_tensor(shape_y, dtype_hint=_dtypes.of_array(x.array))
    same_dtype("BroadcastArgs", x, y)
    a, b = (tuple(int(d) for d in v.array.reshape(-1)) for v in (x, y))
    try:
        out = np.broadcast_shapes(a, b)
    except ValueError:
        raise op_error(f"Incompatible shapes: [{','.join(map(str, a))}] vs. [{','.join(map(str, b))}]",
                       "BroadcastArgs") from None
    return fresh(np.array(out, x.array.dtype))


def guarantee_const(input, name=None):
    """``input`` (TF's promise that the value is constant changes nothing eagerly)."""
    return identity(input)


def get_static_value(tensor_, partial=False):
    """The value of a tensor as a numpy array (a copy); other values are returned as they are.

    A variable (whose value may change) gives None, as in TF.
    """
    if isinstance(tensor_, CoreTensor) and not hasattr(tensor_, "_as_tensor"):
        return tensor_.array.copy()
    if hasattr(tensor_, "_as_tensor"):
        return None
    return tensor_


def bitcast(input, type, name=None):  # noqa: A002  (TF's argument name)
    """The bytes of ``input`` read as dtype ``type``: a wider type merges the last dim, a narrower one adds a dim."""
    x = convert_to_tensor(input)
    target = _dtypes.as_dtype(type)
    source_size, target_size = x.array.dtype.itemsize, target.np.itemsize
    shape = x.array.shape
    if source_size < target_size:
        ratio = target_size // source_size
        if not shape or shape[-1] != ratio:
            raise op_error(f"Cannot bitcast from {source_size} to {target_size}", "Bitcast")
        return wrap(np.require(x.array, requirements='C').view(target.np).reshape(shape[:-1]))
    array = np.require(x.array, requirements='C').view(target.np)
    return wrap(array.reshape(shape + (source_size // target_size,)) if source_size > target_size else array)


NAMESPACES = {
    "tf": ["constant", "convert_to_tensor", "zeros", "ones", "fill", "zeros_like", "ones_like", "range", "linspace",
           "eye", "one_hot", "cast", "saturate_cast", "identity", "identity_n", "shape", "shape_n", "size", "rank",
           "ensure_shape", "broadcast_static_shape", "broadcast_dynamic_shape", "guarantee_const", "get_static_value",
           "bitcast"],
    "linalg": ["eye"],
    "dtypes": ["cast", "saturate_cast"],
}
TENSOR_METHODS = {}
