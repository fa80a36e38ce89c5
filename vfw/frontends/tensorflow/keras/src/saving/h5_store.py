"""Variable stores of Keras 3 weights files (``.weights.h5``, ``model.weights.h5`` inside ``.keras``, and
sharded ``.weights.json`` weights).

Layout (Keras 3's): the variables an object writes with ``save_own_variables(store)`` are the
datasets ``"0"``, ``"1"``... of the HDF5 group ``<path>/vars`` (``vars`` at the root for the model
itself), where ``<path>`` is where the object sits in the model (``layers/dense``,
``optimizer``: see ``object_state.py``).  The ``vars`` group of a named object carries its name as
the attribute ``name``; a bfloat16 dataset carries ``dtype = "bfloat16"`` (HDF5 has no bfloat16:
the values are stored as 2-byte opaque data, as h5py writes ml_dtypes' bfloat16).

Sharded weights (``save_weights(..., max_shard_size=GB)``) spread the same groups over the files
``<base>_00000.weights.h5``, ``<base>_00001.weights.h5``... next to the index ``<base>.weights.json``:
``{"metadata": {"total_size": bytes}, "weight_map": {"/layers/dense/vars": "<base>_00000.weights.h5"
or [file names when the group spans files]}}``; a new shard starts when the next variable would
take the current one past ``max_shard_size``.

Reading refuses what could make a file reach outside itself or allocate unbounded memory: soft
and external links, external and virtual datasets, and datasets that declare far more bytes than
they store.  Files are read and written with h5py, the established HDF5 library.
"""

import json
import math
import pathlib

import ml_dtypes
import numpy as np

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src.engine.dtype_policy import dtype_size_bits, standardize_dtype
from vfw.frontends.tensorflow.keras.src.engine.summary import readable_size

# A dataset declaring more than this many bytes must store at least 1/_MAX_EXPANSION of them.
_BOMB_FLOOR_BYTES = 1 << 32
_MAX_EXPANSION = 1000
_BFLOAT16 = "bfloat16"


def _h5py():
    import h5py  # imported on first use: ``import vfw`` does not load HDF5

    return h5py


def _check_mode(mode):
    if mode not in ("r", "w"):
        raise ValueError(f"`mode` should be either 'w' or 'r'. Received: {mode}")


class H5Store:
    """A weights file open for reading (``mode="r"``) or writing (``mode="w"``).

    Parameters
    ----------
    source : str, pathlib.Path or binary file object
        The file (a file object for a member of a ``.keras`` archive).
    mode : {"r", "w"}
    """

    def __init__(self, source, mode="r"):
        _check_mode(mode)
        self.mode = mode
        self.file = _h5py().File(source, mode=mode)

    def make(self, path, metadata=None):
        """The entry ``path`` to write variables into (its group is created by the first write, or at once
        when ``metadata`` is given)."""
        if self.mode != "w":
            raise ValueError("`make` is only allowed in write mode.")
        entry = _WriteEntry(self, path)
        if metadata:
            entry.group = _create_vars_group(self.file, path, metadata)
        return entry

    def get(self, path):
        """The entry ``path`` to read variables from (empty when the file has none there)."""
        if self.mode != "r":
            raise ValueError("`get` is only allowed in read mode.")
        group = _find_group(self.file, _vars_path(path))
        if group is None and path and "_layer_checkpoint_dependencies" in self.file:
            # Files of Keras 2.13 keep layers under "_layer_checkpoint_dependencies".
            group = _find_group(self.file, _vars_path(path).replace("layers", "_layer_checkpoint_dependencies"))
        return _ReadEntry([] if group is None else [group])

    def has_path(self, path):
        """Whether the file has a group at ``path``."""
        return path in self.file

    def group_for_write(self, entry, key, value):
        """The group ``entry[key] = value`` writes into."""
        if entry.group is None:
            entry.group = _create_vars_group(self.file, entry.path)
        return entry.group

    def close(self):
        self.file.close()

    abort = close  # a failed write leaves what it wrote


