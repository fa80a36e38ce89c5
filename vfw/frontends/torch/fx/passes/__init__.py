"""``torch.fx.passes``: graph passes (``shape_prop``)."""

from vfw.frontends.torch.fx.passes import shape_prop  # noqa: F401
