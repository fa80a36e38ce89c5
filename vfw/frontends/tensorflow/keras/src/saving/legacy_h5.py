"""Keras' legacy HDF5 model and weights files (``model.save("m.h5")``, ``load_model("m.h5")``,
``model.load_weights("w.h5")``), in Keras 3.15.1's layout, so that files of real Keras load in vfw and the
other way round.

Layout of a model file:

- root attributes ``backend`` ("tensorflow"), ``keras_version``, ``model_config`` (the legacy JSON config,
  ``legacy_h5_config.py``) and, for a compiled model saved with its optimizer, ``training_config``;
- group ``model_weights``: attributes ``layer_names`` (every layer of ``model.layers``), ``backend``,
  ``keras_version``; one group per layer (created in name order) whose ``weight_names`` attribute lists
  the paths of its trainable then non-trainable weights, each stored as the dataset at that path
  (``sequential/dense/kernel``); a ``top_level_model_weights`` group for the model's own weights;
- group ``optimizer_weights`` (``include_optimizer``): ``weight_names`` and the datasets of the optimizer's
  variables.

An attribute list longer than HDF5's object header limit is split into ``<name>0``, ``<name>1``...
Weights load by layer order (layers with weights, in ``model.layers`` order, against the saved layers with
weights) or, with ``by_name=True``, into the layers of the same name.  Reading refuses links, external
and virtual datasets and size bombs (``h5_store.py``'s checks).
"""

import logging
import os

import numpy as np

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src.saving import legacy_h5_config as configs
from vfw.frontends.tensorflow.keras.src.saving.h5_store import _dataset, _find_group, _h5py
from vfw.frontends.tensorflow.keras.src.utils import object_registration, serialization

HDF5_OBJECT_HEADER_LIMIT = 64512
TOP_LEVEL_GROUP = "top_level_model_weights"
# Keras logs these through absl, whose Python logger is "absl".
_absl_logger = logging.getLogger("absl")
SAVE_WARNING = ("You are saving your model as an HDF5 file via `model.save()` or `keras.saving.save_model(model)`. "
                "This file format is considered legacy. We recommend using instead the native Keras format, e.g. "
                "`model.save('my_model.keras')` or `keras.saving.save_model(model, 'my_model.keras')`. ")


def log_warning(message):
    """Report ``message`` as Keras reports it (an absl WARNING)."""
    _absl_logger.warning(message)


# -- saving ---------------------------------------------------------------------------------------------------------
def save_model(model, filepath, include_optimizer=True):
    """Write ``model`` (config, weights, compile state and optimizer variables) to the HDF5 file ``filepath``."""
    h5py = _h5py()
    directory = os.path.dirname(str(filepath))
    if directory:
        os.makedirs(directory, exist_ok=True)
    metadata = configs.model_metadata(model, include_optimizer)
    with h5py.File(filepath, mode="w") as file:
        for key, value in metadata.items():
            file.attrs[key] = configs.to_json(value).encode("utf8") if isinstance(value, dict) else value
        save_weights_to_group(file.create_group("model_weights"), model)
        optimizer = getattr(model, "optimizer", None)
        if include_optimizer and optimizer is not None and optimizer.variables:
            _save_variables(file.create_group("optimizer_weights"), optimizer.variables)


def save_weights_to_group(group, model):
    """Write the weights of ``model``'s layers (and its own weights) into the HDF5 group ``group``."""
    from vfw.frontends.tensorflow.keras.src.saving.archive import KERAS_FORMAT_VERSION

    _save_attribute(group, "layer_names", [layer.name.encode("utf8") for layer in model.layers])
    group.attrs["backend"] = b"tensorflow"
    group.attrs["keras_version"] = KERAS_FORMAT_VERSION.encode("utf8")
    # In name order, so that no group name is created after a name it is a prefix of (Keras' order).
    for layer in sorted(model.layers, key=lambda layer: layer.name):
        _save_variables(group.create_group(layer.name), _legacy_weights(layer))
    _save_variables(group.create_group(TOP_LEVEL_GROUP), _top_level_weights(model))


def _save_variables(group, variables):
    names = [str(variable.path).encode("utf8") for variable in variables]
    _save_attribute(group, "weight_names", names)
    for name, variable in zip(names, variables):
        group.create_dataset(name, data=np.asarray(variable.numpy()))


