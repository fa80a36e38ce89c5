"""What the op families share beyond ``_dispatch``: TF's dtype rules per raw op, the input conversion of raw
ops, and small compositions of engine ops.

* ``OpTypes`` holds what TF checks before running a raw op: the dtypes its definition allows
  (others raise InvalidArgumentError "Value for attr 'T' of int32 is not in the list of allowed
  values") and those with a CPU kernel (others raise NotFoundError "Could not find device for
  node"). The tables come from observing TF 2.21.
* ``matching`` converts the inputs of a raw op whose inputs share one dtype the way TF's eager
  executor does: Python and numpy values take the dtype of the first tensor among the inputs (or
  of the first value when none is a tensor); a value that cannot be represented raises TypeError;
  tensors of different dtypes raise InvalidArgumentError. ``of_dtype`` does it for ops of a fixed
  dtype (the logical ops), ``with_dtype`` for one value.
* ``with_gradient`` attaches TF's gradient formula to values computed by engine ops, for ops whose
  TF gradient convention differs from the engine's (ties, zeros, NaN handling).
* ``reduce``, ``cast``, ``reshape``, ``transpose_last``, ``widened``: engine ops as the families
  use them (integer types some engine kernels lack are computed wider and wrapped back).
"""

import ml_dtypes
import numpy as np

from vfw.core import autograd
from vfw.core.errors import VfwError
from vfw.core.graph.trace import _active as _tracing
from vfw.core.ops._common import unbroadcast
from vfw.frontends.tensorflow import _dispatch, _dtypes, errors
from vfw.frontends.tensorflow._dispatch import (
    call,
    convert_to_tensor,
    is_tensor_like,
    kernel_type_name,
    mismatch,
    op,
    op_error,
    recording,
    scalar_tensor,
    tensor_of,
    translate,
    wrap,
)
from vfw.frontends.tensorflow._tensor import Tensor

