"""Storages in torch's checkpoint format: dtype tables, loaded storages, tensor rebuilding and layout.

A checkpoint keeps each tensor as a view (offset, sizes, strides in elements) of a flat storage of
bytes. On load, every tensor of one storage is a numpy view of one byte buffer, so tensors that
shared memory when saved share it again; on save, tensors whose arrays view one numpy buffer are
written as views of one storage.
"""

import math
import pickle

import numpy as np

from vfw.frontends.torch import _device, _dispatch, _dtype
from vfw.frontends.torch._tensor import Tensor

# torch's typed storage classes (``torch.FloatStorage``...) by dtype; tensors of other dtypes are
# pickled over ``torch.storage.UntypedStorage`` with ``_rebuild_tensor_v3``, which names the dtype.
LEGACY_STORAGE_NAMES = {
    _dtype.float32: "FloatStorage", _dtype.float64: "DoubleStorage", _dtype.float16: "HalfStorage",
    _dtype.bfloat16: "BFloat16Storage", _dtype.bool: "BoolStorage", _dtype.int8: "CharStorage",
    _dtype.uint8: "ByteStorage", _dtype.int16: "ShortStorage", _dtype.int32: "IntStorage",
    _dtype.int64: "LongStorage", _dtype.complex64: "ComplexFloatStorage", _dtype.complex128: "ComplexDoubleStorage",
}


class StorageType:
    """What a checkpoint's ``torch.FloatStorage`` (or ``torch.storage.UntypedStorage``) global stands for.

    Attributes
    ----------
    name : str
        torch's class name.
    dtype : vfw.torch.dtype or None
        The element type (``None`` for untyped storages, whose sizes count bytes).
    """

    __slots__ = ("name", "dtype")

    def __init__(self, name, dtype):
        self.name = name
        self.dtype = dtype

    def __repr__(self):
        return f"<storage type torch.{self.name}>"


STORAGE_TYPES = {name: StorageType(name, dt) for dt, name in LEGACY_STORAGE_NAMES.items()}
UNTYPED = StorageType("UntypedStorage", None)


class UntypedStorage:
    """The bytes of one storage of a loaded checkpoint (torch's ``UntypedStorage``; CPU only).

    A ``map_location`` callable given to ``torch.load`` receives these, with the location string
    the file names; it returns the storage (or ``None`` for the default placement).
    """

    __slots__ = ("_bytes", "_swap")

    def __init__(self, byte_array, swap=False):
        self._bytes = byte_array
        self._swap = swap  # the file's byte order differs: swap on first typed use (when the dtype is known)

    @property
    def device(self):
        """torch.device: the CPU."""
        return _device.CPU

    def nbytes(self):
        """int: the size in bytes."""
        return self._bytes.size

    def size(self):
        """int: the size in bytes."""
        return self._bytes.size

    def cpu(self):
        """This storage (it is on the CPU)."""
        return self

    def cuda(self, device=None, non_blocking=False):
        """Refused: vfw has no CUDA."""
        raise AssertionError("Torch not compiled with CUDA enabled")

    def to(self, device=None, non_blocking=False):
        """This storage for ``device`` 'cpu'; other devices are refused as in a CPU-only torch."""
        _device.check(device)
        return self

    def elements(self, np_dtype, fn):
        """A flat numpy array of ``np_dtype`` over these bytes (no copy), for rebuild function ``fn``."""
        if self._bytes.size % np_dtype.itemsize:
            raise _malformed(fn, f"a storage of {self._bytes.size} bytes does not hold whole {np_dtype} elements")
        elements = self._bytes.view(np_dtype)
        if self._swap:
            elements.byteswap(inplace=True)
            self._swap = False
        return elements

    def __repr__(self):
        return f"<vfw.torch UntypedStorage of {self._bytes.size} bytes>"


class StorageRef:
    """What a persistent id resolves to: a storage, the dtype its record names, whether a tensor used it."""

    __slots__ = ("storage", "dtype", "used")

    def __init__(self, storage, dtype):
        self.storage = storage
        self.dtype = dtype
        self.used = False