def _save_attribute(group, name, data):
    """Store the list ``data`` as the attribute ``name`` of ``group``, in chunks ``<name>0``, ``<name>1``...
    when it exceeds HDF5's object header limit."""
    too_large = [item for item in data if len(item) > HDF5_OBJECT_HEADER_LIMIT]
    if too_large:
        raise RuntimeError("The following attributes cannot be saved to HDF5 file because they are larger than "
                           f"{HDF5_OBJECT_HEADER_LIMIT} bytes: {too_large}")
    array = np.asarray(data)
    chunks = 1
    while any(part.nbytes > HDF5_OBJECT_HEADER_LIMIT for part in np.array_split(array, chunks)):
        chunks += 1
    if chunks == 1:
        group.attrs[name] = data
        return
    for index, part in enumerate(np.array_split(array, chunks)):
        group.attrs[f"{name}{index}"] = part


def _legacy_weights(layer):
    """The weights of ``layer`` in the legacy order: trainable, then non-trainable."""
    return layer.trainable_weights + layer.non_trainable_weights


def _top_level_weights(model):
    """The weights the model itself created (not its layers), trainable first."""
    own = model._trainable_variables + model._non_trainable_variables
    weight_ids = {id(weight) for weight in model.weights}
    return [variable for variable in own if id(variable) in weight_ids]


# -- reading --------------------------------------------------------------------------------------------------------
def _group(parent, path):
    group = _find_group(parent, path)
    if group is None:
        raise KeyError(path)
    return group


def _load_attribute(group, name):
    """The list stored by ``_save_attribute`` (strings decoded)."""
    if name in group.attrs:
        chunks = [group.attrs[name]]
    else:
        chunks = []
        while f"{name}{len(chunks)}" in group.attrs:
            chunks.append(group.attrs[f"{name}{len(chunks)}"])
    return [item.decode("utf8") if hasattr(item, "decode") else item for chunk in chunks for item in chunk]


def _load_values(group):
    """The arrays listed by ``group``'s ``weight_names``, in order."""
    values = []
    for name in _load_attribute(group, "weight_names"):
        parent, _, leaf = name.rpartition("/")
        values.append(np.asarray(_dataset(_group(group, parent) if parent else group, leaf)))
    return values


def _assign(owner, variables, values, name, skip_mismatch):
    """Assign ``values`` to ``variables`` (a shape mismatch raises, or warns and skips with ``skip_mismatch``)."""
    for variable, value in zip(variables, values):
        expected = tuple(variable.shape)
        if expected != value.shape:
            message = (f"due to mismatch in shape for weight {variable.path}. Weight expects shape {expected}. "
                       f"Received saved weight with shape {value.shape}")
            if skip_mismatch:
                warn_for_user(f"Skipping loading weights for {name}{message}")
                continue
            raise ValueError(f"Shape mismatch in {name}for weight {variable.path}. Weight expects shape {expected}. "
                             f"Received saved weight with shape {value.shape}")
        variable.assign(value)
    if variables and hasattr(owner, "finalize_state"):
        owner.finalize_state()


def load_weights_from_group(group, model, skip_mismatch=False):
    """Assign the weights of ``model``'s layers in order from the layers with weights saved in ``group``."""
    layers = [layer for layer in model.layers if _legacy_weights(layer)]
    saved_names = [name for name in _load_attribute(group, "layer_names")
                   if _load_attribute(_group(group, name), "weight_names")]
    if len(saved_names) != len(layers):
        raise ValueError(f"Layer count mismatch when loading weights from file. Model expected {len(layers)} layers, "
                         f"found {len(saved_names)} saved layers.")
    for index, (saved_name, layer) in enumerate(zip(saved_names, layers)):
        variables = _legacy_weights(layer)
        values = _load_values(_group(group, saved_name))
        if len(values) != len(variables):
            raise ValueError(f"Weight count mismatch for layer #{index} (named {layer.name} in the current model, "
                             f"{saved_name} in the save file). Layer expects {len(variables)} weight(s). Received "
                             f"{len(values)} saved weight(s)")
        _assign(layer, variables, values, f"layer #{index} (named {layer.name})", skip_mismatch)
    if TOP_LEVEL_GROUP in group:
        variables = _top_level_weights(model)
        values = _load_values(_group(group, TOP_LEVEL_GROUP))
        if len(values) != len(variables):
            raise ValueError("Weight count mismatch for top-level weights when loading weights from file. Model "
                             f"expects {len(variables)} top-level weight(s). Received {len(values)} saved top-level "
                             "weight(s)")
        _assign(model, variables, values, "top-level model", skip_mismatch)


