"""``tf.RaggedTensor``: rows of different lengths, as ``tf.strings.split`` and ``ngrams`` return them.

A ragged tensor is its ``values`` (a dense tensor, or a ragged tensor for more ragged dimensions) cut into rows
by ``row_splits`` (int64, ``nrows + 1`` offsets into ``values``).  Here: construction (row splits, lengths, value
row ids, nested partitions, dense tensors), ``to_list``, ``numpy``, ``to_tensor`` (padding or truncating to a
``shape``), the partitions (``row_lengths``, ``nested_row_lengths``, ``value_rowids``, ``row_starts``...,
``bounding_shape``), ``merge_dims``, ``with_values``, ``to_sparse``/``from_sparse``, indexing by ints and slices
(ragged dims sliced row by row) and TF's repr.  Ragged math (operators, ``tf.math`` ops, reductions, ``concat``) is in
``_ragged_math``, ``tf.RaggedTensorSpec`` in ``_ragged_spec``.
"""

import numpy as np

from vfw.frontends.tensorflow import _dispatch, _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, op_error
from vfw.frontends.tensorflow._ragged_partition import RowPartitionConstructors
from vfw.frontends.tensorflow._shape import TensorShape


class RaggedTensor(RowPartitionConstructors):
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

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length, nrows=None, validate=True, name=None):
        """The ragged tensor whose ``nrows`` rows each take ``uniform_row_length`` elements of ``values`` in turn
        (``nrows`` defaults to ``len(values) // uniform_row_length``, 0 for length 0); its shape keeps the length.

        Raises
        ------
        ValueError
            For a negative length, or when ``uniform_row_length * nrows`` is not ``len(values)``.
        """
        if not isinstance(values, RaggedTensor):
            values = convert_to_tensor(values)
        length = int(convert_to_tensor(uniform_row_length, dtype_hint=_dtypes.int64).array)
        if length < 0:
            raise ValueError("uniform_row_length must be >= 0.")
        nvals = _nrows_of(values)
        if nrows is None:
            nrows = nvals // length if length else 0
        nrows = int(convert_to_tensor(nrows, dtype_hint=_dtypes.int64).array)
        if length * nrows != nvals:
            raise ValueError(f"uniform_row_length={length} times nrows={nrows} must equal nvals={nvals}")
        return cls(values, _dispatch.wrap(np.arange(nrows + 1, dtype=np.int64) * length), length)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """The ragged tensor whose row ``value_rowids[i]`` holds ``values[i]`` (ids sorted; ``nrows`` rows, by
        default one past the largest id)."""
        ids = convert_to_tensor(value_rowids, dtype_hint=_dtypes.int64).array
        if not isinstance(values, RaggedTensor):
            values = convert_to_tensor(values)
        count = (int(ids[-1]) + 1 if ids.size else 0) if nrows is None else int(convert_to_tensor(nrows).array)
        # TF runs the validating assertions first, then the static shape check
        if validate and (ids.ndim != 1 or np.any(np.diff(ids) < 0) or (ids.size and (ids[0] < 0 or
                                                                                        ids[-1] >= count))):
            raise op_error("Arguments to from_value_rowids do not form a valid RaggedTensor")
        if ids.ndim == 1 and values.shape.rank and ids.shape[0] != _nrows_of(values):  # TF's static shape check
            raise ValueError(f"Shapes {TensorShape([_nrows_of(values)])} and {TensorShape(ids.shape)} are "
                             f"incompatible")
        return cls.from_row_lengths(values, np.bincount(ids.astype(np.int64), minlength=count), validate=validate)

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
        """The ragged tensor of ``flat_values`` cut by each of ``nested_row_splits`` in turn (outermost first)."""
        if not isinstance(nested_row_splits, (list, tuple)):
            raise TypeError(f"Argument `nested_row_splits` must be a list of Tensors. Received {nested_row_splits}.")
        result = flat_values
        for splits in reversed(nested_row_splits):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None, validate=True):
        """The ragged tensor of ``flat_values`` cut by each of ``nested_row_lengths`` in turn (outermost first)."""
        result = flat_values
        for lengths in reversed(nested_row_lengths):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    def with_values(self, new_values):
        """This ragged tensor's outermost row partition over ``new_values`` (as many rows as ``values`` has)."""
        if not isinstance(new_values, RaggedTensor):
            new_values = convert_to_tensor(new_values)
        if _nrows_of(new_values) != _nrows_of(self.values):
            raise ValueError(f"new_values must have {_nrows_of(self.values)} rows, got {_nrows_of(new_values)}")
        return RaggedTensor(new_values, self.row_splits, self.uniform_row_length)

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
        return host(_row_lengths, self.row_splits)

    def nested_row_lengths(self, name=None):
        """The row lengths of every ragged dimension, outermost first."""
        return tuple(host(_row_lengths, splits) for splits in self.nested_row_splits)

    def value_rowids(self, name=None):
        """The row of each of ``values`` (int64)."""
        return _dispatch.wrap(_row_ids(self.row_splits.array))

    def nested_value_rowids(self, name=None):
        """The value row ids of every ragged dimension, outermost first."""
        return tuple(_dispatch.wrap(_row_ids(splits.array)) for splits in self.nested_row_splits)

    def row_starts(self, name=None):
        """Where each row starts in ``values`` (int64)."""
        return _dispatch.wrap(self.row_splits.array[:-1].copy())

    def row_limits(self, name=None):
        """Where each row ends in ``values`` (int64)."""
        return _dispatch.wrap(self.row_splits.array[1:].copy())

    def bounding_shape(self, axis=None, name=None, out_type=None):
        """The smallest dense shape holding this tensor: the longest row in each ragged dim (int64, or
        ``out_type``); ``axis`` picks dims."""
        dims = [len(self)]
        for splits in self.nested_row_splits:
            lengths = np.diff(splits.array)
            dims.append(int(lengths.max()) if lengths.size else 0)
        dims += list(self.flat_values.array.shape[1:])
        shape = np.asarray(dims, (out_type and _dtypes.as_dtype(out_type).as_numpy_dtype) or np.int64)
        return _dispatch.wrap(shape if axis is None else shape[axis])

    def merge_dims(self, outer_axis, inner_axis):
        """This tensor with dims ``outer_axis`` to ``inner_axis`` merged into one (a dense tensor when all the
        ragged dims are merged with the first)."""
        rank = self.shape.rank
        outer, inner = outer_axis % rank if outer_axis < 0 else outer_axis, inner_axis % rank if inner_axis < 0 \
            else inner_axis
        if not 0 <= outer <= inner < rank:
            raise ValueError(f"Expected outer_axis ({outer_axis}) to be less than or equal to inner_axis "
                             f"({inner_axis})")
        merged = self
        for _ in range(inner - outer):
            merged = _merge_pair(merged, outer)
        return merged

    # -- conversion --------------------------------------------------------------------------------------------
    def to_list(self):
        """The rows as nested Python lists (strings as bytes)."""
        rows = self.values.to_list() if isinstance(self.values, RaggedTensor) else self.values.array.tolist()
        splits = self.row_splits.array
        return [rows[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]

    def numpy(self):
        """The rows as numpy: one array when they all have the same shape, else an object array of the rows."""
        values = self.values.numpy() if isinstance(self.values, RaggedTensor) else np.array(self.values.array)
        splits = self.row_splits.array
        rows = [values[splits[i]:splits[i + 1]] for i in range(len(splits) - 1)]
        if not rows:
            return np.zeros((0, 0) + values.shape[1:], values.dtype)
        if all(row.shape == rows[0].shape for row in rows):
            return np.stack(rows)
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

    def to_sparse(self, name=None):
        """The ``tf.SparseTensor`` of this tensor's elements: one entry per scalar of the flat values (indices in
        row-major order, ``dense_shape`` the bounding shape); differentiable through the values."""
        from vfw.frontends.tensorflow._array_ops import reshape
        from vfw.frontends.tensorflow._sparse_tensor import SparseTensor

        flat = self.flat_values
        inner = flat.array.shape[1:]
        # the ragged coordinates of every flat value, outermost first: a value's row at each level
        positions = np.arange(flat.array.shape[0], dtype=np.int64)
        columns = []
        for splits in reversed(self.nested_row_splits):
            rows = _row_ids(splits.array)[positions]
            columns.insert(0, positions - splits.array[rows])
            positions = rows
        ragged_index = np.stack([positions] + columns, axis=1)
        dense_index = np.indices(inner, dtype=np.int64).reshape(len(inner), int(np.prod(inner))).T
        indices = np.concatenate([np.repeat(ragged_index, len(dense_index), axis=0),
                                  np.tile(dense_index, (len(ragged_index), 1))], axis=1)
        return SparseTensor._from_parts(_dispatch.wrap(indices), reshape(flat, [-1]),
                                        self.bounding_shape(out_type=_dtypes.int64))

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype=_dtypes.int64):
        """The ragged_rank-1 tensor of a 2-D right-ragged ``tf.SparseTensor`` (each row's entries in columns
        0, 1, ...): row ``i`` holds the values of the entries in row ``i``."""
        if st_input.indices.array.shape[1] != 2:
            raise ValueError("rank(st_input) must be 2.")
        indices = st_input.indices.array
        rows, columns = indices[:, 0], indices[:, 1]
        # right-ragged: every entry starts a row (column 0) or follows its predecessor in the same row
        follows = np.zeros(len(rows), bool)
        follows[1:] = (rows[1:] == rows[:-1]) & (columns[1:] == columns[:-1] + 1)
        if not np.all((columns == 0) | follows):
            raise op_error(f"SparseTensor is not right-ragged. SparseTensor.indices = {indices.tolist()}")
        nrows = int(st_input.dense_shape.array[0])
        splits = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=nrows))]).astype(np.int64)
        return cls(st_input.values, _dispatch.wrap(splits))

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None, row_splits_dtype=None):
        """Rows of a dense 2-D or higher tensor, cut to ``lengths`` when given, or without each row's suffix of
        ``padding`` (a value of the tensor's dtype and of the shape of its items past the first two dims)."""
        tensor = convert_to_tensor(tensor)
        if ragged_rank != 1:
            raise NotImplementedError("vfw's RaggedTensor.from_tensor makes ragged_rank=1 tensors only.")
        if lengths is not None and padding is not None:
            raise ValueError("Specify argument `lengths` or `padding`, but not both.")
        nrows, width = tensor.array.shape[:2]
        if padding is not None:
            fill = convert_to_tensor(padding, dtype=tensor.dtype).array
            item = tensor.array.shape[2:]
            if fill.shape != item:
                raise ValueError(f"Shapes {TensorShape(fill.shape)} and {TensorShape(item)} are incompatible")
            pad = (tensor.array == fill).reshape(nrows, width, -1).all(axis=2)
            # a row keeps everything up to its last item that is not padding
            lengths = np.where(pad.all(axis=1), 0, width - np.argmin(pad[:, ::-1], axis=1))
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
        if isinstance(key, tuple) and key:
            return self._index_dims(key)
        raise NotImplementedError(f"vfw's RaggedTensor supports indexing by ints and slices, not {key!r}.")

    def _index_dims(self, key):
        """``self[key]`` for a tuple of ints and slices (one per dim from the first)."""
        first, rest = key[0], key[1:]
        if not rest:
            return self[first]
        if isinstance(first, (int, np.integer)):
            return self[first][rest]
        if not isinstance(first, slice) or not all(isinstance(k, (int, np.integer, slice)) for k in rest):
            raise NotImplementedError(f"vfw's RaggedTensor supports indexing by ints and slices, not {key!r}.")
        rows = self[first]
        column = rest[0]
        if isinstance(column, (int, np.integer)):
            if self.uniform_row_length is None:
                raise ValueError("Cannot index into an inner ragged dimension.")
            raise NotImplementedError("vfw's RaggedTensor cannot index into a uniform inner dimension.")
        if column == slice(None):
            return rows.with_values(rows.values[(slice(None),) + rest[1:]]) if rest[1:] else rows
        splits = rows.row_splits.array
        starts, lengths = _sliced_rows(np.diff(splits), column)
        positions = np.repeat(splits[:-1] + starts, lengths) + (
            np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths))
        values = _take(rows.values, positions)
        if rest[1:]:
            values = values[(slice(None),) + rest[1:]]
        return RaggedTensor(values, _dispatch.wrap(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)))

    def __repr__(self):
        with np.printoptions(formatter={"all": _text}):
            return f"<tf.RaggedTensor {_text(self.numpy())}>"

    __str__ = __repr__

    def __len__(self):
        return int(self.row_splits.array.shape[0]) - 1


