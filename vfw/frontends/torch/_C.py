# ruff: noqa: N999  (torch's module name)
"""torch._C: the names user code takes from torch's C extension that vfw has (the ``__torch_function__``
switches)."""

from vfw.frontends.torch.overrides import (  # noqa: F401
    DisableTorchFunction,
    DisableTorchFunctionSubclass,
    _disabled_torch_function_impl,
)
