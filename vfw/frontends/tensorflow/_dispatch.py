"""How TensorFlow functions reach engine ops: tensor conversion (TF's rules), op calls, errors.

Every tf function is a few lines over these helpers:

* ``convert_to_tensor`` turns Python and numpy values into tensors the way TF does (no implicit
  promotion afterwards); tensors pass through at once, and plain Python numbers, flat or 2-level
  lists of them and numpy arrays take a direct path. Lists holding tensors are packed (stacked)
  as TF packs them. Other data goes to ``_conversion``.
* ``call`` runs an engine op (a type name with attributes, or a bound op from ``op``). When no
  graph trace is open and no recording tape watches an input, it calls the kernel on the arrays
  and wraps the result (the hot path of eager code); otherwise it goes through the executor so
  that tapes and traces see the op. Engine errors become the ``tf.errors`` TF raises, naming TF's
  op (``[Op:AddV2]``).
* ``host`` computes a result in numpy from tensors (a PyFunc op under a trace, so that each graph
  run computes it anew).
"""

import numpy as np

from vfw.core.eager import execute
from vfw.core.errors import InaccessibleValueError, IndexOutOfRangeError, VfwError
from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.core.registry import make_op, op_key
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _conversion, _dtypes, _symbolic_names, errors
from vfw.frontends.tensorflow._conversion import kernel_type_name
from vfw.frontends.tensorflow._shape import TensorShape
from vfw.frontends.tensorflow._tape_state import ACTIVE as _ACTIVE_TAPES

_new = object.__new__
_ndarray = np.ndarray
_asarray = np.asarray

# The eager and symbolic Tensor classes are set by _tensor.py (it imports this module).
Tensor = SymbolicTensor = None
# ``check(tf_op, inputs, outputs, traced)`` run after every op while tf.debugging.enable_check_numerics is on
# (``_check_numerics``); None otherwise, so that the hot paths pay one comparison.
numerics_hook = None


def wrap(array):
    """A new tf tensor around an ndarray (no copy; a numpy scalar becomes a 0-d array, and an element of a string
    tensor, a bytes object, a 0-d object array as string tensors are)."""
    t = _new(Tensor)
    if array.__class__ is _ndarray:
        t.array = array
    else:
        t.array = _asarray(array, object) if array.__class__ is bytes else _asarray(array)
    t.requires_grad = False
    t.grad_node = None
    return t


def as_tf(t):
    """A tf tensor for an engine tensor (same array and autograd identity)."""
    if t is None or isinstance(t, Tensor):
        return t
    out = wrap(t.array)
    out.requires_grad = t.requires_grad
    out.grad_node = t.grad_node
    if t.grad_node is not None:
        out.grad_slot = t.grad_slot
    return out


# -- engine ops ------------------------------------------------------------------------------------
_PLAIN_OPS = {}
_BOUND_OPS = {}


def op(op_type, **attrs):
    """The engine op ``op_type`` bound to ``attrs``, cached process-wide (the ops bound here keep no state)."""
    if not attrs:
        found = _PLAIN_OPS.get(op_type)
        if found is None:
            found = _PLAIN_OPS[op_type] = make_op(op_type)
        return found
    key = (op_type, *attrs.items())
    try:
        found = _BOUND_OPS.get(key)
    except TypeError:  # list or array attribute values: a frozen key
        key = op_key(op_type, attrs)
        found = _BOUND_OPS.get(key)
    if found is None:
        found = _BOUND_OPS[key] = make_op(op_type, attrs)
    return found


def op_error(message, tf_op=None, error=errors.InvalidArgumentError):
    """A ``tf.errors`` exception with TF's eager message shape (``... [Op:Name] name: ``)."""
    suffix = "" if tf_op is None else f" [Op:{tf_op}] name: "
    return error(None, None, message + suffix)


def mismatch(tf_op, expected, got, position=1):
    """TF's InvalidArgumentError for input ``position`` of numpy dtype ``got`` where the op's type is ``expected``."""
    return op_error(f"cannot compute {tf_op} as input #{position}(zero-based) was expected to be a "
                    f"{kernel_type_name(_dtypes.as_dtype(expected))} tensor but is a "
                    f"{kernel_type_name(_dtypes.as_dtype(got))} tensor", tf_op)


