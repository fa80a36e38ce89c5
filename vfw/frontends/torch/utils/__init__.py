"""torch.utils: ``data`` (datasets and loaders)."""

from vfw.frontends.torch.utils import data  # noqa: F401
