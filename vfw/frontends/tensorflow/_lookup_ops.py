"""``tf.lookup``: immutable key -> value tables (``StaticHashTable``, ``StaticVocabularyTable``) filled from a
``KeyValueTensorInitializer``.

A table keeps its keys sorted (with their values) and looks keys up with one ``searchsorted`` over the whole input,
on the host (``host``: a ``tf.function`` graph or a ``tf.data`` map looks the keys of each call up anew).  Ragged
inputs are looked up through their flat values and sparse ones through their values, as TF dispatches lookups over
ragged and sparse tensors.
``StaticVocabularyTable`` sends keys missing from the vocabulary to ``num_oov_buckets`` extra ids:
``vocab_size + Fingerprint64(key) % num_oov_buckets`` (int64 keys hashed through their decimal text, as TF).
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, wrap
from vfw.frontends.tensorflow._farmhash import fingerprint64
from vfw.frontends.tensorflow._ragged import RaggedTensor
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor


class TableInitializerBase:
    """What fills a static table: its keys ``_keys`` and values ``_values`` (tensors, set by the subclass)."""

    @property
    def key_dtype(self):
        """The keys' DType."""
        return self._keys.dtype

    @property
    def value_dtype(self):
        """The values' DType."""
        return self._values.dtype


class KeyValueTensorInitializer(TableInitializerBase):
    """The keys and values a static table is filled with.

    Parameters
    ----------
    keys, values : tensor-like
        1-D, one value per key.
    key_dtype, value_dtype : DType, optional
        The dtypes to convert ``keys`` / ``values`` to (inferred by default).
    """

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        self._keys = convert_to_tensor(keys, dtype=key_dtype)
        self._values = convert_to_tensor(values, dtype=value_dtype)
        self._name = name


class _SortedTable:
    """Keys sorted for ``searchsorted`` with their values; TF's error for one key given two values."""

    def __init__(self, keys, values):
        keys, values = keys.reshape(-1), values.reshape(-1)
        order = np.argsort(keys, kind="stable")
        self.keys, self.values = keys[order], values[order]
        repeated = np.flatnonzero(self.keys[1:] == self.keys[:-1])
        clashes = repeated[self.values[repeated] != self.values[repeated + 1]]
        if clashes.size:
            i = clashes[0]
            raise errors.FailedPreconditionError(
                None, None, f"HashTable has different value for same key. Key {_shown(self.keys[i])} has "
                f"{_shown(self.values[i])} and trying to add value {_shown(self.values[i + 1])} "
                "[Op:LookupTableImportV2] name: ")
        keep = np.concatenate([[True], self.keys[1:] != self.keys[:-1]]) if keys.size else np.ones(0, bool)
        self.keys, self.values = self.keys[keep], self.values[keep]

    def find(self, flat):
        """``(positions, found)`` of the keys ``flat`` (a 1-D array)."""
        if self.keys.size == 0:
            return np.zeros(flat.shape, np.int64), np.zeros(flat.shape, bool)
        positions = np.minimum(np.searchsorted(self.keys, flat), self.keys.size - 1)
        return positions, self.keys[positions] == flat


def _shown(value):
    return value.decode("utf-8", "backslashreplace") if isinstance(value, bytes) else value


class _StaticTable:
    """What both static tables share: the key dtype check and the ragged dispatch of ``lookup``."""

    def __init__(self, initializer, name):
        self._initializer = initializer
        self._name = name
        self._table = _SortedTable(initializer._keys.array, initializer._values.array)

    @property
    def name(self):
        """The table's name."""
        return self._name

    @property
    def key_dtype(self):
        """The DType of the keys ``lookup`` takes."""
        return self._initializer.key_dtype

    @property
    def value_dtype(self):
        """The DType of the values ``lookup`` returns."""
        return self._initializer.value_dtype

    def lookup(self, keys, name=None):
        """The value of every key of ``keys`` (a tensor, ragged or sparse tensor of ``key_dtype``), in ``keys``'
        shape (a ragged / sparse result for ragged / sparse keys, at the same positions).

        Raises
        ------
        TypeError
            For keys of another dtype.
        """
        if isinstance(keys, RaggedTensor):
            return keys.with_flat_values(self.lookup(keys.flat_values, name))
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, self.lookup(keys.values, name), keys.dense_shape)
        if keys.dtype != self._lookup_key_dtype():
            raise TypeError(f"Dtype of argument `keys` must be {self._lookup_key_dtype()}, received: {keys.dtype}")
        keys = convert_to_tensor(keys)

        def run(array):
            flat = array.reshape(-1).astype(self._table.keys.dtype)
            return self._looked_up(flat).reshape(array.shape)
        return host(run, keys)

    __getitem__ = lookup

    def _lookup_key_dtype(self):
        return self.key_dtype


