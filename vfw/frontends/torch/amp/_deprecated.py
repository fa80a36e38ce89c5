"""The device-specific spellings ``torch.cpu.amp.*`` / ``torch.cuda.amp.*``: deprecated aliases that warn."""

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch.amp import autocast_mode, grad_scaler


def _warn(device, name):
    warn_for_user(f"`torch.{device}.amp.{name}(args...)` is deprecated. Please use `torch.amp.{name}('{device}', "
                  f"args...)` instead.", FutureWarning)


def autocast_class(device, default_dtype):
    """``torch.<device>.amp.autocast(enabled=True, dtype=<default_dtype>, cache_enabled=True)``."""

    class autocast(autocast_mode.autocast):  # noqa: N801  (torch's name)
        def __init__(self, enabled=True, dtype=default_dtype, cache_enabled=True):
            _warn(device, "autocast")
            super().__init__(device, dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)

    autocast.__module__, autocast.__qualname__ = f"torch.{device}.amp.autocast_mode", "autocast"
    return autocast


def grad_scaler_class(device):
    """``torch.<device>.amp.GradScaler(init_scale, growth_factor, backoff_factor, growth_interval, enabled)``."""

    class GradScaler(grad_scaler.GradScaler):
        def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000,
                     enabled=True):
            _warn(device, "GradScaler")
            super().__init__(device, init_scale=init_scale, growth_factor=growth_factor,
                             backoff_factor=backoff_factor, growth_interval=growth_interval, enabled=enabled)

    GradScaler.__module__, GradScaler.__qualname__ = f"torch.{device}.amp.grad_scaler", "GradScaler"
    return GradScaler

