"""Machinery shared by the tf.math family modules: TF's dtype rules per raw op, operand conversion,
and the hot path that calls kernels directly.

* ``OpTypes`` holds what TF checks before running a raw op: the dtypes its definition allows
  (others raise InvalidArgumentError "Value for attr 'T' of ... is not in the list of allowed
  values") and those with a CPU kernel (others raise NotFoundError "Could not find device for
  node").  The tables come from observing TF 2.21.
* ``matching`` converts the inputs of a raw op whose inputs share one dtype the way TF's eager
  executor does: Python and numpy values take the dtype of the first tensor among the inputs (or
  of the first value when none is a tensor), and a value that cannot be represented raises
  TypeError.  Tensors of different dtypes raise InvalidArgumentError.
* ``run`` runs an engine op on tensors: when nothing records (no trace open, no recording tape
  watching an input) it calls the kernel on the arrays and wraps the result, otherwise it goes
  through the executor so tapes and traces see the op.
* ``with_gradient`` attaches TF's gradient formula to values computed by engine ops, for ops whose
  TF gradient convention differs from the engine's (ties, zeros, NaN handling).
"""

import numpy as np

from vfw.core import autograd
from vfw.core.graph.trace import _active as _tracing
from vfw.core.ops._common import unbroadcast
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, kernel_type_name, op, op_error
from vfw.frontends.tensorflow._dispatch import run as dispatch_run
from vfw.frontends.tensorflow._tape_state import ACTIVE as _ACTIVE_TAPES
from vfw.frontends.tensorflow._tensor import Tensor

_new = object.__new__
_ndarray = np.ndarray
_asarray = np.asarray

# -- dtype groups and TF's per-op dtype tables -------------------------------------------------
_GROUPS = {
    "F": ("bfloat16", "float16", "float32", "float64"),
    "I": ("int8", "int16", "int32", "int64"),
    "U": ("uint8", "uint16", "uint32", "uint64"),
}
# The order TF lists dtypes in its "allowed values" messages.
_TF_ORDER = ("bfloat16", "float16", "float32", "float64", "uint8", "uint16", "uint32", "uint64", "int8", "int16",
             "int32", "int64", "bool", "string")


def dtypes_of(spec):
    """The numpy dtypes named by ``spec``: space-separated dtype names and groups F (floats), I (signed
    integers), U (unsigned integers)."""
    names = []
    for word in spec.split():
        names.extend(_GROUPS.get(word, (word,)))
    return frozenset(_dtypes.as_dtype(n).np for n in names)


FLOATS = dtypes_of("F")
INTEGERS = dtypes_of("I U")
BOOL = np.dtype(np.bool_)
STRING = np.dtype(object)


class OpTypes:
    """The dtypes TF's raw op ``name`` accepts: ``allowed`` by its definition, ``kernels`` with a CPU kernel.

    Parameters
    ----------
    name : str
        TF's op name (``AddV2``), used in messages.
    allowed : str
        ``dtypes_of`` spec of the types the op definition allows.
    kernels : str, optional
        Spec of the types with a CPU kernel (all allowed ones when omitted).
    """

    __slots__ = ("name", "allowed", "kernels")

    def __init__(self, name, allowed, kernels=None):
        self.name = name
        self.allowed = dtypes_of(allowed)
        self.kernels = self.allowed if kernels is None else dtypes_of(kernels)

    def check(self, np_dtype):
        """Raise TF's error unless ``np_dtype`` has a kernel."""
        if np_dtype not in self.kernels:
            raise self.error(np_dtype)

    def error(self, np_dtype):
        """The error TF raises for an input of ``np_dtype`` (InvalidArgumentError or NotFoundError)."""
        dtype = _dtypes.as_dtype(np_dtype)
        if np_dtype not in self.allowed:
            listed = ", ".join(kernel_type_name(_dtypes.as_dtype(n)) for n in _TF_ORDER
                               if _dtypes.as_dtype(n).np in self.allowed)
            return op_error(f"Value for attr 'T' of {kernel_type_name(dtype)} is not in the list of allowed values: "
                            f"{listed}\n\t; NodeDef: {{{{node {self.name}}}}}", self.name)
        registered = ", ".join(f"DT_{kernel_type_name(_dtypes.as_dtype(n)).upper()}" for n in _TF_ORDER
                               if _dtypes.as_dtype(n).np in self.kernels)
        return op_error(f"Could not find device for node: {{{{node {self.name}}}}} = {self.name}"
                        f"[T=DT_{kernel_type_name(dtype).upper()}]\nAll kernels registered for op {self.name}:\n"
                        f"  device='CPU'; T in [{registered}]", self.name, errors.NotFoundError)


