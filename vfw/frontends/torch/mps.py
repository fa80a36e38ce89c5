"""torch.mps on a machine without Apple's Metal backend: ``is_available()`` False, no devices; calls that need
the device raise torch's RuntimeError."""

__all__ = ["device_count", "empty_cache", "is_available", "manual_seed", "seed", "synchronize"]


def is_available():
    return False


def device_count():
    return 0


def manual_seed(seed):
    """Nothing to seed without the backend (returns None, as torch)."""


def seed():
    """Nothing to seed without the backend."""


def empty_cache():
    raise RuntimeError("Cannot execute emptyCache() without MPS backend.")


def synchronize():
    raise RuntimeError("Cannot execute deviceSynchronize() without MPS backend.")
