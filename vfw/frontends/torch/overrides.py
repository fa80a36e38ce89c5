"""torch.overrides: the ``__torch_function__`` protocol and ``TorchFunctionMode``.

A class defining ``__torch_function__`` (a Tensor subclass, or any type) takes over the torch functions, Tensor
methods and operators called with its instances, as in torch. To cost nothing in programs that never use the
protocol, the dispatching wrappers are installed (``install``) the first time such a class is defined or a mode is
entered; from then on the functions of ``torch``, ``torch.nn.functional`` and the Tensor methods check their
arguments. Differences: functions bound elsewhere before that moment (``from torch import add``) do not dispatch,
and a Tensor subclass that does not define ``__torch_function__`` gets plain Tensor results (torch: the subclass).
"""

import functools
import sys
import threading

__all__ = ["TorchFunctionMode", "get_ignored_functions", "get_overridable_functions", "handle_torch_function",
           "has_torch_function", "has_torch_function_unary", "has_torch_function_variadic", "is_tensor_like"]


class _ProtocolState(threading.local):
    def __init__(self):
        self.modes = []
        self.subclasses_disabled = False  # DisableTorchFunctionSubclass: only modes apply
        self.all_disabled = False  # DisableTorchFunction: neither subclasses nor modes


_state = _ProtocolState()
_installed = False
_WRAPPED = {}  # dispatcher -> original function


def _disabled_torch_function_impl(cls, func, types, args=(), kwargs=None):
    """``__torch_function__`` of classes that opt out of the protocol (``nn.Parameter``): runs ``func``."""
    with DisableTorchFunctionSubclass():
        return func(*args, **(kwargs or {}))


def _default_impl():
    from vfw.frontends.torch._tensor import Tensor
    return Tensor.__dict__["__torch_function__"].__func__


def _overrides(value):
    handler = getattr(type(value), "__torch_function__", None)
    if handler is None:
        return False
    function = getattr(handler, "__func__", handler)
    return function is not _default_impl() and function is not _disabled_torch_function_impl


def _overloaded_args(values):
    """The arguments whose types override ``__torch_function__``, one per type, subclasses before their bases."""
    found = []
    for value in values:
        candidates = value if isinstance(value, (list, tuple)) else (value,)
        for item in candidates:
            if _overrides(item) and not any(type(item) is type(other) for other in found):
                position = next((i for i, other in enumerate(found) if issubclass(type(item), type(other))),
                                len(found))
                found.insert(position, item)
    return found


def has_torch_function(relevant_args):
    """bool: whether any of ``relevant_args`` overrides ``__torch_function__`` (or a mode is active)."""
    if _state.all_disabled:
        return False
    return bool(_state.modes) or (not _state.subclasses_disabled and bool(_overloaded_args(relevant_args)))


def has_torch_function_unary(arg):
    return has_torch_function((arg,))


def has_torch_function_variadic(*args):
    return has_torch_function(args)


def is_tensor_like(inp):
    """bool: a Tensor, or an object whose type defines ``__torch_function__``."""
    from vfw.core.tensor import Tensor as CoreTensor
    return isinstance(inp, CoreTensor) or hasattr(type(inp), "__torch_function__")


