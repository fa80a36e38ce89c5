"""``torch.ao.nn.qat``: float layers whose weights pass through fake quantization (quantization-aware training)."""

import vfw.frontends.torch as torch
from vfw.frontends.torch.nn.modules.conv import Conv2d as _FloatConv2d
from vfw.frontends.torch.nn.modules.linear import Linear as _FloatLinear

__all__ = ["Linear", "Conv2d"]


class _WeightFakeQuant:
    """Mixin: ``weight_fake_quant`` from the qconfig, and ``from_float`` sharing the float layer's parameters."""

    def _attach(self, qconfig):
        assert qconfig, "qconfig must be provided for QAT module"
        self.qconfig = qconfig
        self.weight_fake_quant = qconfig.weight()

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The QAT layer of float ``mod`` (which has a ``qconfig``), sharing its weight and bias."""
        assert type(mod) is cls._FLOAT, f"qat.{cls.__name__}.from_float only works for {cls._FLOAT.__name__}"
        assert mod.qconfig, "Input float module must have a valid qconfig"
        qat = cls._like(mod)
        qat.weight, qat.bias = mod.weight, mod.bias
        return qat

    def to_float(self):
        """The float layer with this layer's (unquantized) parameters."""
        float_layer = self._like_float()
        float_layer.weight = torch.nn.Parameter(self.weight.detach())
        if self.bias is not None:
            float_layer.bias = torch.nn.Parameter(self.bias.detach())
        return float_layer


class Linear(_WeightFakeQuant, _FloatLinear):
    """``nn.Linear`` whose weight is fake-quantized in ``forward``."""

    _FLOAT = _FloatLinear

    def __init__(self, in_features, out_features, bias=True, qconfig=None, device=None, dtype=None):
        super().__init__(in_features, out_features, bias)
        self._attach(qconfig)

    @classmethod
    def _like(cls, mod):
        return cls(mod.in_features, mod.out_features, mod.bias is not None, qconfig=mod.qconfig)

    def _like_float(self):
        return _FloatLinear(self.in_features, self.out_features, self.bias is not None)

    def forward(self, input):  # noqa: A002  (torch's name)
        return torch.nn.functional.linear(input, self.weight_fake_quant(self.weight), self.bias)


class Conv2d(_WeightFakeQuant, _FloatConv2d):
    """``nn.Conv2d`` whose weight is fake-quantized in ``forward``."""

    _FLOAT = _FloatConv2d

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", qconfig=None, device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode)
        self._attach(qconfig)

    @classmethod
    def _like(cls, mod):
        return cls(mod.in_channels, mod.out_channels, mod.kernel_size, mod.stride, mod.padding, mod.dilation,
                   mod.groups, mod.bias is not None, mod.padding_mode, qconfig=mod.qconfig)

    def _like_float(self):
        return _FloatConv2d(self.in_channels, self.out_channels, self.kernel_size, self.stride, self.padding,
                            self.dilation, self.groups, self.bias is not None, self.padding_mode)

    def forward(self, input):  # noqa: A002  (torch's name)
        return self._conv_forward(input, self.weight_fake_quant(self.weight), self.bias)
