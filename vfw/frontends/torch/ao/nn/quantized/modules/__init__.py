"""``torch.ao.nn.quantized`` modules: ``Quantize``/``DeQuantize`` (what ``convert`` makes of the stubs), ``Linear``,
``Conv2d``."""

import vfw.frontends.torch as torch
from vfw.frontends.torch import _quantized
from vfw.frontends.torch.ao.nn.quantized.modules.conv import Conv2d
from vfw.frontends.torch.ao.nn.quantized.modules.linear import Linear
from vfw.frontends.torch.nn.modules.module import Module

__all__ = ["Quantize", "DeQuantize", "Linear", "Conv2d"]


class Quantize(Module):
    """Quantizes float input per tensor with fixed ``scale`` / ``zero_point`` (buffers) to ``dtype``."""

    def __init__(self, scale, zero_point, dtype, factory_kwargs=None):
        super().__init__()
        self.register_buffer("scale", torch.tensor([scale]))
        self.register_buffer("zero_point", torch.tensor([zero_point], dtype=torch.long))
        self.dtype = dtype

    def forward(self, X):  # noqa: N803  (torch's name)
        return _quantized.quantize_per_tensor(X, float(self.scale), int(self.zero_point), self.dtype)

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        """The ``Quantize`` of an observed ``QuantStub``."""
        scale, zero_point = mod.activation_post_process.calculate_qparams()
        return Quantize(float(scale), int(zero_point), mod.activation_post_process.dtype)

    def extra_repr(self):
        return f"scale={self.scale}, zero_point={self.zero_point}, dtype={self.dtype}"


class DeQuantize(Module):
    """Dequantizes its (quantized) input to float32."""

    def forward(self, Xq):  # noqa: N803  (torch's name)
        return Xq.dequantize()

    @staticmethod
    def from_float(mod, use_precomputed_fake_quant=False):
        return DeQuantize()
