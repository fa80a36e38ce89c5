"""``tf.data.experimental.CsvDataset`` and ``make_csv_dataset``: CSV files read line by line and parsed with
``tf.io.decode_csv``; ``make_csv_dataset`` infers column names from the header and column types from the first
rows as TF does (the least permissive of int32, int64, float32, float64, string that every value fits), and
yields batches of ``OrderedDict`` features (and the label column popped out when ``label_name`` is given)."""

import collections
import csv
import gzip

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor
from vfw.frontends.tensorflow._io_csv import decode_csv
from vfw.frontends.tensorflow.data._dataset import AUTOTUNE
from vfw.frontends.tensorflow.data._files import TextLineDataset, _names


def CsvDataset(filenames, record_defaults, compression_type=None, buffer_size=None, header=False,  # noqa: N802
               field_delim=",", use_quote_delim=True, na_value="", select_cols=None, exclude_cols=None, name=None):
    """A dataset of one tuple of scalar tensors per CSV record of ``filenames`` (``header``: skip each file's
    first line), the columns typed by ``record_defaults`` as in ``tf.io.decode_csv``."""
    if exclude_cols is not None:
        raise NotImplementedError("vfw: CsvDataset(exclude_cols=...) is not supported; use select_cols")
    defaults = [convert_to_tensor([], dtype=d) if isinstance(d, _dtypes.DType) else d for d in record_defaults]
    datasets = [TextLineDataset(path, compression_type).skip(1 if header else 0) for path in _names(filenames)]
    lines = datasets[0]
    for more in datasets[1:]:
        lines = lines.concatenate(more)
    records = lines.map(lambda line: tuple(decode_csv(line, defaults, field_delim, use_quote_delim,
                                                      na_value=na_value, select_cols=select_cols)))
    records._unshardable_source = "CSVDatasetV2"  # TF's FILE sharding does not read CSV files (distribute)
    return records


def _fits(text, dtype):
    try:
        if dtype in ("int32", "int64"):
            return np.iinfo(dtype).min <= int(text) <= np.iinfo(dtype).max
        return bool(np.abs(np.array(text, dtype=dtype)) < np.inf)
    except (ValueError, OverflowError):
        return False


_TYPE_ORDER = ("int32", "int64", "float32", "float64", "string")


def _inferred_type(text, na_value, previous):
    """TF's inference step: the least permissive type ``text`` fits that is at least ``previous``."""
    if text in ("", na_value):
        return previous
    start = 0 if previous is None else _TYPE_ORDER.index(previous)
    return next(t for t in _TYPE_ORDER[start:] if t == "string" or _fits(text, t))


def _rows(path, compression, field_delim, use_quote_delim):
    opener = gzip.open if compression == "GZIP" else open
    with opener(path, "rt", encoding="utf-8", newline="") as f:
        quoting = csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE
        yield from csv.reader(f, delimiter=field_delim, quoting=quoting)


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None, label_name=None,
                     select_columns=None, field_delim=",", use_quote_delim=True, na_value="", header=True,
                     num_epochs=None, shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False, num_rows_for_inference=100,
                     compression_type=None, ignore_errors=False, encoding="utf-8"):
    """Batches of ``(features, label)`` (``features`` an OrderedDict by column name) read from the CSV files
    matching ``file_pattern``: shuffled with ``shuffle_buffer_size`` / ``shuffle_seed`` when ``shuffle``, repeated
    ``num_epochs`` times (forever when None, then the last partial batch is dropped), as TF's reader."""
    from vfw.frontends.tensorflow.data._dataset import Dataset

    paths = sorted(set(p for pattern in _names(file_pattern) for p in Dataset.list_files(pattern, shuffle=False)
                       .as_numpy_iterator()))
    paths = [p.decode() for p in paths]
    compression = (compression_type or "").upper()
    if column_names is None:
        if not header:
            raise ValueError("Expected `column_names` or `header` arguments. Neither is provided.")
        column_names = next(_rows(paths[0], compression, field_delim, use_quote_delim))
    if len(column_names) != len(set(column_names)):
        raise ValueError("Either `column_names` argument or CSV header row contains duplicate column names: "
                         f"{set(n for n in column_names if column_names.count(n) > 1)}.")
    selected = None
    if select_columns is not None:
        selected = sorted(c if isinstance(c, int) else column_names.index(c) for c in select_columns)
    if column_defaults is None:
        columns = selected if selected is not None else range(len(column_names))
        types = [None] * len(columns)
        for i, row in enumerate(r for path in paths for r in list(_rows(path, compression, field_delim,
                                                                          use_quote_delim))[1 if header else 0:]):
            if num_rows_for_inference is not None and i >= num_rows_for_inference:
                break
            types = [_inferred_type(row[c], na_value, t) for c, t in zip(columns, types)]
        column_defaults = [convert_to_tensor([""] if (t or "string") == "string" else [0], dtype=t or "string")
                           for t in types]
    if selected is not None and len(column_names) > len(selected):
        column_names = [column_names[i] for i in selected]
    if label_name is not None and label_name not in column_names:
        raise ValueError(f"`label_name` provided must be one of the columns: {column_names}. Received: {label_name}.")
    dataset = CsvDataset(paths, column_defaults, compression_type, header=header, field_delim=field_delim,
                         use_quote_delim=use_quote_delim, na_value=na_value, select_cols=selected)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=num_epochs is None)

    def to_features(*columns):
        features = collections.OrderedDict(zip(column_names, columns))
        if label_name is None:
            return features
        return features, features.pop(label_name)

    return dataset.map(to_features).prefetch(AUTOTUNE if prefetch_buffer_size is None else prefetch_buffer_size)
