"""tf.saved_model: save and load tf.Modules in vfw's own SavedModel format (``_saved_model_*``).

The directories are not TensorFlow's: TF cannot read vfw's SavedModels and vfw cannot read TF's (see
``_saved_model_format`` for the layout).
"""

from vfw.frontends.tensorflow._saved_model_asset import *  # noqa: F403  (Asset and TF's name constants)
from vfw.frontends.tensorflow._saved_model_asset import __all__ as _ASSET_NAMES
from vfw.frontends.tensorflow._saved_model_load import contains_saved_model, load
from vfw.frontends.tensorflow._saved_model_save import save

__all__ = ["save", "load", "contains_saved_model", "SaveOptions", "LoadOptions", "DEFAULT_SERVING_SIGNATURE_DEF_KEY",
           "SERVING", "TRAINING", *_ASSET_NAMES]

DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
SERVING = "serve"
TRAINING = "train"


class SaveOptions:
    """Options of ``tf.saved_model.save`` (accepted and kept; vfw's format has nothing to tune)."""

    def __init__(self, namespace_whitelist=None, save_debug_info=False, function_aliases=None,
                 experimental_debug_stripper=False, experimental_io_device=None, experimental_variable_policy=None,
                 experimental_custom_gradients=True, experimental_image_format=False, experimental_skip_saver=False,
                 experimental_sharding_callback=None, extra_tags=None):
        self.namespace_whitelist = list(namespace_whitelist or [])
        self.save_debug_info = save_debug_info
        self.function_aliases = dict(function_aliases or {})
        self.experimental_debug_stripper = experimental_debug_stripper
        self.experimental_io_device = experimental_io_device
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_custom_gradients = experimental_custom_gradients
        self.experimental_image_format = experimental_image_format
        self.experimental_skip_saver = experimental_skip_saver
        self.experimental_sharding_callback = experimental_sharding_callback
        self.extra_tags = extra_tags


class LoadOptions:
    """Options of ``tf.saved_model.load`` (accepted and kept)."""

    def __init__(self, allow_partial_checkpoint=False, experimental_io_device=None, experimental_skip_checkpoint=False,
                 experimental_variable_policy=None, experimental_load_function_aliases=False):
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_io_device = experimental_io_device
        self.experimental_skip_checkpoint = experimental_skip_checkpoint
        self.experimental_variable_policy = experimental_variable_policy
        self.experimental_load_function_aliases = experimental_load_function_aliases
