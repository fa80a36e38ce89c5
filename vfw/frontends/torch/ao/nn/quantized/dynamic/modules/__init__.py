"""``torch.ao.nn.quantized.dynamic`` modules."""

from vfw.frontends.torch.ao.nn.quantized.dynamic.modules.linear import Linear

__all__ = ["Linear"]
