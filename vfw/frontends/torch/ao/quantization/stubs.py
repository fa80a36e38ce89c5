"""``QuantStub`` / ``DeQuantStub``: where a float model's quantized region begins and ends (identities until
``convert``; ``prepare`` attaches an observer to ``QuantStub``)."""

from vfw.frontends.torch.nn.modules.module import Module

__all__ = ["QuantStub", "DeQuantStub"]


class QuantStub(Module):
    """Marks the start of the quantized region: an identity before ``convert``.

    Parameters
    ----------
    qconfig : QConfig, optional
    """

    def __init__(self, qconfig=None):
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        return x


class DeQuantStub(Module):
    """Marks the end of the quantized region: an identity before ``convert``."""

    def __init__(self, qconfig=None):
        super().__init__()
        if qconfig:
            self.qconfig = qconfig

    def forward(self, x):
        return x
