"""Autocast state and the ops it casts (torch's CPU autocast lists, for the ops vfw has).

The state is per thread, as torch's: one ``(enabled, dtype)`` per device type and a
nesting depth. ``install`` wraps the listed functions wherever vfw.torch binds them
(module globals, the Tensor class, a class's static methods), so internal callers that
look them up go through autocast too, as torch's dispatcher sends every call there.
While autocast is off a wrapper costs one global read.

Policies, per function:

- ``lower``: floating tensors (float64 excepted) are cast to the autocast dtype
  (matmul family, linear, convolutions, prelu, attention, LSTM/RNN layers, RNN cells);
- ``fp32``: floating tensors are cast to float32 (losses, ``prod``, ``cdist``,
  decompositions and solvers, 3-d pools...);
- ``exclude``: the function runs with autocast off (GRU, LSTM and GRU cells: torch's
  results are float32; vfw's recurrent kernels need one dtype throughout).

Inside a wrapped function autocast is off, as torch excludes it inside an autocast op.
"""

import functools
import sys
import threading

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _dtype

__all__ = [
    "autocast_decrement_nesting", "autocast_increment_nesting", "clear_autocast_cache", "get_autocast_cpu_dtype",
    "get_autocast_dtype", "get_autocast_gpu_dtype", "is_autocast_cache_enabled", "is_autocast_cpu_enabled",
    "is_autocast_enabled", "set_autocast_cache_enabled", "set_autocast_cpu_dtype", "set_autocast_cpu_enabled",
    "set_autocast_dtype", "set_autocast_enabled", "set_autocast_gpu_dtype",
]

# Device types torch's device-string parser knows (its error lists them in this order).
DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia",
                "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
_DEFAULT_DTYPES = {"cpu": _dtype.bfloat16, "cuda": _dtype.float16}


class _ThreadState(threading.local):
    def __init__(self):
        self.enabled = {}
        self.dtypes = dict(_DEFAULT_DTYPES)
        self.cache_enabled = True
        self.nesting = 0
        self.excluded = False


_STATE = _ThreadState()
# Threads with CPU autocast on (a wrapper's fast path reads this plain global, not the thread's state).
_cpu_active = 0
_active_lock = threading.Lock()


def check_device_type(device_type):
    """The device type as torch parses it (RuntimeError naming the known ones otherwise)."""
    if device_type not in DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device string: "
                           f"{device_type}")
    return device_type


def _deprecated(old, new):
    warn_for_user(f"torch.{old}() is deprecated. Please use torch.{new} instead.", DeprecationWarning)


def is_autocast_enabled(device_type=None):
    """bool: whether autocast is on for ``device_type`` (CUDA when omitted, as torch)."""
    return _STATE.enabled.get("cuda" if device_type is None else check_device_type(device_type), False)


def set_autocast_enabled(device_type, enabled=None):
    """Turn autocast on or off for ``device_type`` (``set_autocast_enabled(flag)``: CUDA)."""
    global _cpu_active
    if enabled is None:
        device_type, enabled = "cuda", device_type
    check_device_type(device_type)
    was = _STATE.enabled.get(device_type, False)
    _STATE.enabled[device_type] = bool(enabled)
    if device_type == "cpu" and was != bool(enabled):
        with _active_lock:
            _cpu_active += 1 if enabled else -1


def get_autocast_dtype(device_type):
    """torch.dtype: the dtype autocast casts to on ``device_type``."""
    return _STATE.dtypes.get(check_device_type(device_type), _dtype.float16)


def set_autocast_dtype(device_type, dtype):
    """Set the dtype autocast casts to on ``device_type``."""
    _STATE.dtypes[check_device_type(device_type)] = dtype


