"""Keras 3 model files: the ``.keras`` zip archive (or an unzipped directory) and ``.weights.h5`` files.

A ``.keras`` archive holds these members (stored uncompressed, as Keras writes them):

- ``metadata.json``: ``{"keras_version": "3.15.1", "date_saved": "YYYY-MM-DD@HH:MM:SS"}`` (the Keras
  version whose format vfw writes);
- ``config.json``: ``serialize_keras_object(model)``, the model's config with its build and compile
  configs (``keras.saving.serialize_keras_object``'s format);
- ``model.weights.h5``: the variables of the model, its layers and its optimizer (``h5_store.py``
  for the HDF5 layout, ``object_state.py`` for where each object's variables go);
- ``assets/...``: the files objects write with ``save_assets`` (IntegerLookup's ``vocabulary.txt``),
  in per-object folders (``assets_store.py``).

Loading deserializes the config (which builds and compiles the model: the optimizer's variables
then exist), assigns every variable from the weights file and hands objects their asset folders.
Nothing in a file is executed: the config names classes that deserialization resolves through
Keras' public names, the registry and ``custom_objects`` only (lambdas need ``safe_mode=False``),
and no pickle is involved; asset files are only read as text by the objects that own them.
"""

import datetime
import io
import json
import os
import zipfile

from vfw.frontends.tensorflow.keras.src.saving import object_state
from vfw.frontends.tensorflow.keras.src.saving.assets_store import ASSETS_DIRNAME, ArchiveAssets, AssetsStore
from vfw.frontends.tensorflow.keras.src.saving.h5_store import H5Store, ShardedH5Store
from vfw.frontends.tensorflow.keras.src.utils import serialization

CONFIG_FILENAME = "config.json"
METADATA_FILENAME = "metadata.json"
WEIGHTS_FILENAME = "model.weights.h5"
KERAS_FORMAT_VERSION = "3.15.1"
# Keras reads assets only from files with more members than metadata, config and weights.
_MEMBERS_WITHOUT_ASSETS = 3
# A member declaring more than this many bytes must not expand more than _MAX_EXPANSION times in the archive.
_ZIP_BOMB_FLOOR_BYTES = 1 << 32
_ZIP_MAX_EXPANSION = 100


# -- configs ---------------------------------------------------------------------------------------------------
def config_and_metadata(model):
    """``(config.json text, metadata.json text)`` of ``model``."""
    with serialization.ObjectSharingScope():
        config = serialization.serialize_keras_object(model)
    metadata = {"keras_version": KERAS_FORMAT_VERSION,
                "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S")}
    return json.dumps(config), json.dumps(metadata)


def model_from_config_text(text, custom_objects=None, compile=True, safe_mode=True):
    """The model a ``config.json`` text describes (compiled from its compile config when ``compile``)."""
    config = json.loads(text)
    if not compile:
        config["compile_config"] = None
    with serialization.ObjectSharingScope():
        return serialization.deserialize_keras_object(config, custom_objects=custom_objects, safe_mode=safe_mode)


# -- whole models ----------------------------------------------------------------------------------------------
def save_model(model, filepath, zipped=True):
    """Write ``model`` to ``filepath``: a ``.keras`` zip archive, or a directory when not ``zipped``."""
    config_text, metadata_text = config_and_metadata(model)
    if not zipped:
        os.makedirs(filepath, exist_ok=True)
        for name, text in ((METADATA_FILENAME, metadata_text), (CONFIG_FILENAME, config_text)):
            with open(os.path.join(filepath, name), "w") as f:
                f.write(text)
        assets = AssetsStore(os.path.join(filepath, ASSETS_DIRNAME))
        assets.make("")  # Keras' directories always have the folder
        _write_weights(model, H5Store(os.path.join(filepath, WEIGHTS_FILENAME), mode="w"), assets=assets)
        return
    weights = io.BytesIO()
    with ArchiveAssets() as assets:
        _write_weights(model, H5Store(weights, mode="w"), assets=assets.store)
        with zipfile.ZipFile(filepath, "w") as zipped_file:
            zipped_file.writestr(METADATA_FILENAME, metadata_text)
            zipped_file.writestr(CONFIG_FILENAME, config_text)
            zipped_file.writestr(WEIGHTS_FILENAME, weights.getvalue())
            assets.write_to(zipped_file)


def _write_weights(model, store, objects_to_skip=None, assets=None):
    """Write the variables of ``model`` into ``store`` (then closed), and its assets into ``assets``."""
    try:
        object_state.save_state(model, store, visited={id(obj) for obj in objects_to_skip or ()}, assets=assets)
    except BaseException:
        store.abort()
        raise
    store.close()