def translate(e, tf_op=None):
    """The tf.errors exception for an engine error raised by ``tf_op``."""
    cause = e.__cause__
    while cause is not None:
        if isinstance(cause, errors.OpError):
            return cause  # raised by a frontend callback of a PyFunc op (an iterator's OutOfRangeError)
        cause = cause.__cause__
    if isinstance(e, InaccessibleValueError):
        return e  # TF's InaccessibleTensorError is a ValueError too
    if isinstance(e, IndexOutOfRangeError):
        return op_error(str(e), tf_op)
    if isinstance(e, MemoryError):
        return op_error(str(e), tf_op, errors.ResourceExhaustedError)
    if isinstance(e, NotImplementedError):
        return op_error(str(e), tf_op, errors.UnimplementedError)
    return op_error(str(e), tf_op)


def recording(*tensors):
    """Whether an op on ``tensors`` must go through the executor: a graph trace is open, or a recording tape
    watches one of them (TF records ops only on the tapes recording when they run)."""
    if _tracing:
        return True
    if _ACTIVE_TAPES:
        for t in tensors:
            if t is not None and t.__class__ is not _ndarray and t.requires_grad:
                return True
    return False


def call(op_or_type, *inputs, tf_op=None, **attrs):
    """Run an engine op on tensors and/or arrays; returns tf tensors (a tuple for several outputs).

    Parameters
    ----------
    op_or_type : str or Op
        Engine op type (with ``attrs``) or a bound op (``op``).
    *inputs : Tensor, numpy.ndarray or None
    tf_op : str, optional
        TF's name of the op, for error messages (defaults to the engine op type).
    """
    bound = op(op_or_type, **attrs) if op_or_type.__class__ is str else op_or_type
    if not _tracing:  # ``recording`` inlined: this is the hot path of eager code
        for x in inputs if _ACTIVE_TAPES else ():
            if x is not None and x.__class__ is not _ndarray and x.requires_grad:
                break
        else:
            try:
                result = bound(*[x if x is None or x.__class__ is _ndarray else x.array for x in inputs])
            except VfwError as e:
                raise translate(e, tf_op or bound.schema.op_type) from None
            if numerics_hook is not None:
                numerics_hook(tf_op or bound.schema.op_type, inputs, result, False)
            if result.__class__ is tuple:
                return tuple(None if r is None else wrap(r) for r in result)
            return wrap(result)
    try:
        result = execute(bound, *inputs)
    except VfwError as e:
        raise translate(e, tf_op or bound.schema.op_type) from None
    if numerics_hook is not None:
        numerics_hook(tf_op or bound.schema.op_type, inputs, result, bool(_tracing))
    if result.__class__ is tuple:
        if not _tracing:
            return tuple(as_tf(r) for r in result)
        result = tuple(symbolic(as_tf(r)) for r in result)
    else:
        result = result if result.__class__ is Tensor else as_tf(result)
        if not _tracing:
            return result
        result = symbolic(result)
    _symbolic_names.name_results(result, tf_op or bound.schema.op_type)
    return result


def symbolic(t):
    """``t`` (a tf tensor or None), a value of the graph being traced: a SymbolicTensor, as TF's."""
    if t.__class__ is Tensor:
        t.__class__ = SymbolicTensor
    return t


def callback(trace, fn, *inputs):
    """The outputs (a tuple) of a PyFunc op recorded in ``trace`` that calls ``fn(*arrays)`` at every graph run."""
    outputs = call(make_op("PyFunc", {"token": trace.callback(fn)}), *inputs)
    return outputs if outputs.__class__ is tuple else (outputs,)


def host(fn, *inputs):
    """The tensor(s) of ``fn(*arrays)``: a numpy computation on the arrays of the tensors ``inputs``.

    For results the engine has no op for (unique, masks built from values, random draws...).
    Under a graph trace it is a PyFunc op, so that each graph run computes it from that run's
    values (and draws anew) instead of replaying the traced result as a constant. Not
    differentiable. A tuple of arrays gives a tuple of tensors.
    """
    if _tracing:
        trace = current_trace()
        if trace is not None:
            outputs = callback(trace, fn, *inputs)
            return outputs[0] if len(outputs) == 1 else outputs
    result = fn(*[x.array for x in inputs])
    return tuple(wrap(r) for r in result) if result.__class__ is tuple else wrap(result)


_UNSQUEEZE = op("Unsqueeze")


def pack(tensors, axis=0):
    """TF's Pack: tensors of one dtype and shape stacked along a new ``axis`` (in range; differentiable)."""
    if not tensors:
        raise op_error("OpKernel 'Pack' has constraint on attr 'T' not in NodeDef '[N=0, axis=0]'", "Pack")
    first = tensors[0].array
    for i, t in enumerate(tensors[1:], 1):
        if t.array.dtype != first.dtype:
            raise mismatch("Pack", first.dtype, t.array.dtype, i)
        if t.array.shape != first.shape:
            raise op_error(f"Shapes of all inputs must match: values[0].shape = [{','.join(map(str, first.shape))}] "
                           f"!= values[{i}].shape = [{','.join(map(str, t.array.shape))}]", "Pack")
    if not recording(*tensors):
        return wrap(np.stack([t.array for t in tensors], axis))
    axes = np.array([axis], np.int64)
    return call("Concat", *[call(_UNSQUEEZE, t, axes, tf_op="Pack") for t in tensors], axis=axis, tf_op="Pack")


