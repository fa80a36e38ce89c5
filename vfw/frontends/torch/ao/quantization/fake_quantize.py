"""``FakeQuantize``: an observer and fake quantization in one module, for quantization-aware training.

In training it observes its input (when the observer is enabled), stores the observer's ``(scale, zero_point)``
in its buffers and returns ``torch.fake_quantize_per_tensor_affine`` / ``_per_channel_affine`` of the input
(when fake quantization is enabled), whose gradient is the straight-through estimator.
"""

import numpy as np

import vfw.frontends.torch as torch
from vfw.frontends.torch import _quantized
from vfw.frontends.torch.ao.quantization.observer import (
    MovingAverageMinMaxObserver,
    MovingAveragePerChannelMinMaxObserver,
    _with_args,
)
from vfw.frontends.torch.nn.modules.module import Module

__all__ = ["FakeQuantizeBase", "FakeQuantize", "FusedMovingAvgObsFakeQuantize", "default_fake_quant",
           "default_weight_fake_quant", "default_per_channel_weight_fake_quant", "disable_fake_quant",
           "enable_fake_quant", "disable_observer", "enable_observer"]

_PER_CHANNEL = (_quantized.per_channel_affine, _quantized.per_channel_symmetric,
                _quantized.per_channel_affine_float_qparams)
_PER_TENSOR = (_quantized.per_tensor_affine, _quantized.per_tensor_symmetric)
_LEVELS = {_quantized.quint8: (0, 255), _quantized.qint8: (-128, 127), _quantized.qint32: (-2 ** 31, 2 ** 31 - 1),
           torch.uint8: (0, 255), torch.int8: (-128, 127), torch.int32: (-2 ** 31, 2 ** 31 - 1)}


class FakeQuantizeBase(Module):
    """Base of fake quantization modules: the ``fake_quant_enabled`` / ``observer_enabled`` switches (uint8
    buffers) and their methods."""

    def __init__(self):
        super().__init__()
        self.register_buffer("fake_quant_enabled", torch.tensor([1], dtype=torch.uint8))
        self.register_buffer("observer_enabled", torch.tensor([1], dtype=torch.uint8))

    def enable_fake_quant(self, enabled=True):
        """Switch fake quantization on (or off with ``enabled=False``)."""
        self.fake_quant_enabled[0] = 1 if enabled else 0

    def disable_fake_quant(self):
        """Switch fake quantization off: the input passes unchanged."""
        self.enable_fake_quant(False)

    def enable_observer(self, enabled=True):
        """Switch the observer on (or off): the parameters follow the input while it is on."""
        self.observer_enabled[0] = 1 if enabled else 0

    def disable_observer(self):
        """Freeze the quantization parameters."""
        self.enable_observer(False)

    with_args = classmethod(_with_args)


class FakeQuantize(FakeQuantizeBase):
    """Observe and fake-quantize.

    Parameters
    ----------
    observer : class or factory
        The observer to build (``MovingAverageMinMaxObserver`` by default).
    quant_min, quant_max : int, optional
        The level range, within the observer's dtype.
    **observer_kwargs
        Passed to the observer (``dtype``, ``qscheme``, ``reduce_range``, ``ch_axis``...).
    """

    def __init__(self, observer=MovingAverageMinMaxObserver, quant_min=None, quant_max=None, is_dynamic=False,
                 **observer_kwargs):
        super().__init__()
        if quant_min is not None and quant_max is not None:
            assert quant_min <= quant_max, "quant_min must be less than or equal to quant_max"
            dtype = observer_kwargs.get("dtype", _quantized.quint8)
            partial = getattr(observer, "p", None)
            if partial is not None:
                dtype = partial.keywords.get("dtype", dtype)
            low, high = _LEVELS.get(dtype, (quant_min, quant_max))
            assert low <= quant_min, "quant_min out of bound"
            assert quant_max <= high, "quant_max out of bound"
            observer_kwargs.update({"quant_min": quant_min, "quant_max": quant_max})
        observer_kwargs["is_dynamic"] = is_dynamic
        self.activation_post_process = observer(**observer_kwargs)
        self.quant_min = self.activation_post_process.quant_min
        self.quant_max = self.activation_post_process.quant_max
        self.is_dynamic = self.activation_post_process.is_dynamic
        self.register_buffer("scale", torch.tensor([1.0], dtype=torch.float))
        self.register_buffer("zero_point", torch.tensor([0], dtype=torch.int))
        self.dtype = self.activation_post_process.dtype
        self.qscheme = self.activation_post_process.qscheme
        self.ch_axis = getattr(self.activation_post_process, "ch_axis", -1)
        assert self.qscheme in _PER_CHANNEL + _PER_TENSOR, \
            f"Only per channel and per tensor quantization are supported in fake quantize got qscheme: {self.qscheme}"
        self.is_per_channel = self.qscheme in _PER_CHANNEL

    def calculate_qparams(self):
        """The observer's ``(scale, zero_point)``."""
        return self.activation_post_process.calculate_qparams()

    def _observed_qparams(self):
        return self.calculate_qparams()

    def forward(self, X):  # noqa: N803  (torch's name)
        """Observe ``X`` (if enabled) and return its fake quantization (if enabled)."""
        if int(self.observer_enabled[0]) == 1:
            self.activation_post_process(X.detach())
            scale, zero_point = self._observed_qparams()
            if self.scale.shape != scale.shape:
                self.scale.resize_(scale.shape)
                self.zero_point.resize_(zero_point.shape)
            self.scale.copy_(scale)
            self.zero_point.copy_(zero_point)
        if int(self.fake_quant_enabled[0]) == 1:
            if self.is_per_channel:
                X = torch.fake_quantize_per_channel_affine(X, self.scale, self.zero_point, self.ch_axis,  # noqa: N806
                                                           self.activation_post_process.quant_min,
                                                           self.activation_post_process.quant_max)
            else:
                X = torch.fake_quantize_per_tensor_affine(X, self.scale, self.zero_point,  # noqa: N806
                                                          self.activation_post_process.quant_min,
                                                          self.activation_post_process.quant_max)
        return X

    def extra_repr(self):
        return (f"fake_quant_enabled={self.fake_quant_enabled}, observer_enabled={self.observer_enabled}, "
                f"quant_min={self.activation_post_process.quant_min}, "
                f"quant_max={self.activation_post_process.quant_max}, dtype={self.dtype}, qscheme={self.qscheme}, "
                f"ch_axis={self.ch_axis}, scale={self.scale}, zero_point={self.zero_point}")


