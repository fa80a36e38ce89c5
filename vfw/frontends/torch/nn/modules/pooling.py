"""Pooling layers: max, average, power-average, adaptive, fractional and unpooling (1-D, 2-D, 3-D)."""

from vfw.frontends.torch.nn.functional import _pooling as F
from vfw.frontends.torch.nn.modules.module import Module
from vfw.frontends.torch.nn.modules.utils import _pair, _single, _triple

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "LPPool1d", "LPPool2d",
           "LPPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "FractionalMaxPool2d",
           "FractionalMaxPool3d"]


class _MaxPoolNd(Module):
    """Max pooling: ``kernel_size``, ``stride`` (default ``kernel_size``), ``padding``, ``dilation``,
    ``return_indices`` (also return each maximum's flat index within its plane) and ``ceil_mode``."""

    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"]
    _function = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return type(self)._function(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                    ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """Max over sliding windows of ``(N, C, L)`` or ``(C, L)``; see :func:`~.functional.max_pool1d`."""

    _function = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    """Max over sliding windows of ``(N, C, H, W)`` or ``(C, H, W)``; see :class:`MaxPool1d`."""

    _function = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    """Max over sliding windows of ``(N, C, D, H, W)`` or ``(C, D, H, W)``; see :class:`MaxPool1d`."""

    _function = staticmethod(F.max_pool3d)


class _AvgPoolNd(Module):
    """Average pooling (see :func:`~.functional.avg_pool2d` for the arguments)."""

    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """Mean over sliding windows of ``(N, C, L)`` or ``(C, L)`` (sizes stored as 1-tuples, as torch)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class _AvgPoolDivisor(_AvgPoolNd):
    """2-D and 3-D average pooling, which also take ``divisor_override``."""

    __constants__ = _AvgPoolNd.__constants__ + ["divisor_override"]
    _function = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input):
        return type(self)._function(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                    self.count_include_pad, self.divisor_override)


class AvgPool2d(_AvgPoolDivisor):
    """Mean over sliding windows of ``(N, C, H, W)`` or ``(C, H, W)``."""

    _function = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPoolDivisor):
    """Mean over sliding windows of ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""

    _function = staticmethod(F.avg_pool3d)


class _LPPoolNd(Module):
    """Power-average pooling: ``(sum of x ** norm_type over each window) ** (1 / norm_type)``."""

    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]
    _function = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return type(self)._function(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """Power-average pooling of ``(N, C, L)`` or ``(C, L)``."""

    _function = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """Power-average pooling of ``(N, C, H, W)`` or ``(C, H, W)``."""

    _function = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """Power-average pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""

    _function = staticmethod(F.lp_pool3d)


class _AdaptiveAvgPoolNd(Module):
    """Average pooling to a fixed ``output_size`` (None entries keep the input's size)."""

    __constants__ = ["output_size"]
    _function = None

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return type(self)._function(input, self.output_size)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Adaptive average pooling of ``(N, C, L)`` or ``(C, L)``."""

    _function = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Adaptive average pooling of ``(N, C, H, W)`` or ``(C, H, W)``."""

    _function = staticmethod(F.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Adaptive average pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""

    _function = staticmethod(F.adaptive_avg_pool3d)


class _AdaptiveMaxPoolNd(Module):
    """Max pooling to a fixed ``output_size``; ``return_indices`` also returns each maximum's index."""

    __constants__ = ["output_size", "return_indices"]
    _function = None

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input):
        return type(self)._function(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling of ``(N, C, L)`` or ``(C, L)``."""

    _function = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling of ``(N, C, H, W)`` or ``(C, H, W)``."""

    _function = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""

    _function = staticmethod(F.adaptive_max_pool3d)


class _MaxUnpoolNd(Module):
    """Partial inverse of max pooling: ``forward(input, indices, output_size=None)``."""

    _tuple = None
    _function = None

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        expand = type(self)._tuple
        self.kernel_size = expand(kernel_size)
        self.stride = expand(stride if stride is not None else kernel_size)
        self.padding = expand(padding)

    def forward(self, input, indices, output_size=None):
        return type(self)._function(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """Partial inverse of :class:`MaxPool1d`."""

    _tuple = staticmethod(_single)
    _function = staticmethod(F.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """Partial inverse of :class:`MaxPool2d`."""

    _tuple = staticmethod(_pair)
    _function = staticmethod(F.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    """Partial inverse of :class:`MaxPool3d`."""

    _tuple = staticmethod(_triple)
    _function = staticmethod(F.max_unpool3d)


class _FractionalMaxPoolNd(Module):
    """Fractional max pooling: ``kernel_size`` and one of ``output_size`` / ``output_ratio`` (in (0, 1));
    ``_random_samples`` (a buffer, usually None) fixes the windows."""

    _nd = 0
    _tuple = None
    _function = None

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False, _random_samples=None):
        super().__init__()
        name = type(self).__name__
        expand = type(self)._tuple
        if self._nd == 3 and ((isinstance(kernel_size, int) and kernel_size <= 0)
                              or (isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size))):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        self.kernel_size = expand(kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = expand(output_size) if output_size is not None else None
        self.output_ratio = expand(output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input):
        return type(self)._function(input, self.kernel_size, self.output_size, self.output_ratio,
                                    self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Fractional max pooling of ``(N, C, H, W)`` or ``(C, H, W)``."""

    _nd = 2
    _tuple = staticmethod(_pair)
    _function = staticmethod(F.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""

    _nd = 3
    _tuple = staticmethod(_triple)
    _function = staticmethod(F.fractional_max_pool3d)
