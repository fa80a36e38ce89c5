"""``torch.ao.quantization`` (also ``torch.quantization``): observers, fake quantization, ``QConfig`` and the
stubs of eager-mode quantization-aware training."""

from vfw.frontends.torch.ao.quantization.fake_quantize import *  # noqa: F401,F403
from vfw.frontends.torch.ao.quantization.fuse_modules import *  # noqa: F401,F403,E402
from vfw.frontends.torch.ao.quantization.observer import *  # noqa: F401,F403
from vfw.frontends.torch.ao.quantization.qconfig import *  # noqa: F401,F403
from vfw.frontends.torch.ao.quantization.quantize import *  # noqa: F401,F403,E402
from vfw.frontends.torch.ao.quantization.stubs import *  # noqa: F401,F403
