"""torch.accelerator for a CPU-only build: the device-agnostic queries answer 'no accelerator' and whatever needs
one raises torch's RuntimeError, so ``device = torch.accelerator.current_accelerator() if
torch.accelerator.is_available() else "cpu"`` (the tutorials' idiom) picks the CPU."""

__all__ = ["current_accelerator", "current_device_idx", "current_device_index", "current_stream", "device_count",
           "empty_cache", "get_device_capability", "is_available", "max_memory_allocated", "max_memory_reserved",
           "memory_allocated", "memory_reserved", "memory_stats", "reset_accumulated_memory_stats",
           "reset_peak_memory_stats", "set_device_idx", "set_device_index", "synchronize"]


def is_available():
    """bool: always False (vfw computes on the CPU, which torch does not count as an accelerator)."""
    return False


def current_accelerator(check_available=False):
    """None: there is no accelerator, whether or not ``check_available`` asks to check."""
    return None


def device_count():
    """int: 0."""
    return 0


def _needs_accelerator(*args, **kwargs):
    raise RuntimeError("Cannot access accelerator device when none is available.")


current_device_idx = current_device_index = current_stream = empty_cache = get_device_capability = _needs_accelerator
max_memory_allocated = max_memory_reserved = memory_allocated = memory_reserved = memory_stats = _needs_accelerator
reset_accumulated_memory_stats = reset_peak_memory_stats = set_device_idx = set_device_index = _needs_accelerator
synchronize = _needs_accelerator
