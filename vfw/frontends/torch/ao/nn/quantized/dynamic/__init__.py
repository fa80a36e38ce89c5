"""``torch.ao.nn.quantized.dynamic``: layers whose activations are quantized on the fly."""

from vfw.frontends.torch.ao.nn.quantized.dynamic.modules import *  # noqa: F401,F403
