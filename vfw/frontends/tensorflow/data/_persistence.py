"""``Dataset.save``, ``Dataset.load`` and ``Dataset.snapshot``: datasets written to and read from a directory.

vfw's own on-disk format, not TF's snapshot format (a directory TF wrote cannot be loaded here,
nor the reverse); it round-trips vfw -> vfw:

- ``dataset_spec.json``: the element spec (nested tuples, dicts, namedtuples (name and fields) of
  ``TensorSpec`` shape/dtype/name), the number of elements, the shard ids and the compression;
- ``shard_<id>.npz`` (``numpy.savez``, or ``savez_compressed`` for ``compression="GZIP"``): the
  elements whose ``shard_func`` gave ``<id>``, in order, one ``.npy`` entry per component
  (``e<element>_c<component>``); strings are stored as fixed-width bytes arrays.

Loading reads only JSON and ``.npy`` data (``allow_pickle=False``): it never runs code from the
directory. The spec file is written last, so a directory without it holds no complete dataset.
"""

import collections
import functools
import json
import os

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._shape import TensorShape
from vfw.frontends.tensorflow._tensor_spec import TensorSpec
from vfw.frontends.tensorflow.data import _structure as structure
from vfw.frontends.tensorflow.data._dataset import Dataset

SPEC_FILE = "dataset_spec.json"
_COMPRESSIONS = (None, "", "NONE", "GZIP", "AUTO")


# -- element specs as JSON ------------------------------------------------------------------------------
def _spec_to_json(spec):
    if isinstance(spec, TensorSpec):
        dims = None if spec.shape.rank is None else list(spec.shape.as_list())
        return {"kind": "tensor", "shape": dims, "dtype": spec.dtype.name, "name": spec.name}
    if isinstance(spec, dict):
        # Sorted: TF's loaded element specs list dict keys in sorted order.
        return {"kind": "dict", "items": [[key, _spec_to_json(value)] for key, value in sorted(spec.items())]}
    if isinstance(spec, tuple) and hasattr(type(spec), "_fields"):
        return {"kind": "namedtuple", "name": type(spec).__name__, "fields": list(spec._fields),
                "items": [_spec_to_json(value) for value in spec]}
    if isinstance(spec, tuple):
        return {"kind": "tuple", "items": [_spec_to_json(value) for value in spec]}
    raise TypeError(f"Dataset.save supports elements of tensors in tuples, dicts and namedtuples; got {spec!r}")


def _spec_from_json(data):
    kind = data["kind"]
    if kind == "tensor":
        return TensorSpec(TensorShape(data["shape"]), _dtypes.as_dtype(data["dtype"]), data["name"])
    if kind == "dict":
        return {key: _spec_from_json(value) for key, value in data["items"]}
    items = [_spec_from_json(value) for value in data["items"]]
    if kind == "namedtuple":
        return collections.namedtuple(data["name"], data["fields"])(*items)
    if kind == "tuple":
        return tuple(items)
    raise ValueError(f"Unknown element spec entry {kind!r} in {SPEC_FILE}")


# -- components as .npy entries --------------------------------------------------------------------------
def _stored(component):
    if component.dtype == object:  # tf.string components hold bytes objects
        return np.array(component.tolist(), dtype=bytes)
    return component


def _restored(array, spec):
    if spec.dtype == _dtypes.string:
        return np.array(array.tolist(), dtype=object).reshape(array.shape)
    return array


def _check_compression(compression, method):
    if compression not in _COMPRESSIONS:
        raise ValueError(f"Dataset.{method}: compression must be None, 'NONE', 'GZIP' or 'AUTO'; got "
                         f"{compression!r}")
    return compression == "GZIP"


def _shard_of(shard_func, element):
    """The int shard id ``shard_func`` gives ``element`` (TF requires an int64 scalar)."""
    shard = shard_func(*element) if isinstance(element, tuple) and not hasattr(type(element), "_fields") \
        else shard_func(element)
    value = np.asarray(shard.numpy() if hasattr(shard, "numpy") else shard)
    if value.shape != () or value.dtype != np.int64:
        raise TypeError(f"Dataset.save: `shard_func` must return a scalar int64 tensor; got {value.dtype} of shape "
                        f"{value.shape}")
    return int(value)