def load_weights_from_group_by_name(group, model, skip_mismatch=False):
    """Assign the weights of each layer of ``model`` from the saved layer of the same name (others are left)."""
    layers_by_name = {}
    for layer in model.layers:
        layers_by_name.setdefault(layer.name, []).append(layer)
    for index, saved_name in enumerate(_load_attribute(group, "layer_names")):
        values = _load_values(_group(group, saved_name))
        for layer in layers_by_name.get(saved_name, []):
            variables = _legacy_weights(layer)
            if len(values) != len(variables):
                counts = f"Layer expects {len(variables)} weight(s). Received {len(values)} saved weight(s)"
                if skip_mismatch:
                    warn_for_user(f"Skipping loading of weights for layer #{index} (named {layer.name}) due to "
                                  f"mismatch in number of weights. {counts}")
                    continue
                raise ValueError(f"Weight count mismatch for layer #{index} (named {layer.name}). {counts}")
            _assign(layer, variables, values, f"layer #{index} (named {layer.name})", skip_mismatch)
    if TOP_LEVEL_GROUP in group:
        variables = model._trainable_variables + model._non_trainable_variables
        values = _load_values(_group(group, TOP_LEVEL_GROUP))
        if len(values) != len(variables):
            message = (f"Model expects {len(variables)} top-level weight(s). Received {len(values)} saved top-level "
                       "weight(s)")
            if not skip_mismatch:
                raise ValueError(f"Weight count mismatch for top-level weights of model. {message}")
            warn_for_user(f"Skipping loading top-level weights for model due to mismatch in number of weights. "
                          f"{message}")
        else:
            _assign(model, variables, values, "top-level model", skip_mismatch)


def load_weights(model, filepath, by_name=False, skip_mismatch=False):
    """``model.load_weights`` of a legacy ``.h5`` file (a model file or a weights file)."""
    with _h5py().File(filepath, "r") as file:
        group = file
        if "layer_names" not in file.attrs and "model_weights" in file:
            group = _group(file, "model_weights")
        if by_name:
            load_weights_from_group_by_name(group, model, skip_mismatch)
        else:
            load_weights_from_group(group, model, skip_mismatch)


# -- whole models ---------------------------------------------------------------------------------------------------
def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """The model saved in the legacy HDF5 file ``filepath``, compiled as it was saved when ``compile`` (its
    optimizer's variables restored when the file holds them)."""
    custom_objects = {**(custom_objects or {}), **object_registration.GLOBAL_CUSTOM_OBJECTS,
                      **object_registration.scope_objects()}
    with _h5py().File(filepath, mode="r") as file:
        model_config = file.attrs.get("model_config")
        if model_config is None:
            raise ValueError(f"No model config found in the file at {filepath}.")
        with serialization.SafeModeScope(safe_mode):
            model = configs.model_from_legacy_config(configs.decode(model_config), custom_objects)
            load_weights_from_group(_group(file, "model_weights"), model)
        if compile:
            _compile_as_saved(model, file, custom_objects)
    return model


def _compile_as_saved(model, file, custom_objects):
    training_config = file.attrs.get("training_config")
    if training_config is None:
        log_warning("No training configuration found in the save file, so the model was *not* compiled. Compile it "
                    "manually.")
        return
    model.compile(**configs.compile_arguments(configs.decode(training_config), custom_objects))
    # Keras' own attempt to build the compiled loss and metrics always fails, with this message.
    log_warning("Compiled the loaded model, but the compiled metrics have yet to be built. `model.compile_metrics` "
                "will be empty until you train or evaluate the model.")
    if "optimizer_weights" not in file:
        return
    # Built for all the model's trainable variables (Keras 3.15 builds it for the model's own variables only,
    # and its optimizer then refuses to train the loaded model).
    model.optimizer.build(model.trainable_variables)
    try:
        model.optimizer.set_weights(_load_values(_group(file, "optimizer_weights")))
    except ValueError:
        log_warning("Error in loading the saved optimizer state. As a result, your model is starting with a freshly "
                    "initialized optimizer.")
