"""The argument parsing of ``Tensor.to``: its three signatures, and torch's TypeError when a call fits none.

torch reads ``to(device=None, dtype=None, non_blocking=False, copy=False, *, memory_format=None)``,
``to(dtype, non_blocking=False, copy=False, *, memory_format=None)`` and
``to(tensor, non_blocking=False, copy=False, *, memory_format=None)``; a dtype given as a string
(``to("cpu", dtype="float")``) or a device in the dtype's place fits none of them and is refused.
"""

import builtins

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _config, _device, _dtype

_SIGNATURES = (
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = "
    "None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n")

# Python's scalar types stand for dtypes in torch's argument parser (``t.to(float)`` is float64).
_PYTHON_DTYPES = (builtins.float, builtins.int, builtins.bool, builtins.complex)


def _is_device(a):
    return a is None or isinstance(a, (str, _device.device)) or (isinstance(a, int) and not isinstance(a, bool))


def _is_dtype(a, optional):
    return (optional and a is None) or isinstance(a, _dtype.dtype) or a in _PYTHON_DTYPES


def _is_flag(a):
    return isinstance(a, bool)


def _is_format(a):
    return a is None or isinstance(a, _config.memory_format)


def _is_tensor(a):
    return isinstance(a, CoreTensor)


# (name, check) per positional parameter of each signature; memory_format is keyword-only in all three.
_FORMS = (
    (("device", _is_device), ("dtype", lambda a: _is_dtype(a, True)), ("non_blocking", _is_flag),
     ("copy", _is_flag)),
    (("dtype", lambda a: _is_dtype(a, False)), ("non_blocking", _is_flag), ("copy", _is_flag)),
    (("tensor", _is_tensor), ("non_blocking", _is_flag), ("copy", _is_flag)),
)


# each signature's checks by parameter name (memory_format included)
_CHECKS = tuple(dict(form, memory_format=_is_format) for form in _FORMS)


def _bind(form, checks, args, kwargs):
    """The arguments bound by name for one signature, or None where the call does not fit it."""
    if len(args) > len(form):
        return None
    bound = {}
    for (name, check), value in zip(form, args):
        if not check(value):
            return None
        bound[name] = value
    for name, value in kwargs.items():
        check = checks.get(name)
        if check is None or name in bound or not check(value):
            return None
        bound[name] = value
    return bound


def _type_name(value):
    if isinstance(value, CoreTensor):
        return "Tensor" if type(value).__name__ == "Tensor" else type(value).__name__
    if isinstance(value, _dtype.dtype):
        return "torch.dtype"
    if isinstance(value, _device.device):
        return "torch.device"
    if isinstance(value, _config.memory_format):
        return "torch.memory_format"
    return type(value).__name__


def _mismatch(args, kwargs):
    # torch lists the positional types, then name=type per keyword, the keywords in the reverse of the order
    # given (each followed by ", " when there are no positional arguments)
    got = ", ".join(_type_name(a) for a in args)
    named = [f"{k}={_type_name(v)}" for k, v in reversed(kwargs.items())]
    if named:
        got = got + ", " + ", ".join(named) if args else "".join(n + ", " for n in named)
    return TypeError(f"to() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     + _SIGNATURES)


def parse(args, kwargs):
    """``(device, dtype, copy, memory_format)`` of a ``Tensor.to`` call (``dtype`` a torch dtype, a Python
    scalar type or None; ``dtype`` is the tensor's dtype in the ``to(other)`` form).

    Raises
    ------
    TypeError
        Worded as torch's, when the arguments fit none of the three signatures.
    """
    if not kwargs and len(args) == 1:  # the usual calls: to(dtype), to(device)
        a = args[0]
        if type(a) is _dtype.dtype:
            return None, a, False, None
        if type(a) is str or type(a) is _device.device:
            return a, None, False, None
    for form, checks in zip(_FORMS, _CHECKS):
        bound = _bind(form, checks, args, kwargs)
        if bound is not None:
            break
    else:
        raise _mismatch(args, kwargs)
    dtype = bound.get("dtype")
    if "tensor" in bound:
        dtype = _dtype._FROM_NP[bound["tensor"].array.dtype]
    return bound.get("device"), dtype, bound.get("copy", False), bound.get("memory_format")