def _text(value):
    """TF's text of ragged values: arrays as numpy prints them with ", " separators (every item formatted by this
    function again, through numpy's print options), empty arrays as Python lists, scalars as ``str``."""
    if isinstance(value, np.ndarray):
        return np.array2string(value, separator=", ") if value.size else repr(value.tolist())
    return str(value)


def concat_rows(parts):
    """The rows of ``parts`` (tensors, or ragged tensors of one ragged rank) one after another."""
    if not isinstance(parts[0], RaggedTensor):
        from vfw.frontends.tensorflow._array_ops import concat

        return concat(parts, 0)  # differentiable (tf.concat of ragged tensors)
    offsets = np.cumsum([0] + [int(p.row_splits.array[-1]) for p in parts[:-1]])
    splits = np.concatenate([np.zeros(1, np.int64)] + [p.row_splits.array[1:] + o for p, o in zip(parts, offsets)])
    return RaggedTensor(concat_rows([p.values for p in parts]), _dispatch.wrap(splits.astype(np.int64)))


def stack_rows(rows, uniform_row_length=None):
    """The ragged tensor whose rows are ``rows`` (tensors, or ragged tensors of one ragged rank)."""
    lengths = [_nrows_of(row) for row in rows]
    splits = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return RaggedTensor(concat_rows(rows), _dispatch.wrap(splits), uniform_row_length)


