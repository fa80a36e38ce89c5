"""How torch functions reach engine ops: argument conversion, promotion, errors, in-place and ``out=``.

Every torch function is a few lines over these helpers: ``call`` runs an engine op on
torch tensors (translating engine errors into the exceptions torch raises),
``promoted`` applies torch's type promotion to tensors and Python numbers, and
``finish`` writes a result into ``out=`` or into ``self`` for in-place variants.
"""

import functools

import numpy as np

from vfw.core import autograd
from vfw.core import dtypes as dt
from vfw.core.eager import execute
from vfw.core.errors import IndexOutOfRangeError, VfwError
from vfw.core.registry import make_op
from vfw.core.tensor import Tensor as CoreTensor
from vfw.core.workspace import current_workspace
from vfw.frontends.torch import _dtype

_new = object.__new__
_FLOATS = dt.FLOATS
_is_grad_enabled = autograd.is_grad_enabled

# The Tensor class is set by _tensor.py (it imports this module).
Tensor = None


def wrap(array, requires_grad=False):
    """A new torch tensor around an ndarray (no copy)."""
    t = _new(Tensor)
    t.array = array
    t.requires_grad = requires_grad
    t.grad_node = None
    return t


def as_torch(t):
    """A torch tensor for an engine tensor (same array and autograd node)."""
    if t is None or isinstance(t, Tensor):
        return t
    out = _new(Tensor)
    out.array = t.array
    out.requires_grad = t.requires_grad
    out.grad_node = t.grad_node
    if t.grad_node is not None:
        out.grad_slot = t.grad_slot
    return out


@functools.cache
def _plain_op(op_type):
    return make_op(op_type)


def op(op_type, **attrs):
    """The bound engine op for ``op_type`` with ``attrs`` (attribute-less ops are process-wide)."""
    if not attrs:
        return _plain_op(op_type)
    return current_workspace().op(op_type, attrs)


def translate(error, name=None):
    """The exception torch raises for an engine error (RuntimeError, except index errors)."""
    message = str(error) if name is None else f"{name}: {error}"
    if isinstance(error, IndexOutOfRangeError):
        return IndexError(message)
    if isinstance(error, (RuntimeError, IndexError, NotImplementedError, MemoryError)):
        return error
    return RuntimeError(message)


# Ops whose gradient makers read no input values (only shapes): in-place writes to their
# inputs after recording are harmless, as in torch.
_SAVES_NO_INPUTS = frozenset({
    "Add", "Sub", "Neg", "Cast", "Identity", "Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten",
    "Expand", "Concat", "Split", "Slice", "ReduceSum", "ReduceMean", "Pad", "Tile", "CumSum", "Sum", "Mean",
})


def call(op_or_type, *inputs, **attrs):
    """Run an engine op on torch tensors / arrays; returns torch tensors (a tuple for several outputs)."""
    bound = op_or_type if type(op_or_type) is not str else op(op_or_type, **attrs)
    try:
        result = execute(bound, *inputs)
    except VfwError as e:
        raise translate(e) from None
    if type(result) is tuple:
        first = next((r for r in result if r is not None), None)
        if first is not None and first.grad_node is not None and first.grad_node.inputs is inputs:
            _save_versions(first.grad_node, inputs)
        return tuple(as_torch(r) for r in result)
    node = result.grad_node
    if node is not None and node.inputs is inputs:  # recorded just now
        _save_versions(node, inputs)
    return result if type(result) is Tensor else as_torch(result)


def _save_versions(node, inputs):
    if node.op.schema.op_type in _SAVES_NO_INPUTS:
        return
    node.versions = tuple([getattr(x, "_version_counter", _UNVERSIONED)[0] if isinstance(x, CoreTensor) else None
                           for x in inputs])


_UNVERSIONED = (0,)


# -- arguments -------------------------------------------------------------------------
def scalar_array(value, np_dtype):
    """A 0-d array of ``value`` in ``np_dtype`` (integers wrap around like torch's casts)."""
    try:
        return np.asarray(value, np_dtype)
    except (OverflowError, ValueError):
        return np.asarray(value).astype(np_dtype)


def to_tensor(x, np_dtype=None):
    """``x`` as a torch tensor: tensors pass through, numbers and nested sequences are converted."""
    if isinstance(x, Tensor):
        return x if np_dtype is None or x.array.dtype == np_dtype else cast(x, np_dtype)
    if isinstance(x, CoreTensor):
        return as_torch(x)
    return wrap(array_from(x, np_dtype))