# -- conversion ----------------------------------------------------------------------------------
def tensor(x):
    """``x`` as a tf tensor (TF's dtype inference for Python values; variables read through)."""
    return x if x.__class__ is Tensor else convert_to_tensor(x)


def is_tensor_like(x):
    """Whether ``x`` is a tensor or converts like one without a dtype of its own (a variable)."""
    return isinstance(x, CoreTensor) or hasattr(x, "_as_tensor")


PY_NUMBERS = (float, int)  # exact classes: bool is refused for many dtypes and takes the slow path
_INT32 = np.dtype(np.int32)
_INT64 = np.dtype(np.int64)


def python_scalar(value, np_dtype):
    """A Python float/int as a 0-d tensor of ``np_dtype`` when TF converts it to that dtype as it is (floats
    to float dtypes, ints in int32 range to int32/int64), else None (the general conversion decides)."""
    if np_dtype in FLOATS or (value.__class__ is int and (np_dtype == _INT32 or np_dtype == _INT64)
                              and -2147483648 <= value <= 2147483647):
        t = _new(Tensor)
        t.array = np.array(value, np_dtype)
        t.requires_grad = False
        t.grad_node = None
        return t
    return None


def mismatch(tf_op, expected, got, position=1):
    """TF's InvalidArgumentError for an input whose dtype differs from the op's type attribute."""
    return op_error(f"cannot compute {tf_op} as input #{position}(zero-based) was expected to be a "
                    f"{kernel_type_name(_dtypes.as_dtype(expected))} tensor but is a "
                    f"{kernel_type_name(_dtypes.as_dtype(got))} tensor", tf_op)


def matching(tf_op, *values, types=None):
    """The inputs of raw op ``tf_op`` that share one type attribute, converted as TF's eager executor does.

    Parameters
    ----------
    tf_op : str
    *values : tensors, Python or numpy values
    types : OpTypes, optional
        Checked on the first input's dtype after conversion, before the inputs' dtypes are compared
        (TF looks the kernel up first).

    Returns
    -------
    list[Tensor]
        Tensors of one dtype.

    Raises
    ------
    TypeError
        A Python/numpy value cannot be represented in the dtype of the first tensor input.
    InvalidArgumentError
        Two tensor inputs differ in dtype.
    """
    if len(values) == 2:  # the hot case: a tensor and a Python number
        x, y = values
        if x.__class__ is Tensor and y.__class__ in PY_NUMBERS:
            converted = python_scalar(y, x.array.dtype)
            if converted is not None:
                if types is not None:
                    types.check(x.array.dtype)
                return [x, converted]
        elif y.__class__ is Tensor and x.__class__ in PY_NUMBERS:
            converted = python_scalar(x, y.array.dtype)
            if converted is not None:
                if types is not None:
                    types.check(y.array.dtype)
                return [converted, y]
    dtype = None
    for v in values:
        if is_tensor_like(v):
            dtype = _dtypes.of_array(tensor(v).array)
            break
    out = []
    for v in values:
        t = tensor(v) if is_tensor_like(v) else convert_to_tensor(v, dtype)
        if dtype is None:
            dtype = _dtypes.of_array(t.array)
        out.append(t)
    first = out[0].array.dtype
    if types is not None:
        types.check(first)
    for i, t in enumerate(out[1:], 1):
        if t.array.dtype != first:
            raise mismatch(tf_op, first, t.array.dtype, i)
    return out


