"""``torch.ao``: quantization (``torch.ao.quantization``)."""

from vfw.frontends.torch.ao import quantization  # noqa: F401
