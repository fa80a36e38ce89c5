"""Runtime odds and ends of the torch namespace: ``torch.fork``/``torch.wait`` (eager: the function runs at once),
``is_distributed``, ``set_anomaly_enabled``, ``get_device_module``, ``compiled_with_cxx11_abi``; and the Tensor
methods of other devices (``xpu``/``ipu``/``mtia``, ``record_stream``) and of sparse layouts (``coalesce``,
``indices``, ``values``...) as a CPU-only strided tensor answers them: with torch's errors. Sparse tensor classes
define their own versions of the layout methods."""

import sys
import types

from vfw.frontends.torch import _dispatch
from vfw.frontends.torch._device import device as _device
from vfw.frontends.torch.autograd import anomaly_mode
from vfw.frontends.torch.futures import Future

__all__ = ["compiled_with_cxx11_abi", "fork", "get_device_module", "is_distributed", "set_anomaly_enabled", "wait"]


def fork(func, *args, **kwargs):
    """Run ``func(*args, **kwargs)`` now and return a completed :class:`torch.futures.Future` holding its result.

    Eager torch also runs the function immediately: an exception it raises propagates from ``fork`` itself.
    """
    future = Future()
    future.set_result(func(*args, **kwargs))
    return future


def wait(future):
    """The value of ``future`` (a :class:`torch.futures.Future`), blocking until it is complete."""
    if not isinstance(future, Future):
        raise TypeError("wait(): incompatible function arguments. The following argument types are supported:\n"
                        f"    1. (arg0: torch._C.Future) -> object\n\nInvoked with: {future!r}")
    return future.wait()


def is_distributed(input):
    """False: a vfw tensor is never split across processes."""
    if not isinstance(input, _dispatch.Tensor):
        raise TypeError(f"is_distributed(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return False


def set_anomaly_enabled(enabled, check_nan=True):
    """Switch anomaly detection on or off globally (what ``torch.autograd.set_detect_anomaly`` sets)."""
    anomaly_mode._set(enabled, check_nan)


def get_device_module(device=None):
    """The ``torch.<type>`` module of a device (``"cpu"`` -> ``torch.cpu``; None: the CPU, vfw has no accelerator).

    Raises
    ------
    RuntimeError
        For a device type without a module, or an argument that is not a device, a string or None.
    """
    if device is None:
        type_name = "cpu"
    elif isinstance(device, (_device, str)):
        type_name = _device(device).type
    else:
        raise RuntimeError(f"Invalid value of device '{device}', expect torch.device, str, or None")
    module = getattr(sys.modules["vfw.torch"], type_name, None)
    if not isinstance(module, types.ModuleType):
        raise RuntimeError(f"Device '{type_name}' does not have a corresponding module registered as "
                           f"'torch.{type_name}'.")
    return module


def compiled_with_cxx11_abi():
    """True, as torch 2.13's wheels report."""
    return True


# -- Tensor methods a CPU-only strided tensor refuses ---------------------------------------------------------------
def _xpu(self, device=None, non_blocking=False, memory_format=None):
    """Refused: this build has no XPU."""
    raise AssertionError("Torch not compiled with XPU enabled")


def _ipu(self, device=None, non_blocking=False, memory_format=None):
    """Refused: this build has no IPU."""
    raise RuntimeError("PyTorch is not linked with support for ipu devices")


def _mtia(self, device=None, non_blocking=False, memory_format=None):
    """Refused: this build has no MTIA."""
    raise AssertionError("Torch not compiled with MTIA enabled. Ensure you have `import "
                         "mtia.host_runtime.torch_mtia.dynamic_library` in your python src file and include "
                         "`//mtia/host_runtime/torch_mtia:torch_mtia` as your target dependency!")


def _record_stream(self, stream):
    """Refused as on torch's CPU build, which has no stream type this method takes."""
    raise RuntimeError("unknown parameter type")


# torch's names of the layouts in its "expected ... layout but got X" errors
_LAYOUT_NAMES = {"torch.strided": "Strided", "torch.sparse_coo": "Sparse", "torch.sparse_csr": "SparseCsr",
                 "torch.sparse_csc": "SparseCsc", "torch.sparse_bsr": "SparseBsr", "torch.sparse_bsc": "SparseBsc"}


def _layout_refusal(method, expected):
    """A Tensor method that raises torch's error for a tensor whose layout lacks ``method``."""
    def refuse(self, *args, **kwargs):
        raise RuntimeError(f"{method} expected {expected} layout but got {_LAYOUT_NAMES[str(self.layout)]}")

    refuse.__name__ = refuse.__qualname__ = method
    refuse.__doc__ = f"Refused: ``{method}`` needs a tensor of {expected} layout."
    return refuse


TENSOR_METHODS = {
    "xpu": _xpu, "ipu": _ipu, "mtia": _mtia, "record_stream": _record_stream, "is_distributed": is_distributed,
    "coalesce": _layout_refusal("coalesce", "sparse coordinate tensor"),
    "is_coalesced": _layout_refusal("is_coalesced", "sparse coordinate tensor"),
    "indices": _layout_refusal("indices", "sparse coordinate tensor"),
    "values": _layout_refusal("values", "sparse tensor"),
    "crow_indices": _layout_refusal("crow_indices", "sparse row compressed tensor"),
    "col_indices": _layout_refusal("col_indices", "sparse row compressed tensor"),
    "ccol_indices": _layout_refusal("ccol_indices", "sparse column compressed tensor"),
    "row_indices": _layout_refusal("row_indices", "sparse column compressed tensor"),
}
