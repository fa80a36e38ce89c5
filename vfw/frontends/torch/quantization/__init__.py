"""``torch.quantization``: the older name of ``torch.ao.quantization`` (the same objects)."""

from vfw.frontends.torch.ao.quantization import *  # noqa: F401,F403
from vfw.frontends.torch.ao.quantization import fake_quantize, observer, qconfig, stubs  # noqa: F401
