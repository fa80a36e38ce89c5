"""``torch.signal``: window functions (``torch.signal.windows``)."""

from vfw.frontends.torch.signal import windows

__all__ = ["windows"]
