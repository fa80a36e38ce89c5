"""keras.backend: the backend's settings, dtype rules and session state (Keras 3 on TensorFlow).

``config`` holds the settings (floatx, epsilon, image data format), ``dtypes`` the dtype names and
promotion rules, ``global_state`` what ``clear_session`` forgets.
"""

import gc

from vfw.frontends.tensorflow.keras.src.backend import global_state  # noqa: F401  (registers its session reset)

# Re-exported: the public names of API below, and standardize_data_format for the other keras modules.
from vfw.frontends.tensorflow.keras.src.backend.config import (  # noqa: F401
    backend,
    epsilon,
    floatx,
    image_data_format,
    set_epsilon,
    set_floatx,
    set_image_data_format,
    standardize_data_format,
)
from vfw.frontends.tensorflow.keras.src.backend.dtypes import (  # noqa: F401
    is_float_dtype,
    is_int_dtype,
    result_type,
    standardize_dtype,
)
from vfw.frontends.tensorflow.keras.src.engine import naming
from vfw.frontends.tensorflow.keras.src.engine.naming import get_uid  # noqa: F401  (public: keras.backend)

API = {
    "backend": ["backend", "clear_session", "epsilon", "floatx", "get_uid", "image_data_format", "is_float_dtype",
                "is_int_dtype", "is_keras_tensor", "result_type", "set_epsilon", "set_floatx",
                "set_image_data_format", "standardize_dtype"],
    "utils": ["clear_session", "is_keras_tensor", "standardize_dtype"],
}


def clear_session(free_memory=True):
    """Reset Keras' session state: layer-name counters, the global SeedGenerator, the global dtype
    policy and the interactive-logging switch.  With ``free_memory``, also run the garbage collector.
    """
    naming.reset_session()
    if free_memory:
        gc.collect()


def is_keras_tensor(x):
    """Whether ``x`` is a symbolic KerasTensor (``keras.Input`` and what layers return on it)."""
    from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
    return isinstance(x, KerasTensor)
