"""Softmax, Softmin, LogSoftmax, Softmax2d and GLU modules (public through ``activation``)."""

from vfw.frontends.torch.nn.functional import _activation_softmax as F
from vfw.frontends.torch.nn.modules.module import Module


class _AlongDim(Module):
    """A normalization along ``dim`` (None: torch's deprecated implicit choice, with a warning)."""

    function = None

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return type(self).function(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Softmax(_AlongDim):
    """``exp(x) / sum(exp(x))`` along ``dim``.

    Parameters
    ----------
    dim : int, optional

    Shape: input ``(*)``, output ``(*)``; slices along ``dim`` sum to 1.
    """

    function = staticmethod(F.softmax)


class Softmin(_AlongDim):
    """``softmax(-x)`` along ``dim`` (parameters as :class:`Softmax`)."""

    function = staticmethod(F.softmin)


class LogSoftmax(_AlongDim):
    """``log(softmax(x))`` along ``dim`` (parameters as :class:`Softmax`)."""

    function = staticmethod(F.log_softmax)


class Softmax2d(Module):
    """Softmax over the channels at every location.

    Shape: input ``(N, C, H, W)`` or ``(C, H, W)``, output the same.
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.dim()}D instead")
        return F.softmax(input, -3)


class GLU(Module):
    """Gated linear unit: ``a * sigmoid(b)`` for the halves ``a``, ``b`` of the input along ``dim``.

    Parameters
    ----------
    dim : int

    Shape: input ``(*, 2N, *)``, output ``(*, N, *)``.
    """

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"