# -- rebuilding tensors (the functions a checkpoint names; args come from the file) ---------
def _malformed(fn, what):
    return pickle.UnpicklingError(f"vfw.torch.load: malformed tensor record in the checkpoint ({fn}: {what})")


def _dims(value, fn, what):
    if type(value) is not tuple or any(type(v) is not int or v < 0 for v in value):
        raise _malformed(fn, f"{what} must be a tuple of non-negative ints, got {value!r}")
    return value


def _tensor(ref, offset, size, stride, dtype, requires_grad, fn):
    """A tensor viewing ``ref``'s storage: numpy view over the storage's bytes (shares memory)."""
    if type(ref) is not StorageRef:
        raise _malformed(fn, f"expected a storage, got {type(ref).__name__}")
    if type(offset) is not int or offset < 0:
        raise _malformed(fn, f"storage offset must be a non-negative int, got {offset!r}")
    size, stride = _dims(size, fn, "size"), _dims(stride, fn, "stride")
    if len(size) != len(stride):
        raise _malformed(fn, f"size {size} and stride {stride} differ in length")
    if type(requires_grad) is not bool:
        raise _malformed(fn, f"requires_grad must be a bool, got {requires_grad!r}")
    if type(dtype) is not _dtype.dtype:
        raise _malformed(fn, f"expected a dtype, got {dtype!r}")
    ref.used = True
    flat = ref.storage.elements(dtype.np, fn)
    numel = math.prod(size)
    need = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride)) if numel else 0
    if need > flat.size:
        raise _malformed(fn, f"sizes {list(size)}, strides {list(stride)} and storage offset {offset} need "
                             f"{need} elements, the storage holds {flat.size}")
    item = flat.itemsize
    array = np.ndarray(size, flat.dtype, buffer=flat, offset=offset * item if numel else 0,
                       strides=[s * item for s in stride])
    return _dispatch.wrap(array, requires_grad)


def _hooks_ok(hooks, fn):
    if not isinstance(hooks, dict):
        raise _malformed(fn, f"backward hooks must be a dict, got {type(hooks).__name__}")


def _rebuild_tensor(storage, storage_offset, size, stride):
    """torch._utils._rebuild_tensor: a tensor of the storage's dtype."""
    dtype = storage.dtype if type(storage) is StorageRef else None
    return _tensor(storage, storage_offset, size, stride, dtype, False, "_rebuild_tensor")


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks, metadata=None):
    """torch._utils._rebuild_tensor_v2: a tensor over a typed storage."""
    _hooks_ok(backward_hooks, "_rebuild_tensor_v2")
    dtype = storage.dtype if type(storage) is StorageRef else None
    return _tensor(storage, storage_offset, size, stride, dtype, requires_grad, "_rebuild_tensor_v2")


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks, dtype, metadata=None):
    """torch._utils._rebuild_tensor_v3: a tensor of ``dtype`` over an untyped storage."""
    _hooks_ok(backward_hooks, "_rebuild_tensor_v3")
    return _tensor(storage, storage_offset, size, stride, dtype, requires_grad, "_rebuild_tensor_v3")


def _parameter(data, requires_grad, fn):
    from vfw.frontends.torch.nn.parameter import Parameter  # nn loads the whole layer library: on first use
    if type(data) is not Tensor or type(requires_grad) is not bool:
        raise _malformed(fn, f"expected (Tensor, bool), got ({type(data).__name__}, {type(requires_grad).__name__})")
    return Parameter(data, requires_grad)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    """torch._utils._rebuild_parameter: a ``vfw.torch.nn.Parameter`` sharing ``data``'s memory."""
    _hooks_ok(backward_hooks, "_rebuild_parameter")
    return _parameter(data, requires_grad, "_rebuild_parameter")


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    """torch._utils._rebuild_parameter_with_state: a Parameter with extra Python attributes."""
    _hooks_ok(backward_hooks, "_rebuild_parameter_with_state")
    return set_attributes(_parameter(data, requires_grad, "_rebuild_parameter_with_state"), state)


