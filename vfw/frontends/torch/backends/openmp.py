"""torch.backends.openmp: not available (numpy's BLAS threads its own way)."""


def is_available():
    return False
