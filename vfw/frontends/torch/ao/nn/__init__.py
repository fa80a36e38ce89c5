"""``torch.ao.nn``: quantized (``quantized``, ``quantized.dynamic``), QAT (``qat``) and fused (``intrinsic``)
modules."""

from vfw.frontends.torch.ao.nn import intrinsic, qat, quantized  # noqa: F401
