"""Datasets over files: ``tf.data.TextLineDataset``, ``tf.data.TFRecordDataset`` and ``Dataset.list_files``."""

import glob
import gzip
import zlib

import numpy as np

from vfw.frontends.tensorflow import _dispatch, _dtypes, errors
from vfw.frontends.tensorflow._tensor_spec import TensorSpec
from vfw.frontends.tensorflow.data._dataset import AUTOTUNE, UNKNOWN, Dataset
from vfw.frontends.tensorflow.data._functional import default_cycle_length, interleave


def _names(value):
    """File names (str) from a string, bytes, a list of them or a string tensor."""
    array = _dispatch.convert_to_tensor(value, dtype=_dtypes.string).array
    return [name.decode() if isinstance(name, bytes) else str(name) for name in array.reshape(-1)]


def file_content(path, compression):
    """The bytes of a file, decompressed by ``compression`` ("GZIP", "ZLIB" or "" for none).

    Raises
    ------
    NotFoundError
        When there is no file ``path`` (TF's error of the iterator reading it).
    """
    try:
        with open(path, "rb") as f:
            content = f.read()
    except FileNotFoundError:
        raise _dispatch.op_error(f"{path}; No such file or directory", "IteratorGetNext",
                                 errors.NotFoundError) from None
    if compression == "GZIP":
        return gzip.decompress(content)
    if compression == "ZLIB":
        return zlib.decompress(content)
    return content


def _lines(path, compression):
    """The lines of a file as bytes, without their line ends (``\\n``, and a ``\\r`` before it)."""
    lines = file_content(path, compression).split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [line[:-1] if line.endswith(b"\r") else line for line in lines]


class TextLineDataset(Dataset):
    """``tf.data.TextLineDataset(filenames, compression_type=None, buffer_size=None, num_parallel_reads=None)``:
    the lines of the files, in order (``num_parallel_reads``: files interleaved line by line, as TF's
    deterministic parallel interleave)."""

    _tf_name = "TextLineDatasetV2"

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        compression = (compression_type or "").upper() if not hasattr(compression_type, "array") else \
            compression_type.numpy().decode().upper()
        if compression not in ("", "GZIP", "ZLIB"):
            raise _dispatch.op_error(f"Unsupported compression_type: {compression}.", self._tf_name)
        self._filenames = filenames if isinstance(filenames, Dataset) else None
        self._names = None if self._filenames is not None else _names(filenames)
        self._compression = compression
        self._parallel = num_parallel_reads
        super().__init__(TensorSpec([], _dtypes.string), UNKNOWN)

    def _files(self):
        if self._names is not None:
            return list(self._names)
        return [element[0][()].decode() for element in self._filenames._elements()]

    def _one_file(self, path):
        for line in _lines(path, self._compression):
            yield (np.array(line, dtype=object),)

    def _iterate(self):
        files = self._files()
        if self._parallel is None:
            for path in files:
                yield from self._one_file(path)
            return
        cycle = int(self._parallel)
        cycle = default_cycle_length() if cycle == AUTOTUNE else cycle
        yield from interleave(iter(files), self._one_file, cycle, 1)


class TFRecordDataset(TextLineDataset):
    """``tf.data.TFRecordDataset(filenames, compression_type=None, buffer_size=None, num_parallel_reads=None)``:
    the records of TFRecord files as scalar strings (checksums verified: DataLossError), in order or interleaved
    as ``TextLineDataset``'s lines."""

    _tf_name = "TFRecordDatasetV2"

    def _one_file(self, path):
        from vfw.frontends.tensorflow._io_ops import read_records

        for record in read_records(path, self._compression):
            yield (np.array(record, dtype=object),)


def list_files(file_pattern, shuffle=None, seed=None):
    """``Dataset.list_files``: the sorted names of the files matching the pattern(s), shuffled (all at once,
    TF's order for a given seed) unless ``shuffle=False``.

    Raises
    ------
    InvalidArgumentError
        When nothing matches.
    """
    from vfw.frontends.tensorflow.data._sources import TensorSliceDataset

    patterns = _names(file_pattern)
    matches = sorted({path for pattern in patterns for path in glob.glob(pattern)})
    if not matches:
        raise _dispatch.op_error(f"Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be true. Summarized data: "
                                 f"b'No files matched pattern: {', '.join(patterns)}'", "Assert")
    dataset = TensorSliceDataset(np.array([m.encode() for m in matches], dtype=object))
    if shuffle is None or shuffle:
        dataset = dataset.shuffle(len(matches), seed=seed)
    return dataset
