"""torch.cuda.amp (``torch.cuda`` is a module here, so this one is entered as its ``amp`` attribute and in
``sys.modules``): deprecated CUDA spellings, which disable themselves with torch's warnings (there is no GPU)."""

import functools
import sys

from vfw.frontends.torch import _dtype, cuda
from vfw.frontends.torch.amp import _deprecated, autocast_mode

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd"]

autocast = _deprecated.autocast_class("cuda", _dtype.float16)
GradScaler = _deprecated.grad_scaler_class("cuda")
custom_fwd = functools.partial(autocast_mode.custom_fwd, device_type="cuda")
custom_bwd = functools.partial(autocast_mode.custom_bwd, device_type="cuda")

cuda.amp = sys.modules[__name__]
sys.modules["vfw.frontends.torch.cuda.amp"] = cuda.amp