def is_autocast_cpu_enabled():
    """Deprecated: ``is_autocast_enabled('cpu')``."""
    _deprecated("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled):
    """Deprecated: ``set_autocast_enabled('cpu', enabled)``."""
    _deprecated("set_autocast_cpu_enabled", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype():
    """Deprecated: ``get_autocast_dtype('cpu')``."""
    _deprecated("get_autocast_cpu_dtype", "get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype):
    """Deprecated: ``set_autocast_dtype('cpu', dtype)``."""
    _deprecated("set_autocast_cpu_dtype", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def get_autocast_gpu_dtype():
    """Deprecated: ``get_autocast_dtype('cuda')``."""
    _deprecated("get_autocast_gpu_dtype", "get_autocast_dtype('cuda')")
    return get_autocast_dtype("cuda")


def set_autocast_gpu_dtype(dtype):
    """Deprecated: ``set_autocast_dtype('cuda', dtype)``."""
    _deprecated("set_autocast_gpu_dtype", "set_autocast_dtype('cuda', dtype)")
    set_autocast_dtype("cuda", dtype)


def is_autocast_cache_enabled():
    """bool: whether casts of leaf tensors are cached inside autocast regions (vfw casts again each time)."""
    return _STATE.cache_enabled


def set_autocast_cache_enabled(enabled):
    _STATE.cache_enabled = bool(enabled)


def clear_autocast_cache():
    """Nothing to clear: vfw keeps no cast cache."""


def autocast_increment_nesting():
    """int: the autocast nesting depth after entering one more region."""
    _STATE.nesting += 1
    return _STATE.nesting


def autocast_decrement_nesting():
    """int: the autocast nesting depth after leaving a region."""
    _STATE.nesting -= 1
    return _STATE.nesting


# --- casting wrappers ---------------------------------------------------------------------------------------------

_ELIGIBLE = frozenset(np.dtype(d.np) for d in (_dtype.float16, _dtype.bfloat16, _dtype.float32))


def _eligible(t):
    """Floating tensors other than float64 (torch's rule)."""
    return isinstance(t, CoreTensor) and t.array.dtype in _ELIGIBLE


def cast_floating(value, dtype):
    """``value`` with its eligible tensors (also inside lists and tuples) cast to ``dtype``, differentiably."""
    if _eligible(value):
        return value if value.dtype == dtype else value.to(dtype)
    if isinstance(value, (list, tuple)) and any(_eligible(v) or isinstance(v, (list, tuple)) for v in value):
        cast = [cast_floating(v, dtype) for v in value]
        return cast if isinstance(value, list) else type(value)(cast) if type(value) is tuple else type(value)(*cast)
    return value


def _run_excluded(fn, args, kwargs):
    state = _STATE
    state.excluded, was = True, state.excluded
    try:
        return fn(*args, **kwargs)
    finally:
        state.excluded = was


def _wrap(fn, policy):
    @functools.wraps(fn)
    def autocast_wrapper(*args, **kwargs):
        if not _cpu_active:
            return fn(*args, **kwargs)
        state = _STATE
        if state.excluded or not state.enabled.get("cpu", False):
            return fn(*args, **kwargs)
        if policy != "exclude":
            dtype = state.dtypes["cpu"] if policy == "lower" else _dtype.float32
            args = tuple(cast_floating(a, dtype) for a in args)
            kwargs = {k: cast_floating(v, dtype) for k, v in kwargs.items()}
        return _run_excluded(fn, args, kwargs)

    autocast_wrapper.autocast_original = fn
    return autocast_wrapper


# (module, function names) per policy: torch 2.13's CPU autocast lists, restricted to what vfw has.
_F = "vfw.frontends.torch.nn.functional."
POLICIES = {
    "lower": {
        "vfw.frontends.torch._linalg": ("matmul", "mm", "bmm", "addmm", "addbmm", "baddbmm"),
        "vfw.frontends.torch.linalg": ("vecdot", "multi_dot"),
        _F + "_linear": ("linear",),
        _F + "_conv": ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"),
        _F + "_activation": ("prelu",),
        _F + "_attention": ("scaled_dot_product_attention", "multi_head_attention_forward"),
        "vfw.frontends.torch.nn.modules._rnn_layers": ("rnn_cell",),
    },
    "fp32": {
        _F + "_loss": ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "kl_div", "poisson_nll_loss",
                       "soft_margin_loss", "binary_cross_entropy",
                       "binary_cross_entropy_with_logits"),
        _F + "_loss_classification": ("nll_loss", "cross_entropy", "multi_margin_loss",
                                      "multilabel_margin_loss"),
        _F + "_loss_embedding": ("margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
                                 "triplet_margin_loss"),
        _F + "_loss_ctc": ("ctc_loss",),
        _F + "_pooling": ("avg_pool3d", "max_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d", "max_unpool2d",
                          "max_unpool3d"),
        _F + "_vision": ("grid_sample",),
        "vfw.frontends.torch._reduction": ("prod",),
        "vfw.frontends.torch._layout": ("trace",),
        "vfw.frontends.torch._linalg_norms": ("cdist",),
        "vfw.frontends.torch._sorting": ("quantile", "nanquantile"),
        "vfw.frontends.torch._linalg_decomp": ("cholesky", "cholesky_inverse", "cholesky_solve", "inverse",
                                               "pinverse", "qr", "svd", "triangular_solve"),
    },
    "exclude": {
        "vfw.frontends.torch.nn.modules._rnn_layers": ("lstm_cell", "gru_cell"),
    },
}


def _run_layers_policy(fn):
    """LSTM and plain RNN layers compute in the autocast dtype (torch's oneDNN layer is on its list), GRU in
    float32."""
    lower, excluded = _wrap(fn, "lower"), _wrap(fn, "exclude")

    @functools.wraps(fn)
    def run_layers(mode, *args, **kwargs):
        return (excluded if mode == "GRU" else lower)(mode, *args, **kwargs)

    run_layers.autocast_original = fn
    return run_layers


def _originals():
    """``{id(original): wrapper}`` for every listed function that exists."""
    wrappers = {}
    for policy, modules in POLICIES.items():
        for module_name, names in modules.items():
            module = sys.modules.get(module_name)
            for name in names:
                fn = getattr(module, name, None)
                if fn is not None and not hasattr(fn, "autocast_original"):
                    wrappers[id(fn)] = (fn, _wrap(fn, policy))
    layers = sys.modules.get("vfw.frontends.torch.nn.modules._rnn_layers")
    if layers is not None and not hasattr(layers.run_layers, "autocast_original"):
        wrappers[id(layers.run_layers)] = (layers.run_layers, _run_layers_policy(layers.run_layers))
    return wrappers


def _rebind(namespace, wrappers, assign):
    for name, value in list(namespace.items()):
        target = value.__func__ if isinstance(value, staticmethod) else value
        hit = wrappers.get(id(target))
        if hit is not None and hit[0] is target:
            assign(name, staticmethod(hit[1]) if isinstance(value, staticmethod) else hit[1])


def install():
    """Wrap the listed functions everywhere vfw.torch's loaded modules and their classes bind them."""
    wrappers = _originals()
    for module_name, module in list(sys.modules.items()):
        if module is None or not module_name.startswith("vfw.frontends.torch"):
            continue
        namespace = vars(module)
        _rebind(namespace, wrappers, namespace.__setitem__)
        for value in list(namespace.values()):
            if isinstance(value, type) and value.__module__ == module_name:
                _rebind(vars(value), wrappers, functools.partial(setattr, value))
