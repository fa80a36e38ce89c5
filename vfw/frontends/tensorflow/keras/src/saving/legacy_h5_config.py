"""Configs of Keras' legacy HDF5 model files (``model.save("m.h5")``): the ``model_config`` and
``training_config`` root attributes, as Keras 3.15.1 writes and reads them.

Legacy format (Keras' "legacy serialization"): an object is ``{"class_name": <registered name>,
"config": <its get_config()>}``, without the ``module``/``registered_name``/``build_config`` keys of
Keras 3 configs; the model config is ``{"class_name": <model class name>, "config": ...}`` whose
``layers`` are legacy entries (functional entries add ``name`` and ``inbound_nodes``, in Keras 3's node
format), recursively for nested models.  Layer configs themselves are what ``get_config()`` returns
(their initializers, dtype policies... stay in Keras 3's format, as Keras writes them).

Loading converts a legacy model config into a Keras 3 config (each class resolved as Keras' legacy
deserializer resolves it: ``custom_objects``, the registry, then the public ``keras.layers`` names
and the model classes) and deserializes that: nothing a file names is imported or executed.
"""

import json

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.utils import object_registration, serialization

# Keys of a functional layer entry that are not the layer's own config.
_FUNCTIONAL_ENTRY_KEYS = ("name", "inbound_nodes")
# Metric names compile resolves from the model's outputs (kept as strings, as Keras keeps them).
_OUTPUT_DEPENDENT_METRICS = ("accuracy", "acc", "crossentropy", "ce")
# Layer arguments holding built-in objects, by name suffix, and their namespace.
_ARGUMENT_NAMESPACES = (("_initializer", "keras.initializers"), ("_regularizer", "keras.regularizers"),
                        ("_constraint", "keras.constraints"))
# Legacy arguments of Lambda layers that Keras 3 no longer has.
_LAMBDA_LEGACY_ARGS = ("module", "function_type", "output_shape_type", "output_shape_module")


# -- saving ---------------------------------------------------------------------------------------------------------
def _legacy_object(obj):
    """``obj`` as Keras' legacy ``serialize_keras_object`` writes it (objects with ``get_config``, or the
    registered name of a class or function)."""
    if obj is None:
        return None
    if hasattr(obj, "get_config"):
        config = {}
        for key, value in obj.get_config().items():
            if isinstance(value, str) or not (hasattr(value, "get_config") or hasattr(value, "__name__")):
                config[key] = value  # plain values (and already serialized dicts) stay as they are
                continue
            item = _legacy_object(value)
            if isinstance(item, dict):
                item["__passive_serialization__"] = True
            config[key] = item
        if isinstance(config.get("layers"), list):
            config["layers"] = _legacy_layers(config["layers"])
        return {"class_name": object_registration.get_registered_name(type(obj)), "config": config}
    return object_registration.get_registered_name(obj)


def _legacy_layers(entries):
    """The Keras 3 layer entries of a model config (``serialize_keras_object`` dicts) in the legacy format."""
    legacy = []
    for entry in entries:
        inner = entry["config"]
        if isinstance(inner, dict) and isinstance(inner.get("layers"), list):
            inner = {**inner, "layers": _legacy_layers(inner["layers"])}
        converted = {"class_name": entry.get("registered_name") or entry["class_name"], "config": inner}
        converted.update({key: entry[key] for key in _FUNCTIONAL_ENTRY_KEYS if key in entry})
        legacy.append(converted)
    return legacy


def _json_type(obj):
    """JSON data of values ``json`` cannot write (Keras' ``get_json_type``)."""
    if hasattr(obj, "get_config"):
        return {**_legacy_object(obj), "__passive_serialization__": True}
    if type(obj).__module__ == np.__name__:
        return obj.tolist() if isinstance(obj, np.ndarray) else obj.item()
    if callable(obj):
        return obj.__name__
    if isinstance(obj, tf.TensorShape):
        return obj.as_list()
    if isinstance(obj, tf.DType):
        return obj.name
    if obj is Ellipsis:
        return {"class_name": "__ellipsis__"}
    if isinstance(obj, bytes):
        return {"class_name": "__bytes__", "value": obj.decode("utf-8")}
    raise TypeError(f"Unable to serialize {obj} to JSON. Unrecognized type {type(obj)}.")


def to_json(value):
    """``value`` as the JSON text of a root attribute."""
    return json.dumps(value, default=_json_type)


