"""Observers: modules that watch the tensors flowing through them and choose quantization parameters.

``MinMaxObserver`` keeps the running min/max, ``MovingAverageMinMaxObserver`` an exponential moving average of
them, the ``PerChannel`` variants one pair per slice along ``ch_axis``.  ``calculate_qparams()`` turns the range
into ``(scale, zero_point)`` by torch's rule: the range is widened to include 0; symmetric schemes use
``max(|min|, max) / ((quant_max - quant_min) / 2)`` with the middle level as zero point, affine ones
``(max - min) / (quant_max - quant_min)`` with ``quant_min - round(min / scale)``; scales stay at least ``eps``.
"""

import functools

import numpy as np

import vfw.frontends.torch as torch
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _quantized
from vfw.frontends.torch.nn.modules.module import Module

__all__ = ["ObserverBase", "UniformQuantizationObserverBase", "MinMaxObserver", "MovingAverageMinMaxObserver",
           "PerChannelMinMaxObserver", "MovingAveragePerChannelMinMaxObserver", "PlaceholderObserver", "NoopObserver",
           "default_observer", "default_weight_observer", "default_per_channel_weight_observer",
           "default_placeholder_observer", "default_dynamic_quant_observer"]

_EPS = float(np.finfo(np.float32).eps)
_PER_TENSOR = (_quantized.per_tensor_affine, _quantized.per_tensor_symmetric)
_PER_CHANNEL = (_quantized.per_channel_affine, _quantized.per_channel_symmetric,
                _quantized.per_channel_affine_float_qparams)
_SYMMETRIC = (_quantized.per_tensor_symmetric, _quantized.per_channel_symmetric)
_SUPPORTED_DTYPES = (_quantized.qint8, _quantized.quint8, _quantized.quint4x2, _quantized.qint32, torch.int8,
                     torch.uint8, torch.int16, torch.int32, torch.uint16)


class _PartialWrapper:
    """What ``with_args`` returns: a factory calling the class with the given keyword arguments."""

    def __init__(self, p):
        self.p = p

    def __call__(self, *args, **keywords):
        return self.p(*args, **keywords)

    def __repr__(self):
        return repr(self.p) + "{}"

    def with_args(self, **kwargs):
        return _PartialWrapper(functools.partial(self.p, **kwargs))


def _with_args(cls_or_self, **kwargs):
    """A factory of ``cls`` with these constructor arguments (``MinMaxObserver.with_args(dtype=torch.qint8)``)."""
    return _PartialWrapper(functools.partial(cls_or_self, **kwargs))


def calculate_qmin_qmax(quant_min, quant_max, has_customized_qrange, dtype, reduce_range):
    """torch's level range of ``dtype``: the customized one when given, halved with ``reduce_range``."""
    if has_customized_qrange:
        length = quant_max - quant_min + 1
        limit = 2 ** 32 if dtype in (_quantized.qint32, torch.int32) else 256
        assert 0 < length <= limit, f"quantization range should be positive and not exceed the maximum bit range " \
                                    f"(={limit})."
        if reduce_range:
            quant_min, quant_max = quant_min // 2, quant_max // 2
        return quant_min, quant_max
    ranges = {_quantized.qint8: (-128, 127), torch.int8: (-128, 127), _quantized.quint8: (0, 255),
              torch.uint8: (0, 255), _quantized.qint32: (-2 ** 31, 2 ** 31 - 1), torch.int32: (-2 ** 31, 2 ** 31 - 1),
              torch.uint16: (0, 2 ** 16 - 1), torch.int16: (-2 ** 15, 2 ** 15 - 1)}
    low, high = ranges.get(dtype, (0, 15))
    if reduce_range and dtype in (_quantized.qint8, torch.int8, _quantized.quint8, torch.uint8):
        return low // 2, high // 2
    return low, high


class ObserverBase(Module):
    """Base of observers: ``dtype`` (the quantized dtype aimed at) and ``with_args``."""

    def __init__(self, dtype, is_dynamic=False):
        super().__init__()
        self.dtype = dtype
        self.is_dynamic = is_dynamic

    with_args = classmethod(_with_args)


