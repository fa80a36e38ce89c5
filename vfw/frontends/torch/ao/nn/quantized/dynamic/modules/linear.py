"""``torch.ao.nn.quantized.dynamic.Linear``: float in, float out, qint8 weights; the input is quantized per call.

Each call quantizes the input to quint8 with fbgemm's parameters for its own min/max (7 bits, ``reduce_range``,
as fbgemm's x86 kernels need), accumulates in integers, and returns ``float32(acc) * (x_scale * w_scale) + bias``
as one fused multiply-add in float32.
"""

import numpy as np

from vfw.frontends.torch import _dispatch, _quantized
from vfw.frontends.torch.ao.nn.quantized.modules import linear as _static

__all__ = ["Linear"]

_F32 = np.float32


class Linear(_static.Linear):
    """Dynamically quantized linear layer.

    Parameters
    ----------
    in_features, out_features : int
    bias_ : bool
    dtype : torch.dtype
        ``torch.qint8``.
    """

    _version = 4

    def _get_name(self):
        return "DynamicQuantizedLinear"

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, dtype={self._weight.dtype}, "
                f"qscheme={self._weight.qscheme()!r}")

    def forward(self, x):
        """``x``: float32 ``(*, in_features)``; returns float32 ``(*, out_features)``."""
        if _quantized.is_quantized(x) or x.dtype.name != "float32":
            raise RuntimeError(f"{self._get_name()}: expected a float32 input, got {x.dtype}")
        if x.shape[-1] != self.in_features:
            raise RuntimeError(f"{self._get_name()}: input has {x.shape[-1]} features, expected {self.in_features} "
                               f"(input shape {tuple(x.shape)})")
        xq = _quantized.quantize_per_tensor_dynamic(x.detach(), _quantized.quint8, True)
        levels, weight_scales = _static.weight_levels_and_scales(self._weight)
        acc = (xq._levels.array.astype(np.int64) - xq._zero_point) @ levels.T
        # One fused multiply-add: the float64 product of a float32 accumulator and scale is exact.
        out = acc.astype(_F32).astype(np.float64) * (_F32(xq._scale) * weight_scales).astype(np.float64)
        if self._bias is not None:
            out = out + self._bias.detach().numpy().astype(_F32)
        return _dispatch.wrap(out.astype(_F32))

    @classmethod
    def from_float(cls, mod, use_precomputed_fake_quant=False):
        """The dynamic layer of a float ``nn.Linear`` (its ``qconfig.weight`` observer, else torch's default)."""
        from vfw.frontends.torch.ao.quantization.qconfig import default_dynamic_qconfig
        qconfig = getattr(mod, "qconfig", None) or default_dynamic_qconfig
        observer = qconfig.weight()
        observer(mod.weight)
        qmod = cls(mod.in_features, mod.out_features, mod.bias is not None)
        qmod.set_weight_bias(_static.quantized_weight(mod.weight, observer), mod.bias)
        return qmod
