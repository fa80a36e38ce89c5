"""Conv1d/2d/3d and ConvTranspose1d/2d/3d."""

import math

from vfw.frontends.torch import _creation
from vfw.frontends.torch.nn import init
from vfw.frontends.torch.nn.functional import _conv as F
from vfw.frontends.torch.nn.functional import _vision
from vfw.frontends.torch.nn.modules.module import Module
from vfw.frontends.torch.nn.modules.utils import _pair, _reverse_repeat_tuple, _single, _triple
from vfw.frontends.torch.nn.parameter import Parameter

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]

_PADDING_MODES = {"zeros", "reflect", "replicate", "circular"}
_PADDING_STRINGS = {"same", "valid"}


class _ConvNd(Module):
    """What every convolution layer shares: checks, parameters, initialization, repr.

    Attributes
    ----------
    weight : Parameter
        ``(out_channels, in_channels / groups, *kernel_size)``, or ``(in_channels, out_channels / groups,
        *kernel_size)`` when transposed; kaiming uniform with ``a=sqrt(5)``.
    bias : Parameter or None
        ``(out_channels,)``, from U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
    """

    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding", "in_channels",
                     "out_channels", "kernel_size"]

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed, output_padding,
                 groups, bias, padding_mode, device=None, dtype=None):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in _PADDING_STRINGS:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {_PADDING_STRINGS}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {_PADDING_MODES}, but got padding_mode='{padding_mode}'")
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = transposed
        self.output_padding = output_padding
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's order (last dim first, begin then end) for the non-zero padding modes
        if isinstance(padding, str):
            pads = [0, 0] * len(kernel_size)
            if padding == "same":
                for d, k, i in zip(dilation, kernel_size, range(len(kernel_size) - 1, -1, -1)):
                    total = d * (k - 1)
                    pads[2 * i], pads[2 * i + 1] = total // 2, total - total // 2
            self._reversed_padding_repeated_twice = pads
        else:
            self._reversed_padding_repeated_twice = _reverse_repeat_tuple(padding, 2)
        shape = (in_channels, out_channels // groups) if transposed else (out_channels, in_channels // groups)
        self.weight = Parameter(_creation.empty((*shape, *kernel_size), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(_creation.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Draw the weight (kaiming uniform, a=sqrt(5)), then the bias, as torch does."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


class _Conv(_ConvNd):
    """A forward convolution of ``_nd`` spatial dims (padding modes through ``F.pad``)."""

    _nd = 0
    _tuple = None
    _function = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        expand = type(self)._tuple
        super().__init__(in_channels, out_channels, expand(kernel_size), expand(stride),
                         padding if isinstance(padding, str) else expand(padding), expand(dilation), False,
                         expand(0), groups, bias, padding_mode, device=device, dtype=dtype)

    def _conv_forward(self, input, weight, bias):
        conv = type(self)._function
        if self.padding_mode != "zeros":
            padded = _vision.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(padded, weight, bias, self.stride, (0,) * self._nd, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class Conv1d(_Conv):
    """1-D convolution layer: input ``(N, C_in, L)`` or ``(C_in, L)``, output ``(N, C_out, L_out)``.

    Parameters
    ----------
    in_channels, out_channels : int
    kernel_size : int or tuple
    stride, dilation : int or tuple
    padding : int, tuple, 'valid' or 'same'
    groups : int
        Blocks of input channels convolved separately (both channel counts divisible by it).
    bias : bool
    padding_mode : {'zeros', 'reflect', 'replicate', 'circular'}
    device, dtype : optional
    """

    _nd = 1
    _tuple = staticmethod(_single)
    _function = staticmethod(F.conv1d)


class Conv2d(_Conv):
    """2-D convolution layer: input ``(N, C_in, H, W)`` or ``(C_in, H, W)``; see :class:`Conv1d`."""

    _nd = 2
    _tuple = staticmethod(_pair)
    _function = staticmethod(F.conv2d)


class Conv3d(_Conv):
    """3-D convolution layer: input ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``; see :class:`Conv1d`."""

    _nd = 3
    _tuple = staticmethod(_triple)
    _function = staticmethod(F.conv3d)


class _ConvTransposeNd(_ConvNd):
    """A transposed convolution of ``_nd`` spatial dims; ``forward`` takes an optional ``output_size``."""

    _nd = 0
    _tuple = None
    _function = None

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        expand = type(self)._tuple
        super().__init__(in_channels, out_channels, expand(kernel_size), expand(stride), expand(padding),
                         expand(dilation), True, expand(output_padding), groups, bias, padding_mode, device=device,
                         dtype=dtype)

    def _output_padding(self, input, output_size, stride, padding, kernel_size, num_spatial_dims, dilation=None):
        """The output_padding that makes the result ``output_size`` (``self.output_padding`` when None)."""
        if output_size is None:
            return _single(self.output_padding)
        has_batch_dim = input.dim() == num_spatial_dims + 2
        lead = 2 if has_batch_dim else 1
        output_size = list(output_size)
        if len(output_size) == lead + num_spatial_dims:
            output_size = output_size[lead:]
        if len(output_size) != num_spatial_dims:
            raise ValueError(f"ConvTranspose{num_spatial_dims}D: for {input.dim()}D input, output_size must have "
                             f"{num_spatial_dims} or {lead + num_spatial_dims} elements (got {len(output_size)})")
        min_sizes = [(input.size(d + lead) - 1) * stride[d] - 2 * padding[d]
                     + (dilation[d] if dilation is not None else 1) * (kernel_size[d] - 1) + 1
                     for d in range(num_spatial_dims)]
        max_sizes = [m + s - 1 for m, s in zip(min_sizes, stride)]
        for size, low, high in zip(output_size, min_sizes, max_sizes):
            if size < low or size > high:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range from {min_sizes} "
                                 f"to {max_sizes} (for an input of {input.size()[2:]})")
        return [size - low for size, low in zip(output_size, min_sizes)]

    def forward(self, input, output_size=None):
        if self.padding_mode != "zeros":
            raise ValueError(f"Only `zeros` padding mode is supported for {type(self).__name__}")
        output_padding = self._output_padding(input, output_size, self.stride, self.padding, self.kernel_size,
                                              self._nd, self.dilation)
        return type(self)._function(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                    self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution layer: input ``(N, C_in, L)`` or ``(C_in, L)``.

    Parameters
    ----------
    in_channels, out_channels : int
    kernel_size, stride, padding, dilation : int or tuple
    output_padding : int or tuple
        Extra size on one side of the output (smaller than the stride or the dilation).
    groups : int
    bias : bool
    padding_mode : 'zeros'
    device, dtype : optional
    """

    _nd = 1
    _tuple = staticmethod(_single)
    _function = staticmethod(F.conv_transpose1d)


class ConvTranspose2d(_ConvTransposeNd):
    """2-D transposed convolution layer: input ``(N, C_in, H, W)`` or ``(C_in, H, W)``; see
    :class:`ConvTranspose1d`."""

    _nd = 2
    _tuple = staticmethod(_pair)
    _function = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution layer: input ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``; see
    :class:`ConvTranspose1d`."""

    _nd = 3
    _tuple = staticmethod(_triple)
    _function = staticmethod(F.conv_transpose3d)