# -- conversion ------------------------------------------------------------------------------------
_F32 = np.dtype(np.float32)
_I32 = np.dtype(np.int32)
_I64 = np.dtype(np.int64)
_BOOL = np.dtype(np.bool_)
_FLOAT_TYPES = frozenset(d.np for d in (_dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64))
_BOOL_TARGETS = _FLOAT_TYPES - {_dtypes.bfloat16.np} | {_I32, _I64, _BOOL}  # dtypes TF converts Python bools to
_NUMERIC_ARRAYS = frozenset(d.np for d in _dtypes.ALL if d.np is not None and d.np.kind != "O")
_NUMPY_SCALARS = frozenset(d.type for d in _NUMERIC_ARRAYS)
_DType = _dtypes.DType
_F32_MAX = float(np.finfo(np.float32).max)
_INF = float("inf")
_INT32_MIN, _INT32_END = -2 ** 31, 2 ** 31
_INT64_MIN, _INT64_END = -2 ** 63, 2 ** 63


def _numpy_dtype(dtype):
    """The numpy dtype of a DType or dtype-like (a requested dtype or hint)."""
    if dtype.__class__ is _DType:
        return dtype.np
    return dtype if isinstance(dtype, np.dtype) else _dtypes.as_dtype(dtype).np


def _scalar_as(value, cls, target):
    """A Python float/int/bool as a 0-d array of numpy dtype ``target`` when TF converts it as it is, else None."""
    if cls is float:
        return np.array(value, target) if target in _FLOAT_TYPES else None
    if cls is int:
        if target == _I32:
            return np.array(value, _I32) if _INT32_MIN <= value < _INT32_END else None
        if target == _I64 or target in _FLOAT_TYPES:
            return np.array(value, target) if _INT64_MIN <= value < _INT64_END else None
        return None
    return np.array(value, target) if target in _BOOL_TARGETS else None


def scalar_tensor(value, np_dtype):
    """A Python float/int as a 0-d tensor of ``np_dtype`` when TF converts it to that dtype as it is (floats to
    float dtypes, ints in range to int32/int64/floats), else None: ``convert_to_tensor``'s direct case, for
    callers that have a numpy dtype at hand."""
    array = _scalar_as(value, value.__class__, np_dtype)
    if array is None:
        return None
    t = _new(Tensor)
    t.array = array
    t.requires_grad = False
    t.grad_node = None
    if _tracing:
        _graph_constant(t)
    return t


def _plain_list(value):
    """A flat or 2-level list/tuple of Python floats, ints or bools as TF's array, or None for other data."""
    first = value[0]
    if first.__class__ is list or first.__class__ is tuple:
        width = len(first)
        if not width:
            return None
        for row in value:
            if (row.__class__ is not list and row.__class__ is not tuple) or len(row) != width:
                return None
        flat = [v for row in value for v in row]
    else:
        flat = value
    kinds = set(map(type, flat))
    if len(kinds) == 1 and int in kinds:
        low, high = min(flat), max(flat)
        if _INT32_MIN <= low and high < _INT32_END:
            return np.array(value, _I32)
        return np.array(value, _I64) if _INT64_MIN <= low and high < _INT64_END else None
    if kinds == {float} or kinds == {float, int}:
        largest = max(map(abs, flat))  # NaN first makes it NaN: the general path decides then
        return np.array(value, _F32) if largest <= _F32_MAX or largest == _INF else None
    if kinds == {bool}:
        return np.array(value, _BOOL)
    return None


