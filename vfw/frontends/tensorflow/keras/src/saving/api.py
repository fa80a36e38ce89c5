"""``keras.saving.save_model`` / ``load_model`` / ``save_weights`` / ``load_weights`` (and ``keras.models``'
``save_model``, ``load_model``, ``clone_model``): argument checks as Keras 3.15.1, then ``archive.py``.

Supported files: ``.keras`` archives and unzipped model directories (``zipped=False``), and
``.weights.h5`` weights files, in Keras 3's format (files of real Keras load in vfw and the other
way round), sharded weights (``max_shard_size``, ``.weights.json``), and Keras' legacy ``.h5``/``.hdf5``
model and weights files (``legacy_h5.py``).  Not supported (a clear error): Hugging Face (``hf://``)
and Orbax checkpoints.
"""

import os
import zipfile

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src.saving import archive, legacy_h5
from vfw.frontends.tensorflow.keras.src.saving.cloning import clone_model
from vfw.frontends.tensorflow.keras.src.utils import io_utils

API = {"saving": ["load_model", "load_weights", "save_model", "save_weights"],
       "models": ["clone_model", "load_model", "save_model"]}

__all__ = ["clone_model", "load_model", "load_weights", "save_model", "save_weights"]

_LEGACY_H5 = (".h5", ".hdf5")


def _unsupported(what):
    return NotImplementedError(f"vfw's Keras does not support {what}; use the native `.keras` format "
                               "(`model.save('model.keras')`) or `.weights.h5` weights files.")


def _proceed_with_overwrite(filepath, overwrite):
    """False when ``filepath`` exists, ``overwrite`` is False and the user answers "n" at Keras' prompt."""
    if overwrite or not os.path.exists(filepath):
        return True
    answer = input(f"[WARNING] {filepath} already exists - overwrite? [y/n]").strip().lower()
    while answer not in ("y", "n"):
        answer = input('Enter "y" (overwrite) or "n" (cancel).').strip().lower()
    if answer == "n":
        return False
    io_utils.print_msg("[TIP] Next time specify overwrite=True!")
    return True


def save_model(model, filepath, overwrite=True, zipped=None, **kwargs):
    """Save ``model`` (config, weights, optimizer state) as a ``.keras`` file.

    Parameters
    ----------
    model : keras.Model
    filepath : str or pathlib.Path
        Ends in ``.keras`` (a directory path when ``zipped=False``), or in ``.h5``/``.hdf5`` for Keras'
        legacy HDF5 format (logged as legacy, as Keras logs it).
    overwrite : bool
        When False and the file exists, ask on the console (Keras' prompt).
    zipped : bool, optional
        False writes an unzipped directory (default: True).
    include_optimizer : bool, optional (keyword)
        Legacy HDF5 files only: save the optimizer's variables and the compile arguments (default True).
    save_format : optional keyword
        Deprecated: only with a ``.keras`` or ``.h5`` path (logged, as Keras logs it).
    """
    include_optimizer = kwargs.pop("include_optimizer", True)
    save_format = kwargs.pop("save_format", False)
    path = str(filepath)
    if save_format and path.endswith((*_LEGACY_H5, ".keras")):
        legacy_h5.log_warning("The `save_format` argument is deprecated in Keras 3. We recommend removing this "
                              "argument as it can be inferred from the file path. "
                              f"Received: save_format={save_format}")
    elif save_format:
        raise ValueError("The `save_format` argument is deprecated in Keras 3. Please remove this argument and pass a "
                         f"file path with either `.keras` or `.h5` extension.Received: save_format={save_format}")
    if kwargs:
        raise ValueError(f"The following argument(s) are not supported: {list(kwargs.keys())}")
    if path.endswith(_LEGACY_H5):
        legacy_h5.log_warning(legacy_h5.SAVE_WARNING)
    if path.startswith("hf://"):
        raise _unsupported("saving to the Hugging Face Hub")
    zipped = True if zipped is None else zipped
    if not _proceed_with_overwrite(path, overwrite):
        return
    if zipped and path.endswith(_LEGACY_H5):
        legacy_h5.save_model(model, filepath, include_optimizer=include_optimizer)
        return
    if zipped and not path.endswith(".keras"):
        raise ValueError("Invalid filepath extension for saving. Please add either a `.keras` extension for the "
                         "native Keras format (recommended) or a `.h5` extension. Use `model.export(filepath)` if you "
                         "want to export a SavedModel for use with TFLite/TFServing/etc. Received: "
                         f"filepath={filepath}.")
    if not model.built:
        warn_for_user("You are saving a model that has not yet been built. It might not contain any weights yet. "
                      "Consider building the model first by calling it on some data.")
    if not zipped and path.endswith(".keras"):
        raise ValueError("When using `zipped=False`, the `filepath` argument should not end in `.keras`. "
                         f"Received: filepath={path}")
    archive.save_model(model, path, zipped=zipped)


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """Load a model saved with ``model.save`` (by vfw or Keras 3).

    Parameters
    ----------
    filepath : str or pathlib.Path
        A ``.keras`` archive, a directory saved with ``zipped=False``, or a legacy ``.h5``/``.hdf5`` file.
    custom_objects : dict, optional
        ``{name: class or function}`` for custom objects the config names.
    compile : bool
        Compile the model as it was saved (restoring the optimizer's state).
    safe_mode : bool
        Refuse lambdas stored in the config (``safe_mode=False`` runs their code: trusted files only).

    Returns
    -------
    keras.Model
    """
    path = str(filepath)
    is_keras_zip = path.endswith(".keras") and zipfile.is_zipfile(path)
    is_keras_dir = os.path.isdir(path) and os.path.exists(os.path.join(path, archive.CONFIG_FILENAME))
    if is_keras_zip or is_keras_dir:
        return archive.load_model(path, custom_objects, compile, safe_mode)
    if path.startswith("hf://"):
        raise _unsupported("loading from the Hugging Face Hub")
    if path.endswith(_LEGACY_H5):
        return legacy_h5.load_model(path, custom_objects, compile, safe_mode)
    if path.endswith(".keras"):
        raise ValueError(f"File not found: filepath={path}. Please ensure the file is an accessible `.keras` zip file.")
    raise ValueError(f"File format not supported: filepath={path}. Keras 3 only supports V3 `.keras` files, legacy H5 "
                     "format files (`.h5` extension). Note that the legacy SavedModel format is not supported by "
                     "`load_model()` in Keras 3. In order to reload a TensorFlow SavedModel as an inference-only "
                     f"layer in Keras 3, use `keras.layers.TFSMLayer({path}, call_endpoint='serving_default')` (note "
                     "that your `call_endpoint` might have a different name).")