def _name(func):
    return getattr(func, "__qualname__", getattr(func, "__name__", repr(func)))


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Call the active mode's or the overriding types' ``__torch_function__`` for ``public_api(*args,
    **kwargs)``; TypeError when every one returns NotImplemented."""
    overloaded = [] if _state.subclasses_disabled else _overloaded_args(relevant_args)
    types = tuple(type(arg) for arg in overloaded)
    if _state.modes:
        mode = _state.modes.pop()  # the mode's own torch calls go to the modes below it
        try:
            result = mode.__torch_function__(public_api, types, args, kwargs)
        finally:
            _state.modes.append(mode)
        if result is not NotImplemented:
            return result
    for arg in overloaded:
        result = type(arg).__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    handlers = "".join(f"  - tensor subclass <class '{t.__module__}.{t.__qualname__}'>\n" for t in types)
    raise TypeError(f"Multiple dispatch failed for '{_name(public_api)}'; all __torch_function__ handlers returned "
                    f"NotImplemented:\n\n{handlers}\nFor more information, try re-running with "
                    "TORCH_LOGS=not_implemented")


# The ``__name__`` torch's Tensor operators show to ``__torch_function__`` (the others keep their own).
_OPERATOR_NAMES = {"__add__": "add", "__radd__": "add", "__sub__": "sub", "__mul__": "mul", "__rmul__": "mul",
                   "__truediv__": "div", "__rtruediv__": "__rdiv__", "__mod__": "remainder", "__neg__": "neg",
                   "__lt__": "lt", "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__pow__": "pow",
                   "__matmul__": "matmul", "__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_",
                   "__itruediv__": "div_", "__abs__": "abs"}


# Binary operators: a TypeError from a handler becomes NotImplemented, so Python tries the reflected operator
# and finally raises its "unsupported operand type(s)" TypeError, as torch.
_BINARY_OPERATORS = {f"__{prefix}{name}__" for prefix in ("", "r") for name in (
    "add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul", "and", "or", "xor", "lshift", "rshift")}


def _dispatching(fn, public_name):
    operator = public_name.rpartition(".")[2] in _BINARY_OPERATORS

    @functools.wraps(fn)
    def dispatcher(*args, **kwargs):
        if not _state.all_disabled and (_state.modes or (not _state.subclasses_disabled and (
                _overloaded_args(args) or (kwargs and _overloaded_args(kwargs.values()))))):
            relevant = (*args, *kwargs.values())
            if not operator:
                return handle_torch_function(dispatcher, relevant, *args, **kwargs)
            try:
                return handle_torch_function(dispatcher, relevant, *args, **kwargs)
            except TypeError:
                return NotImplemented
        return fn(*args, **kwargs)
    dispatcher.__qualname__ = public_name
    short_name = public_name.rpartition(".")[2]
    dispatcher.__name__ = _OPERATOR_NAMES.get(short_name, short_name)
    _WRAPPED[dispatcher] = fn
    return dispatcher


# Tensor attributes that stay as they are: construction, the protocol itself, attribute access, printing.
_METHODS_KEPT = {"__init__", "__new__", "__torch_function__", "__init_subclass__", "__getattribute__", "__getattr__",
                 "__setattr__", "__delattr__", "__repr__", "__str__", "__format__", "__reduce__", "__reduce_ex__",
                 "__getstate__", "__setstate__", "__hash__", "__class_getitem__", "__subclasshook__", "__dir__",
                 "__sizeof__", "__deepcopy__", "__copy__", "as_subclass", "_make_subclass"}


def _is_function(value):
    return callable(value) and type(value).__name__ == "function"


def install():
    """Wrap the functions of ``torch``, ``torch.nn.functional`` and the Tensor methods with the dispatch check
    (once)."""
    global _installed
    if _installed:
        return
    _installed = True
    from vfw.frontends.torch._tensor import Tensor
    torch_module = sys.modules["vfw.frontends.torch"]
    functional = sys.modules["vfw.frontends.torch.nn.functional"]
    for module, prefix in ((torch_module, "torch"), (functional, "torch.nn.functional")):
        for name, value in list(vars(module).items()):
            if not name.startswith("_") and _is_function(value) and value not in _WRAPPED:
                setattr(module, name, _dispatching(value, f"{prefix}.{name}"))
    for klass in reversed(Tensor.__mro__[:-1]):
        for name, value in list(vars(klass).items()):
            if name not in _METHODS_KEPT and _is_function(value) and value not in _WRAPPED:
                setattr(Tensor, name, _dispatching(value, f"Tensor.{name}"))


def _convert(result, cls):
    from vfw.frontends.torch._tensor import Tensor
    if isinstance(result, Tensor) and not isinstance(result, cls):
        return result.as_subclass(cls)
    if isinstance(result, (tuple, list)) and not hasattr(result, "_fields"):
        return type(result)(_convert(item, cls) for item in result)
    return result


def _tensor_torch_function(cls, func, types, args=(), kwargs=None):
    """``Tensor.__torch_function__``: run ``func`` without the protocol and give tensor results the class
    ``cls``."""
    if not all(issubclass(cls, t) for t in types):
        return NotImplemented
    with DisableTorchFunctionSubclass():
        result = func(*args, **(kwargs or {}))
    return _convert(result, cls)


def _register_subclass(cls, **kwargs):
    """``Tensor.__init_subclass__``: a subclass that overrides ``__torch_function__`` turns the protocol on."""
    super(_tensor_class(), cls).__init_subclass__(**kwargs)
    if "__torch_function__" in vars(cls) and getattr(vars(cls)["__torch_function__"], "__func__", None) \
            is not _disabled_torch_function_impl:
        install()


def _tensor_class():
    from vfw.frontends.torch._tensor import Tensor
    return Tensor


class _DisableContext:
    attribute = ""

    def __enter__(self):
        self.saved = getattr(_state, self.attribute)
        setattr(_state, self.attribute, True)
        return self

    def __exit__(self, *exc):
        setattr(_state, self.attribute, self.saved)
        return False


class DisableTorchFunctionSubclass(_DisableContext):
    """Within it, ``__torch_function__`` of types is not called (modes still are)."""
    __module__ = "torch._C"  # torch's name (a private vfw module keeps no name of its own)
    attribute = "subclasses_disabled"


class DisableTorchFunction(_DisableContext):
    """Within it, neither types' ``__torch_function__`` nor modes are called."""
    __module__ = "torch._C"
    attribute = "all_disabled"


class TorchFunctionMode:
    """Base class of modes: inside ``with Mode():`` every torch function, method and operator call goes to
    ``Mode.__torch_function__(func, types, args, kwargs)`` first."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError

    def __enter__(self):
        install()
        _state.modes.append(self)
        return self

    def __exit__(self, *exc):
        _state.modes.remove(self)
        return False

    @classmethod
    def push(cls, *args, **kwargs):
        return cls(*args, **kwargs).__enter__()


def _get_current_function_mode():
    return _state.modes[-1] if _state.modes else None


def get_ignored_functions():
    """set: functions that never dispatch (vfw: construction and protocol helpers)."""
    return set()


def get_overridable_functions():
    """dict: namespace -> list of the functions that dispatch to ``__torch_function__``."""
    install()
    torch_module = sys.modules["vfw.frontends.torch"]
    functional = sys.modules["vfw.frontends.torch.nn.functional"]
    return {namespace: [value for value in vars(namespace).values() if value in _WRAPPED]
            for namespace in (torch_module, functional, _tensor_class())}


def enable_protocol(tensor_class):
    """Give ``tensor_class`` torch's ``__torch_function__`` and the subclass hook (called once at import)."""
    tensor_class.__torch_function__ = classmethod(_tensor_torch_function)
    tensor_class.__init_subclass__ = classmethod(_register_subclass)
