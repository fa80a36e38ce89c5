"""TF's FILE sharding of datasets that read files, under a multi-worker strategy (``AutoShardPolicy`` AUTO and FILE).

TF rewrites the pipeline of a distributed dataset: where the file names of a reader dataset (``TextLineDataset``,
``TFRecordDataset``, ``FixedLengthRecordDataset``; not ``CsvDataset``) come from, it keeps the names of worker ``i``
(name ``k`` for ``k % num_workers == i``), so each worker reads whole files; the names are the reader's own list,
or the elements of the dataset an ``interleave``/``flat_map`` makes readers from (``list_files(...)``).  Every
source of the pipeline must be such a reader: AUTO falls back to DATA sharding otherwise, FILE raises TF's
NotFoundError.  With fewer files than workers both raise TF's InvalidArgumentError when the data is read.

vfw does the same on a copy of the pipeline: each dataset from the end of the pipeline up to the readers is
copied (``copy.copy``) with its inputs replaced by their sharded copies, so the user's dataset is unchanged.
"""

import copy

import numpy as np

from vfw.frontends.tensorflow import _dispatch, errors
from vfw.frontends.tensorflow.data._dataset import UNKNOWN, Dataset

__all__ = ["file_sharded"]

_TOO_FEW_FILES = ("Could not apply FILE based sharding: the dataset only has {files} file(s), which is not enough "
                  "for the required {workers} shards/workers. If you are using datasets with distribution strategy, "
                  "consider setting the auto sharding policy to either DATA or OFF using the "
                  "`experimental_distribute.auto_shard_policy` option of `tf.data.Options()`. Or, split your input "
                  "files into a larger number of small files such that number of files is greater than number of "
                  "shards/workers.")


class _UnshardableError(Exception):
    """A source of the pipeline that reads no files (its TF dataset name)."""


def file_sharded(dataset, workers, index, policy):
    """``dataset`` reading only worker ``index``'s files, or None where it has a source that reads no files
    (AUTO: the caller shards by data).

    Raises
    ------
    NotFoundError
        For ``policy == "FILE"`` when a source reads no files (TF's error when the dataset is distributed).
    """
    try:
        return _sharded(dataset, workers, index, {})
    except _UnshardableError as e:
        if policy == "FILE":
            raise _dispatch.op_error(f"Found an unshardable source dataset: {e}", "AutoShardDataset",
                                     errors.NotFoundError) from None
        return None


def _sharded(dataset, workers, index, done):
    """The copy of ``dataset`` whose readers read worker ``index``'s files (``done``: copies made, by id)."""
    if id(dataset) in done:  # a dataset used twice in the pipeline is copied once
        return done[id(dataset)]
    unshardable = getattr(dataset, "_unshardable_source", None)  # a source vfw composes of readers (CSV)
    if unshardable is not None:
        raise _UnshardableError(unshardable)
    reader = _reader_files(dataset)
    if reader is not None:
        names, rebuild = reader
        result = _FileShard(names, workers, index, rebuild, dataset)
    elif _makes_readers(dataset):
        result = _with_inputs(dataset, {id(dataset._input): _FileShard(dataset._input, workers, index)})
    else:
        inputs = dataset._opened_inputs  # every input (not only those TF opens with the iterator)
        if not inputs:
            raise _UnshardableError(getattr(dataset, "_tf_name", type(dataset).__name__))
        result = _with_inputs(dataset, {id(d): _sharded(d, workers, index, done) for d in inputs})
    done[id(dataset)] = result
    return result


def _reader_files(dataset):
    """``(names, rebuild)`` for a reader dataset: its file names (a list, or a dataset of them) and how to make
    the reader of other names; None for other datasets."""
    from vfw.frontends.tensorflow.data._files import TextLineDataset

    if not isinstance(dataset, TextLineDataset):
        return None
    names = dataset._names if dataset._names is not None else dataset._filenames

    def rebuild(chosen):
        reader = copy.copy(dataset)
        reader._names, reader._filenames = chosen, None
        return reader
    return names, rebuild


def _makes_readers(dataset):
    """Whether ``dataset`` is an ``interleave``/``flat_map`` whose function returns a reader dataset (TF finds the
    reader in the function's graph; vfw calls the function on an example element, as its trace did)."""
    from vfw.frontends.tensorflow.data import _structure
    from vfw.frontends.tensorflow.data._functional import FlatMapDataset, InterleaveDataset

    if not isinstance(dataset, (FlatMapDataset, InterleaveDataset)):
        return False
    function = dataset._function
    try:
        example = tuple(_structure.example_component(s, 1, 0) for s in function._input_specs)
        made = function(example)
    except Exception:  # noqa: BLE001 - a function that cannot run on an example element reads no files we can see
        return False
    return _reads_files(made, set())


def _reads_files(dataset, seen):
    """Whether a reader dataset is somewhere in ``dataset``'s pipeline."""
    if id(dataset) in seen or not isinstance(dataset, Dataset):
        return False
    seen.add(id(dataset))
    if getattr(dataset, "_unshardable_source", None) is not None:
        return False
    if _reader_files(dataset) is not None:
        return True
    return any(_reads_files(d, seen) for d in dataset._opened_inputs)


def _with_inputs(dataset, replacements):
    """A shallow copy of ``dataset`` whose references to its inputs (attributes, and tuples/lists of them) are
    replaced by ``replacements`` (copies keyed by the id of the input they replace)."""
    clone = copy.copy(dataset)

    def replaced(value):
        if id(value) in replacements:
            return replacements[id(value)]
        if isinstance(value, (tuple, list)) and any(id(v) in replacements for v in value):
            return type(value)(replacements.get(id(v), v) for v in value)
        return value

    for name, value in list(vars(clone).items()):
        clone.__dict__[name] = replaced(value)
    if getattr(clone, "_recorded", None) is not None:  # a cache of the copy starts empty: it reads other data
        clone._recorded = None
    return clone


class _FileShard(Dataset):
    """Worker ``index``'s part of a list of file names (a dataset of them, or a Python list read by ``rebuild``'s
    reader): names ``index``, ``index + workers``...; InvalidArgumentError when there are fewer names than
    workers, as TF's FILE sharding."""

    _tf_name = "ShardDataset"

    def __init__(self, names, workers, index, rebuild=None, reader=None):
        self._names = names
        self._workers, self._index = workers, index
        self._rebuild = rebuild
        source = reader if reader is not None else names
        super().__init__(source.element_spec, UNKNOWN, inputs=[names] if rebuild is None else [])
        self._options = source._options

    def _all_names(self):
        if isinstance(self._names, Dataset):
            return [element for element in self._names._elements()]
        return list(self._names)

    def _iterate(self):
        names = self._all_names()
        if len(names) < self._workers:
            raise _dispatch.op_error(_TOO_FEW_FILES.format(files=len(names), workers=self._workers),
                                     "IteratorGetNext")
        mine = names[self._index::self._workers]
        if self._rebuild is None:
            yield from mine
            return
        if mine and isinstance(mine[0], tuple):  # elements of a dataset of names: their scalar string
            mine = [m[0][()] for m in mine]
        chosen = [m.decode() if isinstance(m, (bytes, np.bytes_)) else str(m) for m in mine]
        yield from self._rebuild(chosen)._elements()
