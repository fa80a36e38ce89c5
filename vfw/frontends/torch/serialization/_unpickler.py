"""A pickle interpreter that can only build data: vfw's replacement for unpickling checkpoints.

``pickle.load`` lets a file call any importable function. This interpreter runs the opcodes
itself (decoded by ``pickletools.genops``) and resolves a global only from a fixed table: tensor,
storage and Parameter rebuild functions, ``OrderedDict``/``Counter``, ``set``, ``bytearray``,
``complex``, ``torch.Size``, ``torch.device`` and the dtypes. Each callable in the table checks
its arguments. Beyond it, only the classes and functions the user listed with
``torch.serialization.add_safe_globals`` can be named, instantiated, called or given state, so a
file cannot run code the user did not allow, whatever ``weights_only`` says.
"""

import codecs
import pickle
import pickletools
from collections import Counter, OrderedDict

from vfw.frontends.torch import _dtype
from vfw.frontends.torch._device import device
from vfw.frontends.torch._size import Size
from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.serialization import _safe_globals, _sparse_records, _storage

_POLICY = ("vfw.torch.load never unpickles arbitrary Python objects (weights_only=False does not change that): it "
           "rebuilds only tensors, Parameters, torch.Size, dtypes, devices, numbers, strings, bytes and plain "
           "containers (dict, OrderedDict, Counter, list, tuple, set), plus the classes and functions listed with "
           "torch.serialization.add_safe_globals.")


def refused(detail):
    """The ``pickle.UnpicklingError`` for a file vfw will not unpickle, in torch's words."""
    return pickle.UnpicklingError(f"Weights only load failed. {_POLICY}\nWeightsUnpickler error: {detail}")


# -- what a file may name, and how each callable is called ----------------------------------
def _check(ok, name, args):
    if not ok:
        raise refused(f"malformed pickle: unexpected arguments to {name}: {', '.join(type(a).__name__ for a in args)}")


def _ordered_dict(*args):
    _check(not args or (len(args) == 1 and type(args[0]) in (list, dict)), "OrderedDict", args)
    return OrderedDict(*args)


def _counter(*args):
    _check(not args or (len(args) == 1 and type(args[0]) is dict), "Counter", args)
    return Counter(*args)


def _set_of(kind):
    def build(*args):
        _check(not args or (len(args) == 1 and type(args[0]) in (list, tuple, set)), kind.__name__, args)
        return kind(*args)
    return build


def _latin1(encoding):
    return type(encoding) is str and codecs.lookup(encoding).name == "iso8859-1"


def _bytearray(*args):
    _check(not args or (len(args) == 1 and type(args[0]) is bytes)
           or (len(args) == 2 and type(args[0]) is str and _latin1(args[1])), "bytearray", args)
    return bytearray(*args)


def _complex(*args):
    _check(len(args) <= 2 and all(type(a) in (int, float) for a in args), "complex", args)
    return complex(*args)


def _encode(*args):
    _check(len(args) == 2 and type(args[0]) is str and _latin1(args[1]), "_codecs.encode", args)
    return args[0].encode("latin-1")


def _size(*args):
    _check(len(args) == 1 and type(args[0]) in (tuple, list) and all(type(a) is int for a in args[0]), "Size", args)
    return Size(args[0])


def _device(*args):
    _check(1 <= len(args) <= 2 and type(args[0]) is str and (len(args) == 1 or type(args[1]) in (int, type(None))),
           "device", args)
    return device(*args)


def _tables():
    """(globals a file may name, the safe call for each callable one), keyed by (module, name) / id."""
    named = {
        ("collections", "OrderedDict"): (OrderedDict, _ordered_dict),
        ("collections", "Counter"): (Counter, _counter),
        ("builtins", "set"): (set, _set_of(set)),
        ("builtins", "frozenset"): (frozenset, _set_of(frozenset)),
        ("builtins", "bytearray"): (bytearray, _bytearray),
        ("builtins", "complex"): (complex, _complex),
        ("_codecs", "encode"): (codecs.encode, _encode),
        ("torch", "Size"): (Size, _size),
        ("torch", "device"): (device, _device),
        ("torch", "Tensor"): (Tensor, None),
        ("torch.nn.parameter", "Parameter"): (_storage.PARAMETER, None),
        ("torch._tensor", "_rebuild_from_type_v2"): (_storage._rebuild_from_type_v2,) * 2,
        ("torch.storage", "UntypedStorage"): (_storage.UNTYPED, None),
        ("torch._utils", "_rebuild_sparse_tensor"): (_sparse_records.rebuild_sparse_tensor,) * 2,
        ("torch.serialization", "_get_layout"): (_sparse_records.get_layout,) * 2,
    }
    named.update({("torch._utils", n): (f, f) for n, f in _storage.REBUILD_FUNCTIONS.items()})
    named.update({("torch", n): (t, None) for n, t in _storage.STORAGE_TYPES.items()})
    named.update({("torch", d.name): (d, None) for d in _dtype.ALL})
    allowed = {key: value for key, (value, _) in named.items()}
    calls = {id(value): call for value, call in named.values() if call is not None}
    return allowed, calls


