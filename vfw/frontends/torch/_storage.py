"""Storages: ``Tensor.untyped_storage()`` (bytes), ``Tensor.storage()`` (the deprecated ``TypedStorage``) and
``torch.is_storage``.

A storage is the whole memory block a tensor's array lives in: the root of its numpy ``.base`` chain, seen as bytes.
Views of one base therefore share one storage (same ``data_ptr()``), and writes through a storage show in every
tensor over that memory, as far as numpy shares memory (results vfw copies, such as ``real``/``imag``, do not).
"""

import numpy as np

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _device, _dtype
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


_DEPRECATED = ("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
               "storage class. This should only matter to you if you are using storages directly.  To access "
               "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()")
_INVALID_ARGUMENTS = ("TypedStorage.__init__ received an invalid combination of arguments. Expected one of:\n"
                      " * (*, torch.device device, torch.dtype dtype)\n"
                      " * (int size, *, torch.device device, torch.dtype dtype)\n"
                      " * (Sequence data, *, torch.device device, torch.dtype dtype)\n"
                      " * (*, UntypedStorage wrap_storage, torch.dtype dtype)\n")


_warned = [False]  # torch warns of TypedStorage's deprecation once per process


def _warn_deprecated():
    if not _warned[0]:
        _warned[0] = True
        warn_for_user(_DEPRECATED, UserWarning)


class TypedStorage:
    """The deprecated typed view of a memory block: items of ``dtype`` (``size()`` counts them).

    Parameters
    ----------
    size_or_data : int or sequence, optional
        The number of items of a new (zero-filled) storage, or the items themselves; none: an empty storage.
    dtype : torch.dtype, optional
        The items' dtype (default: ``torch.get_default_dtype()``).
    device : torch.device or str, optional
        Only the CPU.
    wrap_storage : UntypedStorage, optional
        Existing bytes to view as items of ``dtype`` instead (no positional argument then).
    """

    def __init__(self, *size_or_data, dtype=None, device=None, wrap_storage=None):
        _warn_deprecated()
        _device.check(device)
        dtype = _dtype.get_default_dtype() if dtype is None else dtype
        if wrap_storage is not None:
            if size_or_data:
                raise RuntimeError("No positional arguments should be given when using 'wrap_storage'")
            self._wrap(wrap_storage, dtype)
            return
        if len(size_or_data) > 1:
            raise RuntimeError(_INVALID_ARGUMENTS + "Too many positional arguments")
        np_dtype = _dtype.to_np(dtype)
        given = size_or_data[0] if size_or_data else 0
        if isinstance(given, (int, np.integer)) and not isinstance(given, bool):
            items = np.zeros(int(given), np_dtype)  # torch leaves new storage uninitialized; vfw zeroes it
        elif isinstance(given, (list, tuple, range)):
            items = np.array(given, np_dtype).reshape(-1)
        else:
            raise TypeError(_INVALID_ARGUMENTS + f"Argument type not recognized: {type(given)}")
        self._wrap(UntypedStorage(items.view(np.uint8)), dtype)

    def _wrap(self, untyped, dtype):
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
    _warn_deprecated()
    typed = TypedStorage.__new__(TypedStorage)  # (the constructor would warn a second time)
    typed._wrap(_untyped_storage(self), self.dtype)
    return typed


TENSOR_METHODS = {"untyped_storage": _untyped_storage, "storage": _storage}
