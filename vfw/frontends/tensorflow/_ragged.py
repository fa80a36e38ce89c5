"""A minimal ``tf.RaggedTensor``: rows of different lengths, as ``tf.strings.split`` and ``ngrams`` return them.

A ragged tensor is its ``values`` (a dense tensor, or a ragged tensor for more ragged dimensions) cut into rows
by ``row_splits`` (int64, ``nrows + 1`` offsets into ``values``).  vfw implements what text pipelines need:
construction from row splits or lengths, ``to_list``, ``to_tensor`` (padding or truncating to a ``shape``),
``shape``, ``dtype``, ``row_lengths``, ``nrows``, ``flat_values``, indexing rows and TF's repr.  The rest of TF's
ragged API (ragged math, ``tf.ragged`` ops) is not there.
"""

import numpy as np

from vfw.frontends.tensorflow import _dispatch, _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, op_error
from vfw.frontends.tensorflow._shape import TensorShape


class RaggedTensor:
    """Rows of ``values`` delimited by ``row_splits`` (use the ``from_*`` constructors).

    Attributes
    ----------
    values : Tensor or RaggedTensor
        The rows' elements, concatenated.
    row_splits : Tensor
        int64 ``[nrows + 1]``: row ``i`` is ``values[row_splits[i]:row_splits[i + 1]]``.
    """

    def __init__(self, values, row_splits, uniform_row_length=None):
        self.values = values
        self.row_splits = row_splits
        self.uniform_row_length = uniform_row_length  # an int when every row has that length (dense input dims)

    # -- construction ------------------------------------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """The ragged tensor whose row ``i`` is ``values[row_splits[i]:row_splits[i + 1]]``."""
        if not isinstance(values, RaggedTensor):
            values = convert_to_tensor(values)
        splits = convert_to_tensor(row_splits, dtype_hint=_dtypes.int64)
        if validate:
            array = splits.array
            if array.ndim != 1 or array.size == 0 or array[0] != 0 or np.any(np.diff(array) < 0) \
                    or array[-1] != _nrows_of(values):
                raise op_error("Arguments to from_row_splits do not form a valid RaggedTensor")
        return cls(values, _as_int64(splits))

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """The ragged tensor whose rows take ``row_lengths[i]`` elements of ``values`` in turn."""
        lengths = convert_to_tensor(row_lengths, dtype_hint=_dtypes.int64)
        splits = np.concatenate([[0], np.cumsum(lengths.array)]).astype(np.int64)
        return cls.from_row_splits(values, splits, validate=validate)

    def with_flat_values(self, new_values):
        """This ragged tensor's row structure over ``new_values`` (one element per flat value)."""
        if isinstance(self.values, RaggedTensor):
            return RaggedTensor(self.values.with_flat_values(new_values), self.row_splits, self.uniform_row_length)
        return RaggedTensor(new_values, self.row_splits, self.uniform_row_length)

    # -- structure ---------------------------------------------------------------------------------------------
    @property
    def flat_values(self):
        """The innermost dense values."""
        values = self.values
        while isinstance(values, RaggedTensor):
            values = values.values
        return values

    @property
    def nested_row_splits(self):
        """The row splits of every ragged dimension, outermost first."""
        splits, values = [self.row_splits], self.values
        while isinstance(values, RaggedTensor):
            splits.append(values.row_splits)
            values = values.values
        return tuple(splits)

    @property
    def ragged_rank(self):
        return len(self.nested_row_splits)

    @property
    def dtype(self):
        return self.flat_values.dtype

    @property
    def shape(self):
        """``[nrows, None (ragged_rank times), dims of the flat values...]``."""
        dims, ragged = [int(self.row_splits.array.shape[0]) - 1], self
        while isinstance(ragged, RaggedTensor):
            dims.append(ragged.uniform_row_length)
            ragged = ragged.values
        return TensorShape(dims + self.flat_values.shape.as_list()[1:])

    def nrows(self, out_type=_dtypes.int64, name=None):
        return _dispatch.wrap(np.asarray(self.row_splits.array.shape[0] - 1, _dtypes.as_dtype(out_type).as_numpy_dtype))

    def row_lengths(self, axis=1, name=None):
        """The length of every row (int64)."""
        if axis != 1:
            raise NotImplementedError("vfw's RaggedTensor.row_lengths supports axis=1 only.")
        return host(np.diff, self.row_splits)

    # -- conversion --------------------------------------------------------------------------------------------
    def to_list(self):
        """The rows as nested Python lists (strings as bytes)."""
        rows = self.values.to_list() if isinstance(self.values, RaggedTensor) else self.values.array.tolist()
        splits = self.row_splits.array
        return [rows[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]

    def numpy(self):
        """An object array of the rows' numpy arrays (TF's ragged ``numpy()``)."""
        rows = [r.numpy() for r in (self[i] for i in range(int(self.row_splits.array.shape[0]) - 1))]
        result = np.empty(len(rows), object)
        result[:] = rows
        return result

    def to_tensor(self, default_value=None, name=None, shape=None):
        """A dense tensor: rows padded with ``default_value`` (0, or ``b''`` for strings) to the longest row, or
        padded/truncated to ``shape`` (None dims: the longest row)."""
        flat = self.flat_values
        if default_value is None:
            default = np.zeros([], flat.array.dtype) if flat.array.dtype != object else np.asarray(b"", object)
        else:
            default = np.asarray(convert_to_tensor(default_value, dtype=flat.dtype).array)
        target = None if shape is None else TensorShape(shape).as_list() if TensorShape(shape).rank is not None \
            else None

        def dense(values, *splits):
            return _padded(values, list(splits), default, target)
        return host(dense, flat, *self.nested_row_splits)

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None, row_splits_dtype=None):
        """Rows of a dense 2-D or higher tensor (cut to ``lengths`` when given)."""
        tensor = convert_to_tensor(tensor)
        nrows, width = tensor.array.shape[:2]
        values = host(lambda a: a.reshape((-1,) + a.shape[2:]), tensor)
        full = RaggedTensor.from_row_lengths(values, np.full([nrows], width, np.int64))
        if lengths is None:
            return full
        keep = np.arange(width)[None, :] < np.asarray(convert_to_tensor(lengths).array)[:, None]
        kept = host(lambda a: a.reshape((-1,) + a.shape[2:])[keep.ravel()], tensor)
        return RaggedTensor.from_row_lengths(kept, keep.sum(1))

    # -- indexing and printing ---------------------------------------------------------------------------------
    def __getitem__(self, key):
        splits = self.row_splits.array
        if isinstance(key, (int, np.integer)):
            n = len(splits) - 1
            if not -n <= key < n:
                raise op_error(f"slice index {key} of dimension 0 out of bounds.", "StridedSlice")
            key = key % n
            return _rows(self.values, int(splits[key]), int(splits[key + 1]))
        if isinstance(key, slice):
            start, stop, step = key.indices(len(splits) - 1)
            if step != 1:
                raise NotImplementedError("vfw's RaggedTensor supports row slices with step 1 only.")
            stop = max(stop, start)
            new_splits = splits[start:stop + 1] - splits[start]
            return RaggedTensor(_rows(self.values, int(splits[start]), int(splits[stop])), _dispatch.wrap(new_splits))
        raise NotImplementedError(f"vfw's RaggedTensor supports indexing rows by int or slice, not {key!r}.")

    def __repr__(self):
        rows = [_text(row) for row in self.to_list()]
        sep = ",\n " if self.ragged_rank > 1 or self.flat_values.shape.rank > 1 else ", "
        return f"<tf.RaggedTensor [{sep.join(rows)}]>"

    __str__ = __repr__

    def __len__(self):
        return int(self.row_splits.array.shape[0]) - 1