def save_weights(model, filepath, overwrite=True, max_shard_size=None, **kwargs):
    """Save the variables of ``model`` (layers and optimizer) to a ``.weights.h5`` file, or to shard files.

    Parameters
    ----------
    model : keras.Model
    filepath : str or pathlib.Path
        Must end in ``.weights.h5``; with ``max_shard_size``, the index file ``<name>.weights.json``
        (a ``.weights.h5`` path is renamed so, with Keras' warning).
    overwrite : bool
    max_shard_size : float, optional
        Split the variables over files of at most this many gigabytes.
    objects_to_skip : list, optional (keyword)
        Saveables whose variables are left out.
    """
    path = str(filepath)
    if max_shard_size is None and not path.endswith(".weights.h5"):
        raise ValueError(f"The filename must end in `.weights.h5`. Received: filepath={path}")
    if max_shard_size is not None and not path.endswith(("weights.h5", "weights.json")):
        raise ValueError("The filename must end in `.weights.json` when `max_shard_size` is specified. "
                         f"Received: filepath={path}")
    objects_to_skip = kwargs.pop("objects_to_skip", None)
    if kwargs:
        raise TypeError(f"save_weights_only() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if not _proceed_with_overwrite(path, overwrite):
        return
    archive.save_weights(model, path, max_shard_size=max_shard_size, objects_to_skip=objects_to_skip)


def load_weights(model, filepath, skip_mismatch=False, **kwargs):
    """Assign the variables of ``model`` from a ``.weights.h5`` file, sharded weights (their ``.weights.json``
    index), a ``.keras`` archive, or a legacy ``.h5``/``.hdf5`` file (``legacy_h5.load_weights``: by layer
    order, or ``by_name``).

    Variables are matched by the model's structure (layer positions and attribute names, not
    variable names).  Objects whose saved variables do not match in number or shape raise a
    ValueError listing them, or with ``skip_mismatch=True`` a warning (those objects keep their
    values).

    Parameters
    ----------
    model : keras.Model
    filepath : str or pathlib.Path
    skip_mismatch : bool
    objects_to_skip : list, optional (keyword)
        Saveables left as they are (``.weights.h5`` files only).
    by_name : bool, optional (keyword)
        Legacy ``.h5`` files only: load each layer from the saved layer of its name.
    """
    path = str(filepath)
    objects_to_skip = kwargs.pop("objects_to_skip", None)
    by_name = kwargs.pop("by_name", None)
    if kwargs:
        raise ValueError(f"Invalid keyword arguments: {kwargs}")
    if path.endswith(".keras"):
        if objects_to_skip is not None:
            raise ValueError(f"`objects_to_skip` only supports loading '.weights.h5' files.Received: {filepath}")
        if by_name is not None:
            raise ValueError(f"`by_name` only supports loading legacy '.h5' or '.hdf5' files. Received: {filepath}")
        archive.load_weights(model, path, skip_mismatch=skip_mismatch)
    elif path.endswith((".weights.h5", ".weights.json")):
        if by_name is not None:
            raise ValueError(f"`by_name` only supports loading legacy '.h5' or '.hdf5' files. Received: {filepath}")
        archive.load_weights(model, path, skip_mismatch=skip_mismatch, objects_to_skip=objects_to_skip)
    elif path.endswith(_LEGACY_H5):
        if objects_to_skip is not None:
            raise ValueError(f"`objects_to_skip` only supports loading '.weights.h5' files.Received: {filepath}")
        legacy_h5.load_weights(model, path, by_name=by_name, skip_mismatch=skip_mismatch)
    else:
        raise ValueError(f"File format not supported: filepath={filepath}. Keras 3 only supports V3 `.keras` files, "
                         "`.weights.h5` files, legacy H5 format files (`.h5` extension), or Orbax checkpoints.")
