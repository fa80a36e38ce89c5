"""LayerNorm, GroupNorm, LocalResponseNorm, CrossMapLRN2d, RMSNorm."""

import numbers

import numpy as np

from vfw.frontends.torch import _creation, _joining
from vfw.frontends.torch.nn import init
from vfw.frontends.torch.nn.functional import _normalization as F
from vfw.frontends.torch.nn.modules.module import Module
from vfw.frontends.torch.nn.parameter import Parameter

__all__ = ["LayerNorm", "GroupNorm", "LocalResponseNorm", "CrossMapLRN2d", "RMSNorm"]


def _shape_tuple(normalized_shape):
    """An int or a sequence of ints (list, tuple, torch.Size) as a tuple."""
    if isinstance(normalized_shape, numbers.Integral):
        return (normalized_shape,)
    return tuple(normalized_shape)


def _affine(module, shape, device, dtype, **wanted):
    """Register each parameter of ``wanted`` (name -> bool) with ``shape`` (uninitialized), or None if unwanted."""
    for name, want in wanted.items():
        if want:
            setattr(module, name, Parameter(_creation.empty(shape, device=device, dtype=dtype)))
        else:
            module.register_parameter(name, None)


def _ones_and_zeros(module):
    """torch's reset of an affine normalization: weight 1, bias 0 (where present)."""
    if module.weight is not None:
        init.ones_(module.weight)
    if getattr(module, "bias", None) is not None:
        init.zeros_(module.bias)


class LayerNorm(Module):
    """Normalize over the last ``len(normalized_shape)`` dims, then an elementwise affine map.

    Parameters
    ----------
    normalized_shape : int, list of int or torch.Size
        The trailing shape normalized over.
    eps : float
        Added to the variance.
    elementwise_affine : bool
        Learn ``weight`` (ones) and ``bias`` (zeros) of shape ``normalized_shape``.
    bias : bool
        Whether the affine map has ``bias``.
    device, dtype : optional

    Shape: input ``(*, *normalized_shape)``, output the same.
    """

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine(self, self.normalized_shape, device, dtype, weight=elementwise_affine,
                bias=elementwise_affine and bias)
        self.reset_parameters()

    def reset_parameters(self):
        """Weight 1 and bias 0."""
        _ones_and_zeros(self)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class GroupNorm(Module):
    """Normalize each instance over ``num_groups`` groups of channels, then a per-channel affine map.

    Parameters
    ----------
    num_groups : int
        Must divide ``num_channels``.
    num_channels : int
    eps : float
    affine : bool
        Learn per-channel ``weight`` (ones) and ``bias`` (zeros).
    device, dtype : optional
    bias : bool
        Whether an affine layer learns ``bias`` (keyword only).

    Shape: input ``(N, C, *)``, output the same.
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        _affine(self, num_channels, device, dtype, weight=affine, bias=affine and bias)
        self.reset_parameters()

    def reset_parameters(self):
        """Weight 1 and bias 0."""
        _ones_and_zeros(self)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class LocalResponseNorm(Module):
    """``x / (k + alpha * mean of x^2 over size neighbouring channels)^beta``.

    Parameters
    ----------
    size : int
        Channels in the window.
    alpha, beta, k : float

    Shape: input ``(N, C, *)`` (at least 3D), output the same.
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class CrossMapLRN2d(Module):
    """The legacy cross-channel LRN of 4-D inputs: ``x / (k + alpha / size * S)^beta``.

    ``S`` sums the squares of channels ``c - (size - 1) // 2 ... c + (size - 1) // 2`` and, as torch's kernel does
    (its running window never drops the first channel), also channel 0's square for every later channel.

    Parameters
    ----------
    size : int
        Channels in the window.
    alpha, beta, k : float

    Shape: input ``(N, C, H, W)``, output the same.
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        channels, half = input.shape[1], (self.size - 1) // 2
        squares = input * input
        # Window sums from a running sum over channels: totals[c] = squares[0] + ... + squares[c - 1].
        totals = _joining.cat([_creation.zeros_like(squares.narrow(1, 0, 1)), squares.cumsum(1)], 1)
        position = np.arange(channels)
        upper = _creation.tensor(np.minimum(position + half + 1, channels))
        lower = _creation.tensor(np.maximum(position - half, 0))
        window = totals.index_select(1, upper) - totals.index_select(1, lower)
        beyond_first = _creation.tensor((position > half).astype(np.float64), dtype=input.dtype).reshape(1, -1, 1, 1)
        window = window + squares.narrow(1, 0, 1) * beyond_first
        return input * (self.k + self.alpha / self.size * window) ** (-self.beta)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class RMSNorm(Module):
    """Divide by the root mean square over the last ``len(normalized_shape)`` dims, then scale elementwise.

    Parameters
    ----------
    normalized_shape : int, list of int or torch.Size
    eps : float or None
        Added to the mean square; None: the machine epsilon of the input's (computing) dtype.
    elementwise_affine : bool
        Learn ``weight`` (ones) of shape ``normalized_shape``.
    device, dtype : optional

    Shape: input ``(*, *normalized_shape)``, output the same.
    """

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine(self, self.normalized_shape, device, dtype, weight=elementwise_affine)
        self.reset_parameters()

    def reset_parameters(self):
        """Weight 1."""
        _ones_and_zeros(self)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
