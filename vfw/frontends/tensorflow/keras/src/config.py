"""keras.config: global settings (float type, epsilon, image layout, logging and safety switches).

``keras.config.dtype_policy`` / ``set_dtype_policy`` come from ``engine/dtype_policy.py``.
"""

from vfw.frontends.tensorflow.keras.src.backend import global_state

# Re-exported: the settings live in the backend's config and in utils.
from vfw.frontends.tensorflow.keras.src.backend.config import (  # noqa: F401
    backend,
    epsilon,
    floatx,
    image_data_format,
    max_epochs,
    max_steps_per_epoch,
    set_epsilon,
    set_floatx,
    set_image_data_format,
    set_max_epochs,
    set_max_steps_per_epoch,
)
from vfw.frontends.tensorflow.keras.src.utils.io_utils import (  # noqa: F401
    disable_interactive_logging,
    enable_interactive_logging,
    is_interactive_logging_enabled,
)
from vfw.frontends.tensorflow.keras.src.utils.serialization import enable_unsafe_deserialization  # noqa: F401

API = {"config": ["backend", "disable_flash_attention", "disable_interactive_logging", "disable_traceback_filtering",
                  "enable_flash_attention", "enable_interactive_logging", "enable_traceback_filtering",
                  "enable_unsafe_deserialization", "epsilon", "floatx", "image_data_format",
                  "is_flash_attention_enabled", "is_interactive_logging_enabled", "is_nnx_enabled",
                  "is_traceback_filtering_enabled", "max_epochs", "max_steps_per_epoch", "set_backend", "set_epsilon",
                  "set_floatx", "set_image_data_format", "set_max_epochs", "set_max_steps_per_epoch"]}

_TRACEBACK_FILTERING = "traceback_filtering"
_FLASH_ATTENTION = "flash_attention"


def enable_traceback_filtering():
    """Record that Keras-internal frames may be filtered from tracebacks (vfw shows them all)."""
    global_state.set_global_attribute(_TRACEBACK_FILTERING, True)


def disable_traceback_filtering():
    """Record that tracebacks are to be shown whole."""
    global_state.set_global_attribute(_TRACEBACK_FILTERING, False)


def is_traceback_filtering_enabled():
    """Whether traceback filtering is on (the default)."""
    return global_state.get_global_attribute(_TRACEBACK_FILTERING, True)


def enable_flash_attention():
    """Let attention layers pick flash attention when available (the default: None, automatic)."""
    global_state.set_global_attribute(_FLASH_ATTENTION, None)


def disable_flash_attention():
    """Keep attention layers off flash attention."""
    global_state.set_global_attribute(_FLASH_ATTENTION, False)


def is_flash_attention_enabled():
    """None (automatic) unless ``disable_flash_attention`` was called (False)."""
    return global_state.get_global_attribute(_FLASH_ATTENTION)


def is_nnx_enabled():
    """Whether Flax NNX integration is on: never on the TensorFlow backend."""
    return False


def set_backend(name):
    """Only ``"tensorflow"`` exists in vfw (a no-op); other backends raise ValueError."""
    if name != "tensorflow":
        raise ValueError(f"vfw's Keras runs on its TensorFlow frontend only: cannot switch to backend {name!r}.")