def model_metadata(model, include_optimizer=True):
    """``{"keras_version", "backend", "model_config"[, "training_config"]}``: the root attributes of the file
    of ``model`` (``training_config`` when the model is compiled with an optimizer and it is included)."""
    from vfw.frontends.tensorflow.keras.src.saving.archive import KERAS_FORMAT_VERSION

    config = model.get_config()
    if isinstance(config.get("layers"), list):
        config = {**config, "layers": _legacy_layers(config["layers"])}
    metadata = {"keras_version": KERAS_FORMAT_VERSION, "backend": "tensorflow",
                "model_config": {"class_name": type(model).__name__, "config": config}}
    optimizer = getattr(model, "optimizer", None)
    if optimizer is not None and include_optimizer and model.compiled:
        training = {key: _nested_legacy(value) for key, value in model._compile_config.items() if key != "optimizer"}
        training["optimizer_config"] = {"class_name": object_registration.get_registered_name(type(optimizer)),
                                        "config": optimizer.get_config()}
        metadata["training_config"] = training
    return metadata


def _nested_legacy(value):
    """Compile arguments with their callables (losses, metrics) in the legacy format."""
    if isinstance(value, dict):
        return {key: _nested_legacy(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_nested_legacy(item) for item in value)
    return _legacy_object(value) if callable(value) else value


# -- loading --------------------------------------------------------------------------------------------------------
def decode(text):
    """The data of a JSON root attribute (bytes or str), with Keras' ``__tuple__``/``__ellipsis__`` tags."""
    if hasattr(text, "decode"):
        text = text.decode("utf-8")
    return json.loads(text, object_hook=_decode_tags)


def _decode_tags(obj):
    if obj.get("class_name") == "__tuple__":
        return tuple(obj["items"])
    if obj.get("class_name") == "__ellipsis__":
        return Ellipsis
    return obj


def _model_classes():
    from vfw.frontends.tensorflow.keras.src.engine.functional import Functional
    from vfw.frontends.tensorflow.keras.src.engine.model import Model
    from vfw.frontends.tensorflow.keras.src.engine.sequential import Sequential

    return {"Functional": Functional, "Model": Model, "Sequential": Sequential}


def _resolve_layer_class(class_name, custom_objects):
    """The class a legacy layer entry names (Keras' legacy lookup), or Keras' ValueError."""
    found = object_registration.get_registered_object(class_name, custom_objects)
    if found is None:
        found = _model_classes().get(class_name) or serialization.public_names.object_of(f"keras.layers.{class_name}")
    if found is None:
        raise ValueError(f"Unknown layer: '{class_name}'. Please ensure you are using a "
                         "`keras.utils.custom_object_scope` and that this object is included in the scope. See "
                         "https://www.tensorflow.org/guide/keras/save_and_serialize#registering_the_custom_object "
                         "for details.")
    return found


def _upgrade_legacy_arguments(entry):
    """Keras' conversions of arguments older Keras versions wrote (``batch_input_shape``, list ``axis``,
    Lambda's function triple)."""
    config = entry["config"]
    batch_input_shape = config.pop("batch_input_shape", None)
    if batch_input_shape is not None:
        config["batch_shape" if entry["class_name"] == "InputLayer" else "input_shape"] = batch_input_shape
    axis = config.pop("axis", None)
    if axis is not None:
        if isinstance(axis, list) and len(axis) == 1:
            config["axis"] = int(axis[0])
        elif isinstance(axis, (int, float)):
            config["axis"] = int(axis)
        else:
            config["axis"] = axis
    for key, value in config.items():
        config[key] = _keras3_argument_object(key, value)
    if entry["class_name"] == "Lambda":
        for name in _LAMBDA_LEGACY_ARGS:
            config.pop(name, None)
        function = config["function"]
        if isinstance(function, list):
            config["function"] = {"class_name": "__lambda__",
                                  "config": {"code": function[0], "defaults": function[1], "closure": function[2]}}


def _keras3_argument_object(key, value):
    """A built-in initializer, regularizer or constraint argument in Keras 2's format (no ``module``) in
    Keras 3's, so that it resolves to the public class whatever other objects share its name."""
    namespace = next((namespace for suffix, namespace in _ARGUMENT_NAMESPACES if key.endswith(suffix)), None)
    if namespace is None or not isinstance(value, dict) or "module" in value or "class_name" not in value:
        return value
    if serialization.public_names.object_of(f"{namespace}.{value['class_name']}") is None:
        return value
    return {"module": namespace, "class_name": value["class_name"], "config": value.get("config"),
            "registered_name": None}


def keras3_entry(entry, custom_objects):
    """The Keras 3 config of the legacy layer (or model) entry ``entry`` (layers of models converted too).

    Returns
    -------
    (dict, dict)
        The config, and ``{registered name: class}`` of the custom classes it names.
    """
    if not isinstance(entry, dict) or "config" not in entry:
        raise ValueError("The provided configuration is not a valid Keras configuration. Expected a dictionary "
                         f"containing a 'config' key. Received: config={entry}")
    if "module" in entry:  # already a Keras 3 config
        return entry, {}
    entry = {**entry, "config": dict(entry["config"])}
    _upgrade_legacy_arguments(entry)
    cls = _resolve_layer_class(entry["class_name"], custom_objects)
    inner = entry["config"]
    customs = {}
    if isinstance(inner.get("layers"), list):
        layers = []
        for layer_entry in inner["layers"]:
            layer_config, layer_customs = keras3_entry(layer_entry, custom_objects)
            layers.append(layer_config)
            customs.update(layer_customs)
        inner["layers"] = layers
    converted = serialization._public_config(cls, inner)
    if converted["module"] is None or converted["registered_name"]:
        name = converted["registered_name"] or converted["class_name"]
        converted["registered_name"] = name
        customs[name] = cls
    converted.update({key: entry[key] for key in _FUNCTIONAL_ENTRY_KEYS if key in entry})
    if "inbound_nodes" in entry:
        converted["inbound_nodes"] = [_keras3_node(node) for node in entry["inbound_nodes"]]
    return converted, customs


def _keras3_node(node):
    """A functional node of Keras 2's format (``[[layer name, node index, tensor index, kwargs], ...]``) in
    Keras 3's (``{"args": [tensors], "kwargs": {...}}``, tensors named by their Keras history)."""
    if not isinstance(node, list):
        return node
    tensors, kwargs = [], {}
    for inbound in node:
        if len(inbound) not in (3, 4):
            raise ValueError("Cannot deserialize the model (invalid config data?)")
        if len(inbound) == 4:
            kwargs = inbound[3]
        # Only the history locates the tensor; shape and dtype are placeholders never used.
        tensors.append({"class_name": "__keras_tensor__",
                        "config": {"shape": [], "dtype": "float32", "keras_history": list(inbound[:3])}})
    return {"args": [tensors[0] if len(tensors) == 1 else tensors], "kwargs": kwargs}


def model_from_legacy_config(config, custom_objects=None):
    """The (uncompiled) model of a legacy ``model_config``."""
    if isinstance(config, list):
        raise TypeError("`model_from_config` expects a dictionary, not a list. Received: config="
                        f"{config}. Did you meant to use `Sequential.from_config(config)`?")
    converted, customs = keras3_entry(config, custom_objects or {})
    with serialization.ObjectSharingScope():
        return serialization.deserialize_keras_object(converted, custom_objects={**(custom_objects or {}), **customs})


def compile_arguments(training_config, custom_objects=None):
    """``model.compile`` keyword arguments from a ``training_config`` (Keras' legacy rules)."""
    from vfw.frontends.tensorflow.keras.src import losses, metrics, optimizers

    custom_objects = custom_objects or {}
    with object_registration.CustomObjectScope(custom_objects):
        optimizer = optimizers.deserialize(dict(training_config["optimizer_config"]), custom_objects=custom_objects)

        def metric(config):
            if config in _OUTPUT_DEPENDENT_METRICS:
                return config
            return metrics.deserialize(config, custom_objects=custom_objects)

        return {"optimizer": optimizer,
                "loss": _nested_objects(lambda c: losses.deserialize(c, custom_objects=custom_objects),
                                        training_config.get("loss")),
                "metrics": _nested_objects(metric, training_config.get("metrics")),
                "weighted_metrics": _nested_objects(metric, training_config.get("weighted_metrics")),
                "loss_weights": training_config["loss_weights"]}


def _nested_objects(deserialize, config):
    """``config`` with each serialized object (a dict with ``class_name``, or a name) deserialized."""
    if config is None:
        return None
    if isinstance(config, str) or (isinstance(config, dict) and "class_name" in config):
        return deserialize(config)
    if isinstance(config, dict):
        return {key: _nested_objects(deserialize, value) for key, value in config.items()}
    if isinstance(config, (list, tuple)):
        return [_nested_objects(deserialize, item) for item in config]
    raise ValueError("Saved configuration not understood. Configuration should be a dictionary, string, tuple or "
                     f"list. Received: config={config}.")