def _plain_array(value, cls):
    """TF's array for a common value without a dtype (Python scalar, plain list, numeric numpy value), or None."""
    if cls is float:
        return None if _F32_MAX < abs(value) < _INF else np.array(value, _F32)
    if cls is int:
        if _INT32_MIN <= value < _INT32_END:
            return np.array(value, _I32)
        return np.array(value, _I64) if _INT64_MIN <= value < _INT64_END else None
    if cls is bool:
        return np.array(value, _BOOL)
    if cls is _ndarray:
        return np.array(value) if value.dtype in _NUMERIC_ARRAYS else None
    if cls is list or cls is tuple:
        return _plain_list(value) if value else None
    if cls in _NUMPY_SCALARS:
        return np.array(value)
    return None


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """``value`` as a tf tensor: tensors pass through, Python and numpy values are converted as TF converts them.

    Parameters
    ----------
    value : Tensor, Variable, numpy array or scalar, Python number/bool/str/bytes or nested sequence
        Sequences holding tensors are packed (stacked), as TF does.
    dtype : DType or compatible, optional
        Required dtype: a tensor of another dtype raises ValueError, a value that cannot be
        represented raises TypeError.
    dtype_hint : DType or compatible, optional
        Preferred dtype for Python/numpy values when it can represent them (else the inferred one).

    Returns
    -------
    Tensor
    """
    cls = value.__class__
    if dtype is None and dtype_hint is None:
        if cls is Tensor:
            return value
        array = _plain_array(value, cls)
    elif cls is float or cls is int or cls is bool:
        array = _scalar_as(value, cls, _numpy_dtype(dtype_hint if dtype is None else dtype))
    elif dtype is None:
        if cls is Tensor:
            return value
        array = None
        if (cls is list or cls is tuple) and value:  # taken when its inferred dtype is the hint
            array = _plain_list(value)
            if array is not None and array.dtype != _numpy_dtype(dtype_hint):
                array = None
    else:
        array = None
    if array is None:
        return _converted(value, dtype, dtype_hint)
    t = _new(Tensor)
    t.array = array
    t.requires_grad = False
    t.grad_node = None
    if _tracing:
        _graph_constant(t)
    return t


# (priority, base types, function) of tf.register_tensor_conversion_function, lowest priority first
CONVERSION_FUNCTIONS = []


def _registered_conversion(value, dtype):
    """The tensor a registered conversion function makes of ``value`` (None when none takes it)."""
    for _, base_types, conversion_func in CONVERSION_FUNCTIONS:
        if isinstance(value, base_types):
            t = conversion_func(value, dtype=dtype, name=None, as_ref=False)
            if t is NotImplemented:
                continue
            t = tensor_of(t)
            if dtype is not None and _dtypes.of_array(t.array) != dtype:
                raise RuntimeError(f"Conversion function {conversion_func!r} for type {type(value)} returned "
                                   f"incompatible dtype: requested = {dtype.name}, actual = "
                                   f"{_dtypes.of_array(t.array).name}")
            return t
    return None


def _converted(value, dtype, dtype_hint):
    """``convert_to_tensor`` beyond its direct cases."""
    if dtype is not None:
        dtype = _dtypes.as_dtype(dtype)
    if isinstance(value, CoreTensor) or hasattr(value, "_as_tensor"):
        t = tensor_of(value)
        if dtype is not None and t.array.dtype != dtype.np and _dtypes.of_array(t.array) != dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                             f"{_dtypes.of_array(t.array).name}: {t!r}")
        return t
    if CONVERSION_FUNCTIONS:
        t = _registered_conversion(value, dtype)
        if t is not None:
            return t
    if dtype is None and dtype_hint is not None:
        try:
            return _from_data(value, _dtypes.as_dtype(dtype_hint))
        except (TypeError, ValueError):
            pass
    return _from_data(value, dtype)


def tensor_of(value):
    """The tf tensor of a tensor-like ``value``: a tf tensor itself, an engine tensor, a variable's value."""
    if value.__class__ is Tensor:
        return value
    convert = getattr(value, "_as_tensor", None)  # variables and other tensor-like objects
    return as_tf(value) if convert is None else convert_to_tensor(convert())


def is_tensor_like(x):
    """Whether ``x`` is a tensor or converts like one, with a dtype of its own (a variable)."""
    return isinstance(x, CoreTensor) or hasattr(x, "_as_tensor")


def holds_tensors(value):
    """Whether a (nested) list/tuple has a tensor-like element somewhere."""
    for item in value:
        if item.__class__ is list or item.__class__ is tuple:
            if holds_tensors(item):
                return True
        elif is_tensor_like(item):
            return True
    return False


def _from_data(value, dtype):
    if (value.__class__ is list or value.__class__ is tuple) and holds_tensors(value):
        return _packed(value, dtype)
    if isinstance(value, TensorShape):
        value, dtype = _shape_dims(value, dtype)
    try:
        t = wrap(_conversion.array_of(value, dtype))
    except ValueError as e:
        if not _tracing or not hasattr(e, "unconvertible"):
            raise
        raise _conversion.graph_unsupported(value, dtype, e.unconvertible) from None
    if _tracing:
        _graph_constant(t)
    return t


