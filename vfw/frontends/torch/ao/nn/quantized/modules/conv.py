"""``torch.ao.nn.quantized.Conv2d``: a 2-D convolution on quint8 activations with qint8 weights.

The integer accumulation is an exact float64 convolution of the zero-point-shifted levels (every partial sum is an
integer far below 2**53); requantization is the linear layer's (``linear.requantize``).
"""

import numpy as np

import vfw.frontends.torch as torch
from vfw.frontends.torch import _dispatch, _quantized
from vfw.frontends.torch.ao.nn.quantized.modules.linear import (
    _WeightBias,
    check_quantized_input,
    requantize,
    weight_levels_and_scales,
)
from vfw.frontends.torch.nn.modules.conv import Conv2d as _FloatConv2d

__all__ = ["Conv2d"]


class Conv2d(_WeightBias):
    """Quantized 2-D convolution (zero padding only); arguments as ``nn.Conv2d``.

    Attributes
    ----------
    scale, zero_point : float, int
        The output's quantization parameters.
    """

    _version = 3

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__()
        if padding_mode != "zeros":
            raise NotImplementedError(f"{type(self).__name__}: vfw.torch supports padding_mode='zeros' only, "
                                      f"got {padding_mode!r}")
        # The float layer gives the argument normalization and the repr of the geometry.
        self._geometry = _FloatConv2d(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias)
        for name in ("in_channels", "out_channels", "kernel_size", "stride", "padding", "dilation", "groups",
                     "output_padding", "padding_mode", "transposed"):
            setattr(self, name, getattr(self._geometry, name))
        del self._geometry
        weight = _quantized.quantize_per_tensor(
            torch.zeros(out_channels, in_channels // groups, *self.kernel_size), 1.0, 0, _quantized.qint8)
        self.set_weight_bias(weight, torch.zeros(out_channels) if bias else None)
        self.scale, self.zero_point = 1.0, 0

    @classmethod
    def _like(cls, float_layer):
        return cls(float_layer.in_channels, float_layer.out_channels, float_layer.kernel_size, float_layer.stride,
                   float_layer.padding, float_layer.dilation, float_layer.groups, float_layer.bias is not None)

    def _get_name(self):
        return "QuantizedConv2d"

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        s += f", scale={self.scale}, zero_point={self.zero_point}"
        if self.padding != (0, 0):
            s += f", padding={self.padding}"
        if self.dilation != (1, 1):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self._bias is None:
            s += ", bias=False"
        return s

    def forward(self, x):
        """``x``: quint8 per-tensor ``(N, C_in, H, W)``; returns quint8 ``(N, C_out, H_out, W_out)``."""
        check_quantized_input(x, self._get_name())
        if x.ndim != 4:
            raise ValueError(f"Input shape must be `(N, C, H, W)`! (got {tuple(x.shape)})")
        levels, weight_scales = weight_levels_and_scales(self._weight)
        shifted = _dispatch.wrap((x._levels.array.astype(np.int64) - x._zero_point).astype(np.float64))
        acc = torch.nn.functional.conv2d(shifted, _dispatch.wrap(levels.astype(np.float64)), None, self.stride,
                                         self.padding, self.dilation, self.groups)
        return requantize(acc.numpy().astype(np.int64), x, weight_scales, self._bias, self.scale, self.zero_point,
                          self._fused_relu, 1)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        destination[prefix + "weight"] = self._weight
        destination[prefix + "bias"] = self._bias
        super()._save_to_state_dict(destination, prefix, keep_vars)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        self.set_weight_bias(state_dict.pop(prefix + "weight"), state_dict.pop(prefix + "bias"))
        self._load_scale(state_dict, prefix)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys,
                                      error_msgs)