def load_model(filepath, custom_objects=None, compile=True, safe_mode=True):
    """The model saved at ``filepath`` (a ``.keras`` archive, or a directory ``save_model`` wrote)."""
    if os.path.isdir(filepath):
        with open(os.path.join(filepath, CONFIG_FILENAME)) as f:
            model = model_from_config_text(f.read(), custom_objects, compile, safe_mode)
        names = os.listdir(filepath)
        _check_weights_member(names)
        assets = AssetsStore(os.path.join(filepath, ASSETS_DIRNAME)) if len(names) > _MEMBERS_WITHOUT_ASSETS else None
        _load_state(model, H5Store(os.path.join(filepath, WEIGHTS_FILENAME), mode="r"), assets)
        return model
    with zipfile.ZipFile(filepath, "r") as zipped_file:
        model = model_from_config_text(_read_member(zipped_file, CONFIG_FILENAME), custom_objects, compile,
                                       safe_mode)
        names = zipped_file.namelist()
        _check_weights_member(names)
        weights = io.BytesIO(_read_member(zipped_file, WEIGHTS_FILENAME))
        if len(names) <= _MEMBERS_WITHOUT_ASSETS:
            _load_state(model, H5Store(weights, mode="r"))
            return model
        with ArchiveAssets.extracted(zipped_file, _read_member) as assets:
            _load_state(model, H5Store(weights, mode="r"), assets.store)
    return model


def _load_state(model, store, assets=None):
    """Assign the variables of ``model`` from ``store`` and load its assets, raising on failures."""
    failures = object_state.LoadingFailures()
    _read_weights(model, store, failures, assets=assets)
    failures.report()


def _check_weights_member(names):
    if WEIGHTS_FILENAME not in names:
        if "model.weights.npz" in names:
            raise ValueError("This Keras file keeps its weights in `model.weights.npz`; vfw reads `model.weights.h5` "
                             "weights only.")
        raise ValueError(f"Expected a {WEIGHTS_FILENAME} file.")


def _read_member(zipped_file, name):
    """The bytes of archive member ``name``, refusing decompression bombs."""
    info = zipped_file.getinfo(name)
    if info.file_size > _ZIP_BOMB_FLOOR_BYTES and info.file_size > _ZIP_MAX_EXPANSION * info.compress_size:
        raise ValueError(f"Not allowed: ZIP member '{name}' declares {info.file_size} bytes but only "
                         f"{info.compress_size} are stored on disk; refusing to load a potential decompression bomb.")
    return zipped_file.read(name)


def _read_weights(model, store, failures, objects_to_skip=None, assets=None):
    """Assign the variables of ``model`` from ``store`` (then closed) and its assets from ``assets``, collecting
    failures."""
    try:
        object_state.load_state(model, store, failures, visited={id(obj) for obj in objects_to_skip or ()},
                                assets=assets)
    finally:
        store.close()


# -- weights only ----------------------------------------------------------------------------------------------
def save_weights(model, filepath, max_shard_size=None, objects_to_skip=None):
    """Write the variables of ``model`` (layers and optimizer) to the ``.weights.h5`` file ``filepath``, or to
    shards of at most ``max_shard_size`` gigabytes indexed by the ``.weights.json`` file ``filepath``."""
    if not model.built:
        raise ValueError("You are saving a model that has not yet been built. Try building the model first by calling "
                         "it on some data or by using `build()`.")
    store = H5Store(filepath, mode="w") if max_shard_size is None else \
        ShardedH5Store(filepath, mode="w", max_shard_size=max_shard_size)
    _write_weights(model, store, objects_to_skip)


def load_weights(model, filepath, skip_mismatch=False, objects_to_skip=None):
    """Assign the variables of ``model`` from a ``.weights.h5`` file, sharded weights (``.weights.json``) or a
    ``.keras`` archive.

    Objects whose variables do not match (count or shapes) make a ValueError listing them, or a
    warning with ``skip_mismatch`` (they keep their values).
    """
    if not model.built:
        raise ValueError("You are loading weights into a model that has not yet been built. Try building the model "
                         "first by calling it on some data or by using `build()`.")
    failures = object_state.LoadingFailures()
    path = str(filepath)
    if path.endswith(".keras"):
        with zipfile.ZipFile(filepath, "r") as zipped_file:
            store = H5Store(io.BytesIO(_read_member(zipped_file, WEIGHTS_FILENAME)), mode="r")
    elif path.endswith("weights.json"):
        store = ShardedH5Store(filepath, mode="r")
    else:
        store = H5Store(filepath, mode="r")
    _read_weights(model, store, failures, objects_to_skip)
    failures.report(warn_only=skip_mismatch)
