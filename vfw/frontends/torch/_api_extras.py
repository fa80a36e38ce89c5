"""Top-level torch functions without a family of their own: ``frobenius_norm`` (deprecated), ``empty_permuted``,
``cond`` (eager: runs the chosen branch), the deterministic debug mode and ``init_num_threads``."""

import numpy as np

from vfw.frontends._warnings import warn_once
from vfw.frontends.torch import _config, _dispatch, _linalg_norms, _memory_layout, _strided
from vfw.frontends.torch._pointwise import tensor_arg

__all__ = ["frobenius_norm", "empty_permuted", "cond", "get_deterministic_debug_mode", "set_deterministic_debug_mode",
           "init_num_threads"]

_DEBUG_MODES = ("default", "warn", "error")


def frobenius_norm(input, dim, keepdim=False, *, out=None):
    """Deprecated ``torch.frobenius_norm``: ``torch.linalg.vector_norm(input, 2, dim, keepdim)`` over at most two
    dims (floating inputs)."""
    tensor_arg(input, "frobenius_norm")
    warn_once("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed in "
                  "a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead", UserWarning)
    dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead.")
    return _linalg_norms.vector_norm(input, 2, dims, keepdim, out=out)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad=False,
                   pin_memory=False):
    """Uninitialised dense tensor of ``size`` whose dims lie in memory in the order ``physical_layout`` (outermost
    first): ``t.stride(physical_layout[i])`` is the ``i``-th contiguous stride."""
    size, order = _dispatch.dims_of((size,)), _dispatch.dims_of((physical_layout,))
    if len(size) != len(order):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}")
    seen = set()
    for i, d in enumerate(order):
        if not 0 <= d < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {len(size) - 1}, but got {d} at "
                               f"index {i}).  NB: negative dims not currently supported; file an issue if you want "
                               "it.")
        if d in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(d)
    strides = _memory_layout.strides_for_order(size, order[::-1])
    return _strided.empty_strided(size, strides, dtype=dtype, layout=layout, device=device,
                                  requires_grad=requires_grad, pin_memory=pin_memory)


def cond(pred, true_fn, false_fn, operands=()):
    """``true_fn(*operands)`` if ``pred`` holds, else ``false_fn(*operands)`` (eager; ``pred`` a bool/number or a
    one-element tensor)."""
    if isinstance(pred, _dispatch.Tensor):
        if pred.numel() != 1:
            raise RuntimeError(f"Expected pred to be bool or single-element tensor, but got {pred}.")
        pred = bool(pred.array.reshape(()))
    elif not isinstance(pred, (bool, int, float, np.bool_, np.number)):
        raise RuntimeError(f"Expected pred to be bool or tensor, but got {pred}.")
    if not isinstance(operands, (tuple, list)):
        raise RuntimeError(f"Expect operands to be a tuple of possibly nested dict/list/tuple that only consists of "
                           f"tensor leaves, but got {operands}.")
    return (true_fn if pred else false_fn)(*operands)


def set_deterministic_debug_mode(debug_mode):
    """Set the debug mode for deterministic operations: ``"default"``/0 (off), ``"warn"``/1 (warn only),
    ``"error"``/2 (``use_deterministic_algorithms(True)``)."""
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = _DEBUG_MODES.index(debug_mode)
    elif not isinstance(debug_mode, (int, np.integer)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    elif debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    _config.use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode():
    """int: 0 (deterministic algorithms off), 1 (on, warn only) or 2 (on)."""
    if not _config.are_deterministic_algorithms_enabled():
        return 0
    return 1 if _config.is_deterministic_algorithms_warn_only_enabled() else 2


def init_num_threads():
    """Initialise the intra-op thread pool of the calling thread (nothing to do: numpy's BLAS manages its own)."""