def _shape_dims(shape, dtype):
    """A fully known TensorShape as its dims and their dtype (int32, or int64 when asked or when a dim needs it)."""
    if shape.rank is None or None in shape.as_list():
        raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor.")
    dims = shape.as_list()
    if dtype is None:
        return dims, _dtypes.int64 if any(d >= 2**31 for d in dims) else _dtypes.int32
    if dtype not in (_dtypes.int32, _dtypes.int64):
        raise TypeError(f"Cannot convert TensorShape {shape} to dtype <dtype: '{dtype.name}'>. Allowed dtypes are "
                        f"tf.int32 and tf.int64.")
    return dims, dtype


def _graph_constant(t):
    """Note ``t``, converted from a Python or numpy value, as a constant of the graph being traced (as in TF): not
    a capture, and not a value that varies from run to run.  (Strings, object arrays, stay captures: the graph's
    constants would turn them into numpy text.)"""
    trace = current_trace()
    if trace is not None and t.array.dtype.kind != "O":
        trace.mark_fresh(t)
    symbolic(t)


# -- packing lists that hold tensors (TF's auto-packing) ------------------------------------------
def _first_tensor_dtype(value):
    for item in value:
        if item.__class__ is list or item.__class__ is tuple:
            found = _first_tensor_dtype(item)
            if found is not None:
                return found
        elif is_tensor_like(item):
            return _dtypes.of_array(tensor_of(item).array)
    return None


def _cast_tensors(value, dtype):
    """``value`` with every tensor in it cast to DType ``dtype`` (TF casts them when a dtype is asked for)."""
    if value.__class__ is list or value.__class__ is tuple:
        return [_cast_tensors(item, dtype) for item in value]
    if not is_tensor_like(value):
        return value
    t = tensor_of(value)
    if t.array.dtype == dtype.np:
        return t
    if t.array.dtype.kind in "SUO" or dtype == _dtypes.string:
        raise op_error(f"Cast {kernel_type_name(_dtypes.of_array(t.array))} to {kernel_type_name(dtype)} is not "
                       "supported", "Cast", errors.UnimplementedError)
    return call("Cast", t, to=dtype.np, tf_op="Cast")


def _packed(value, dtype):
    """A list/tuple holding tensors as one tensor: its tensors stacked, its other data converted to their dtype.

    The first tensor found decides the dtype; a requested ``dtype`` casts the tensors first.
    """
    found = _first_tensor_dtype(value)
    if dtype is None:
        dtype = found
    elif dtype != found:
        value = _cast_tensors(value, dtype)
    return _pack_level(value, dtype)


def _pack_level(items, dtype):
    """``items`` packed (a tensor) when a tensor is among them at any depth, else the plain list."""
    if all(is_tensor_like(item) for item in items):  # TF packs these without checking them against ``dtype``
        return pack([tensor_of(item) for item in items])
    parts = []
    holds = False
    for item in items:
        if is_tensor_like(item):
            t = tensor_of(item)
            if t.array.dtype != dtype.np:
                raise TypeError(f"Cannot convert a list containing a tensor of dtype <dtype: '{t.dtype.name}'> to "
                                f"<dtype: '{dtype.name}'> (Tensor is: {t!r})")
            parts.append(t)
            holds = True
        elif item.__class__ is list or item.__class__ is tuple:
            part = _pack_level(item, dtype)
            holds = holds or isinstance(part, Tensor)
            parts.append(part)
        else:
            parts.append(item)
    if not holds:
        return parts
    return pack([p if isinstance(p, Tensor) else _constant_part(p, dtype) for p in parts])


def _constant_part(value, dtype):
    """A Python value of a packed list as a tensor: under a graph trace a constant of the graph (it never varies, so
    shapes packed from it stay known), not a captured tensor."""
    t = wrap(_conversion.array_of(value, dtype))
    if _tracing:
        _graph_constant(t)
    return t


def operands(x, y, tf_op):
    """Two operands of a binary op as tensors of one dtype (a Python/numpy operand takes the other's dtype).

    Raises InvalidArgumentError (TF's kernel message) when two tensors differ in dtype.
    """
    if x.__class__ is not Tensor:
        x = tensor_of(x) if is_tensor_like(x) else \
            convert_to_tensor(x, dtype_hint=_dtypes.of_array(tensor_of(y).array) if is_tensor_like(y) else None)
    if y.__class__ is not Tensor:
        y = tensor_of(y) if is_tensor_like(y) else convert_to_tensor(y, dtype_hint=x.array.dtype)
    if x.array.dtype != y.array.dtype:
        raise mismatch(tf_op, x.array.dtype, y.array.dtype)
    return x, y