def array_from(data, np_dtype=None):
    """An ndarray from Python data the way ``torch.tensor`` reads it (dtype inference included)."""
    if isinstance(data, CoreTensor):
        arr = data.array
        return arr.copy() if np_dtype is None else arr.astype(np_dtype)
    if isinstance(data, np.ndarray):
        if np_dtype is None:
            _dtype.from_numpy_dtype(data.dtype)
            return data.copy()
        return data.astype(np_dtype)
    if isinstance(data, (list, tuple)) and any(isinstance(v, CoreTensor) for v in _flat(data)):
        data = _untensor(data)
    if np_dtype is None:
        np_dtype = infer_dtype(data)
    try:
        arr = np.array(data, dtype=np_dtype)
    except (OverflowError, ValueError):
        try:
            arr = np.array(data).astype(np_dtype)
        except ValueError as e:
            raise ValueError(f"expected sequence of equal-length lists, got {_shape_note(data)} ({e})") from None
    return arr


def _flat(data):
    for v in data:
        if isinstance(v, (list, tuple)):
            yield from _flat(v)
        else:
            yield v


def _untensor(data):
    if isinstance(data, CoreTensor):
        return data.array
    if isinstance(data, (list, tuple)):
        return [_untensor(v) for v in data]
    return data


def _shape_note(data):
    return f"a {type(data).__name__}"


def infer_dtype(data):
    """The dtype ``torch.tensor(data)`` picks: bool, int64, the default float or complex."""
    if isinstance(data, np.ndarray):
        return data.dtype
    if isinstance(data, CoreTensor):
        return data.array.dtype
    if isinstance(data, (list, tuple)):
        category = -1
        best = None
        for v in _flat(data) if data else ():
            d = v.dtype if isinstance(v, np.ndarray) else infer_dtype(v)
            c = _dtype._category(d)
            if c > category:
                category, best = c, d
            elif c == category and best is not None and d != best:
                best = _dtype.promote_types(best, d)
        return _dtype.default_float_np() if best is None else best
    if data is None:
        raise RuntimeError("Could not infer dtype of NoneType")
    if isinstance(data, np.generic):  # numpy scalars keep their dtype in torch.tensor
        return data.dtype
    try:
        return _dtype.scalar_np_dtype(data)
    except TypeError:
        raise TypeError(f"Could not infer dtype of {type(data).__name__}") from None


def cast(t, np_dtype):
    """``t`` converted to ``np_dtype`` (recorded for autograd)."""
    if t.array.dtype == np_dtype:
        return t
    return call(op("Cast", to=dt.onnx_code(np_dtype)), t)


def dims_of(args):
    """A size given as ``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` or ``f(torch.Size)`` as a tuple of ints."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    out = []
    for a in args:
        if isinstance(a, CoreTensor):
            a = a.array.item()
        if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"size must be a tuple of ints, but got an element of type {type(a).__name__}")
        out.append(int(a))
    return tuple(out)


# -- promotion -------------------------------------------------------------------------
def result_dtype(*args):
    """torch.result_type over tensors and Python numbers (None arguments are skipped)."""
    dims, zeros, scalars = [], [], []
    for a in args:
        if isinstance(a, CoreTensor):
            (dims if a.array.ndim else zeros).append(a.array.dtype)
        elif a is not None:
            scalars.append(_dtype.scalar_np_dtype(a))
    return _dtype.result_type(dims, zeros, scalars)


def promoted(*args, np_dtype=None):
    """Arguments as engine inputs of one dtype: the promoted one, or ``np_dtype`` when given.

    Returns ``(inputs, dtype)``; tensors keep their autograd identity (a Cast is recorded
    where the dtype changes), Python numbers become cached-free 0-d arrays.
    """
    if np_dtype is None:
        first = args[0]
        if len(args) == 2 and isinstance(first, Tensor) and isinstance(args[1], Tensor) \
                and first.array.dtype == args[1].array.dtype:
            return args, first.array.dtype  # the common case: two tensors of one dtype
        np_dtype = result_dtype(*args)
    out = []
    for a in args:
        if isinstance(a, CoreTensor):
            out.append(a if a.array.dtype == np_dtype else cast(as_torch(a), np_dtype))
        else:
            out.append(scalar_array(a, np_dtype))
    return out, np_dtype


# -- results: out= and in-place ----------------------------------------------------------
_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
               "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def type_name(np_dtype):
    """torch's scalar type name of a dtype (``Float``, ``Long``...), as its error messages use."""
    return _TYPE_NAMES.get(np.dtype(np_dtype).name, np.dtype(np_dtype).name)


def can_cast(src, dst):
    """torch.can_cast: no float to integer, no number to bool, no complex to real."""
    return _dtype._category(np.dtype(src)) <= _dtype._category(np.dtype(dst))