def _text(value):
    """A row as TF shows it: Python's list text."""
    return repr(value)


def _rows(values, start, stop):
    """``values[start:stop]`` (rows of a dense tensor, or of a ragged one)."""
    if isinstance(values, RaggedTensor):
        splits = values.row_splits.array[start:stop + 1]
        return RaggedTensor(_rows(values.values, int(splits[0]), int(splits[-1])), _dispatch.wrap(splits - splits[0]))
    return host(lambda a: a[start:stop], values)


def _nrows_of(values):
    return len(values) if isinstance(values, RaggedTensor) else int(values.array.shape[0])


def _as_int64(t):
    return t if t.array.dtype == np.int64 else _dispatch.wrap(t.array.astype(np.int64))


def _padded(values, splits, default, target):
    """The dense array of ``values`` cut into rows by each of ``splits`` in turn (outermost first), padded with
    ``default`` (or cut) to ``target`` dims (None: the longest row)."""
    if splits[1:]:
        values = _padded(values, splits[1:], default, None if target is None else [None] + target[2:])
    row_splits = splits[0]
    lengths = np.diff(row_splits)
    nrows = len(lengths)
    width = int(lengths.max()) if nrows else 0
    if target is not None and target[1] is not None:
        width = target[1]
    inner = values.shape[1:]
    if target is not None:
        inner = tuple(values.shape[1 + i] if d is None else d for i, d in enumerate(target[2:]))
        values = _fit(values, inner, default)
    out = np.full((nrows, width) + inner, default, values.dtype)
    rows = np.repeat(np.arange(nrows), lengths)
    cols = np.arange(len(rows)) - np.repeat(row_splits[:-1], lengths)
    kept = cols < width
    out[rows[kept], cols[kept]] = values[:len(rows)][kept]
    if target is not None and target[0] is not None:
        out = _fit(out[None], (target[0],) + out.shape[1:], default)[0] if target[0] != nrows else out
    return out


def _fit(array, inner, default):
    """``array`` with its dims after the first padded with ``default`` or cut to ``inner``."""
    out = np.full(array.shape[:1] + tuple(inner), default, array.dtype)
    common = tuple(slice(0, min(a, b)) for a, b in zip(array.shape[1:], inner))
    out[(slice(None),) + common] = array[(slice(None),) + common]
    return out


NAMESPACES = {"tf": ["RaggedTensor"]}