_ALLOWED, _CALLS = _tables()
ALLOWED_NAMES = frozenset(f"{module}.{name}" for module, name in _ALLOWED)  # "module.name" of the default table
_RENAMED_MODULES = {"__builtin__": "builtins"}  # Python 2 names pickle protocol 2 writes


def _global(module, name):
    module = _RENAMED_MODULES.get(module, module)
    try:
        return _ALLOWED[module, name]
    except (KeyError, TypeError):
        pass
    listed = _safe_globals.lookup(f"{module}.{name}") if type(module) is str and type(name) is str else None
    if listed is None:
        raise refused(f"Unsupported global: GLOBAL {module}.{name} was not an allowed global by default. Please use "
                      f"`torch.serialization.add_safe_globals([{module}.{name}])` or the "
                      f"`torch.serialization.safe_globals([{module}.{name}])` context manager to allowlist this "
                      f"global if you trust this class/function.")
    return listed


def _set_listed_state(target, state):
    """BUILD on an instance of a user-listed class: its ``__setstate__``, else ``__dict__`` and slots."""
    if hasattr(target, "__setstate__"):
        target.__setstate__(state)
        return
    slots = None
    if type(state) is tuple and len(state) == 2:
        state, slots = state
    if state is not None:
        if type(state) is not dict:
            raise refused(f"malformed pickle: the state of a {type(target).__name__} must be a dict")
        target.__dict__.update(state)
    if slots is not None:
        if type(slots) is not dict:
            raise refused(f"malformed pickle: the slot state of a {type(target).__name__} must be a dict")
        for key, value in slots.items():
            setattr(target, key, value)


# -- the interpreter ---------------------------------------------------------------------------
_PY2_STRINGS = frozenset({"STRING", "BINSTRING", "SHORT_BINSTRING"})
_CONSTANTS = frozenset({"INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4", "FLOAT", "BINFLOAT",
                        "UNICODE", "BINUNICODE", "SHORT_BINUNICODE", "BINUNICODE8"})
_BYTES = frozenset({"BINBYTES", "SHORT_BINBYTES", "BINBYTES8"})
_LITERALS = {"NONE": None, "NEWTRUE": True, "NEWFALSE": False}
_EMPTY = {"EMPTY_TUPLE": tuple, "EMPTY_LIST": list, "EMPTY_DICT": dict, "EMPTY_SET": set}
_TUPLE_N = {"TUPLE1": 1, "TUPLE2": 2, "TUPLE3": 3}
_PUTS = frozenset({"PUT", "BINPUT", "LONG_BINPUT"})
_GETS = frozenset({"GET", "BINGET", "LONG_BINGET"})
_DICTS = (dict, OrderedDict, Counter)


