"""``torch.ao.nn.intrinsic.quantized``: quantized layers with a fused ReLU (outputs clamped at the zero point)."""

from vfw.frontends.torch.ao.nn.quantized.modules.conv import Conv2d
from vfw.frontends.torch.ao.nn.quantized.modules.linear import Linear

__all__ = ["ConvReLU2d", "LinearReLU"]


class ConvReLU2d(Conv2d):
    """Quantized ``Conv2d`` + ``ReLU``."""

    _fused_relu = True

    def _get_name(self):
        return "QuantizedConvReLU2d"


class LinearReLU(Linear):
    """Quantized ``Linear`` + ``ReLU``."""

    _fused_relu = True

    def _get_name(self):
        return "QuantizedLinearReLU"
