"""Padding layers: constant (zero), reflection, replication and circular, over 1, 2 or 3 trailing dims.

``padding`` is an int (the same on every side) or a tuple in ``F.pad`` order: ``(left, right)``,
``(left, right, top, bottom)`` or ``(left, right, top, bottom, front, back)``.  Negative values crop.
"""

from vfw.frontends.torch.nn.functional import _vision as F
from vfw.frontends.torch.nn.modules.module import Module
from vfw.frontends.torch.nn.modules.utils import _ntuple

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d"]

_EXPAND = {1: _ntuple(2, "_pair"), 2: _ntuple(4, "_quadruple"), 3: _ntuple(6)}


class _PadNd(Module):
    """A padding layer of ``_nd`` trailing dims in ``F.pad`` mode ``_mode``."""

    __constants__ = ["padding"]
    _nd = 0
    _mode = None

    def __init__(self, padding):
        super().__init__()
        self.padding = _EXPAND[self._nd](padding)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self):
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    """Pads with ``value``."""

    __constants__ = ["padding", "value"]
    _mode = "constant"

    def __init__(self, padding, value):
        super().__init__(padding)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim of ``(N, C, W)`` / ``(C, W)`` with ``value``."""

    _nd = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last 2 dims of ``(N, C, H, W)`` / ``(C, H, W)`` with ``value``."""

    _nd = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last 3 dims of ``(N, C, D, H, W)`` / ``(C, D, H, W)`` with ``value``."""

    _nd = 3


class ZeroPad1d(ConstantPad1d):
    """Pads the last dim with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pads the last 2 dims with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pads the last 3 dims with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    """Pads the last dim with the reflection of the input (pads smaller than the dim)."""

    _nd, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    """Pads the last 2 dims with the reflection of the input."""

    _nd, _mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    """Pads the last 3 dims with the reflection of the input."""

    _nd, _mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    """Pads the last dim by repeating the edge values."""

    _nd, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    """Pads the last 2 dims by repeating the edge values."""

    _nd, _mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    """Pads the last 3 dims by repeating the edge values."""

    _nd, _mode = 3, "replicate"


class _CircularPadNd(_PadNd):
    """Pads by wrapping around (the start pads the end and vice versa); checks the input's rank first."""

    _mode = "circular"

    def forward(self, input):
        rank = input.dim()
        if rank not in (self._nd + 1, self._nd + 2):
            raise ValueError(f"expected {self._nd + 1}D or {self._nd + 2}D input (got {rank}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Circular padding of the last dim of ``(N, C, W)`` / ``(C, W)``."""

    _nd = 1


class CircularPad2d(_CircularPadNd):
    """Circular padding of the last 2 dims of ``(N, C, H, W)`` / ``(C, H, W)``."""

    _nd = 2


class CircularPad3d(_CircularPadNd):
    """Circular padding of the last 3 dims of ``(N, C, D, H, W)`` / ``(C, D, H, W)``."""

    _nd = 3