def finish(result, out=None, name="op"):
    """Write ``result`` into ``out`` when given (resizing an empty or mismatched ``out``), else return it."""
    if out is None:
        return result
    if isinstance(out, (tuple, list)):
        for o, r in zip(out, result):
            finish(r, o, name)
        return out
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if _is_grad_enabled() and (out.requires_grad or result.requires_grad):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")
    if not can_cast(result.array.dtype, out.array.dtype):
        raise RuntimeError(f"result type {type_name(result.array.dtype)} can't be cast to the desired output type "
                           f"{type_name(out.array.dtype)}")
    if out.array.shape != result.array.shape:
        out.array = result.array.astype(out.array.dtype)
    else:
        np.copyto(out.array, result.array, casting="unsafe")
    bump_version(out)
    return out


def view_of(base, view):
    """Mark ``view`` (a torch tensor whose array shares ``base``'s memory) as a view of ``base``.

    Views share the base's version counter, and in-place writes through either are written
    into the shared memory (see ``assign``). Returns ``view``.
    """
    root = getattr(base, "_base", None)
    if root is None:
        root = base
    view._base = root
    root._has_views = True
    view._version_counter = version_counter(root)
    return view


def bump_version(t):
    counter = getattr(t, "_version_counter", None)
    if counter is not None:
        counter[0] += 1


def version_counter(t):
    """The version counter of ``t`` (shared with its views), created on first use."""
    counter = getattr(t, "_version_counter", None)
    if counter is None:
        counter = t._version_counter = [0]
    return counter


def check_inplace(t, name, *others):
    """Refuse in-place writes torch refuses: a leaf that requires grad (while grad mode is on)."""
    if not isinstance(t, Tensor):
        raise TypeError(f"{name}(): expected a Tensor as self")
    if t.requires_grad and t.grad_node is None and _is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")


def assign(t, result, name="op"):
    """Make ``result`` the new value of ``t`` in place (torch's ``op_`` semantics); returns ``t``.

    Without autograd the bytes are written into ``t``'s memory, so views and the base see them.
    When the result carries a gradient, ``t`` takes over its autograd node; its memory is then
    written too when ``t`` is a view or has views, else ``t`` is rebound to the result's array so
    the values earlier nodes saved stay intact.
    """
    if not can_cast(result.array.dtype, t.array.dtype):
        raise RuntimeError(f"result type {type_name(result.array.dtype)} can't be cast to the desired output type "
                           f"{type_name(t.array.dtype)}")
    if result.array.shape != t.array.shape:
        try:
            np.broadcast_to(result.array, t.array.shape)
        except ValueError:
            raise RuntimeError(f"{name}: output with shape {list(t.array.shape)} doesn't match the broadcast shape "
                               f"{list(result.array.shape)}") from None
    tracked = _is_grad_enabled() and (result.requires_grad or t.requires_grad)
    base = getattr(t, "_base", None)
    if tracked and base is not None:
        if base.requires_grad and base.grad_node is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
        raise RuntimeError(f"{name}: in-place writes into a view of a tensor that requires grad (or of values that "
                           "require grad) are not supported by vfw.torch (torch rebases the base's history); "
                           "write into the base tensor (base[index] = value) or use out-of-place ops")
    if tracked and result.requires_grad:
        if result.array.shape != t.array.shape:
            result = call(op("Expand"), result, np.asarray(t.array.shape, np.int64))
        result = cast(result, t.array.dtype)
        if getattr(t, "_has_views", False):
            np.copyto(t.array, result.array)
        else:
            t.array = result.array  # earlier nodes keep the old array they saved
        t.requires_grad = True
        t.grad_node = result.grad_node
        t.grad_slot = result.grad_slot
    else:
        np.copyto(t.array, result.array, casting="unsafe")
        if tracked:  # overwritten by values without history: a constant from here on
            t.grad_node = None
            t.requires_grad = False
    bump_version(t)
    return t


def snapshot(t):
    """A stand-in for ``t``'s current value and autograd node, as the input of an in-place op."""
    s = _new(Tensor)
    s.array = t.array
    s.requires_grad = t.requires_grad
    s.grad_node = t.grad_node
    if t.grad_node is not None:
        s.grad_slot = t.grad_slot
    counter = getattr(t, "_version_counter", None)
    if counter is not None:
        s._version_counter = counter
    if getattr(t, "_has_views", False):
        s.array = t.array.copy()  # t's memory is about to be overwritten: keep the old values
    return s


def inplace(fn, t, *args, name="op", **kwargs):
    """Run ``fn(t, *args)`` as ``t.op_(*args)``: result written into ``t``."""
    check_inplace(t, name)
    src = snapshot(t) if _is_grad_enabled() and (t.requires_grad or _any_grad(args)) else t
    return assign(t, fn(src, *args, **kwargs), name)


def _any_grad(args):
    for a in args:
        if isinstance(a, CoreTensor) and a.requires_grad:
            return True
    return False
