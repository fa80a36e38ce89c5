"""torch.utils: ``data`` (datasets and loaders), ``dlpack``."""

from vfw.frontends.torch.utils import data, dlpack  # noqa: F401