def from_dense(array, ragged_rank):
    """The ragged tensor (``ragged_rank`` >= 1) of the dense ``array``, every row partition uniform."""
    nrows, width = array.shape[:2]
    values = array.reshape((nrows * width,) + array.shape[2:])
    values = from_dense(values, ragged_rank - 1) if ragged_rank > 1 else _dispatch.wrap(values)
    return RaggedTensor(values, _dispatch.wrap(np.arange(0, nrows * width + 1, max(width, 1), np.int64)[:nrows + 1]
                                               if width else np.zeros(nrows + 1, np.int64)))


def _merge_pair(value, k):
    """``value`` (a tensor or ragged tensor) with its dims ``k`` and ``k + 1`` merged."""
    from vfw.frontends.tensorflow._array_ops import reshape

    if not isinstance(value, RaggedTensor):
        dims = value.shape.as_list()
        return reshape(value, dims[:k] + [-1] + dims[k + 2:])
    if k == 0:
        return value.values
    if k > 1:
        return value.with_values(_merge_pair(value.values, k - 1))
    inner = value.values
    if isinstance(inner, RaggedTensor):
        return RaggedTensor(inner.values, _dispatch.wrap(inner.row_splits.array[value.row_splits.array]))
    width = int(inner.array.shape[1])
    return RaggedTensor(_merge_pair(inner, 0), _dispatch.wrap(value.row_splits.array * width))


