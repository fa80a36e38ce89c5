"""torch.nn.utils.skip_init: build a module without running its initializers' meaning (vfw builds it normally:
torch leaves the values uninitialized, so any values are torch's)."""

import inspect

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """An instance of ``module_cls(*args, **kwargs)``; the class must take a ``device`` argument, as in torch."""
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    return module_cls(*args, **kwargs)
