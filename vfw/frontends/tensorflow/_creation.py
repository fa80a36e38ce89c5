"""Tensor creation and shape queries: constant, zeros/ones/fill, casts, identity, shape/size/rank,
ensure_shape and the broadcast shape helpers (range, linspace, eye and one_hot are in
``_creation_sequences``).

Factories make their arrays with numpy directly (a few microseconds); what TF differentiates
(``fill`` in its value, ``identity``) runs through engine ops when a tape watches an input or a
graph trace is open.  Inside tf.function, shapes given by tensors that vary from call to call
are computed by the graph (``_traced_shapes``).
"""

import builtins

import numpy as np

from vfw.core.graph.trace import _active as _tracing
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dispatch, _dtypes, _traced_shapes, errors
from vfw.frontends.tensorflow._array_common import fresh, int_values
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
from vfw.frontends.tensorflow._op_support import I32, INDEX_DTYPES, int64s, same_dtype
from vfw.frontends.tensorflow._shape import TensorShape, as_shape
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor

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
        if isinstance(value, TensorShape):  # a sequence of dims here ([] is float32), unlike convert_to_tensor
            value = list(value)
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
    return _nonnegative(int_values(shape, "index_type", tf_op), tf_op)


def _nonnegative(dims, tf_op="Fill"):
    for d in dims:
        if d < 0:
            raise op_error(f"Dimension {int(d)} must be >= 0", tf_op)
    return dims


def _run_dims(shape):
    """A varying ``shape`` argument as the int64 dims the graph computes on each run (TF's errors then): engine
    ops, so that the graph exports to ONNX, and a check run beside them."""
    dims = _traced_shapes.dims_tensor(shape, "Fill")
    _traced_shapes.checked_at_run(_nonnegative, dims)
    return dims


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
    if isinstance(input, SparseTensor):  # TF gives a sparse tensor's dense shape
        return cast(input.dense_shape, out)
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
    if isinstance(input, SparseTensor):
        return fresh(np.array(np.prod(input.dense_shape.array), dtype))
    x = convert_to_tensor(input)
    if _tracing and _traced_shapes.shape_varies(x):
        return cast(call("Size", x, tf_op="Size"), dtype)
    return fresh(np.array(x.array.size, dtype))


def rank(input, name=None):
    """The number of dimensions of ``input`` as a scalar int32 tensor."""
    if isinstance(input, SparseTensor):
        return fresh(np.array(input.dense_shape.array.shape[0], I32))
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
    if _tracing and _traced_shapes.varies(x, y):  # the graph broadcasts each call's shapes
        return _traced_shapes.value_shaped(host(_broadcast_args, x, y))
    return fresh(_broadcast_args(x.array, y.array))


def _broadcast_args(x, y):
    a, b = (tuple(int(d) for d in v.reshape(-1)) for v in (x, y))
    try:
        out = np.broadcast_shapes(a, b)
    except ValueError:
        raise op_error(f"Incompatible shapes: [{','.join(map(str, a))}] vs. [{','.join(map(str, b))}]",
                       "BroadcastArgs") from None
    return np.array(out, x.dtype)


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
    if source_size < target_size and (not shape or shape[-1] != target_size // source_size):
        raise op_error(f"Cannot bitcast from {source_size} to {target_size}", "Bitcast")
    # (viewed flat: numpy changes the itemsize of a 0-d array's view only at equal sizes)
    flat = np.ascontiguousarray(x.array).reshape(-1).view(target.np)
    if source_size < target_size:
        return wrap(flat.reshape(shape[:-1]))
    return wrap(flat.reshape(shape + ((source_size // target_size,) if source_size > target_size else ())))


NAMESPACES = {
    "tf": ["constant", "convert_to_tensor", "zeros", "ones", "fill", "zeros_like", "ones_like", "cast",
           "saturate_cast", "identity", "identity_n", "shape", "shape_n", "size", "rank", "ensure_shape",
           "broadcast_static_shape", "broadcast_dynamic_shape", "guarantee_const", "get_static_value", "bitcast"],
    "dtypes": ["cast", "saturate_cast"],
}
TENSOR_METHODS = {}
