"""``torch.ao.nn.quantized.Linear``: a linear layer on quint8 activations with qint8 weights (fbgemm's math).

The layer accumulates ``(x_level - x_zero_point) * (w_level - w_zero_point)`` exactly in integers, then requantizes
as fbgemm does with a float bias: ``round_half_even(float32(acc + bias / (x_scale * w_scale)) * multiplier)`` plus
the output zero point, clamped (to the zero point from below when a ReLU is fused), where ``multiplier =
x_scale * w_scale / out_scale`` in float32 (``w_scale`` per output channel for per-channel weights).
"""

import numpy as np

import vfw.frontends.torch as torch
from vfw.frontends.torch import _dispatch, _quantized
from vfw.frontends.torch.nn.modules.module import Module

__all__ = ["Linear", "quantized_weight", "weight_levels_and_scales"]

_F32 = np.float32


def weight_levels_and_scales(weight):
    """``(levels - zero_points as int64, float32 scales per output channel (1 value per tensor))``."""
    levels = weight._levels.array.astype(np.int64)
    if weight._axis is None:
        return levels - weight._zero_point, np.array([weight._scale], _F32)
    shape = (-1,) + (1,) * (levels.ndim - 1)
    return levels - weight._zero_point.reshape(shape), weight._scale.astype(_F32)


def requantize(acc, x, weight_scales, bias, scale, zero_point, relu, channel_axis):
    """fbgemm's requantization of int64 accumulators ``acc`` (channels along ``channel_axis``) to quint8 levels."""
    shape = [1] * acc.ndim
    shape[channel_axis] = -1
    act_times_w = (_F32(x._scale) * weight_scales).reshape(shape)
    multiplier = (act_times_w / _F32(scale)).astype(_F32)
    values = acc.astype(_F32)
    if bias is not None:
        values = values + (bias.detach().numpy().astype(_F32).reshape(shape) / act_times_w)
    levels = np.rint(values * multiplier) + zero_point
    levels = np.clip(levels, zero_point if relu else 0, 255)
    return _quantized._make(_dispatch.wrap(levels.astype(np.uint8)), _quantized.quint8, float(scale), int(zero_point))


def check_quantized_input(x, name):
    if not _quantized.is_quantized(x) or x.dtype is not _quantized.quint8 or x._axis is not None:
        raise RuntimeError(f"{name}: expected a per-tensor quint8 quantized input (quantize it with QuantStub / "
                           f"torch.quantize_per_tensor), got {getattr(x, 'dtype', type(x).__name__)}")


def quantized_weight(float_weight, observer):
    """``float_weight`` quantized with the parameters ``observer`` (already run on it) chose."""
    scales, zero_points = observer.calculate_qparams()
    if observer.qscheme in (_quantized.per_channel_affine, _quantized.per_channel_symmetric):
        return _quantized.quantize_per_channel(float_weight.detach().float(), scales.double(), zero_points.long(),
                                               observer.ch_axis, observer.dtype)
    return _quantized.quantize_per_tensor(float_weight.detach().float(), float(scales), int(zero_points),
                                          observer.dtype)


class _WeightBias(Module):
    """Shared by the quantized layers: the quantized weight, float bias, output ``scale``/``zero_point``."""

    _FLOAT_TYPES = ()
    _fused_relu = False

    def weight(self):
        """QuantizedTensor: the qint8 weight."""
        return self._weight

    def bias(self):
        """Tensor or None: the float bias."""
        return self._bias

    def _weight_bias(self):
        return self._weight, self._bias

    def set_weight_bias(self, w, b):
        """Replace the quantized weight ``w`` (qint8) and float bias ``b``."""
        if not _quantized.is_quantized(w) or w.dtype is not _quantized.qint8:
            raise RuntimeError(f"{type(self).__name__}.set_weight_bias: the weight must be a qint8 quantized tensor, "
                               f"got {getattr(w, 'dtype', type(w).__name__)}")
        self._weight = w
        # Kept out of the registered parameters: torch saves it in its own state_dict places.
        self.__dict__["_bias"] = None if b is None else torch.nn.Parameter(b.detach().float(), requires_grad=True)

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The quantized layer of an observed float (or QAT, or fused) module."""
        activation = mod.activation_post_process
        float_layer = mod[0] if isinstance(mod, torch.nn.Sequential) else mod
        weight_post_process = getattr(float_layer, "weight_fake_quant", None)
        if weight_post_process is None:
            weight_post_process = mod.qconfig.weight()
        weight_post_process(float_layer.weight)
        out_scale, out_zero_point = activation.calculate_qparams()
        qmod = cls._like(float_layer)
        qmod.set_weight_bias(quantized_weight(float_layer.weight, weight_post_process), float_layer.bias)
        qmod.scale, qmod.zero_point = float(out_scale), int(out_zero_point)
        return qmod

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "scale"] = torch.tensor(self.scale)
        destination[prefix + "zero_point"] = torch.tensor(self.zero_point)

    def _load_scale(self, state_dict, prefix):
        self.scale = float(state_dict.pop(prefix + "scale"))
        self.zero_point = int(state_dict.pop(prefix + "zero_point"))


class Linear(_WeightBias):
    """Quantized ``y = x W^T + b``: quint8 input and output, qint8 weight (per tensor or per channel).

    Parameters
    ----------
    in_features, out_features : int
    bias_ : bool
    dtype : torch.dtype
        The weight's dtype (``torch.qint8``).

    Attributes
    ----------
    scale, zero_point : float, int
        The output's quantization parameters (1.0 and 0 until ``from_float`` or assignment).
    """

    _version = 3

    def __init__(self, in_features, out_features, bias_=True, dtype=_quantized.qint8):
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        weight = _quantized.quantize_per_tensor(torch.zeros(out_features, in_features), 1.0, 0, _quantized.qint8)
        self.set_weight_bias(weight, torch.zeros(out_features) if bias_ else None)
        self.scale, self.zero_point = 1.0, 0

    @classmethod
    def _like(cls, float_layer):
        return cls(float_layer.in_features, float_layer.out_features, float_layer.bias is not None)

    def _get_name(self):
        return "QuantizedLinear"

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, scale={self.scale}, "
                f"zero_point={self.zero_point}, qscheme={self._weight.qscheme()!r}")

    def __repr__(self):
        return f"{self._get_name()}({self.extra_repr()})"

    def forward(self, x):
        """``x``: quint8 per-tensor, ``(*, in_features)``; returns quint8 ``(*, out_features)``."""
        check_quantized_input(x, type(self).__name__)
        if x.shape[-1] != self.in_features:
            raise RuntimeError(f"{self._get_name()}: input has {x.shape[-1]} features, expected {self.in_features} "
                               f"(input shape {tuple(x.shape)})")
        levels, weight_scales = weight_levels_and_scales(self._weight)
        acc = (x._levels.array.astype(np.int64) - x._zero_point) @ levels.T
        return requantize(acc, x, weight_scales, self._bias, self.scale, self.zero_point, self._fused_relu, -1)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "_packed_params.dtype"] = _quantized.qint8
        destination[prefix + "_packed_params._packed_params"] = (self._weight, self._bias)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        self._load_scale(state_dict, prefix)
        state_dict.pop(prefix + "_packed_params.dtype", None)
        self.set_weight_bias(*state_dict.pop(prefix + "_packed_params._packed_params"))
        super()._load_from_state_dict(state_dict, prefix, local_metadata, False, missing_keys, unexpected_keys,
                                      error_msgs)
