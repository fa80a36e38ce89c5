"""``torch.ao``: quantization (``torch.ao.quantization``)."""

from vfw.frontends.torch.ao import nn, quantization  # noqa: F401
