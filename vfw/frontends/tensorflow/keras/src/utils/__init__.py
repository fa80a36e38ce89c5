"""keras.utils: seeding, the serialization registry, data helpers and the progress bar."""

# Re-exported: the public names of API below.
from vfw.frontends.tensorflow.keras.src.utils.data import (  # noqa: F401
    PyDataset,
    Sequence,
    pack_x_y_sample_weight,
    unpack_x_y_sample_weight,
)
from vfw.frontends.tensorflow.keras.src.utils.file_utils import get_file  # noqa: F401
from vfw.frontends.tensorflow.keras.src.utils.io_utils import (  # noqa: F401
    disable_interactive_logging,
    enable_interactive_logging,
    is_interactive_logging_enabled,
)
from vfw.frontends.tensorflow.keras.src.utils.numerical import normalize, pad_sequences, to_categorical  # noqa: F401
from vfw.frontends.tensorflow.keras.src.utils.object_registration import (  # noqa: F401
    CustomObjectScope,
    custom_object_scope,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
)
from vfw.frontends.tensorflow.keras.src.utils.progbar import Progbar  # noqa: F401
from vfw.frontends.tensorflow.keras.src.utils.rng import set_random_seed  # noqa: F401
from vfw.frontends.tensorflow.keras.src.utils.serialization import (  # noqa: F401
    deserialize_keras_object,
    serialize_keras_object,
)
from vfw.frontends.tensorflow.keras.src.utils.timeseries import timeseries_dataset_from_array  # noqa: F401

_REGISTRY = ["CustomObjectScope", "custom_object_scope", "deserialize_keras_object", "get_custom_objects",
             "get_registered_name", "get_registered_object", "register_keras_serializable", "serialize_keras_object"]
API = {"utils": [*_REGISTRY, "Progbar", "PyDataset", "Sequence", "disable_interactive_logging",
                 "enable_interactive_logging", "get_file", "is_interactive_logging_enabled", "normalize",
                 "pack_x_y_sample_weight", "pad_sequences", "set_random_seed", "timeseries_dataset_from_array",
                 "to_categorical", "unpack_x_y_sample_weight"],
       "saving": _REGISTRY}
