"""keras.optimizers: Keras 3's optimizers over vfw.tensorflow (see ``base_optimizer`` for what an update does).

``get``/``serialize``/``deserialize`` resolve optimizers by (case-insensitive) class name or
config dict; ``keras.optimizers.schedules`` is the module ``schedules``.
"""

from vfw.frontends.tensorflow.keras.src.optimizers import schedules  # noqa: F401  (keras.optimizers.schedules)
from vfw.frontends.tensorflow.keras.src.optimizers.adadelta import Adadelta
from vfw.frontends.tensorflow.keras.src.optimizers.adafactor import Adafactor
from vfw.frontends.tensorflow.keras.src.optimizers.adagrad import Adagrad
from vfw.frontends.tensorflow.keras.src.optimizers.adam import Adam, AdamW
from vfw.frontends.tensorflow.keras.src.optimizers.adamax import Adamax
from vfw.frontends.tensorflow.keras.src.optimizers.base_optimizer import Optimizer
from vfw.frontends.tensorflow.keras.src.optimizers.ftrl import Ftrl
from vfw.frontends.tensorflow.keras.src.optimizers.lamb import Lamb  # noqa: F401  (keras.optimizers.Lamb)
from vfw.frontends.tensorflow.keras.src.optimizers.lion import Lion
from vfw.frontends.tensorflow.keras.src.optimizers.loss_scale_optimizer import LossScaleOptimizer
from vfw.frontends.tensorflow.keras.src.optimizers.muon import Muon
from vfw.frontends.tensorflow.keras.src.optimizers.nadam import Nadam
from vfw.frontends.tensorflow.keras.src.optimizers.rmsprop import RMSprop
from vfw.frontends.tensorflow.keras.src.optimizers.schedule_free_adamw import ScheduleFreeAdamW
from vfw.frontends.tensorflow.keras.src.optimizers.sgd import SGD
from vfw.frontends.tensorflow.keras.src.utils import serialization

# Keras looks built-in optimizers up by their lower-cased class name ("adam", "rmsprop"); Lamb is not among
# them in Keras 3.15 (``get("lamb")`` fails there too).
_BUILT_IN = {cls.__name__.lower(): cls for cls in (Optimizer, Adam, SGD, RMSprop, Adadelta, AdamW, Adagrad, Adamax,
                                                    Adafactor, Nadam, Ftrl, Lion, LossScaleOptimizer, Muon,
                                                    ScheduleFreeAdamW)}


def serialize(optimizer):
    """Keras' config dict of ``optimizer``: ``{"module", "class_name", "config", "registered_name"}``."""
    return serialization.serialize_keras_object(optimizer)


def deserialize(config, custom_objects=None):
    """The optimizer a config dict describes (built-in class names are case-insensitive).

    A class name found neither in ``custom_objects`` nor among the built-in optimizers is
    returned as a string, as Keras does (``get`` turns that into a ValueError).
    """
    if config["class_name"].lower() in _BUILT_IN:
        config["class_name"] = config["class_name"].lower()
    return serialization.deserialize_keras_object(config, module_objects=_BUILT_IN, custom_objects=custom_objects)


def get(identifier):
    """An optimizer from a name (``"adam"``), a config dict, or an optimizer (returned as is); None gives None.

    Raises
    ------
    ValueError
        If ``identifier`` does not describe an optimizer.
    """
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        optimizer = deserialize(identifier)
    elif isinstance(identifier, str):
        optimizer = deserialize({"class_name": identifier, "config": {}})
    else:
        optimizer = identifier
    if isinstance(optimizer, Optimizer):
        return optimizer
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")


API = {
    "keras": ["Optimizer"],
    "optimizers": ["Optimizer", "SGD", "Adam", "AdamW", "Adamax", "Nadam", "RMSprop", "Adagrad", "Adadelta", "Ftrl",
                   "Lion", "Lamb", "Adafactor", "Muon", "ScheduleFreeAdamW", "LossScaleOptimizer", "get", "serialize",
                   "deserialize"],
    "mixed_precision": ["LossScaleOptimizer"],
}
