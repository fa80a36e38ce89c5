"""torch.backends.mps: not available."""


def is_available():
    return False


def is_built():
    return False
