"""``torch.autocast`` / ``torch.amp.autocast``: mixed precision regions, as a context manager or decorator."""

import functools

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _autocast, _dtype

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]

_SUPPORTED = {"cpu": (_dtype.bfloat16, _dtype.float16)}


def is_autocast_available(device_type):
    """bool: whether autocast can run on ``device_type`` (only the CPU here)."""
    _autocast.check_device_type(device_type)
    return device_type == "cpu"


class autocast:  # noqa: N801  (torch's name)
    """Run the ops on torch's autocast lists in a lower precision (``dtype``) inside the region.

    Parameters
    ----------
    device_type : str
        ``'cpu'`` (``'cuda'`` warns and disables itself: there is no GPU).
    dtype : torch.dtype, optional
        ``torch.bfloat16`` (the CPU default) or ``torch.float16``.
    enabled : bool
        ``False`` makes the region a no-op (and turns autocast off inside an enclosing region).
    cache_enabled : bool, optional
    """

    def __init__(self, device_type, dtype=None, enabled=True, cache_enabled=None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = device_type
        self.custom_backend_name = "privateuseone"
        self.fast_dtype = _autocast.get_autocast_dtype(device_type) if dtype is None else dtype
        self._cache_enabled = _autocast.is_autocast_cache_enabled() if cache_enabled is None else cache_enabled
        if enabled and device_type != "cpu":
            warn_for_user(f"User provided device_type of '{device_type}', but {device_type.upper()} is not available."
                          " Disabling" if device_type != "cuda" else
                          "CUDA is not available or torch_xla is imported. Disabling autocast.")
            enabled = False
        if enabled and self.fast_dtype not in _SUPPORTED["cpu"]:
            warn_for_user("In CPU autocast, but the target dtype is not supported. Disabling autocast.\nCPU Autocast "
                          "only supports dtypes of torch.bfloat16, torch.float16 currently.")
            enabled = False
        self._enabled = bool(enabled)

    def __enter__(self):
        self.prev = _autocast.is_autocast_enabled(self.device)
        self.prev_fastdtype = _autocast.get_autocast_dtype(self.device)
        self.prev_cache_enabled = _autocast.is_autocast_cache_enabled()
        _autocast.set_autocast_enabled(self.device, self._enabled)
        _autocast.set_autocast_dtype(self.device, self.fast_dtype)
        _autocast.autocast_increment_nesting()
        _autocast.set_autocast_cache_enabled(self._cache_enabled)
        return None

    def __exit__(self, exc_type, exc_value, traceback):
        if _autocast.autocast_decrement_nesting() == 0:
            _autocast.clear_autocast_cache()
        _autocast.set_autocast_enabled(self.device, self.prev)
        _autocast.set_autocast_dtype(self.device, self.prev_fastdtype)
        _autocast.set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        """Decorate ``func`` so that each call runs in a region with this one's settings."""
        settings = (self.device, self.fast_dtype, self._enabled, self._cache_enabled)

        @functools.wraps(func)
        def decorate_autocast(*args, **kwargs):
            with autocast(*settings):
                return func(*args, **kwargs)

        return decorate_autocast


def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """Decorator for a custom ``autograd.Function.forward``: with ``cast_inputs``, floating inputs are cast to that
    dtype and the forward runs with autocast off (inside an enabled region); the state is saved for ``custom_bwd``."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = _autocast.get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = _autocast.is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = _autocast.is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*(_autocast.cast_floating(a, cast_inputs) for a in args),
                           **{k: _autocast.cast_floating(v, cast_inputs) for k, v in kwargs.items()})
        return fwd(*args, **kwargs)

    return decorate_fwd


def custom_bwd(bwd=None, *, device_type):
    """Decorator for a custom ``autograd.Function.backward``: runs it with the autocast state its forward saw."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast, dtype=args[0]._dtype):
            return bwd(*args, **kwargs)

    return decorate_bwd