def write(dataset, path, compression=None, shard_func=None):
    """Write every element of ``dataset`` under ``path`` (created if missing) in vfw's format."""
    gzip = _check_compression(compression, "save")
    path = os.fspath(path)
    spec = dataset.element_spec
    spec_json = _spec_to_json(spec)
    os.makedirs(path, exist_ok=True)
    shards = collections.defaultdict(dict)
    count = 0
    for flat in dataset._elements():
        shard = 0 if shard_func is None else _shard_of(shard_func, dataset._pack(flat))
        entries = shards[shard]
        index = len(entries) // max(len(flat), 1)
        for c, component in enumerate(flat):
            entries[f"e{index}_c{c}"] = _stored(np.asarray(component))
        count += 1
    save = np.savez_compressed if gzip else np.savez
    for shard, entries in shards.items():
        with open(os.path.join(path, f"shard_{shard}.npz"), "wb") as f:
            save(f, **entries)
    with open(os.path.join(path, SPEC_FILE), "w") as f:
        json.dump({"format": "vfw.tensorflow.data/1", "element_spec": spec_json, "count": count,
                   "shards": sorted(shards), "compression": compression}, f)


def read_metadata(path):
    """The parsed ``dataset_spec.json`` of ``path``, or None when no complete dataset is there."""
    spec_path = os.path.join(os.fspath(path), SPEC_FILE)
    if not os.path.exists(spec_path):
        return None
    with open(spec_path) as f:
        return json.load(f)


class LoadDataset(Dataset):
    """``Dataset.load``: the elements saved under a directory, shard by shard (ascending shard id)."""

    _tf_name = "_LoadDataset"

    def __init__(self, path, metadata, element_spec):
        self._path = os.fspath(path)
        self._shards = metadata["shards"]
        if not all(isinstance(shard, int) and not isinstance(shard, bool) for shard in self._shards):
            raise ValueError(f"Dataset.load: {SPEC_FILE} under {self._path!r} lists shard ids that are not integers: "
                             f"{self._shards!r}")  # a name like "../x" would read outside the directory
        super().__init__(element_spec, metadata["count"])

    def _iterate(self):
        specs = self._flat_specs
        for shard in self._shards:
            with np.load(os.path.join(self._path, f"shard_{shard}.npz"), allow_pickle=False) as entries:
                for index in range(len(entries.files) // max(len(specs), 1)):
                    yield tuple(_restored(entries[f"e{index}_c{c}"], spec) for c, spec in enumerate(specs))


def load(path, element_spec=None, compression=None, reader_func=None):
    """The dataset saved under ``path`` by :meth:`Dataset.save` (see the module docstring for the format).

    Raises
    ------
    tf.errors.NotFoundError
        If ``path`` holds no saved dataset.
    ValueError
        If ``element_spec`` is not compatible with the saved one.
    """
    from vfw.frontends.tensorflow import errors

    _check_compression(compression, "load")
    metadata = read_metadata(path)
    if metadata is None:
        raise errors.NotFoundError(None, None, f"Could not find metadata file [{os.path.join(path, SPEC_FILE)}]")
    saved_spec = _spec_from_json(metadata["element_spec"])
    if element_spec is not None:
        if not structure.compatible(element_spec, saved_spec):
            raise ValueError(f"Dataset.load: element_spec {element_spec!r} is not compatible with the saved "
                             f"element spec {saved_spec!r}")
        saved_spec = element_spec
    if reader_func is None:
        return LoadDataset(path, metadata, saved_spec)
    # ``reader_func`` receives a dataset of the shards' datasets (ascending shard id).
    per_shard = [Dataset.from_tensors(LoadDataset(path, dict(metadata, shards=[shard], count=-2), saved_spec))
                 for shard in metadata["shards"]]
    return reader_func(functools.reduce(Dataset.concatenate, per_shard))


class SnapshotDataset(Dataset):
    """``Dataset.snapshot``: the input's elements, written under ``path`` by the first complete iteration when
    ``path`` holds no snapshot, and read from there afterwards (also by new pipelines, as TF does).

    Unlike TF, one snapshot is kept per directory (TF keys snapshots by a fingerprint of the pipeline
    under ``path``): a different pipeline given the same directory reads the stored elements.
    """

    _tf_name = "SnapshotDataset"

    def __init__(self, input_dataset, path, compression="AUTO", shard_func=None):
        _check_compression(compression, "snapshot")
        self._input = input_dataset
        self._path = os.fspath(path)
        self._compression = compression
        self._shard_func = shard_func
        super().__init__(input_dataset.element_spec, input_dataset._cardinality, inputs=(input_dataset,))

    def _iterate(self):
        metadata = read_metadata(self._path)
        if metadata is not None:
            yield from LoadDataset(self._path, metadata, self.element_spec)._iterate()
            return
        recorded = []
        for flat in self._input._elements():
            recorded.append(flat)
            yield flat
        write(_Recorded(self._input, recorded), self._path, self._compression, self._shard_func)


class _Recorded(Dataset):
    """Elements already produced (the ones a snapshot writes)."""

    def __init__(self, like, elements):
        self._recorded = elements
        super().__init__(like.element_spec, len(elements))

    def _iterate(self):
        return iter(self._recorded)
