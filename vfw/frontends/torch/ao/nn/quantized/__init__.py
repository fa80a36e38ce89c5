"""``torch.ao.nn.quantized``: quantized layers for eager-mode post-training quantization."""

from vfw.frontends.torch.ao.nn.quantized import dynamic  # noqa: F401
from vfw.frontends.torch.ao.nn.quantized.modules import *  # noqa: F401,F403