def of_dtype(tf_op, values, np_dtype):
    """The inputs of raw op ``tf_op`` whose dtype is fixed (``bool`` for logical ops), converted as TF does.

    With every input a tensor (or numpy array), one of another dtype raises InvalidArgumentError (the
    kernel's check); otherwise Python values are converted first (TypeError if they cannot be) and then
    a tensor of another dtype raises ValueError (TF's conversion error).
    """
    dtype = _dtypes.as_dtype(np_dtype)
    if all(is_tensor_like(v) or isinstance(v, np.ndarray) for v in values):  # numpy arrays keep their dtype
        out = [tensor(v) for v in values]
        for i, t in enumerate(out):
            if t.array.dtype != np_dtype:
                raise mismatch(tf_op, np_dtype, t.array.dtype, i)
        return out
    converted = {i: convert_to_tensor(v, dtype) for i, v in enumerate(values) if not is_tensor_like(v)}
    return [converted[i] if i in converted else convert_to_tensor(v, dtype) for i, v in enumerate(values)]


def with_dtype(value, dtype):
    """``value`` converted with TF's ``convert_to_tensor(value, dtype=...)`` (tensors pass through)."""
    if value.__class__ in PY_NUMBERS:
        converted = python_scalar(value, dtype.np)
        if converted is not None:
            return converted
    return tensor(value) if is_tensor_like(value) else convert_to_tensor(value, dtype)


# -- running ops ---------------------------------------------------------------------------------
def result(array):
    """A new tf tensor around a kernel result (numpy scalars become 0-d arrays)."""
    t = _new(Tensor)
    t.array = array if array.__class__ is _ndarray else _asarray(array)
    t.requires_grad = False
    t.grad_node = None
    return t


def recording(*tensors):
    """Whether an op on ``tensors`` must go through the executor: a trace is open, or a tape records and
    watches one of them (TF records ops only on the tapes recording when they run)."""
    if _tracing:
        return True
    if _ACTIVE_TAPES:
        for t in tensors:
            if t.requires_grad:
                return True
    return False


def run(engine_op, *inputs, tf_op=None, **attrs):
    """Run an engine op (type name with ``attrs``, or bound op) on tensors and/or arrays (``_dispatch.run``:
    the kernel directly when nothing records, else the executor)."""
    return dispatch_run(op(engine_op, **attrs) if engine_op.__class__ is str else engine_op, *inputs, tf_op=tf_op)


def incompatible(tf_op, a, b):
    """TF's InvalidArgumentError for operands whose shapes do not broadcast."""
    return op_error(f"Incompatible shapes: [{','.join(map(str, a.shape))}] vs. [{','.join(map(str, b.shape))}]",
                    tf_op)


def check_broadcast(tf_op, a, b):
    """Raise TF's error unless the shapes of arrays ``a`` and ``b`` broadcast."""
    if a.shape != b.shape:
        try:
            np.broadcast_shapes(a.shape, b.shape)
        except ValueError:
            raise incompatible(tf_op, a, b) from None


def scalar_like(value, t):
    """A 0-d array of ``value`` in ``t``'s dtype (a constant operand of an engine op)."""
    return np.asarray(value, t.array.dtype)


def detached(t):
    """``t``'s value cut from any tape (TF ops without a gradient give None gradients)."""
    return result(t.array) if t.requires_grad else t


def with_gradient(forward, backward, *inputs):
    """``forward(*inputs)`` (engine ops), differentiated by ``backward(g, *inputs)`` instead of its own ops.

    ``backward`` returns one gradient (a tensor or None) per input, shaped like the broadcast output:
    gradients are summed back to each input's shape here.  Without a watching tape or a trace this is
    ``forward(*inputs)``.
    """
    if not recording(*inputs):
        return forward(*inputs)

    def fn(*xs):
        def grad_fn(g):
            grads = backward(g, *xs)
            return tuple(None if gx is None else unbroadcast(gx, x.array.shape) for gx, x in zip(grads, xs))
        return forward(*xs), grad_fn

    return autograd.custom_gradient(fn)(*inputs)
