"""Storages: ``Tensor.untyped_storage()`` (bytes), ``Tensor.storage()`` (the deprecated ``TypedStorage``) and
``torch.is_storage``.

A storage is the whole memory block a tensor's array lives in: the root of its numpy ``.base`` chain, seen as bytes.
Views of one base therefore share one storage (same ``data_ptr()``), and writes through a storage show in every
tensor over that memory, as far as numpy shares memory (results vfw copies, such as ``real``/``imag``, do not).
"""

import warnings

import numpy as np

from vfw.frontends.torch import _dtype
from vfw.frontends.torch._device import CPU
from vfw.frontends.torch._tensor import _TYPE_NAMES

__all__ = ["UntypedStorage", "TypedStorage", "is_storage"]


def _root_bytes(array):
    """The memory block under ``array`` as a flat uint8 array sharing it."""
    root = array
    while getattr(root, "base", None) is not None:  # numpy's as_strided hides the array under a holder
        root = root.base
    if isinstance(root, np.ndarray):
        return root.reshape(-1, order="A").view(np.uint8)  # an owning array is contiguous: this is a view
    return np.frombuffer(root, np.uint8)


class UntypedStorage:
    """The bytes of a tensor's memory block (``size()`` and ``nbytes()`` count bytes; items are ints 0..255)."""

    def __init__(self, data):
        self._bytes = data

    device = CPU

    def size(self):
        return self._bytes.shape[0]

    nbytes = size
    __len__ = size

    def element_size(self):
        return 1

    def data_ptr(self):
        return self._bytes.ctypes.data

    def tolist(self):
        return self._bytes.tolist()

    def __getitem__(self, index):
        return self._bytes[index].tolist() if isinstance(index, slice) else int(self._bytes[index])

    def __setitem__(self, index, value):
        self._bytes[index] = value

    def untyped(self):
        return self

    def __repr__(self):
        body = "\n".join(f" {b}" for b in self._bytes.tolist())
        return f"{body}\n[torch.storage.UntypedStorage(device=cpu) of size {self.size()}]"


class TypedStorage:
    """The deprecated typed view of a memory block: items of ``dtype`` (``size()`` counts them)."""

    def __init__(self, untyped, dtype):
        self._untyped_storage = untyped
        self.dtype = dtype
        np_dtype = _dtype.to_np(dtype)
        usable = untyped._bytes[:untyped.size() - untyped.size() % np_dtype.itemsize]
        self._items = usable.view(np_dtype)

    device = CPU

    def size(self):
        return self._items.shape[0]

    __len__ = size

    def nbytes(self):
        return self._untyped_storage.nbytes()

    def element_size(self):
        return self._items.itemsize

    def data_ptr(self):
        return self._untyped_storage.data_ptr()

    def tolist(self):
        return self._items.tolist()

    def __getitem__(self, index):
        return self._items[index].tolist()

    def __setitem__(self, index, value):
        self._items[index] = value

    def untyped(self):
        return self._untyped_storage

    def type(self):
        return _TYPE_NAMES[self._items.dtype].replace("Tensor", "Storage")

    def __repr__(self):
        body = "\n".join(f" {v}" for v in self._items.tolist())
        return f"{body}\n[torch.storage.TypedStorage(dtype={self.dtype}, device=cpu) of size {self.size()}]"


def is_storage(obj):
    """bool: whether ``obj`` is a storage (typed or untyped)."""
    return isinstance(obj, (UntypedStorage, TypedStorage))


def _untyped_storage(self):
    """The tensor's memory block as an ``UntypedStorage`` (shared by all views of one base)."""
    return UntypedStorage(_root_bytes(self.array))


def _storage(self):
    """The tensor's memory block as a ``TypedStorage`` of its dtype (deprecated, with torch's warning)."""
    warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
                  "storage class. This should only matter to you if you are using storages directly.  To access "
                  "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
                  UserWarning, stacklevel=2)
    return TypedStorage(_untyped_storage(self), self.dtype)


TENSOR_METHODS = {"untyped_storage": _untyped_storage, "storage": _storage}