class FusedMovingAvgObsFakeQuantize(FakeQuantize):
    """torch's fused form of :class:`FakeQuantize` over a moving-average observer (what
    ``get_default_qat_qconfig`` builds): the same running range, but the parameters during training come from
    fbgemm's rule (``_quantized.choose_qparams``; symmetric schemes keep ``-(range // 2 + 1)`` levels below zero,
    so their scale is ``max(-min / 128, max / 127)`` for 8 bits), as torch's fused kernel computes them.
    ``calculate_qparams()`` stays the observer's.

    Parameters
    ----------
    observer : class or factory
        ``MovingAverageMinMaxObserver`` (default) or ``MovingAveragePerChannelMinMaxObserver``.
    quant_min, quant_max : int
    **observer_kwargs
    """

    def __init__(self, observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255, **observer_kwargs):
        super().__init__(observer, quant_min, quant_max, **observer_kwargs)
        self.register_buffer("fake_quant_enabled", torch.tensor([1], dtype=torch.long))
        self.register_buffer("observer_enabled", torch.tensor([1], dtype=torch.long))
        self.is_symmetric_quant = self.qscheme in (_quantized.per_tensor_symmetric, _quantized.per_channel_symmetric)

    def _observed_qparams(self):
        observer = self.activation_post_process
        scale, zero_point = _quantized.choose_qparams(observer.min_val.numpy(), observer.max_val.numpy(),
                                                      observer.quant_min, observer.quant_max,
                                                      preserve_sparsity=self.is_symmetric_quant)
        scale, zero_point = scale.astype(np.float32), zero_point.astype(np.int32)
        return torch.from_numpy(scale.reshape(-1)), torch.from_numpy(zero_point.reshape(-1))

    def extra_repr(self):
        return (f"fake_quant_enabled={self.fake_quant_enabled}, observer_enabled={self.observer_enabled}, "
                f"scale={self.scale}, zero_point={self.zero_point}, dtype={self.dtype}, quant_min="
                f"{self.activation_post_process.quant_min}, quant_max={self.activation_post_process.quant_max}, "
                f"qscheme={self.qscheme}, reduce_range={self.activation_post_process.reduce_range}")


default_fake_quant = FakeQuantize.with_args(observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255,
                                            dtype=_quantized.quint8, qscheme=_quantized.per_tensor_affine,
                                            reduce_range=True)
default_weight_fake_quant = FakeQuantize.with_args(observer=MovingAverageMinMaxObserver, quant_min=-128,
                                                   quant_max=127, dtype=_quantized.qint8,
                                                   qscheme=_quantized.per_tensor_symmetric, reduce_range=False)
default_per_channel_weight_fake_quant = FakeQuantize.with_args(observer=MovingAveragePerChannelMinMaxObserver,
                                                               quant_min=-128, quant_max=127, dtype=_quantized.qint8,
                                                               qscheme=_quantized.per_channel_symmetric,
                                                               reduce_range=False, ch_axis=0)


def _switch(method_name, *args):
    def apply(mod):
        """``apply`` helper: calls the switch on fake quantization modules (``model.apply(disable_observer)``)."""
        if isinstance(mod, FakeQuantizeBase):
            getattr(mod, method_name)(*args)
    apply.__name__ = method_name
    return apply


disable_fake_quant = _switch("disable_fake_quant")
enable_fake_quant = _switch("enable_fake_quant")
disable_observer = _switch("disable_observer")
enable_observer = _switch("enable_observer")
