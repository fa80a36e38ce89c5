"""torch.amp: automatic mixed precision (``autocast`` regions and loss scaling with ``GradScaler``)."""

from vfw.frontends.torch.amp import autocast_mode, grad_scaler  # noqa: F401
from vfw.frontends.torch.amp.autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from vfw.frontends.torch.amp.grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
