"""torch.xpu on a build without Intel GPU support: ``is_available()`` False, no devices; calls that need one
raise torch's AssertionError."""

__all__ = ["current_device", "device_count", "is_available", "is_initialized", "manual_seed", "manual_seed_all",
           "seed", "seed_all", "synchronize"]


def _not_compiled(*args, **kwargs):
    raise AssertionError("Torch not compiled with XPU enabled")


def is_available():
    return False


def is_initialized():
    return False


def device_count():
    return 0


def manual_seed(seed):
    """Nothing to seed without a device (returns None, as torch)."""


manual_seed_all = manual_seed


def seed():
    """Nothing to seed without a device."""


seed_all = seed
synchronize = current_device = _not_compiled