class UniformQuantizationObserverBase(ObserverBase):
    """Observers of a uniform (affine or symmetric) quantization: the level range, ``eps`` and
    :meth:`_calculate_qparams`."""

    def __init__(self, dtype=_quantized.quint8, qscheme=_quantized.per_tensor_affine, reduce_range=False,
                 quant_min=None, quant_max=None, factory_kwargs=None, eps=_EPS, is_dynamic=False, **kwargs):
        super().__init__(dtype=dtype, is_dynamic=is_dynamic)
        self.qscheme = qscheme
        if reduce_range:
            warn_for_user("Please use quant_min and quant_max to specify the range for observers. reduce_range "
                          "will be deprecated in a future release of PyTorch.")
        self.reduce_range = reduce_range
        self.register_buffer("eps", torch.tensor([eps]))
        assert qscheme in _PER_TENSOR + _PER_CHANNEL, \
            "Default Observer only works for per_tensor_affine, per_tensor_symmetric, per_channel_affine, " \
            "per_channel_symmetric and per_channel_float_qparams quantization scheme"
        assert dtype in _SUPPORTED_DTYPES, f"Default Observer only works for {_SUPPORTED_DTYPES} data type"
        self.has_customized_qrange = quant_min is not None and quant_max is not None
        if self.has_customized_qrange:
            assert quant_min <= 0 <= quant_max, "Used-specified quantization range must include 0."
            assert quant_min < quant_max, "qmin must be strictly less than qmax for user-specified quantization range."
        self.quant_min, self.quant_max = calculate_qmin_qmax(quant_min, quant_max, self.has_customized_qrange,
                                                             self.dtype, self.reduce_range)

    def _calculate_qparams(self, min_val, max_val):
        """``(scale float32, zero_point)`` of the range ``[min_val, max_val]`` (0-d or per-channel 1-D)."""
        if not _min_max_valid(min_val, max_val):
            return torch.tensor([1.0]), torch.tensor([0])
        quant_min, quant_max = self.quant_min, self.quant_max
        min_neg = torch.minimum(min_val, torch.zeros_like(min_val))
        max_pos = torch.maximum(max_val, torch.zeros_like(max_val))
        eps = self.eps
        if self.qscheme in _SYMMETRIC:
            max_pos = torch.maximum(-min_neg, max_pos)
            scale = torch.maximum(max_pos / (float(quant_max - quant_min) / 2), eps)
            middle = 0
            if self.dtype in (_quantized.quint8, torch.uint8):
                middle = (quant_min + quant_max) // 2 if self.has_customized_qrange else 128
            elif self.dtype is torch.uint16:
                middle = 2 ** 15
            zero_point = torch.full(tuple(min_neg.shape), middle, dtype=torch.int64)
        elif self.qscheme is _quantized.per_channel_affine_float_qparams:
            scale = (max_val - min_val) / float(quant_max - quant_min)
            scale = torch.where(scale > eps, scale, torch.ones_like(scale))
            zero_point = -1 * min_val / scale
        else:
            scale = torch.maximum((max_pos - min_neg) / float(quant_max - quant_min), eps)
            zero_point = quant_min - torch.round(min_neg / scale).to(torch.int32)
            zero_point = torch.clamp(zero_point, quant_min, quant_max)
        if scale.ndim == 0:
            scale = torch.tensor([float(scale)], dtype=scale.dtype)
        if zero_point.ndim == 0:
            zero_point = torch.tensor([int(zero_point)], dtype=zero_point.dtype)
        return scale, zero_point

    def reset_min_max_vals(self):
        raise NotImplementedError("Cannot reset min/max values in the given observer.")


def _min_max_valid(min_val, max_val):
    if min_val.numel() == 0 or max_val.numel() == 0 or (
            min_val.ndim == 0 and float(min_val) == float("inf") and float(max_val) == float("-inf")):
        warn_for_user("must run observer before calling calculate_qparams. Returning default values.")
        return False
    assert bool(torch.all(min_val <= max_val)), f"min {min_val} should be less than max {max_val}"
    return True


