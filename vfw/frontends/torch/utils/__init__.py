"""torch.utils: ``data`` (datasets and loaders), ``dlpack``, ``checkpoint``."""

from vfw.frontends.torch.utils import checkpoint, data, dlpack  # noqa: F401
