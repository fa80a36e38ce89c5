"""ChannelShuffle."""

from vfw.frontends.torch.nn.functional import _vision as F
from vfw.frontends.torch.nn.modules.module import Module

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Interleave the channels of ``(N, C, *)`` from ``groups`` blocks (see :func:`~.functional.channel_shuffle`)."""

    __constants__ = ["groups"]

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"