class MinMaxObserver(UniformQuantizationObserverBase):
    """Quantization parameters from the running min and max of what passed (per tensor).

    Parameters
    ----------
    dtype : torch.dtype
        ``torch.quint8`` (default), ``torch.qint8``, ``torch.qint32``...
    qscheme : torch.qscheme
        ``torch.per_tensor_affine`` (default) or ``torch.per_tensor_symmetric``.
    reduce_range : bool
        Halve the level range (7 bits).
    quant_min, quant_max : int, optional
        A customized level range (both or neither).
    eps : float
        The smallest scale.
    """

    def __init__(self, dtype=_quantized.quint8, qscheme=_quantized.per_tensor_affine, reduce_range=False,
                 quant_min=None, quant_max=None, factory_kwargs=None, eps=_EPS, is_dynamic=False, **kwargs):
        if qscheme not in _PER_TENSOR:
            raise NotImplementedError("MinMaxObserver's qscheme only support torch.per_tensor_symmetric "
                                      "                    and torch.per_tensor_affine.")
        if is_dynamic:
            raise NotImplementedError("MinMaxObserver doesn't support dynamic quantization")
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range, quant_min=quant_min,
                         quant_max=quant_max, factory_kwargs=factory_kwargs, eps=eps, is_dynamic=is_dynamic, **kwargs)
        self.register_buffer("min_val", torch.tensor(float("inf")))
        self.register_buffer("max_val", torch.tensor(float("-inf")))
        if self.qscheme is _quantized.per_tensor_symmetric and self.reduce_range and self.dtype is _quantized.quint8:
            raise NotImplementedError("Cannot reduce range for symmetric                                        "
                                      "quantization for quint8")

    def _updated(self, current, running, pick):
        return pick(current, running)

    def forward(self, x_orig):
        """Record ``x_orig``'s min and max; returns ``x_orig``."""
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach().to(self.min_val.dtype)
        low, high = torch.aminmax(x)
        fresh = float(self.min_val) == float("inf") and float(self.max_val) == float("-inf")
        low = low if fresh else self._updated(low, self.min_val, torch.minimum)
        high = high if fresh else self._updated(high, self.max_val, torch.maximum)
        self.min_val.copy_(low)
        self.max_val.copy_(high)
        return x_orig

    def calculate_qparams(self):
        """``(scale, zero_point)``: 1-element float32 and integer tensors."""
        return self._calculate_qparams(self.min_val, self.max_val)

    def extra_repr(self):
        return f"min_val={float(self.min_val)}, max_val={float(self.max_val)}"

    def reset_min_max_vals(self):
        """Forget the observed range."""
        self.min_val.copy_(torch.tensor(float("inf")))
        self.max_val.copy_(torch.tensor(float("-inf")))


class MovingAverageMinMaxObserver(MinMaxObserver):
    """As :class:`MinMaxObserver`, the range being a moving average: ``running + c * (current - running)``
    with ``c = averaging_constant`` (the first batch sets it)."""

    def __init__(self, averaging_constant=0.01, dtype=_quantized.quint8, qscheme=_quantized.per_tensor_affine,
                 reduce_range=False, quant_min=None, quant_max=None, eps=_EPS, is_dynamic=False, **kwargs):
        self.averaging_constant = averaging_constant
        if is_dynamic and self.averaging_constant != 1:
            raise NotImplementedError("MovingAverageMinMaxObserver doesn't support dynamic quantization for "
                                      f"averaging constant of {self.averaging_constant}")
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range, quant_min=quant_min,
                         quant_max=quant_max, eps=eps, **kwargs)

    def _updated(self, current, running, pick):
        return running + self.averaging_constant * (current - running)


class PerChannelMinMaxObserver(UniformQuantizationObserverBase):
    """As :class:`MinMaxObserver`, one range per slice along ``ch_axis`` (``qscheme`` per channel)."""

    def __init__(self, ch_axis=0, dtype=_quantized.quint8, qscheme=_quantized.per_channel_affine, reduce_range=False,
                 quant_min=None, quant_max=None, factory_kwargs=None, eps=_EPS, is_dynamic=False, **kwargs):
        if qscheme not in _PER_CHANNEL:
            raise NotImplementedError("PerChannelMinMaxObserver's qscheme only support                     "
                                      "torch.per_channel_symmetric, torch.per_channel_affine and "
                                      "torch.per_channel_affine_float_qparams.")
        if is_dynamic:
            raise NotImplementedError("PerChannelMinMaxObserver doesn't support dynamic quantization")
        super().__init__(dtype=dtype, qscheme=qscheme, reduce_range=reduce_range, quant_min=quant_min,
                         quant_max=quant_max, factory_kwargs=factory_kwargs, eps=eps, is_dynamic=is_dynamic, **kwargs)
        self.ch_axis = ch_axis
        self.register_buffer("min_val", torch.tensor([]))
        self.register_buffer("max_val", torch.tensor([]))
        if self.qscheme is _quantized.per_channel_symmetric and self.reduce_range and self.dtype is _quantized.quint8:
            raise NotImplementedError("Cannot reduce range for symmetric quantization for quint8")

    def _updated(self, current, running, pick):
        return pick(current, running)

    def forward(self, x_orig):
        """Record the min and max of each slice of ``x_orig`` along ``ch_axis``; returns ``x_orig``."""
        if x_orig.numel() == 0:
            return x_orig
        x = x_orig.detach()
        order = list(range(x.ndim))
        order[self.ch_axis], order[0] = 0, self.ch_axis
        rows = torch.flatten(x.permute(order).to(self.min_val.dtype), start_dim=1)
        low, high = torch.aminmax(rows, dim=1)
        if self.min_val.numel() != 0 and self.max_val.numel() != 0:
            low = self._updated(low, self.min_val, torch.minimum)
            high = self._updated(high, self.max_val, torch.maximum)
        self.min_val.resize_(low.shape)
        self.max_val.resize_(high.shape)
        self.min_val.copy_(low)
        self.max_val.copy_(high)
        return x_orig

    def calculate_qparams(self):
        """``(scales, zero_points)``: one per channel."""
        return self._calculate_qparams(self.min_val, self.max_val)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}"

    def reset_min_max_vals(self):
        """Forget the observed ranges."""
        self.min_val = torch.tensor([])
        self.max_val = torch.tensor([])