class ShardedH5Store:
    """Sharded weights: the index ``.weights.json`` and its shard files (see the module docstring).

    Parameters
    ----------
    path : str or pathlib.Path
        The index file (another extension is replaced by ``.json``, with Keras' warning).
    mode : {"r", "w"}
    max_shard_size : float
        Gigabytes per shard (writing).
    """

    def __init__(self, path, mode="r", max_shard_size=5):
        _check_mode(mode)
        path = pathlib.Path(path)
        self.base_name = path.stem.replace(".weights", "")
        if path.suffix != ".json":
            warn_for_user(f"{'Saving' if mode == 'w' else 'Loading'} sharded weights requires `*.json` as the "
                          f"extension. The original path: {path} will be renamed to {path.with_suffix('.json')}.")
            path = path.with_suffix(".json")
        self.path = path
        self.mode = mode
        self.files = {}  # shard file name -> open h5py.File
        if mode == "w":
            self.max_bytes = float(max_shard_size) * 1024 ** 3
            self.index = {"metadata": {"total_size": 0}, "weight_map": {}}
            self.shard_bytes = 0
            self.current = self._new_shard()
        else:
            with open(path) as f:
                self.index = json.load(f)

    def _new_shard(self):
        name = f"{self.base_name}_{len(self.files):05}.weights.h5"
        self.files[name] = _h5py().File(self.path.with_name(name), mode="w")
        return self.files[name]

    def _file(self, name):
        if name not in self.files:
            self.files[name] = _h5py().File(self.path.with_name(name), mode="r")
        return self.files[name]

    def make(self, path, metadata=None):
        if self.mode != "w":
            raise ValueError("`make` is only allowed in write mode.")
        entry = _WriteEntry(self, path)
        if metadata:
            entry.group = _create_vars_group(self.current, path, metadata)
        return entry

    def group_for_write(self, entry, key, value):
        """The group of the current shard for ``entry[key] = value``, starting a new shard when ``value`` does
        not fit in this one; the index records where the group's variables are."""
        size = math.prod(value.shape) * dtype_size_bits(standardize_dtype(value.dtype)) / 8
        if size > self.max_bytes:
            raise ValueError(f"The size of {key} is {readable_size(size)} which exceeds the maximum shard size "
                             f"{readable_size(self.max_bytes)}. You can increase the `max_shard_size` parameter to "
                             "accommodate the size.")
        self.index["metadata"]["total_size"] += size
        self.shard_bytes += size
        if self.shard_bytes > self.max_bytes:
            self.current = self._new_shard()
            self.shard_bytes = size
        if entry.group is None or entry.group.file != self.current:
            entry.group = _create_vars_group(self.current, entry.path)
        # A group's first variable records its shard's name, later ones make that a list (as Keras writes it).
        shard = pathlib.Path(self.current.filename).name
        weight_map = self.index["weight_map"]
        known = weight_map.get(entry.group.name)
        if known is None:
            weight_map[entry.group.name] = shard
        else:
            known = known if isinstance(known, list) else [known]
            weight_map[entry.group.name] = known if shard in known else known + [shard]
        return entry.group

    def get(self, path):
        if self.mode != "r":
            raise ValueError("`get` is only allowed in read mode.")
        weight_map = self.index["weight_map"]
        names = weight_map.get("/vars" if not path else path) or weight_map.get(f"/{path}/vars") or []
        groups = (_find_group(self._file(name), _vars_path(path)) for name in
                  ([names] if isinstance(names, str) else names))
        return _ReadEntry([group for group in groups if group is not None])

    def has_path(self, path):
        return any(key == f"/{path}" or key.startswith(f"/{path}/") for key in self.index["weight_map"])

    def close(self):
        """Close the shards and write the index."""
        self.abort()
        if self.mode == "w":
            with open(self.path, "w") as f:
                f.write(json.dumps(self.index, indent=4))

    def abort(self):
        """Close the shards of a failed write without writing the index."""
        for file in self.files.values():
            file.close()


class _Entry:
    """The ``vars`` group(s) of one object: the mapping ``save_own_variables``/``load_own_variables`` use."""

    def __init__(self, groups):
        self.groups = groups

    def keys(self):
        return [key for group in self.groups for key in group.keys()]

    def __len__(self):
        return len(self.keys())

    def __contains__(self, key):
        return key in self.keys()


class _WriteEntry(_Entry):
    """An entry written as ``entry["0"] = value`` (the store picks the group)."""

    def __init__(self, store, path):
        super().__init__([])
        self.store = store
        self.path = path
        self.group = None

    def keys(self):
        return list(self.group.keys()) if self.group is not None else []

    def __setitem__(self, key, value):
        if hasattr(value, "numpy"):
            value = value.numpy()
        value = np.asarray(value)
        group = self.store.group_for_write(self, key, value)
        dataset = group.create_dataset(key, data=value)
        if value.dtype == ml_dtypes.bfloat16:
            dataset.attrs["dtype"] = _BFLOAT16


class _ReadEntry(_Entry):
    """An entry read as ``entry["0"]`` (a numpy array); empty when the file has no group for the object."""

    def __getitem__(self, key):
        for group in self.groups:
            if key in group:
                dataset = _dataset(group, key)
                value = np.asarray(dataset[()])
                if dataset.attrs.get("dtype") == _BFLOAT16:
                    value = value.view(ml_dtypes.bfloat16)
                return value
        raise KeyError(key)


def _vars_path(path):
    return f"{path}/vars" if path else "vars"


def _create_vars_group(file, path, metadata=None):
    group = (file.require_group(path) if path else file).create_group("vars")
    for key, value in (metadata or {}).items():
        group.attrs[key] = value
    return group


def _check_link(parent, name):
    h5py = _h5py()
    link = parent.get(name, default=None, getclass=True, getlink=True)
    if link in (h5py.ExternalLink, h5py.SoftLink):
        raise ValueError(f"Not allowed: H5 file with {link.__name__}")


def _find_group(root, path):
    """The group at ``path`` under ``root``, None when missing (links refused)."""
    h5py = _h5py()
    current = root
    for part in path.split("/"):
        if not part:
            raise ValueError(f"Invalid path in H5 file: {path}")
        if part not in current:
            return None
        _check_link(current, part)
        current = current[part]
        if not isinstance(current, h5py.Group):
            raise ValueError(f"Invalid H5 file, expected Group but received {type(current)}")
    return current


def _dataset(group, name):
    """The dataset ``name`` of ``group``, refusing links, external or virtual storage and size bombs."""
    h5py = _h5py()
    _check_link(group, name)
    dataset = group[name]
    if not isinstance(dataset, h5py.Dataset):
        raise ValueError(f"Invalid H5 file, expected Dataset, received {type(dataset)}")
    if dataset.external:
        raise ValueError(f"Not allowed: H5 file with external Dataset: {dataset.external}")
    if dataset.is_virtual:
        raise ValueError("Not allowed: H5 file with virtual Dataset")
    declared = math.prod(dataset.shape or ()) * dataset.dtype.itemsize
    stored = dataset.id.get_storage_size()
    if declared > _BOMB_FLOOR_BYTES and declared > _MAX_EXPANSION * stored:
        raise ValueError(f"Not allowed: H5 dataset '{name}' declares {declared} bytes but only {stored} are stored on "
                         "disk; refusing to load a potential decompression/shape bomb.")
    return dataset
