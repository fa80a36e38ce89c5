"""Giving vfw classes another library's names while pickles and copies still find vfw's classes.

A frontend calls :func:`rename` on its classes so that ``type(x)`` prints the emulated library's name
(``<class 'tensorflow.python.framework.ops.EagerTensor'>``). Pickle finds a class by its ``__module__`` and
``__qualname__``, and those now name the other library's module (absent, or holding that library's own class).
So each renamed class also gets a ``__reduce_ex__`` that writes every renamed class its reduction names (the
instance's class, a rebuilding class) by its vfw path: pickling and copying instances work, in-process and across
processes, whether or not the other library is installed.
"""

import copyreg
import importlib

# Renamed class -> (vfw module, vfw qualname): where pickled references find it.
VFW_PATHS = {}


def rename(cls, module, qualname):
    """Give ``cls`` the ``__module__``/``__qualname__``/``__name__`` of another library, keeping it picklable."""
    if cls not in VFW_PATHS:
        VFW_PATHS[cls] = (cls.__module__, cls.__qualname__)
    cls.__module__, cls.__qualname__ = module, qualname
    cls.__name__ = qualname.rpartition(".")[2]
    if not getattr(cls.__reduce_ex__, "_writes_vfw_paths", False):
        cls.__reduce_ex__ = _portable_reduce(cls.__reduce_ex__)


def vfw_path(cls):
    """``(module, qualname)`` of ``cls`` in vfw (its own names when it was not renamed)."""
    return VFW_PATHS.get(cls) or (cls.__module__, cls.__qualname__)


class _ClassPath:
    """A renamed class in a pickle or copy: its vfw module and qualname (resolved by :func:`_rebuild`)."""

    __slots__ = ("module", "qualname")

    def __init__(self, module, qualname):
        self.module, self.qualname = module, qualname

    def __reduce__(self):
        return _ClassPath, (self.module, self.qualname)

    def resolve(self):
        value = importlib.import_module(self.module)
        for part in self.qualname.split("."):
            value = getattr(value, part)
        return value


def _by_path(value):
    path = VFW_PATHS.get(value) if isinstance(value, type) else None
    return value if path is None else _ClassPath(*path)


def _resolved(value):
    return value.resolve() if type(value) is _ClassPath else value


def _new_object(cls, args, kwargs):
    """``cls.__new__(cls, *args, **kwargs)``: copyreg's ``__newobj__``, which pickle requires a class for."""
    return cls.__new__(cls, *args, **kwargs)


def _rebuild(function, args):
    """``function(*args)`` with the renamed classes among them found by their vfw paths."""
    return _resolved(function)(*(_resolved(arg) for arg in args))


def _portable_reduce(reduce_ex):
    """``__reduce_ex__`` giving ``reduce_ex``'s value with each renamed class it names written by its vfw path."""

    def reduce_by_vfw_paths(self, protocol):
        value = reduce_ex(self, protocol)
        if not isinstance(value, tuple):
            return value  # the name of a global
        function, args = value[0], value[1]
        if function is copyreg.__newobj__:
            function, args = _new_object, (args[0], args[1:], {})
        elif function is copyreg.__newobj_ex__:
            function = _new_object
        if not any(isinstance(v, type) and v in VFW_PATHS for v in (function, *args)):
            return value
        return (_rebuild, (_by_path(function), tuple(_by_path(arg) for arg in args)), *value[2:])

    reduce_by_vfw_paths._writes_vfw_paths = True
    return reduce_by_vfw_paths
