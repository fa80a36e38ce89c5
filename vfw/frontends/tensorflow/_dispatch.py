"""How TensorFlow functions reach engine ops: tensor conversion (TF's dtype rules), op calls, errors.

Every tf function is a few lines over these helpers: ``convert_to_tensor`` turns Python and
numpy values into tensors the way TF does (no implicit promotion afterwards), ``call`` runs an
engine op on tensors and translates engine errors into the ``tf.errors`` TF raises, naming TF's
op (``[Op:AddV2]``), and ``same_dtype`` gives TF's error when two operands differ in dtype.
"""

import numpy as np

from vfw.core.eager import execute
from vfw.core.errors import IndexOutOfRangeError, VfwError
from vfw.core.graph.trace import _active as _tracing
from vfw.core.registry import make_op
from vfw.core.tensor import Tensor as CoreTensor
from vfw.core.workspace import current_workspace
from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow._tape_state import ACTIVE as _ACTIVE_TAPES

_new = object.__new__

# The Tensor class is set by _tensor.py (it imports this module).
Tensor = None

# TF's names of dtypes in kernel messages ("expected to be a float tensor but is a int32 tensor").
_KERNEL_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def kernel_type_name(dtype):
    """TF's name of a dtype in kernel error messages (``float``, ``double``, ``int32``...)."""
    return _KERNEL_NAMES.get(dtype.name, dtype.name)


def wrap(array):
    """A new tf tensor around an ndarray (no copy)."""
    t = _new(Tensor)
    t.array = array
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


_ops = {}


def op(op_type, **attrs):
    """The bound engine op for ``op_type`` with ``attrs`` (attribute-less ops are cached process-wide)."""
    if not attrs:
        bound = _ops.get(op_type)
        if bound is None:
            bound = _ops[op_type] = make_op(op_type)
        return bound
    return current_workspace().op(op_type, attrs)


def op_error(message, tf_op=None, error=errors.InvalidArgumentError):
    """A ``tf.errors`` exception with TF's eager message shape (``... [Op:Name] name: ``)."""
    suffix = "" if tf_op is None else f" [Op:{tf_op}] name: "
    return error(None, None, message + suffix)


def translate(e, tf_op=None):
    """The tf.errors exception for an engine error raised by ``tf_op``."""
    if isinstance(e, IndexOutOfRangeError):
        return op_error(str(e), tf_op)
    if isinstance(e, MemoryError):
        return op_error(str(e), tf_op, errors.ResourceExhaustedError)
    if isinstance(e, NotImplementedError):
        return op_error(str(e), tf_op, errors.UnimplementedError)
    return op_error(str(e), tf_op)


def call(op_or_type, *inputs, tf_op=None, **attrs):
    """Run an engine op on tensors / arrays; returns tf tensors (a tuple for several outputs).

    Parameters
    ----------
    op_or_type : str or Op
        Engine op type (with ``attrs``) or a bound op.
    *inputs : Tensor, numpy.ndarray or None
    tf_op : str, optional
        TF's name of the op, for error messages (defaults to the engine op type).
    """
    bound = op(op_or_type, **attrs) if type(op_or_type) is str else op_or_type
    if not _ACTIVE_TAPES and not _tracing:
        return run(bound, *inputs, tf_op=tf_op)  # nothing records: TF records ops only while a tape records
    try:
        result = execute(bound, *inputs)
    except VfwError as e:
        raise translate(e, tf_op or bound.schema.op_type) from None
    if type(result) is tuple:
        return tuple(as_tf(r) for r in result)
    return result if type(result) is Tensor else as_tf(result)


def run(bound, *inputs, tf_op=None):
    """``call`` for a bound op, calling its kernel directly when nothing can record.

    With no graph trace open and no tape recording (or no input watched), the kernel runs on the
    arrays and its result is wrapped (the hot path of eager code); otherwise the op goes through the
    executor.
    """
    if not _tracing:
        for x in inputs if _ACTIVE_TAPES else ():
            if x is not None and x.__class__ is not np.ndarray and x.requires_grad:
                break
        else:
            try:
                result = bound(*[x if x is None or x.__class__ is np.ndarray else x.array for x in inputs])
            except VfwError as e:
                raise translate(e, tf_op or bound.schema.op_type) from None
            if type(result) is tuple:
                return tuple(None if r is None else wrap(r) for r in result)
            return wrap(result)
    return call(bound, *inputs, tf_op=tf_op)


# -- conversion --------------------------------------------------------------------------------
def _cannot_convert(value, dtype):
    return TypeError(f"Cannot convert {value!r} to EagerTensor of dtype {dtype.name}")


