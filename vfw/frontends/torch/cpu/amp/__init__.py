"""torch.cpu.amp: deprecated spellings of ``torch.amp.autocast('cpu')`` and ``torch.amp.GradScaler('cpu')``."""

from vfw.frontends.torch import _dtype
from vfw.frontends.torch.amp import _deprecated

__all__ = ["GradScaler", "autocast"]

autocast = _deprecated.autocast_class("cpu", _dtype.bfloat16)
GradScaler = _deprecated.grad_scaler_class("cpu")