def _sliced_rows(lengths, column):
    """Where ``row[column]`` starts in each row of ``lengths`` and how long it is (Python's slice rules, step 1)."""
    if column.step not in (None, 1):
        raise NotImplementedError("vfw's RaggedTensor slices ragged dimensions with step 1 only.")

    def bound(value, default):
        if value is None:
            return default
        return np.clip(np.where(value < 0, value + lengths, value), 0, lengths)

    start = bound(column.start, np.zeros_like(lengths))
    stop = bound(column.stop, lengths)
    return start, np.maximum(stop - start, 0)


def _take(values, positions):
    """The rows ``positions`` of ``values`` (a tensor, gathered differentiably, or a ragged tensor)."""
    if not isinstance(values, RaggedTensor):
        from vfw.frontends.tensorflow._array_gather import gather

        return gather(values, _dispatch.wrap(positions))
    splits = values.row_splits.array
    lengths = np.diff(splits)[positions]
    inner = np.repeat(splits[:-1][positions], lengths) + (
        np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths))
    return RaggedTensor(_take(values.values, inner),
                        _dispatch.wrap(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)))


def _row_ids(splits):
    """The row of each value of a partition ``splits``."""
    return np.repeat(np.arange(len(splits) - 1, dtype=np.int64), np.diff(splits))


def _row_lengths(splits):
    return np.diff(splits)


def _rows(values, start, stop):
    """``values[start:stop]`` (rows of a dense tensor, or of a ragged one)."""
    if isinstance(values, RaggedTensor):
        splits = values.row_splits.array[start:stop + 1]
        return RaggedTensor(_rows(values.values, int(splits[0]), int(splits[-1])), _dispatch.wrap(splits - splits[0]))
    return values[start:stop]  # differentiable (a strided slice)


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