def _rebuild_from_type_v2(func, new_type, args, state):
    """torch._tensor._rebuild_from_type_v2: ``func(*args)`` (a tensor rebuild function), given attributes.

    Only ``torch.Tensor`` and ``torch.nn.Parameter`` are accepted as ``new_type``.
    """
    if not any(func is f for f in TENSOR_REBUILDERS) or type(args) is not tuple:
        raise _malformed("_rebuild_from_type_v2", f"cannot rebuild with {func!r}")
    tensor = func(*args)
    if new_type is PARAMETER:
        tensor = _parameter(tensor, tensor.requires_grad, "_rebuild_from_type_v2")
    elif new_type is not Tensor:
        raise _malformed("_rebuild_from_type_v2", f"unsupported tensor type {new_type!r}")
    return set_attributes(tensor, state)


def set_attributes(obj, state):
    """Set the attributes a checkpoint gives an object (a dict; torch also allows ``(dict, slots)``).

    Names the object's class already defines (methods, properties, slots) are refused, so a file
    can only add plain attributes such as a state dict's ``_metadata``.
    """
    parts = state if type(state) is tuple and len(state) == 2 else (state,)
    if any(part is not None and type(part) is not dict for part in parts):
        raise pickle.UnpicklingError(f"vfw.torch.load: object state must be a dict, got {type(state).__name__}")
    for name, value in [item for part in parts if part for item in part.items()]:
        if type(name) is not str or name.startswith("__") or hasattr(type(obj), name):
            raise pickle.UnpicklingError(f"vfw.torch.load: refusing to set attribute {name!r} of a "
                                         f"{type(obj).__name__} from the checkpoint")
        setattr(obj, name, value)
    return obj


class _ParameterMarker:
    """The ``torch.nn.Parameter`` global: a type argument of ``_rebuild_from_type_v2``."""

    def __repr__(self):
        return "<class 'torch.nn.parameter.Parameter'>"


PARAMETER = _ParameterMarker()
TENSOR_REBUILDERS = (_rebuild_tensor, _rebuild_tensor_v2, _rebuild_tensor_v3)
REBUILD_FUNCTIONS = {f.__name__: f for f in TENSOR_REBUILDERS + (_rebuild_parameter, _rebuild_parameter_with_state)}


# -- saving: where a tensor's elements live ---------------------------------------------------
def memory_root(array):
    """The ndarray at the root of ``array``'s chain of numpy views (whose buffer it views)."""
    root = array
    while True:
        base = root.base
        if isinstance(base, np.ndarray):
            root = base
        elif isinstance(getattr(base, "base", None), np.ndarray) and hasattr(base, "__array_interface__"):
            root = base.base  # numpy's as_strided/broadcast_to keep their source behind an interface object
        else:
            return root


def _address(array):
    return array.__array_interface__["data"][0]


def storage_layout(array):
    """Where ``array``'s elements lie in the buffer it views, torch-style.

    Returns
    -------
    (root, offset, strides) or None
        ``root``: the contiguous ndarray whose bytes are the storage; ``offset`` and ``strides``
        in elements of ``array``'s dtype. ``None`` when the view cannot be described that way
        (negative or misaligned strides, a non-contiguous root): the caller saves a contiguous copy.
    """
    root = memory_root(array)
    if not (root.flags.c_contiguous or root.flags.f_contiguous):
        return None
    item = array.itemsize
    start = _address(array) - _address(root)
    if start % item or root.nbytes % item or any(s < 0 or s % item for s in array.strides):
        return None
    end = start + (sum((n - 1) * s for n, s in zip(array.shape, array.strides)) + item if array.size else 0)
    if start < 0 or end > root.nbytes:
        return None
    return root, start // item, tuple(s // item for s in array.strides)


def storage_bytes(root):
    """The bytes of a contiguous ndarray in memory order, as a flat uint8 array (no copy)."""
    return root.ravel(order="K").view(np.uint8)
