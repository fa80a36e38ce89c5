"""``QConfig`` (how to observe a module's activations and weights) and torch's default configurations."""

from collections import namedtuple

import vfw.frontends.torch as torch
from vfw.frontends.torch import _quantized
from vfw.frontends.torch.ao.quantization._histogram_observer import HistogramObserver
from vfw.frontends.torch.ao.quantization.fake_quantize import (
    FakeQuantize,
    FusedMovingAvgObsFakeQuantize,
    default_fake_quant,
    default_per_channel_weight_fake_quant,
    default_weight_fake_quant,
)
from vfw.frontends.torch.ao.quantization.observer import (
    MovingAverageMinMaxObserver,
    MovingAveragePerChannelMinMaxObserver,
    PerChannelMinMaxObserver,
    PlaceholderObserver,
    default_dynamic_quant_observer,
    default_observer,
    default_per_channel_weight_observer,
    default_weight_observer,
)
from vfw.frontends.torch.nn.modules.module import Module

__all__ = ["QConfig", "default_qconfig", "default_qat_qconfig", "get_default_qat_qconfig", "get_default_qconfig",
           "default_dynamic_qconfig", "per_channel_dynamic_qconfig", "float16_dynamic_qconfig",
           "default_per_channel_qconfig"]

_BACKENDS = ["fbgemm", "x86", "qnnpack", "onednn"]


class QConfig(namedtuple("QConfig", ["activation", "weight"])):
    """How to quantize a module: factories (classes or ``with_args`` results) of the activation and weight
    observers or fake quantizers."""

    __slots__ = ()

    def __new__(cls, activation, weight):
        if isinstance(activation, Module) or isinstance(weight, Module):
            raise ValueError("QConfig received observer instance, please pass observer class instead. Use "
                             "MyObserver.with_args(x=1) to override arguments to constructor if needed")
        return super().__new__(cls, activation, weight)


default_qconfig = QConfig(activation=default_observer, weight=default_weight_observer)
default_qat_qconfig = QConfig(activation=default_fake_quant, weight=default_weight_fake_quant)
default_per_channel_qconfig = QConfig(activation=default_observer, weight=default_per_channel_weight_observer)
default_dynamic_qconfig = QConfig(activation=default_dynamic_quant_observer, weight=default_weight_observer)
per_channel_dynamic_qconfig = QConfig(activation=default_dynamic_quant_observer,
                                      weight=PerChannelMinMaxObserver.with_args(
                                          dtype=_quantized.qint8, qscheme=_quantized.per_channel_symmetric))
float16_dynamic_qconfig = QConfig(activation=PlaceholderObserver.with_args(dtype=torch.float16,
                                                                           is_dynamic=True),
                                  weight=PlaceholderObserver.with_args(dtype=torch.float16))


def _check_backend(backend):
    assert backend in _BACKENDS, f"backend: {backend} not supported. backend must be one of {_BACKENDS}"


def get_default_qconfig(backend="x86", version=0):
    """torch's post-training configuration of ``backend``: ``HistogramObserver`` activations (7 bits for
    ``"x86"``/``"fbgemm"``), symmetric qint8 weights (per channel except for ``"qnnpack"``).

    Parameters
    ----------
    backend : str
        ``"x86"`` (default), ``"fbgemm"``, ``"qnnpack"`` or ``"onednn"``.
    version : int
        Only 0.
    """
    _check_backend(backend)
    assert version == 0, f"Version number: {version} in get_default_qconfig is not supported. Version number must be 0"
    activation = HistogramObserver.with_args(reduce_range=backend in ("fbgemm", "x86"))
    weight = default_weight_observer if backend == "qnnpack" else default_per_channel_weight_observer
    return QConfig(activation=activation, weight=weight)


def get_default_qat_qconfig(backend="x86", version=1):
    """torch's quantization-aware-training configuration of ``backend``.

    Parameters
    ----------
    backend : str
        ``"x86"``/``"fbgemm"`` (activations in 7 bits, weights per channel), ``"qnnpack"`` (8 bits, weights per
        tensor) or ``"onednn"`` (8 bits, weights per channel).
    version : int
        0: ``FakeQuantize`` modules; 1 (default): torch's fused ``FusedMovingAvgObsFakeQuantize``.
    """
    _check_backend(backend)
    fake_quant = FusedMovingAvgObsFakeQuantize if version == 1 else FakeQuantize
    range_kwargs = {} if backend == "onednn" else {"reduce_range": backend in ("fbgemm", "x86")}
    activation = fake_quant.with_args(observer=MovingAverageMinMaxObserver, quant_min=0, quant_max=255,
                                      **range_kwargs)
    if version != 1:
        weight = default_weight_fake_quant if backend == "qnnpack" else default_per_channel_weight_fake_quant
    elif backend == "qnnpack":
        weight = fake_quant.with_args(observer=MovingAverageMinMaxObserver, quant_min=-128, quant_max=127,
                                      dtype=_quantized.qint8, qscheme=_quantized.per_tensor_symmetric)
    else:
        weight = fake_quant.with_args(observer=MovingAveragePerChannelMinMaxObserver, quant_min=-128, quant_max=127,
                                      dtype=_quantized.qint8, qscheme=_quantized.per_channel_symmetric)
    return QConfig(activation=activation, weight=weight)