class _Machine:
    """The pickle virtual machine's stack, marks and memo, for one pickle."""

    def __init__(self, persistent_load, encoding):
        self.stack, self.marks, self.memo = [], [], {}
        self.persistent_load = persistent_load
        self.encoding = encoding

    def pop(self):
        if len(self.stack) <= (self.marks[-1] if self.marks else 0):
            raise refused("malformed pickle: stack underflow")
        return self.stack.pop()

    def top(self):
        value = self.pop()
        self.stack.append(value)
        return value

    def pop_mark(self):
        if not self.marks:
            raise refused("malformed pickle: no MARK")
        start = self.marks.pop()
        items = self.stack[start:]
        del self.stack[start:]
        return items

    def run(self, name, arg):
        """Execute one opcode; returns the result at STOP, else None."""
        push = self.stack.append
        if name in _CONSTANTS:
            push(arg)
        elif name in _LITERALS:
            push(_LITERALS[name])
        elif name in _EMPTY:
            push(_EMPTY[name]())
        elif name in _PY2_STRINGS:  # Python 2 ``str``: decoded as the ``encoding`` argument says
            raw = arg.encode("latin-1")
            push(raw if self.encoding == "bytes" else raw.decode(self.encoding))
        elif name in _BYTES:
            push(bytes(arg))
        elif name == "BYTEARRAY8":
            push(bytearray(arg))
        elif name == "MARK":
            self.marks.append(len(self.stack))
        elif name in _TUPLE_N:
            items = [self.pop() for _ in range(_TUPLE_N[name])]
            push(tuple(reversed(items)))
        elif name == "TUPLE":
            push(tuple(self.pop_mark()))
        elif name == "LIST":
            push(self.pop_mark())
        elif name == "DICT":
            items = self.pop_mark()
            push(self._filled({}, items))
        elif name == "FROZENSET":
            push(self._hashed(frozenset, self.pop_mark()))
        elif name in ("APPEND", "APPENDS"):
            items = [self.pop()] if name == "APPEND" else self.pop_mark()
            target = self.top()
            if type(target) is not list:
                raise refused(f"malformed pickle: {name} to a {type(target).__name__}")
            target.extend(items)
        elif name in ("SETITEM", "SETITEMS"):
            items = [self.pop(), self.pop()][::-1] if name == "SETITEM" else self.pop_mark()
            self._filled(self.top(), items)
        elif name == "ADDITEMS":
            items = self.pop_mark()
            target = self.top()
            if type(target) is not set:
                raise refused(f"malformed pickle: ADDITEMS to a {type(target).__name__}")
            target |= self._hashed(set, items)
        elif name == "POP":
            if self.marks and len(self.stack) == self.marks[-1]:
                self.pop_mark()
            else:
                self.pop()
        elif name == "POP_MARK":
            self.pop_mark()
        elif name == "DUP":
            push(self.top())
        elif name in _PUTS:
            self.memo[arg] = self.top()
        elif name == "MEMOIZE":
            self.memo[len(self.memo)] = self.top()
        elif name in _GETS:
            if arg not in self.memo:
                raise refused(f"malformed pickle: memo key {arg} was never stored")
            push(self.memo[arg])
        elif name == "GLOBAL":
            module, _, qualname = arg.partition(" ")
            push(_global(module, qualname))
        elif name == "STACK_GLOBAL":
            qualname, module = self.pop(), self.pop()
            push(_global(module, qualname))
        elif name == "REDUCE":
            args, fn = self.pop(), self.pop()
            push(self._call(fn, args))
        elif name in ("NEWOBJ", "NEWOBJ_EX"):
            kwargs = self.pop() if name == "NEWOBJ_EX" else {}
            args, cls = self.pop(), self.pop()
            push(self._new_listed(cls, args, kwargs))
        elif name == "BUILD":
            state = self.pop()
            target = self.top()
            if _safe_globals.is_listed(type(target)):
                _set_listed_state(target, state)
            elif type(target) in (OrderedDict, Counter) or isinstance(target, Tensor):
                _storage.set_attributes(target, state)
            else:
                raise refused(f"malformed pickle: cannot set the state of a {type(target).__name__}")
        elif name in ("PERSID", "BINPERSID"):
            push(self.persistent_load(arg if name == "PERSID" else self.pop()))
        elif name == "STOP":
            return self.pop()
        elif name not in ("PROTO", "FRAME"):
            raise refused(f"Unsupported operand {name}")
        return None

    @staticmethod
    def _new_listed(cls, args, kwargs):
        """``cls.__new__(cls, *args, **kwargs)`` for a class the user listed (NEWOBJ / NEWOBJ_EX)."""
        if not (isinstance(cls, type) and _safe_globals.is_listed(cls)):
            raise refused(f"malformed pickle: cannot instantiate {getattr(cls, '__name__', type(cls).__name__)} "
                          f"(only classes listed with torch.serialization.add_safe_globals)")
        if type(args) is not tuple or type(kwargs) is not dict:
            raise refused("malformed pickle: NEWOBJ arguments must be a tuple and a dict")
        return cls.__new__(cls, *args, **kwargs)

    @staticmethod
    def _call(fn, args):
        call = _CALLS.get(id(fn))  # the table keeps its objects alive, so an id match is that object
        if call is None and _safe_globals.is_listed(fn):
            call = fn  # the user allowed this class / function: its own code, called as the file asks
        if call is None:
            raise refused(f"malformed pickle: {type(fn).__name__} {fn!r:.60} is not callable here")
        if type(args) is not tuple:
            raise refused(f"malformed pickle: arguments must be a tuple, got {type(args).__name__}")
        try:
            return call(*args)
        except (TypeError, ValueError) as e:
            raise refused(f"malformed pickle: bad call of {getattr(fn, '__name__', fn)}: {e}") from None

    @staticmethod
    def _hashed(kind, items):
        try:
            return kind(items)
        except TypeError as e:
            raise refused(f"malformed pickle: {e}") from None

    @staticmethod
    def _filled(target, items):
        if type(target) not in _DICTS or len(items) % 2:
            raise refused(f"malformed pickle: SETITEMS on a {type(target).__name__}")
        try:
            for i in range(0, len(items), 2):
                target[items[i]] = items[i + 1]
        except TypeError as e:
            raise refused(f"malformed pickle: {e}") from None
        return target


def unpickle(source, persistent_load, encoding="utf-8"):
    """The object one pickle describes, built without running code from it.

    Parameters
    ----------
    source : bytes or binary file
        The pickle (read from a file's current position up to its STOP opcode).
    persistent_load : callable
        ``persistent_load(pid)`` resolves a persistent id (torch's storage records).
    encoding : str
        How Python 2 ``str`` objects are decoded (``'bytes'`` keeps them as bytes).

    Raises
    ------
    pickle.UnpicklingError
        On any global outside the fixed table, an unsupported opcode or a malformed pickle.
    """
    machine = _Machine(persistent_load, encoding)
    ops = pickletools.genops(source)
    while True:
        try:
            opcode, arg, _ = next(ops)
        except StopIteration:
            raise refused("malformed pickle: no STOP opcode") from None
        except ValueError as e:
            raise refused(f"malformed pickle: {e}") from None
        result = machine.run(opcode.name, arg)
        if opcode.name == "STOP":
            return result
