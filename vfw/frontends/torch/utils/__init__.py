"""torch.utils: ``data`` (datasets and loaders), ``dlpack``, ``checkpoint``, ``_pytree``, ``deterministic``,
``swap_tensors``."""

import importlib

from vfw.frontends.torch.utils import checkpoint, data, deterministic, dlpack  # noqa: F401
from vfw.frontends.torch.utils._swap import swap_tensors  # noqa: F401

_LAZY = ("_pytree",)  # imported on first access: it needs torch.func, which needs this package


def __getattr__(name):
    if name in _LAZY:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