class MovingAveragePerChannelMinMaxObserver(PerChannelMinMaxObserver):
    """As :class:`PerChannelMinMaxObserver`, each range a moving average (see
    :class:`MovingAverageMinMaxObserver`)."""

    def __init__(self, averaging_constant=0.01, ch_axis=0, dtype=_quantized.quint8,
                 qscheme=_quantized.per_channel_affine, reduce_range=False, quant_min=None, quant_max=None, eps=_EPS,
                 is_dynamic=False, **kwargs):
        if is_dynamic:
            raise NotImplementedError("MovingAveragePerChannelMinMaxObserver doesn't support dynamic quantization")
        super().__init__(ch_axis=ch_axis, dtype=dtype, qscheme=qscheme, reduce_range=reduce_range,
                         quant_min=quant_min, quant_max=quant_max, eps=eps, is_dynamic=is_dynamic, **kwargs)
        self.averaging_constant = averaging_constant

    def _updated(self, current, running, pick):
        return running + self.averaging_constant * (current - running)


class PlaceholderObserver(ObserverBase):
    """Records nothing: stands for a dtype (e.g. float16) that needs no parameters."""

    def __init__(self, dtype=torch.float32, custom_op_name="", compute_dtype=None, quant_min=None, quant_max=None,
                 qscheme=None, eps=None, is_dynamic=False):
        super().__init__(dtype=dtype, is_dynamic=is_dynamic)
        if qscheme is None:
            qscheme = _quantized.per_tensor_affine
        if eps is None:
            eps = _EPS
        self.quant_min, self.quant_max, self.qscheme, self.eps = quant_min, quant_max, qscheme, eps
        self.custom_op = custom_op_name
        if compute_dtype:
            is_dynamic = True
            warn_for_user("Please use `is_dynamic` instead of `compute_dtype`. `compute_dtype` will be deprecated in "
                          "a future release of PyTorch.")
        self.is_dynamic = is_dynamic

    def forward(self, x):
        return x

    def extra_repr(self):
        return f"dtype={self.dtype}, is_dynamic={self.is_dynamic}"

    def calculate_qparams(self):
        raise Exception("calculate_qparams should not be called for PlaceholderObserver")  # noqa: TRY002 (torch's)


class NoopObserver(ObserverBase):
    """Records nothing (for float16 stubs)."""

    def __init__(self, dtype=torch.float16, custom_op_name=""):
        super().__init__(dtype=dtype)
        self.dtype = dtype
        self.custom_op = custom_op_name

    def forward(self, x):
        return x

    def calculate_qparams(self):
        raise Exception("calculate_qparams should not be called for NoopObserver")  # noqa: TRY002 (torch's)


default_observer = MinMaxObserver.with_args(quant_min=0, quant_max=127)
default_placeholder_observer = PlaceholderObserver
default_weight_observer = MinMaxObserver.with_args(dtype=_quantized.qint8, qscheme=_quantized.per_tensor_symmetric)
default_per_channel_weight_observer = PerChannelMinMaxObserver.with_args(dtype=_quantized.qint8,
                                                                         qscheme=_quantized.per_channel_symmetric)
default_dynamic_quant_observer = PlaceholderObserver.with_args(dtype=torch.quint8, quant_min=0, quant_max=255,
                                                               is_dynamic=True)

from vfw.frontends.torch.ao.quantization._histogram_observer import HistogramObserver  # noqa: E402  (subclasses ours)

__all__ += ["HistogramObserver", "default_histogram_observer"]
default_histogram_observer = HistogramObserver.with_args(quant_min=0, quant_max=127)