# -- numpy dtypes and TF's dtype groups -----------------------------------------------------------
F16 = np.dtype(np.float16)
BF16 = np.dtype(ml_dtypes.bfloat16)
F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
I8, I16, I32, I64 = (np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
U8, U16, U32, U64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
BOOL = np.dtype(np.bool_)
STRING = np.dtype(object)
FLOATS = frozenset({BF16, F16, F32, F64})
SIGNED = frozenset({I8, I16, I32, I64})
UNSIGNED = frozenset({U8, U16, U32, U64})
INTEGERS = SIGNED | UNSIGNED
LAPACK = frozenset({F32, F64})  # what the engine's decompositions compute in
INDEX_DTYPES = (I32, I64)
# Integer types some engine kernels (reductions, scans, MatMul) lack, and the type each computes in:
# sums and products wrap modulo 2**bits either way, extremes are exact.
WIDER_INTS = {I8: I64, I16: I64, U8: U64, U16: U64}

PY_NUMBERS = (float, int)  # exact classes: bools convert by their own rules
_GROUPS = {"F": ("bfloat16", "float16", "float32", "float64"), "I": ("int8", "int16", "int32", "int64"),
           "U": ("uint8", "uint16", "uint32", "uint64"), "C": ("complex64", "complex128")}
# The order TF lists dtypes in most "allowed values" messages.
_TF_ORDER = ("bfloat16", "float16", "float32", "float64", "uint8", "uint16", "uint32", "uint64", "int8", "int16",
             "int32", "int64", "complex64", "complex128", "bool", "string")


def dtypes_of(spec):
    """The numpy dtypes named by ``spec``: space-separated dtype names and groups F (floats), I (signed
    integers), U (unsigned integers); or an iterable of numpy dtypes."""
    if not isinstance(spec, str):
        return frozenset(spec)
    names = []
    for word in spec.split():
        names.extend(_GROUPS.get(word, (word,)))
    return frozenset(_dtypes.as_dtype(n).np for n in names)


class OpTypes:
    """The dtypes TF's raw op ``name`` accepts: ``allowed`` by its definition, ``kernels`` with a CPU kernel.

    Parameters
    ----------
    name : str
        TF's op name (``AddV2``), used in messages.
    allowed : str or iterable of numpy dtypes
        ``dtypes_of`` spec of the types the op definition allows.
    kernels : str or iterable of numpy dtypes, optional
        The types with a CPU kernel (all allowed ones when omitted).
    """

    __slots__ = ("name", "allowed", "kernels")

    def __init__(self, name, allowed, kernels=None):
        self.name = name
        self.kernels = dtypes_of(allowed if kernels is None else kernels)
        self.allowed = dtypes_of(allowed) | self.kernels

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


def attr_error(tf_op, attr, dtype_name, allowed):
    """TF's InvalidArgumentError for a type attribute (``Tidx``, ``Tindices``...) outside its ``allowed`` text."""
    return op_error(f"Value for attr '{attr}' of {dtype_name} is not in the list of allowed values: {allowed}", tf_op)


def same_dtype(tf_op, *tensors):
    """TF's InvalidArgumentError when the tensors (already tensors) differ in dtype from the first."""
    first = tensors[0].array.dtype
    for i, t in enumerate(tensors[1:], 1):
        if t.array.dtype != first:
            raise mismatch(tf_op, first, t.array.dtype, i)


def shape_text(shape):
    """A shape as TF's kernel messages print it: ``[2,3]``."""
    return "[" + ",".join(str(d) for d in shape) + "]"


def incompatible(tf_op, a, b):
    """TF's InvalidArgumentError for operand arrays whose shapes do not broadcast."""
    return op_error(f"Incompatible shapes: {shape_text(a.shape)} vs. {shape_text(b.shape)}", tf_op)


def check_broadcast(tf_op, a, b):
    """Raise TF's error unless the shapes of arrays ``a`` and ``b`` broadcast."""
    if a.shape != b.shape:
        try:
            np.broadcast_shapes(a.shape, b.shape)
        except ValueError:
            raise incompatible(tf_op, a, b) from None


# -- inputs of raw ops -----------------------------------------------------------------------------
def matching(tf_op, *values, types=None):
    """The inputs of raw op ``tf_op`` that share one type attribute, converted as TF's eager executor does.

    Parameters
    ----------
    tf_op : str
    *values : tensors, variables, Python or numpy values
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
    if values and values[0].__class__ is Tensor:  # the hot cases: tensors of one dtype, a tensor and a number
        first = values[0].array.dtype
        for v in values:
            if v.__class__ is not Tensor or v.array.dtype != first:
                break
        else:
            if types is not None:
                types.check(first)
            return list(values)
        if len(values) == 2 and values[1].__class__ in PY_NUMBERS:
            y = scalar_tensor(values[1], first)
            if y is not None:
                if types is not None:
                    types.check(first)
                return [values[0], y]
    elif len(values) == 2 and values[1].__class__ is Tensor and values[0].__class__ in PY_NUMBERS:
        x = scalar_tensor(values[0], values[1].array.dtype)
        if x is not None:
            if types is not None:
                types.check(x.array.dtype)
            return [x, values[1]]
    dtype = None
    for v in values:
        if is_tensor_like(v):
            dtype = tensor_of(v).array.dtype
            break
    out = []
    for v in values:
        t = tensor_of(v) if is_tensor_like(v) else convert_to_tensor(v, dtype)
        if dtype is None:
            dtype = t.array.dtype
        out.append(t)
    if out:
        if types is not None:
            types.check(out[0].array.dtype)
        same_dtype(tf_op, *out)
    return out


def of_dtype(tf_op, values, np_dtype):
    """The inputs of raw op ``tf_op`` whose dtype is fixed (``bool`` for logical ops), converted as TF does.

    With every input a tensor (or numpy array), one of another dtype raises InvalidArgumentError (the
    kernel's check); otherwise Python values are converted first (TypeError if they cannot be) and then
    a tensor of another dtype raises ValueError (TF's conversion error).
    """
    if all(is_tensor_like(v) or isinstance(v, np.ndarray) for v in values):  # numpy arrays keep their dtype
        out = [convert_to_tensor(v) for v in values]
        for i, t in enumerate(out):
            if t.array.dtype != np_dtype:
                raise mismatch(tf_op, np_dtype, t.array.dtype, i)
        return out
    dtype = _dtypes.as_dtype(np_dtype)
    converted = {i: convert_to_tensor(v, dtype) for i, v in enumerate(values) if not is_tensor_like(v)}
    return [converted[i] if i in converted else convert_to_tensor(v, dtype) for i, v in enumerate(values)]


def with_dtype(value, dtype):
    """``value`` converted with TF's ``convert_to_tensor(value, dtype=...)``, except that tensors pass through."""
    return tensor_of(value) if is_tensor_like(value) else convert_to_tensor(value, dtype)


def scalar_like(value, t):
    """A 0-d array of ``value`` in tensor ``t``'s dtype (a constant operand of an engine op)."""
    return np.asarray(value, t.array.dtype)


def int64s(values):
    """A 1-D int64 array (engine ops take shapes, axes and indices as int64 inputs)."""
    return np.array(values, I64).reshape(-1)


def static_int(value, what):
    """A Python int from an int, numpy integer or 0-d integer tensor (TypeError otherwise)."""
    tensor = value if hasattr(value, "array") else None
    array = np.asarray(value if tensor is None else tensor.array)
    if array.ndim or array.dtype.kind not in "iu":
        raise TypeError(f"`{what}` must be an integer, got {array if tensor is not None else value!r}")
    if tensor is not None and _tracing:
        from vfw.frontends.tensorflow._traced_shapes import pinned  # it imports this module

        pinned(tensor, (int(array),), what, None)
    return int(array)


# -- gradients -------------------------------------------------------------------------------------
def detached(t):
    """``t``'s value cut from any tape (TF ops without a gradient give None gradients)."""
    return wrap(t.array) if t.requires_grad else t


def with_gradient(forward, backward, *inputs):
    """``forward(*inputs)`` (engine ops), differentiated by ``backward(g, *inputs)`` instead of its own ops.

    ``backward`` returns one gradient (a tensor or None) per input, shaped like the broadcast output:
    gradients are summed back to each input's shape here. Without a watching tape or a trace this is
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


# -- engine compositions ---------------------------------------------------------------------------
def cast(x, np_dtype):
    """Tensor ``x`` cast to numpy dtype ``np_dtype`` (itself when it has it)."""
    if x.array.dtype == np_dtype:
        return x
    return call("Cast", x, to=np_dtype, tf_op="Cast")


def widened(fn, x):
    """``fn(x)``, computed in a wider integer type when ``x`` is of one the engine kernels lack (``WIDER_INTS``)
    and cast back."""
    wide = WIDER_INTS.get(x.array.dtype)
    if wide is None:
        return fn(x)
    return cast(fn(cast(x, wide)), x.array.dtype)


def reshape(x, shape, tf_op="Reshape"):
    """Tensor ``x`` reshaped to the concrete ``shape`` (a 0 is an empty dim)."""
    return call("Reshape", x, int64s(shape), allowzero=1, tf_op=tf_op)


def transpose_last(x):
    """``x`` with its last two dims swapped."""
    perm = list(range(x.array.ndim))
    perm[-2:] = perm[-1], perm[-2]
    return call("Transpose", x, perm=perm, tf_op="Transpose")


_AXES_ARRAYS = {}
_REDUCERS = {}


def _axes_array(axes):
    """``axes`` as the engine's int64 input (cached: a few axes tuples recur)."""
    found = _AXES_ARRAYS.get(axes)
    if found is None:
        found = np.array(axes, I64)
        found.flags.writeable = False
        if len(_AXES_ARRAYS) < 256:
            _AXES_ARRAYS[axes] = found
    return found


def reduce(engine_op, x, axes, keepdims, tf_op):
    """Engine reduction ``engine_op`` of tensor ``x`` over ``axes`` (a sequence of axes in range; None: all).

    An empty ``axes`` reduces nothing, as TF's reductions.
    """
    key = (engine_op, keepdims, axes is not None and not len(axes))
    bound = _REDUCERS.get(key)
    if bound is None:
        bound = _REDUCERS[key] = op(engine_op, keepdims=int(keepdims), noop_with_empty_axes=int(key[2]))
    axes_array = None if axes is None else _axes_array(axes if axes.__class__ is tuple else tuple(axes))
    if x.array.dtype in bound.schema.types["T"]:
        if not recording(x):
            try:
                result = bound.kernel(x.array, axes_array)
            except VfwError as e:
                raise translate(e, tf_op) from None
            if _dispatch.numerics_hook is not None:
                _dispatch.numerics_hook(tf_op, (x,), result, False)
            return wrap(result)
        return call(bound, x, axes_array, tf_op=tf_op)
    return widened(lambda t: call(bound, t, axes_array, tf_op=tf_op), x)