class StaticHashTable(_StaticTable):
    """An immutable table: each key of the initializer to its value, ``default_value`` for any other key.

    Parameters
    ----------
    initializer : KeyValueTensorInitializer
        The keys and values.
    default_value : scalar
        The value of missing keys (converted to the initializer's value dtype: TypeError when it cannot be).

    Raises
    ------
    FailedPreconditionError
        When a key is given two different values.
    """

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        self._default = convert_to_tensor(default_value, dtype=initializer.value_dtype)
        super().__init__(initializer, name or "hash_table")

    @property
    def default_value(self):
        """The value of missing keys (a scalar tensor)."""
        return self._default

    def size(self, name=None):
        """The number of keys (an int64 scalar tensor)."""
        return wrap(np.array(self._table.keys.size, np.int64))

    def export(self, name=None):
        """All keys and their values, as two 1-D tensors.

        TF lists them in its hash map's order, which is unspecified; here they come sorted by key.
        """
        return (wrap(self._table.keys.astype(self._initializer._keys.array.dtype, copy=True)),
                wrap(self._table.values.copy()))

    def _looked_up(self, flat):
        positions, found = self._table.find(flat)
        return np.where(found, self._table.values[positions], self._default.array)


class StaticVocabularyTable(_StaticTable):
    """A vocabulary (string or int64 keys to int64 ids) with ``num_oov_buckets`` ids for the keys outside it.

    Parameters
    ----------
    initializer : KeyValueTensorInitializer
        String or int64 keys and their int64 ids.
    num_oov_buckets : int
        How many ids (after the vocabulary's) out-of-vocabulary keys are hashed to (> 0).
    lookup_key_dtype : DType, optional
        The dtype ``lookup`` takes, cast to the keys' (an int32 lookup of int64 keys).

    Raises
    ------
    TypeError
        For keys other than string/int64 or values other than int64.
    ValueError
        For ``num_oov_buckets <= 0``.
    """

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous=False):
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        if initializer.key_dtype not in (_dtypes.int64, _dtypes.string):
            raise TypeError(f"Invalid `key_dtype`, expected one of (tf.int64, tf.string), but got "
                            f"{initializer.key_dtype}.")
        if initializer.value_dtype != _dtypes.int64:
            raise TypeError(f"Invalid `value_dtype`, expected {_dtypes.int64} but got {initializer.value_dtype}.")
        self._num_oov_buckets = int(num_oov_buckets)
        self._lookup_dtype = _dtypes.as_dtype(lookup_key_dtype) if lookup_key_dtype is not None else None
        super().__init__(initializer, name or "vocab_table")

    def size(self, name=None):
        """The number of ids: vocabulary size plus OOV buckets (an int64 scalar tensor)."""
        return wrap(np.array(self._table.keys.size + self._num_oov_buckets, np.int64))

    def _lookup_key_dtype(self):
        return self._lookup_dtype or self.key_dtype

    def _looked_up(self, flat):
        positions, found = self._table.find(flat)
        ids = np.where(found, self._table.values[positions], 0).astype(np.int64)
        missing = ~found
        if missing.any():
            text = flat[missing] if flat.dtype == object else [str(k).encode() for k in flat[missing]]
            buckets = fingerprint64(text) % np.uint64(self._num_oov_buckets)
            ids[missing] = self._table.keys.size + buckets.astype(np.int64)
        return ids


NAMESPACES = {"lookup": ["KeyValueTensorInitializer", "StaticHashTable", "StaticVocabularyTable"]}