def _array_of(value, dtype):
    """``value`` (Python data or numpy) as an ndarray of DType ``dtype``, with TF's conversion errors."""
    if isinstance(value, (np.ndarray, np.generic)):
        if dtype == _dtypes.string:
            if value.dtype.kind not in "SUO":
                raise ValueError(f"Failed to convert a NumPy array to a Tensor (Unsupported object type "
                                 f"{'float' if value.dtype.kind == 'f' else 'int'}).")
            return _string_array(value)
        return np.asarray(value).astype(dtype.np, copy=True)  # numpy's casts, as TF's
    leaves = list(_dtypes._leaves(value))
    for v in leaves:  # TF refuses other objects before looking at the dtype
        if not isinstance(v, (bool, int, float, complex, str, bytes, np.generic, np.ndarray, CoreTensor)):
            raise ValueError(f"Attempt to convert a value ({v!r}) with an unsupported type ({type(v)}) to a Tensor.")
    _check_rectangular(value)
    if any(isinstance(v, int) and not isinstance(v, bool) for v in leaves) and not (dtype.is_floating or
                                                                                   dtype.is_complex):
        _dtypes.infer([v for v in leaves if isinstance(v, int)])  # TF's range check of Python ints
    if dtype == _dtypes.string:
        if not all(isinstance(v, (str, bytes, np.str_, np.bytes_)) for v in leaves):
            raise _cannot_convert(value, dtype)
        return _string_array(value)
    for v in leaves:
        if isinstance(v, (str, bytes)) or (isinstance(v, complex) and not dtype.is_complex) \
                or (isinstance(v, float) and not (dtype.is_floating or dtype.is_complex)) \
                or (dtype.is_bool and not isinstance(v, (bool, np.bool_))) \
                or (isinstance(v, (bool, np.bool_)) and _refuses_bools(dtype)):
            raise _cannot_convert(value, dtype)
    build = np.complex128 if dtype.is_complex else np.float64 if dtype.is_floating else None
    return np.array(value, dtype=build).astype(dtype.np)


def _refuses_bools(dtype):
    """Whether TF refuses Python bools for ``dtype`` (it takes them as int32/int64/uint64 and floats but bfloat16)."""
    return (dtype.is_integer and dtype.name not in ("int32", "int64", "uint64")) or dtype == _dtypes.bfloat16


def _check_rectangular(value):
    """TF's ValueError for a ragged nested sequence."""
    def shape(v):
        if isinstance(v, (list, tuple)):
            shapes = [shape(x) for x in v]
            if any(s != shapes[0] for s in shapes):
                raise ValueError("Can't convert non-rectangular Python sequence to Tensor.")
            return (len(v),) + (shapes[0] if shapes else ())
        return np.shape(v) if isinstance(v, np.ndarray) else ()
    shape(value)


def _string_array(value):
    array = np.array(value, dtype=object)
    flat = array.reshape(-1)
    for i, v in enumerate(flat):
        if isinstance(v, str):
            flat[i] = v.encode("utf-8")
        elif isinstance(v, np.bytes_):
            flat[i] = bytes(v)
        elif not isinstance(v, bytes):
            raise TypeError(f"Failed to convert elements of {value!r} to Tensor. Consider casting elements to a "
                            "supported type.")
    return array


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """``value`` as a tf tensor: tensors pass through, Python and numpy values are converted.

    Parameters
    ----------
    value : Tensor, numpy array or scalar, Python number/bool/str/bytes or nested sequence
    dtype : DType or compatible, optional
        Required dtype: a tensor of another dtype raises ValueError, a value that cannot be
        represented raises TypeError.
    dtype_hint : DType or compatible, optional
        Preferred dtype for Python/numpy values when it can represent them (else the inferred one).

    Returns
    -------
    Tensor
    """
    if dtype is not None:
        dtype = _dtypes.as_dtype(dtype)
    if isinstance(value, CoreTensor):
        value = as_tf(value) if not hasattr(value, "_as_tensor") else value._as_tensor()
        if dtype is not None and value.array.dtype != dtype.np and _dtypes.of_array(value.array) != dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                             f"{_dtypes.of_array(value.array).name}: {value!r}")
        return value
    convert = getattr(value, "_as_tensor", None)  # variables and other tensor-like objects
    if convert is not None:
        return convert_to_tensor(convert(), dtype)
    if value is None:
        raise ValueError(f"Attempt to convert a value (None) with an unsupported type ({type(None)}) to a Tensor.")
    if dtype is None and dtype_hint is not None:
        try:
            return wrap(_array_of(value, _dtypes.as_dtype(dtype_hint)))
        except (TypeError, ValueError):
            pass
    if dtype is None:
        if isinstance(value, (np.ndarray, np.generic)):
            found = _dtypes.of_array(np.asarray(value))
            if found is None:
                raise ValueError(f"Attempt to convert a value ({value!r}) with an unsupported type "
                                 f"({type(value)}) to a Tensor.")
            return wrap(_string_array(value) if found == _dtypes.string else np.array(value))
        dtype = _dtypes.infer(value)
    return wrap(_array_of(value, dtype))


def operands(x, y, tf_op):
    """Two operands of a binary op as tensors of one dtype (a Python/numpy operand takes the other's dtype).

    Raises InvalidArgumentError (TF's kernel message) when two tensors differ in dtype.
    """
    if not isinstance(x, CoreTensor) or hasattr(x, "_as_tensor"):
        x = convert_to_tensor(x, dtype_hint=_hint(y))
    if not isinstance(y, CoreTensor) or hasattr(y, "_as_tensor"):
        y = convert_to_tensor(y, dtype_hint=_dtypes.of_array(x.array))
    if x.array.dtype != y.array.dtype:
        raise op_error(f"cannot compute {tf_op} as input #1(zero-based) was expected to be a "
                       f"{kernel_type_name(_dtypes.of_array(x.array))} tensor but is a "
                       f"{kernel_type_name(_dtypes.of_array(y.array))} tensor", tf_op)
    return x, y


def _hint(other):
    if isinstance(other, CoreTensor):
        return _dtypes.of_array(other.array)
    convert = getattr(other, "_as_tensor", None)
    return _dtypes.of_array(convert().array) if convert is not None else None


def dtype_of(t):
    """The DType of a tensor."""
    return _dtypes.of_array(t.array)

