"""torch._dynamo.config: dynamo's settings with torch 2.13's defaults. Only known names can be read or set
(AttributeError otherwise, as torch); ``patch`` sets some for a ``with`` block or a decorated function."""

import contextlib
import copy
import sys
import types

_DEFAULTS = {
    "suppress_errors": False, "cache_size_limit": 8, "recompile_limit": 8, "accumulated_cache_size_limit": 256,
    "accumulated_recompile_limit": 256, "verbose": False, "capture_scalar_outputs": False,
    "capture_dynamic_output_shape_ops": False, "automatic_dynamic_shapes": True, "assume_static_by_default": True,
    "optimize_ddp": True, "inline_inbuilt_nn_modules": True, "specialize_int": False, "specialize_float": False,
    "guard_nn_modules": True, "force_parameter_static_shapes": True, "dynamic_shapes": True,
    "error_on_recompile": False, "replay_record_enabled": False, "log_compilation_metrics": True,
    "raise_on_ctx_manager_usage": True, "allow_unspec_int_on_nn_module": False, "skip_nnmodule_hook_guards": True,
}


class _ConfigModule(types.ModuleType):
    """A module whose attributes are the known settings only."""

    def __getattr__(self, name):
        raise AttributeError(f"torch._dynamo.config.{name} does not exist")

    def __setattr__(self, name, value):
        if name.startswith("__") or name in _DEFAULTS:
            super().__setattr__(name, value)
            return
        raise AttributeError(f"torch._dynamo.config.{name} does not exist")

    def get_config_copy(self):
        """dict: every setting's current value."""
        return {name: copy.copy(getattr(self, name)) for name in _DEFAULTS}

    def patch(self, arg1=None, arg2=None, **changes):
        """Set settings for a ``with`` block or a decorated function: ``patch("name", value)``,
        ``patch({"name": value})`` or ``patch(name=value)``."""
        if isinstance(arg1, str):
            changes[arg1] = arg2
        elif isinstance(arg1, dict):
            changes.update(arg1)
        for name in changes:
            if name not in _DEFAULTS:
                raise AttributeError(f"torch._dynamo.config.{name} does not exist")
        return _patched(self, changes)


@contextlib.contextmanager
def _patched(module, changes):
    saved = {name: getattr(module, name) for name in changes}
    for name, value in changes.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


_module = sys.modules[__name__]
_module.__class__ = _ConfigModule
for _name, _value in _DEFAULTS.items():
    setattr(_module, _name, _value)
