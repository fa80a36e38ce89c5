"""Writing a checkpoint's ``data.pkl``: pickle opcodes naming torch's globals, without torch.

The standard pickler looks every global up by importing its module, which would need torch; this
writer emits the opcodes itself. It uses only the opcodes of pickle protocol 2 (under the header
of the requested protocol), the subset torch's ``weights_only`` unpickler reads, and only the
globals that unpickler allows, so real ``torch.load(f, weights_only=True)`` reads every file
holding only tensors and containers. Instances of the user's own classes are written as pickle
writes them (their class, NEWOBJ or REDUCE, their state); loading them needs the class listed
with ``torch.serialization.add_safe_globals``, in torch as in vfw.
"""

import copyreg
import importlib
import pickle
import struct
import types
from collections import Counter, OrderedDict

import numpy as np

from vfw.frontends.torch import _config, _dtype
from vfw.frontends.torch._device import device
from vfw.frontends.torch._size import Size
from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.serialization import _sparse_records, _storage

_BATCH = 1000  # items per APPENDS/SETITEMS, as pickle does
_SUPPORTED = ("tensors, Parameters, numbers, strings, bytes, None, torch.Size, dtypes, devices and dict/OrderedDict/"
              "Counter/list/tuple/set containers of those")


class CheckpointPickler:
    """Pickles one object graph; tensors become persistent ids of storages collected in ``records``.

    Parameters
    ----------
    protocol : int
        The pickle protocol written in the header (2 to 5).

    Attributes
    ----------
    records : list of (str, numpy.ndarray)
        Each storage's key and its bytes (a flat uint8 array), in key order.
    """

    def __init__(self, protocol):
        self.protocol = protocol
        self.out = bytearray()
        self.memo = {}  # key -> (memo index, the object, kept alive so its id stays unique)
        self.storages = {}  # id(root ndarray) -> (key, root, dtype)
        self.records = []
        self.in_progress = set()  # ids of tuples being written (a tuple that contains itself is refused)
        self.builtins = "__builtin__" if protocol < 3 else "builtins"
        self.dispatch = {
            type(None): self._none, bool: self._bool, int: self._int, float: self._float, str: self._str,
            bytes: self._bytes, bytearray: self._bytearray, complex: self._complex, tuple: self._tuple,
            list: self._list, dict: self._dict, OrderedDict: self._ordered_dict, Counter: self._counter,
            set: self._set, Size: self._size, _dtype.dtype: self._dtype, device: self._device,
        }

    def dump(self, obj):
        """bytes: the pickle of ``obj``."""
        self.out += pickle.PROTO + bytes([self.protocol])
        self.save(obj)
        self.out += pickle.STOP
        return bytes(self.out)

    def save(self, obj):
        write = self.dispatch.get(type(obj))
        if write is not None:
            write(obj)
        elif isinstance(obj, Tensor):
            self._tensor(obj) if obj.layout is _config.strided else self._sparse_tensor(obj)
        elif isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
            self._named_global(obj)
        elif not isinstance(obj, (np.ndarray, np.generic)) and not hasattr(obj, "state_dict"):
            self._user_object(obj)
        else:
            hint = "; save module.state_dict() instead" if hasattr(obj, "state_dict") else ""
            raise TypeError(f"vfw.torch.save cannot save an object of type {type(obj).__module__}."
                            f"{type(obj).__qualname__}: checkpoints hold {_SUPPORTED}{hint}")

    # -- memo --------------------------------------------------------------------------------
    def _put(self, key, obj):
        index = len(self.memo)
        self.memo[key] = (index, obj)
        self.out += pickle.BINPUT + bytes([index]) if index < 256 else pickle.LONG_BINPUT + struct.pack("<I", index)

    def _get(self, key):
        """Emit a memo read for ``key`` if it was written; returns whether it was."""
        entry = self.memo.get(key)
        if entry is None:
            return False
        index = entry[0]
        self.out += pickle.BINGET + bytes([index]) if index < 256 else pickle.LONG_BINGET + struct.pack("<I", index)
        return True

    def _global(self, module, name):
        key = ("global", module, name)
        if not self._get(key):
            self.out += pickle.GLOBAL + f"{module}\n{name}\n".encode()
            self._put(key, None)

    def _reduce(self, module, name, args):
        """``module.name(*args)``: the global, the argument tuple, REDUCE."""
        self._global(module, name)
        self._items(args, pickle.MARK, pickle.TUPLE)
        self.out += pickle.REDUCE

    def _items(self, items, start, end):
        self.out += start
        for item in items:
            self.save(item)
        self.out += end

    # -- scalars -----------------------------------------------------------------------------
    def _none(self, obj):
        self.out += pickle.NONE

    def _bool(self, obj):
        self.out += pickle.NEWTRUE if obj else pickle.NEWFALSE

    def _int(self, obj):
        if 0 <= obj < 256:
            self.out += pickle.BININT1 + bytes([obj])
        elif 0 <= obj < 65536:
            self.out += pickle.BININT2 + struct.pack("<H", obj)
        elif -2 ** 31 <= obj < 2 ** 31:
            self.out += pickle.BININT + struct.pack("<i", obj)
        else:
            data = obj.to_bytes((obj.bit_length() + 8) // 8, "little", signed=True)
            self.out += (pickle.LONG1 + bytes([len(data)]) if len(data) < 256 else
                         pickle.LONG4 + struct.pack("<i", len(data))) + data

    def _float(self, obj):
        self.out += pickle.BINFLOAT + struct.pack(">d", obj)

    def _str(self, obj):
        if not self._get(("str", obj)):
            data = obj.encode("utf-8", "surrogatepass")
            self.out += pickle.BINUNICODE + struct.pack("<I", len(data)) + data
            self._put(("str", obj), obj)

    def _bytes(self, obj):
        if not self._get(("bytes", obj)):
            self._reduce("_codecs", "encode", (obj.decode("latin-1"), "latin1"))
            self._put(("bytes", obj), obj)

    def _bytearray(self, obj):
        if not self._get(("id", id(obj))):
            self._reduce(self.builtins, "bytearray", (bytes(obj).decode("latin-1"), "latin-1"))
            self._put(("id", id(obj)), obj)

    def _complex(self, obj):
        self._reduce(self.builtins, "complex", (obj.real, obj.imag))

    # -- containers --------------------------------------------------------------------------
    def _tuple(self, obj):
        if not obj:
            self.out += pickle.EMPTY_TUPLE
            return
        if self._get(("id", id(obj))):
            return
        if id(obj) in self.in_progress:
            raise ValueError("vfw.torch.save cannot save a tuple that contains itself")
        self.in_progress.add(id(obj))
        if len(obj) <= 3:
            self._items(obj, b"", (pickle.TUPLE1, pickle.TUPLE2, pickle.TUPLE3)[len(obj) - 1])
        else:
            self._items(obj, pickle.MARK, pickle.TUPLE)
        self.in_progress.discard(id(obj))
        self._put(("id", id(obj)), obj)

    def _batched(self, items, one, many):
        for start in range(0, len(items), _BATCH):
            batch = items[start:start + _BATCH]
            if len(batch) == 1:
                self._items(batch, b"", one)
            else:
                self._items(batch, pickle.MARK, many)

    def _list(self, obj):
        if not self._get(("id", id(obj))):
            self.out += pickle.EMPTY_LIST
            self._put(("id", id(obj)), obj)
            self._batched(list(obj), pickle.APPEND, pickle.APPENDS)

    def _dict_items(self, obj):
        for start in range(0, len(obj), _BATCH):
            batch = list(obj.items())[start:start + _BATCH]
            self.out += pickle.MARK
            for key, value in batch:
                self.save(key)
                self.save(value)
            self.out += pickle.SETITEMS

    def _dict(self, obj):
        if not self._get(("id", id(obj))):
            self.out += pickle.EMPTY_DICT
            self._put(("id", id(obj)), obj)
            self._dict_items(obj)

    def _ordered_dict(self, obj):
        """An OrderedDict, with its attributes (a state dict's ``_metadata``) as its state."""
        if not self._get(("id", id(obj))):
            self._reduce("collections", "OrderedDict", ())
            self._put(("id", id(obj)), obj)
            self._dict_items(obj)
            if vars(obj):
                self.save(dict(vars(obj)))
                self.out += pickle.BUILD

    def _counter(self, obj):
        if not self._get(("id", id(obj))):
            self._reduce("collections", "Counter", (dict(obj),))
            self._put(("id", id(obj)), obj)

    def _set(self, obj):
        if not self._get(("id", id(obj))):
            self._reduce(self.builtins, "set", (list(obj),))
            self._put(("id", id(obj)), obj)

    def _named_global(self, obj):
        """A class or function, by its module and qualified name (which must lead back to it, as in pickle)."""
        module, qualname = obj.__module__, obj.__qualname__
        if "<locals>" in qualname:  # pickle's own error for a function or class defined inside a function
            raise AttributeError(f"Can't pickle local object {qualname!r}")
        try:
            found = importlib.import_module(module)
            for part in qualname.split("."):
                found = getattr(found, part)
        except (ImportError, AttributeError):
            found = None
        if found is not obj:
            raise pickle.PicklingError(f"Can't pickle {obj!r}: attribute lookup {qualname} on {module} failed")
        self._global(module, qualname)

    def _user_object(self, obj):
        """An instance of a user class, as pickle's ``__reduce_ex__`` describes it."""
        if self._get(("id", id(obj))):
            return
        reduced = obj.__reduce_ex__(2)
        if isinstance(reduced, str) or not isinstance(reduced, tuple) or len(reduced) > 5 or any(reduced[3:]):
            raise TypeError(f"vfw.torch.save cannot save an object of type {type(obj).__module__}."
                            f"{type(obj).__qualname__}: its __reduce_ex__ gives list/dict items or a global name")
        function, args = reduced[:2]
        state = reduced[2] if len(reduced) > 2 else None
        if function is copyreg.__newobj__:  # cls.__new__(cls, *args): pickle's NEWOBJ
            self.save(args[0])
            self._items(args[1:], pickle.MARK, pickle.TUPLE)
            self.out += pickle.NEWOBJ
        else:
            self.save(function)
            self._items(args, pickle.MARK, pickle.TUPLE)
            self.out += pickle.REDUCE
        self._put(("id", id(obj)), obj)
        if state is not None:
            self.save(state)
            self.out += pickle.BUILD

    def _size(self, obj):
        self._reduce("torch", "Size", (tuple(obj),))

    def _dtype(self, obj):
        self._global("torch", obj.name)

    def _device(self, obj):
        self._reduce("torch", "device", (str(obj),))

    # -- tensors -----------------------------------------------------------------------------
    def _tensor(self, t):
        """A tensor as torch pickles it: a rebuild call over a persistent storage id."""
        from vfw.frontends.torch.nn.parameter import Parameter
        if self._get(("id", id(t))):
            return
        state = vars(t)
        if type(t) is Parameter:
            self._global("torch._utils", "_rebuild_parameter_with_state" if state else "_rebuild_parameter")
            self.out += pickle.MARK
            self._rebuild_call(t, False)
            self.save(t.requires_grad)
            self._reduce("collections", "OrderedDict", ())
            if state:
                self.save(dict(state))
            self.out += pickle.TUPLE + pickle.REDUCE
        elif type(t) is not Tensor:
            raise TypeError(f"vfw.torch.save cannot save a tensor subclass {type(t).__qualname__}: checkpoints hold "
                            "torch.Tensor and torch.nn.Parameter")
        elif state:  # a tensor with Python attributes: torch's _rebuild_from_type_v2(fn, Tensor, args, state)
            self._global("torch._tensor", "_rebuild_from_type_v2")
            self.out += pickle.MARK
            self._global("torch._utils", self._rebuild_name(t))
            self._global("torch", "Tensor")
            self._rebuild_args(t, t.requires_grad)
            self.save(dict(state))
            self.out += pickle.TUPLE + pickle.REDUCE
        else:
            self._rebuild_call(t, t.requires_grad)
        self._put(("id", id(t)), t)

    def _sparse_tensor(self, t):
        """torch's record: ``_rebuild_sparse_tensor(_get_layout(name), parts)``."""
        if self._get(("id", id(t))):
            return
        layout, parts = _sparse_records.save_parts(t)
        self._global("torch._utils", "_rebuild_sparse_tensor")
        self.out += pickle.MARK
        self._reduce("torch.serialization", "_get_layout", (layout,))
        self._items(parts, pickle.MARK, pickle.TUPLE)
        self.out += pickle.TUPLE + pickle.REDUCE
        self._put(("id", id(t)), t)

    @staticmethod
    def _rebuild_name(t):
        return "_rebuild_tensor_v2" if t.dtype in _storage.LEGACY_STORAGE_NAMES else "_rebuild_tensor_v3"

    def _rebuild_call(self, t, requires_grad):
        self._global("torch._utils", self._rebuild_name(t))
        self._rebuild_args(t, requires_grad)
        self.out += pickle.REDUCE

    def _rebuild_args(self, t, requires_grad):
        """(storage, offset, size, stride, requires_grad, hooks[, dtype]) as one tuple."""
        dtype = t.dtype
        typed = dtype in _storage.LEGACY_STORAGE_NAMES
        key, offset, strides, storage_bytes = self._storage(t.array)
        self.out += pickle.MARK + pickle.MARK
        self.save("storage")
        if typed:
            self._global("torch", _storage.LEGACY_STORAGE_NAMES[dtype])
        else:
            self._global("torch.storage", "UntypedStorage")
        self.save(key)
        self.save("cpu")
        self.save(storage_bytes // dtype.itemsize if typed else storage_bytes)
        self.out += pickle.TUPLE + pickle.BINPERSID
        for item in (offset, tuple(t.array.shape), strides, requires_grad):
            self.save(item)
        self._reduce("collections", "OrderedDict", ())
        if not typed:
            self._dtype(dtype)
        self.out += pickle.TUPLE

    def _storage(self, array):
        """(key, offset, strides, storage size in bytes) of the storage holding ``array``'s elements."""
        layout = _storage.storage_layout(array)
        if layout is None:  # not a plain view of one buffer: save a contiguous copy
            array = np.array(array, order="C")
            layout = _storage.storage_layout(array)
        root, offset, strides = layout
        entry = self.storages.get(id(root))
        if entry is None:
            entry = self.storages[id(root)] = (str(len(self.storages)), root, array.dtype)
            self.records.append((entry[0], _storage.storage_bytes(root)))
        elif entry[2] != array.dtype:
            raise RuntimeError("Cannot save multiple tensors or storages that view the same data as different types")
        return entry[0], offset, strides, root.nbytes

