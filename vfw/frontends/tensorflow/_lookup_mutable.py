"""``tf.lookup.experimental``: mutable key -> value tables (``MutableHashTable``, ``DenseHashTable``).

A table is a Python dict from each key (bytes or a Python number) to its value (an array of the default value's
shape).  Every operation runs on the host (``host``): inside a ``tf.function`` each run inserts, removes and looks
up that run's keys.  ``export`` returns the keys and values in insertion order (TF's order is its hash order, which
callers cannot rely on); a ``DenseHashTable`` exports only its entries, not TF's bucket arrays.  vfw's
``tf.train.Checkpoint`` saves variables only: tables are not saved in checkpoints.
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, op_error, wrap


def _converted(value, dtype, argument):
    """``value`` as a tensor of ``dtype``; TF's ValueError naming ``argument`` when it has another dtype."""
    try:
        return convert_to_tensor(value, dtype=dtype)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{argument}: {e}") from None


def _python_key(key):
    return key.item() if isinstance(key, np.generic) else key


def _shape_text(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


class MutableHashTable:
    """A table of ``key_dtype`` keys to ``value_dtype`` values that ``insert`` and ``remove`` change.

    Parameters
    ----------
    key_dtype, value_dtype : DType
    default_value : tensor-like
        The value of missing keys; its shape is the shape of every value (scalar or vector values).
    name : str, optional
    checkpoint : bool
        Accepted (vfw's checkpoints do not save tables).
    """

    _FIND_OP = "LookupTableFindV2"

    def __init__(self, key_dtype, value_dtype, default_value, name="MutableHashTable", checkpoint=True,
                 experimental_is_anonymous=False):
        self._key_dtype = _dtypes.as_dtype(key_dtype)
        self._value_dtype = _dtypes.as_dtype(value_dtype)
        self._default = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._value_shape = self._default.array.shape
        self._name = name
        self._entries = {}

    @property
    def name(self):
        """The table's name (None in eager mode, as TF's)."""
        return None

    @property
    def key_dtype(self):
        """The DType of the keys."""
        return self._key_dtype

    @property
    def value_dtype(self):
        """The DType of the values."""
        return self._value_dtype

    def size(self, name=None):
        """The number of keys (an int64 scalar tensor)."""
        return host(lambda: np.array(len(self._entries), np.int64))  # a graph reads the size at each run

    def _check_keys(self, flat, tf_op):
        """Hook: DenseHashTable refuses its empty and deleted keys."""

    def insert(self, keys, values, name=None):
        """Give each key of ``keys`` the matching value of ``values`` (shape ``keys.shape + value shape``).

        Raises
        ------
        ValueError
            For keys or values not convertible to the table's dtypes.
        InvalidArgumentError
            When ``values``' shape is not ``keys.shape`` followed by the value shape.
        """
        keys = _converted(keys, self._key_dtype, "keys")
        values = _converted(values, self._value_dtype, "values")
        expected = keys.array.shape + self._value_shape
        if values.array.shape != expected:
            raise op_error(f"Expected shape {_shape_text(expected)} for value, got "
                           f"{_shape_text(values.array.shape)}", "LookupTableInsertV2")

        def run(key_array, value_array):
            flat = key_array.reshape(-1)
            self._check_keys(flat, "LookupTableInsertV2")
            rows = value_array.reshape((flat.size,) + self._value_shape)
            for key, row in zip(flat.tolist(), rows):
                self._entries[key] = row.copy()
            return np.array(True)

        host(run, keys, values)

    insert_or_assign = insert

    def remove(self, keys, name=None):
        """Remove the keys of ``keys`` (keys not in the table are ignored)."""
        keys = _converted(keys, self._key_dtype, "keys")

        def run(key_array):
            flat = key_array.reshape(-1)
            self._check_keys(flat, "LookupTableRemoveV2")
            for key in flat.tolist():
                self._entries.pop(key, None)
            return np.array(True)

        host(run, keys)

    erase = remove

    def lookup(self, keys, dynamic_default_values=None, name=None):
        """The value of every key of ``keys`` (shape ``keys.shape + value shape``), the default value for keys
        not in the table."""
        keys = _converted(keys, self._key_dtype, "keys")

        def run(key_array):
            flat = key_array.reshape(-1)
            self._check_keys(flat, self._FIND_OP)
            default = self._default.array
            found = [self._entries.get(key, default) for key in flat.tolist()]
            stacked = np.array(found, dtype=default.dtype).reshape((flat.size,) + self._value_shape)
            return stacked.reshape(key_array.shape + self._value_shape)

        return host(run, keys)

    __getitem__ = lookup

    def export(self, name=None):
        """``(keys, values)``: every key (1-D) and its value, in insertion order."""
        key_array = np.array([_python_key(k) for k in self._entries], dtype=self._key_dtype.as_numpy_dtype)
        value_array = np.array(list(self._entries.values()), dtype=self._default.array.dtype)
        return wrap(key_array.reshape(-1)), wrap(value_array.reshape((len(self._entries),) + self._value_shape))


class DenseHashTable(MutableHashTable):
    """A mutable table with open addressing in TF: ``empty_key`` and ``deleted_key`` mark free and removed buckets
    and may not be used as keys.

    Parameters
    ----------
    key_dtype, value_dtype, default_value
        As ``MutableHashTable``.
    empty_key, deleted_key : scalar of ``key_dtype``
        Two different keys reserved by the table.
    initial_num_buckets : int, optional
        Accepted (vfw's table is a dict).

    Raises
    ------
    InvalidArgumentError
        When ``empty_key`` equals ``deleted_key``; when a reserved key is inserted, removed or looked up.
    """

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, deleted_key, initial_num_buckets=None,
                 name="MutableDenseHashTable", checkpoint=True, experimental_is_anonymous=False):
        super().__init__(key_dtype, value_dtype, default_value, name, checkpoint)
        self._empty_key = _converted(empty_key, self._key_dtype, "empty_key").array
        self._deleted_key = _converted(deleted_key, self._key_dtype, "deleted_key").array
        if np.array_equal(self._empty_key, self._deleted_key):
            raise errors.InvalidArgumentError(None, None, "Empty and deleted keys cannot be equal "
                                              f"[Op:MutableDenseHashTableV2] name: {name}")

    def _check_keys(self, flat, tf_op):
        for reserved, label in ((self._empty_key, "empty_key"), (self._deleted_key, "deleted_key")):
            if np.any(flat == reserved.reshape(-1)[0]):
                raise op_error(f"Using the {label} as a table key is not allowed", tf_op)


NAMESPACES = {"lookup.experimental": ["DenseHashTable", "MutableHashTable"]}
