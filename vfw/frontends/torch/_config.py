"""Process settings and constants: threads, determinism, matmul precision, default device,
memory formats and layouts, ``torch.compile``, ``torch.pi``/``inf``/``nan``/``e``/``newaxis``.

vfw computes on numpy on the CPU, so most settings are recorded and reported back (as torch
does on a machine without the hardware they tune) without changing how results are computed.
"""

import math
import os

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _device

__all__ = ["set_num_threads", "get_num_threads", "set_num_interop_threads", "get_num_interop_threads",
           "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
           "is_deterministic_algorithms_warn_only_enabled", "set_float32_matmul_precision",
           "get_float32_matmul_precision", "get_default_device", "set_default_device", "compile", "typename",
           "memory_format", "contiguous_format", "channels_last", "channels_last_3d", "preserve_format", "layout",
           "strided", "sparse_coo", "inf", "nan", "pi", "e", "newaxis"]

inf, nan, pi, e, newaxis = math.inf, math.nan, math.pi, math.e, None


def _default_threads():
    """torch's intra-op thread count at start: ``MKL_NUM_THREADS``, else ``OMP_NUM_THREADS`` (a positive integer),
    at most the CPU count; the CPU count when neither is set."""
    cpus = os.cpu_count() or 1
    for name in ("MKL_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(name, "")
        if value.isdigit() and int(value) > 0:
            return min(int(value), cpus)
    return cpus


_settings = {"threads": _default_threads(), "interop_threads": os.cpu_count() or 1, "deterministic": False,
             "warn_only": False, "matmul_precision": "highest"}


def _record_count(key, n, name):
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise RuntimeError(f"{name} expects a positive integer, got {n!r}")
    _settings[key] = n


def set_num_threads(n):
    """Record the intra-op thread count (numpy's BLAS keeps its own; set OMP_NUM_THREADS before start)."""
    _record_count("threads", n, "set_num_threads")


def get_num_threads():
    """int: the intra-op thread count last set (the CPU count by default)."""
    return _settings["threads"]


def set_num_interop_threads(n):
    _record_count("interop_threads", n, "set_num_interop_threads")


def get_num_interop_threads():
    return _settings["interop_threads"]


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Record the setting: every vfw kernel is deterministic already."""
    _settings["deterministic"] = bool(mode)
    _settings["warn_only"] = bool(warn_only)


def are_deterministic_algorithms_enabled():
    return _settings["deterministic"]


def is_deterministic_algorithms_warn_only_enabled():
    return _settings["warn_only"]


def set_float32_matmul_precision(precision):
    """Record 'highest', 'high' or 'medium' (vfw's float32 matmuls are always full precision)."""
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid precision: {precision!r}; expected 'highest', 'high' or 'medium'")
    _settings["matmul_precision"] = precision


def get_float32_matmul_precision():
    return _settings["matmul_precision"]


def get_default_device():
    """torch.device: where factories put tensors (the CPU, or ``meta`` as set or entered with ``torch.device``)."""
    from vfw.frontends.torch import _meta
    return _meta.default_device()


def set_default_device(device):
    """Accept the CPU, ``meta`` (or None); other devices raise as ``device=`` arguments do."""
    from vfw.frontends.torch import _meta
    if device is not None:
        _device.check(device)
    _meta.set_default(device)


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,  # noqa: A001
            disable=False):
    """``torch.compile``: vfw runs the code eagerly; usable as a decorator. A module comes back wrapped as torch's
    ``OptimizedModule`` (the original is its ``_orig_mod``); a function comes back wrapped so that
    ``torch.compiler.is_compiling()`` is True during its calls."""
    from vfw.frontends.torch._dynamo.eval_frame import OptimizedModule
    from vfw.frontends.torch.compiler import compiled_function
    from vfw.frontends.torch.nn.modules.module import Module
    if model is None:
        return lambda fn: compile(fn, disable=disable)
    if disable or isinstance(model, type):
        return model
    return OptimizedModule(model) if isinstance(model, Module) else compiled_function(model)


def typename(obj):
    """str: ``'torch.FloatTensor'`` for tensors, the qualified name of a class or function, else that of the
    object's type (builtins without a module prefix)."""
    if isinstance(obj, CoreTensor):
        return obj.type()
    named = obj if hasattr(obj, "__qualname__") else type(obj)
    module = getattr(named, "__module__", None)
    return named.__qualname__ if module in (None, "builtins") else f"{module}.{named.__qualname__}"


class memory_format:  # noqa: N801  (torch's name)
    """A memory layout request (``torch.contiguous_format``, ``torch.channels_last``...)."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"


class layout:  # noqa: N801
    """A tensor layout; vfw tensors are ``torch.strided``."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")
strided = layout("strided")
sparse_coo = layout("sparse_coo")
