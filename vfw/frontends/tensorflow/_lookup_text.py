"""``tf.lookup.TextFileInitializer``: the keys and values of a static table read from the columns of a text file.

Each line of the file gives one key and its value: column ``key_index`` / ``value_index`` of the line split at
``delimiter``, or the whole line (``TextFileIndex.WHOLE_LINE``) or the line's number (``TextFileIndex.LINE_NUMBER``,
plus ``value_index_offset`` for values).  The file is read when the initializer is made (TF reads it when the
table initializes, which in eager mode is when the table is made).
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow._dispatch import op_error, wrap
from vfw.frontends.tensorflow._lookup_ops import TableInitializerBase

_OP = "InitializeTableFromTextFileV2"


class TextFileIndex:
    """Special column indices: ``WHOLE_LINE`` (-2) and ``LINE_NUMBER`` (-1)."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


def _column(lines, index, dtype, offset, filename):
    """The array of one column (``index``) of the split ``lines`` (pairs of whole line and its fields)."""
    if index == TextFileIndex.LINE_NUMBER:
        return np.arange(len(lines), dtype=np.int64) + offset
    if index == TextFileIndex.WHOLE_LINE:
        texts = [line for line, _ in lines]
    else:
        texts = []
        for number, (line, fields) in enumerate(lines):
            if index >= len(fields):
                raise op_error(f"Invalid number of columns in {filename} line {number} ({line}) : expected at "
                               f"least {index + 1} got {len(fields)}", _OP)
            texts.append(fields[index])
    if dtype == _dtypes.string:
        return np.array([t.encode() for t in texts], dtype=object)
    parse = int if dtype.is_integer else float
    values = []
    for number, text in enumerate(texts):
        try:
            values.append(parse(text))
        except ValueError:
            raise op_error(f"Field {text} in line {number} is not a valid {dtype.name}.", _OP) from None
    return np.array(values, dtype=dtype.as_numpy_dtype)


def _check_index(index, dtype, label):
    """TF's ValueErrors for a column index that does not suit the column's dtype."""
    if index < TextFileIndex.WHOLE_LINE:
        raise ValueError(f"`{label}_index` should be >= -2, received: {index}.")
    if index == TextFileIndex.LINE_NUMBER and dtype != _dtypes.int64:
        condition = "if `key_index` is -1" if label == "key" else "for `value_index` -1"
        raise ValueError(f"`{label}_dtype` must be int64 {condition}, received: {dtype}")
    if index == TextFileIndex.WHOLE_LINE and not (dtype.is_integer or dtype == _dtypes.string):
        raise ValueError(f"`{label}_dtype` should be either integer or string for `{label}_index` -2, "
                         f"received: {dtype}")


class TextFileInitializer(TableInitializerBase):
    """Keys and values of a table from the lines of a text file.

    Parameters
    ----------
    filename : str
    key_dtype, value_dtype : DType
    key_index, value_index : int
        The column (0-based) of the keys / values, or ``TextFileIndex.WHOLE_LINE`` (string only) or
        ``TextFileIndex.LINE_NUMBER`` (int64 only).
    vocab_size : int, optional
        How many lines to read (the file must have at least as many).
    delimiter : str
        The column separator (a tab).
    value_index_offset : int
        Added to line numbers used as values.

    Raises
    ------
    ValueError
        For a column index that does not suit its dtype.
    NotFoundError, InvalidArgumentError
        For a missing file, too few lines or columns, or a field that does not parse as its dtype.
    """

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index, vocab_size=None, delimiter="\t",
                 name=None, value_index_offset=0):
        key_dtype, value_dtype = _dtypes.as_dtype(key_dtype), _dtypes.as_dtype(value_dtype)
        for index, dtype, label in ((key_index, key_dtype, "key"), (value_index, value_dtype, "value")):
            _check_index(index, dtype, label)
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"`vocab_size` should be > 0, received: {vocab_size}")
        filename = filename.decode() if isinstance(filename, bytes) else str(getattr(filename, "numpy",
                                                                                      lambda: filename)())
        lines = self._read_lines(filename, vocab_size)
        split = [(line, line.split(delimiter) if delimiter else line.split()) for line in lines]
        self._keys = wrap(_column(split, key_index, key_dtype, 0, filename))
        self._values = wrap(_column(split, value_index, value_dtype, value_index_offset, filename))
        self._filename = filename
        self._name = name

    @staticmethod
    def _read_lines(filename, vocab_size):
        try:
            with open(filename, encoding="utf-8") as f:
                lines = f.read().splitlines()
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"{filename}; No such file or directory [Op:{_OP}] name: ") \
                from None
        if vocab_size is not None:
            if len(lines) < vocab_size:
                raise op_error(f"Invalid vocab_size in {filename}: expected {vocab_size} but got {len(lines)}", _OP)
            lines = lines[:vocab_size]
        return lines


NAMESPACES = {"lookup": ["TextFileIndex", "TextFileInitializer"]}
