"""``torch.ao.nn.intrinsic``: fused float modules (``fuse_modules`` output) and, in ``quantized``, their quantized
forms."""

from vfw.frontends.torch.nn.modules.container import Sequential

__all__ = ["ConvReLU2d", "LinearReLU"]


class _FusedModule(Sequential):
    """A float layer followed by its fused activation: runs as the ``Sequential`` of both."""


class ConvReLU2d(_FusedModule):
    """``Conv2d`` then ``ReLU``, quantized as one layer."""

    def __init__(self, conv, relu):
        super().__init__(conv, relu)


class LinearReLU(_FusedModule):
    """``Linear`` then ``ReLU``, quantized as one layer."""

    def __init__(self, linear, relu):
        super().__init__(linear, relu)


from vfw.frontends.torch.ao.nn.intrinsic import quantized  # noqa: E402,F401
