"""tf.Tensor's Python operators, with TF's conversion rules.

TF converts the other operand differently per operator, and these differences decide which error a
bad operand raises, so they are kept:

* ``x + y``: ``y`` prefers ``x``'s dtype but may have its own (then the kernel raises
  InvalidArgumentError); ``x @ y`` (tf.linalg.matmul) likewise.
* the other forward operators (``x - y``, ``x * y``, ``x < y``...): ``y`` must convert to ``x``'s
  dtype (TypeError otherwise), as TF's raw ops convert;
* reflected operators (``2 - x``): the left operand must convert to ``x``'s dtype;
* when a forward operator fails with TypeError/ValueError, TF offers the operation to the other
  operand's reflected method (so ``bool_tensor / numpy_array`` is numpy's result; for ``|`` every
  class seems to have one, ``type.__ror__``, and an instance without it raises AttributeError);
* ``==``/``!=`` compare elementwise; None gives False/True; shapes that do not broadcast give a
  scalar False/True;
* with a bool tensor ``*`` multiplies in int32 and casts back to bool; on bool tensors ``&``/``|``/
  ``^``/``~`` are the logical ops, on integers the bitwise ones.
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow._dispatch import (
    call,
    convert_to_tensor,
    is_tensor_like,
    mismatch,
    op_error,
    tensor_of,
)
from vfw.frontends.tensorflow._linalg_ops import matmul
from vfw.frontends.tensorflow._math_binary import (
    add,
    floordiv,
    floormod,
    legacy_div,
    multiply,
    pow,
    subtract,
    truediv,
    truediv_operator,
)
from vfw.frontends.tensorflow._math_logic import (
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    compare_any_shape,
    greater,
    greater_equal,
    less,
    less_equal,
    logical_and,
    logical_or,
    logical_xor,
)
from vfw.frontends.tensorflow._math_unary import abs, invert, logical_not, negative
from vfw.frontends.tensorflow._op_support import BOOL, STRING, with_dtype

_INT32 = np.dtype(np.int32)


def _as_int32(t):
    if t.array.dtype == STRING:
        raise op_error("Cast string to int32 is not supported", "Cast", errors.UnimplementedError)
    return call("Cast", t, to=_INT32)


def _mul(x, y):
    """``x * y``; when either is a bool tensor, TF multiplies both cast to int32 and casts the product to bool."""
    if x.array.dtype == BOOL or (is_tensor_like(y) and tensor_of(y).array.dtype == BOOL):
        y = convert_to_tensor(y, dtype_hint=_dtypes.int32)
        return call("Cast", multiply(_as_int32(x), _as_int32(y)), to=BOOL)
    return multiply(x, y)


def _by_dtype(logical, bitwise):
    def fn(x, y):
        y = with_dtype(y, _dtypes.of_array(x.array))  # numpy arrays are cast to x's dtype
        return logical(x, y) if x.array.dtype == BOOL else bitwise(x, y)

    return fn


_and = _by_dtype(logical_and, bitwise_and)
_or = _by_dtype(logical_or, bitwise_or)
_xor = _by_dtype(logical_xor, bitwise_xor)


def _forward(fn, name):
    """``Tensor.__{name}__``: ``fn(self, other)``, then, on TypeError/ValueError, ``other.__r{name}__(self)``.

    As TF, the reflected method is looked up on ``type(other)`` and then fetched from ``other``: for
    ``|`` the lookup finds ``type.__ror__`` (the union of types) on every class, so fetching it from an
    instance without one raises AttributeError.
    """
    reflected_name = f"__r{name}__"

    def method(self, other):
        try:
            return fn(self, other)
        except (TypeError, ValueError) as e:
            if not hasattr(type(other), reflected_name):
                raise
            reflected = getattr(other, reflected_name)
            try:
                out = reflected(self)
            except (TypeError, ValueError):
                raise e from None
            if out is NotImplemented:
                raise
            return out

    method.__name__ = f"__{name}__"
    return method


def _reflected(fn, name):
    """``Tensor.__r{name}__``: the other operand converted to this tensor's dtype, then ``fn(other, self)``."""

    def method(self, other):
        return fn(with_dtype(other, _dtypes.of_array(self.array)), self)

    method.__name__ = f"__r{name}__"
    return method


def _equality(negate):
    def method(self, other):
        if other is None:
            return negate
        other = with_dtype(other, _dtypes.of_array(self.array))
        if other.array.dtype != self.array.dtype:
            raise mismatch("NotEqual" if negate else "Equal", self.array.dtype, other.array.dtype)
        return compare_any_shape(self, other, negate)

    method.__name__ = "__ne__" if negate else "__eq__"
    return method


def _invert(self):
    return logical_not(self) if self.array.dtype == BOOL else invert(self)


_BINARY = {"add": add, "sub": subtract, "mul": _mul, "truediv": truediv_operator,
           "floordiv": floordiv, "mod": floormod, "pow": pow, "matmul": matmul, "and": _and, "or": _or,
           "xor": _xor, "div": legacy_div}

TENSOR_METHODS = {}
for _name, _fn in _BINARY.items():
    TENSOR_METHODS[f"__{_name}__"] = _forward(_fn, _name)
for _name, _fn in _BINARY.items():
    # Reflected operands are converted to the tensor's dtype first: ``/`` then divides the two tensors.
    TENSOR_METHODS[f"__r{_name}__"] = _reflected(truediv if _name == "truediv" else _fn, _name)
for _name, _fn in {"lt": less, "le": less_equal, "gt": greater, "ge": greater_equal}.items():
    TENSOR_METHODS[f"__{_name}__"] = _fn
TENSOR_METHODS.update({
    "__eq__": _equality(False),
    "__ne__": _equality(True),
    "__neg__": negative,
    "__abs__": abs,
    "__invert__": _invert,
    "__nonzero__": lambda self: self.__bool__(),
})

NAMESPACES = {}
