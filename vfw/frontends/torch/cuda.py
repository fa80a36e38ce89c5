"""torch.cuda for a CPU-only build: queries answer 'no GPU', anything that needs one raises."""


def is_available():
    """bool: always False (vfw computes on the CPU)."""
    return False


def device_count():
    """int: 0."""
    return 0


def is_initialized():
    return False


def _no_cuda(*args, **kwargs):
    raise AssertionError("Torch not compiled with CUDA enabled")


current_device = get_device_name = get_device_properties = set_device = synchronize = _no_cuda
manual_seed = manual_seed_all = seed = seed_all = empty_cache = lambda *args, **kwargs: None  # noqa: E731
