"""``torch.signal.windows``: scipy-style window functions (``M`` samples, symmetric unless ``sym=False``)."""

from vfw.frontends.torch.signal.windows import windows  # noqa: F401  (torch's submodule)
from vfw.frontends.torch.signal.windows.windows import (
    bartlett,
    blackman,
    cosine,
    exponential,
    gaussian,
    general_cosine,
    general_hamming,
    hamming,
    hann,
    kaiser,
    nuttall,
)

__all__ = [
    "bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming", "hamming",
    "hann", "kaiser", "nuttall",
]
