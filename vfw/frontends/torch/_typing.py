"""Type queries and trivial conversions: promote_types, result_type, can_cast, is_tensor, is_floating_point,
is_complex, is_nonzero, numel, clone, resolve_neg, finfo, iinfo (conj, resolve_conj, real, imag: ``_complex``)."""

import weakref

import ml_dtypes
import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _dispatch, _dtype

__all__ = ["promote_types", "result_type", "can_cast", "is_tensor", "is_floating_point", "is_complex", "is_nonzero",
           "numel", "clone", "resolve_neg", "finfo", "iinfo"]


def promote_types(type1, type2):
    """torch.dtype: the smallest dtype both ``type1`` and ``type2`` convert to without loss of category."""
    return _dtype._FROM_NP[_dtype.promote_types(_dtype.to_np(type1), _dtype.to_np(type2))]


def result_type(tensor1, tensor2):
    """torch.dtype: the dtype an arithmetic op on these tensors / numbers returns."""
    return _dtype._FROM_NP[_dispatch.result_dtype(tensor1, tensor2)]


def can_cast(from_, to):
    """bool: whether torch's casting rules allow ``from_`` to ``to`` (no float to int, no number to bool)."""
    return _dispatch.can_cast(_dtype.to_np(from_), _dtype.to_np(to))


def is_tensor(obj):
    """bool: whether ``obj`` is a tensor."""
    return isinstance(obj, CoreTensor)


def is_floating_point(input):
    """bool: whether ``input``'s dtype is a floating point type."""
    return _dtype._FROM_NP[input.array.dtype].is_floating_point


def is_complex(input):
    """bool: whether ``input``'s dtype is complex."""
    return input.array.dtype.kind == "c"


def is_nonzero(input):
    """bool: the truth value of a one-element tensor."""
    if input.array.size != 1:
        if input.array.size == 0:
            raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.array.reshape(()))


def numel(input):
    """int: the number of elements of ``input``."""
    return input.array.size


def clone(input, *, memory_format=None):
    """Tensor: a copy of ``input`` with its own memory (differentiable)."""
    return input.clone(memory_format=memory_format)


def resolve_neg(input):
    """Tensor: ``input`` itself (vfw sets no negative bit)."""
    return input


# Tensors marked by share_memory_, by id (tensor == compares elementwise); vfw's worker processes get copies.
_SHARED = weakref.WeakValueDictionary()


def _share_memory_(self):
    _SHARED[id(self)] = self
    return self


def _is_shared(self):
    return _SHARED.get(id(self)) is self


TENSOR_METHODS = {"is_nonzero": is_nonzero, "share_memory_": _share_memory_, "is_shared": _is_shared}


class finfo:  # noqa: N801  (torch's name)
    """Machine limits of a floating dtype: ``bits``, ``eps``, ``max``, ``min``, ``tiny``, ``resolution``."""

    def __init__(self, type=None):  # noqa: A002  (torch's argument name)
        d = _dtype.get_default_dtype() if type is None else type
        if not isinstance(d, _dtype.dtype) or not (d.is_floating_point or d.is_complex):
            raise TypeError(f"torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            f"'{d}'")
        info = ml_dtypes.finfo(d.to_real().np)  # numpy's finfo does not know bfloat16
        self.bits = info.bits
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = 10.0 ** -int(info.precision)
        self.dtype = d.to_real().name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:  # noqa: N801
    """Limits of an integer dtype: ``bits``, ``max``, ``min``."""

    def __init__(self, type):  # noqa: A002
        if not isinstance(type, _dtype.dtype) or type.is_floating_point or type.is_complex:
            raise TypeError(f"torch.iinfo() requires an integer input type. Use torch.finfo to handle '{type}'")
        info = np.iinfo(np.uint8 if type.np == np.bool_ else type.np)
        self.bits, self.max, self.min = info.bits, int(info.max), int(info.min)
        self.dtype = type.name

    def __repr__(self):
        # torch prints the limits as C++ streams print a double: six significant digits.
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
