"""tf.TensorArray: a list of same-dtype tensors written and read by index (TF 2's eager semantics).

TF's eager TensorArray keeps a Python list of tensors; vfw does the same, eagerly and while a
tf.function is traced outside graph loops (vfw traces Python loops unrolled, so a TensorArray
written in a ``for i in range(n)`` loop is a list of traced tensors). Reads return the written
tensors and ``stack``/``concat``/``gather`` build on engine ops, so GradientTape gradients flow
through it. ``write``/``scatter``/``unstack``/``split`` return a new TensorArray object sharing
the storage, as TF's eager one does (``ta = ta.write(i, x)`` is the portable idiom).

A TensorArray is a composite value (its ``_type_spec`` is a :class:`TensorArraySpec`): eager
``tf.while_loop`` carries it as the Python object, and graph loops (``tf.while_loop`` and
AutoGraph's tensor loops inside tf.function) carry it as one stacked tensor and rebuild it as
the graph form of ``_tensor_array_graph`` (TF's TensorList semantics there).
"""

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _array_ops, _dtypes, errors
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, op_error, pack, wrap
from vfw.frontends.tensorflow._op_support import static_int
from vfw.frontends.tensorflow._shape import TensorShape, as_shape
from vfw.frontends.tensorflow._traced_shapes import pinned, varies


class _Storage:
    """What the TensorArray objects of one chain of writes share."""

    def __init__(self, dtype, size, dynamic_size, clear_after_read, infer_shape, element_shape):
        self.dtype = dtype
        self.items = [None] * size
        self.dynamic_size = dynamic_size
        self.clear_after_read = clear_after_read
        self.infer_shape = infer_shape
        self.declared_shape = element_shape
        self.element_shape = element_shape
        self.cleared = set()


class TensorArray:
    """A list of tensors of one dtype, written and read by index.

    Parameters
    ----------
    dtype : DType
        The elements' dtype.
    size : int or int scalar tensor
        Number of elements (required, as eager TF requires it).
    dynamic_size : bool, optional
        Whether writes past the end grow the array (default False).
    clear_after_read : bool, optional
        Whether a read forgets the element (a second read raises InvalidArgumentError; default True).
    infer_shape : bool
        Whether every element must have the shape of the first one written (default True).
    element_shape : TensorShape or list, optional
        The elements' shape (dims may be None); unwritten elements read as zeros of it.
    tensor_array_name, handle, flow, colocate_with_first_write_call, name
        Accepted for compatibility.
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                 name=None, _storage=None):
        if _storage is not None:
            self._storage = _storage
            return
        if size is None:
            raise ValueError("Size must be declared for TensorArrays when eager execution is enabled.")
        shape = TensorShape(None) if element_shape is None else as_shape(element_shape)
        self._storage = _Storage(_dtypes.as_dtype(dtype), static_int(size, "size"), bool(dynamic_size),
                                 True if clear_after_read is None else bool(clear_after_read), bool(infer_shape),
                                 shape)

    def _next(self):
        return TensorArray(None, _storage=self._storage)

    # -- properties --------------------------------------------------------------------------------
    @property
    def dtype(self):
        """DType: the elements' dtype."""
        return self._storage.dtype

    @property
    def element_shape(self):
        """TensorShape: the elements' shape as known so far."""
        return self._storage.element_shape

    @property
    def dynamic_size(self):
        """bool: whether writes past the end grow the array."""
        return self._storage.dynamic_size

    def size(self, name=None):
        """The number of elements, as an int32 scalar tensor."""
        return wrap(np.array(len(self._storage.items), np.int32))

    def mark_used(self):
        """Accepted (TF's check for unused TensorArrays)."""

    def identity(self):
        """A TensorArray object over the same elements."""
        return self._next()

    def close(self, name=None):
        """Forget every element."""
        self._storage.items = []

    # -- writing -----------------------------------------------------------------------------------
    def _value(self, value):
        """``value`` as a tensor of the array's dtype (TF's InvalidArgumentError for another dtype)."""
        dtype = self.dtype
        if isinstance(value, CoreTensor) or hasattr(value, "_as_tensor"):
            tensor = convert_to_tensor(value)
        else:
            try:
                tensor = convert_to_tensor(value, dtype=dtype)
            except (TypeError, ValueError):
                tensor = convert_to_tensor(value)
        found = _dtypes.of_array(tensor.array)
        if found != dtype:
            raise op_error(f"TensorArray dtype is {dtype.name} but Op is trying to write dtype {found.name}")
        return tensor

    def _check_shape(self, tensor):
        storage = self._storage
        shape = TensorShape(tensor.array.shape)
        expected = storage.element_shape if storage.infer_shape else storage.declared_shape
        if not expected.is_compatible_with(shape):
            raise ValueError(f"Incompatible shape for value ({tensor.array.shape}), expected "
                             f"({tuple(expected.as_list())})")
        if storage.infer_shape:
            storage.element_shape = expected.merge_with(shape)

    def _index(self, index, writing):
        k = static_int(index, "index")
        items = self._storage.items
        if k < 0:
            raise errors.OutOfRangeError(None, None, f"{'Writing to' if writing else 'Reading from'} negative "
                                                     f"indices (index {k}) is not allowed.")
        if k >= len(items):
            if writing and self._storage.dynamic_size:
                items.extend([None] * (k + 1 - len(items)))
            elif writing:
                raise errors.OutOfRangeError(None, None, f"Tried to write to index {k} but array is not resizeable "
                                                         f"and size is: {len(items)}")
            else:
                raise errors.OutOfRangeError(None, None, f"Tried to read from index {k} but array size is: "
                                                         f"{len(items)}")
        return k

    def _put(self, k, tensor):
        self._check_shape(tensor)
        self._storage.items[k] = tensor
        self._storage.cleared.discard(k)

    def write(self, index, value, name=None):
        """Element ``index`` set to ``value``; returns a TensorArray over the same elements.

        Raises OutOfRangeError for a negative index or one past the end of a fixed-size array, and
        ValueError for a value whose shape differs from the elements'.
        """
        tensor = self._value(value)
        self._put(self._index(index, True), tensor)
        return self._next()

    def unstack(self, value, name=None):
        """The elements set to the rows of ``value`` (the size becomes ``value.shape[0]``)."""
        tensor = self._value(value)
        if tensor.array.ndim == 0:
            raise ValueError("Argument `axis` = 0 not in range [0, 0)")
        count = tensor.array.shape[0]
        if count > len(self._storage.items) and not self._storage.dynamic_size:
            raise ValueError(f"Cannot unstack {count} tensors into a TensorArray of static size "
                             f"{len(self._storage.items)} ")
        self._storage.items = [None] * count
        for k, row in enumerate(_array_ops.unstack(tensor)):
            self._put(k, row)
        return self._next()

    def scatter(self, indices, value, name=None):
        """Elements ``indices[k]`` set to ``value[k]``."""
        tensor = self._value(value)
        positions = _index_list(indices, "indices")
        rows = _array_ops.unstack(tensor) if tensor.array.ndim else []
        if len(rows) != len(positions):
            raise op_error(f"Expected len(indices) == values.shape[0], but saw: {len(positions)} vs. {len(rows)}")
        for k, row in zip(positions, rows):
            self._put(self._index(k, True), row)
        return self._next()

    def split(self, value, lengths, name=None):
        """The elements set to consecutive pieces of ``value`` along its first axis, of ``lengths`` rows each."""
        tensor = self._value(value)
        sizes = _index_list(lengths, "lengths")
        total = tensor.array.shape[0] if tensor.array.ndim else 0
        if sum(sizes) != total:
            raise op_error(f"Expected sum of lengths to be equal to values.shape[0], but sum of lengths is "
                           f"{sum(sizes)} and value's shape is: {list(tensor.array.shape)}")
        self._storage.items = [None] * len(sizes)
        pieces = _array_ops.split(tensor, sizes) if sizes else []
        for k, piece in enumerate(pieces):
            self._storage.items[k] = piece
        self._storage.element_shape = TensorShape(None)
        return self._next()

    # -- reading -----------------------------------------------------------------------------------
    def _element(self, k):
        storage = self._storage
        if k in storage.cleared:
            raise op_error(f"Could not read index {k} twice because it was cleared after a previous read (perhaps "
                           "try setting clear_after_read = false?)")
        item = storage.items[k]
        if item is None:
            shape = storage.element_shape
            if not shape.is_fully_defined():
                raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor.")
            return wrap(np.zeros(shape.as_list(), storage.dtype.np))
        return item

    def read(self, index, name=None):
        """Element ``index`` (zeros of the element shape if it was never written)."""
        if varies(index):  # an index following each call's values (a graph loop's counter): the graph form reads it
            return self._as_graph().read(index)
        k = self._index(index, False)
        value = self._element(k)
        if self._storage.clear_after_read and self._storage.items[k] is not None:
            self._storage.cleared.add(k)
        return value

    def _stacked(self, positions):
        if not positions:
            shape = self._storage.element_shape
            dims = shape.as_list() if shape.is_fully_defined() else []
            return wrap(np.zeros([0, *dims], self._storage.dtype.np))
        return pack([self._element(k) for k in positions])

    def stack(self, name=None):
        """All elements stacked along a new first axis."""
        return self._stacked(list(range(len(self._storage.items))))

    def gather(self, indices, element_shape=None, name=None):
        """Elements ``indices`` stacked along a new first axis."""
        if varies(indices):
            return self._as_graph().gather(indices)
        items = self._storage.items
        positions = _index_list(indices, "indices")
        for k in positions:
            if not -len(items) <= k < len(items):
                raise IndexError("list index out of range")
        return self._stacked([k % len(items) for k in positions])

    def concat(self, name=None):
        """All elements concatenated along their first axis."""
        elements = [self._element(k) for k in range(len(self._storage.items))]
        if not elements:
            shape = self._storage.element_shape
            dims = shape.as_list()[1:] if shape.is_fully_defined() and shape.rank else []
            return wrap(np.zeros([0, *dims], self._storage.dtype.np))
        return _array_ops.concat(elements, 0)

    def __repr__(self):
        return f"<vfw.tensorflow.TensorArray dtype={self.dtype.name} size={len(self._storage.items)}>"

    # -- as a composite value ----------------------------------------------------------------------
    def _known_shape(self):
        """The element shape: as inferred, else the written elements' (which must agree), else as declared."""
        storage = self._storage
        if storage.element_shape.is_fully_defined():
            return storage.element_shape
        shapes = {item.array.shape for item in storage.items if item is not None}
        if len(shapes) > 1:
            raise ValueError(f"Inconsistent shapes: the elements of a TensorArray entering a graph loop must have "
                             f"one shape, found {sorted(shapes)}")
        return TensorShape(shapes.pop()) if shapes else storage.element_shape

    @property
    def _type_spec(self):
        storage = self._storage
        return TensorArraySpec(self._known_shape(), storage.dtype, storage.dynamic_size, storage.infer_shape)

    def _as_graph(self):
        """The same elements as a graph TensorArray (one stacked tensor; unwritten elements zeros)."""
        from vfw.frontends.tensorflow._tensor_array_graph import GraphTensorArray, zero_rows

        spec = self._type_spec
        items = self._storage.items
        shape = spec._element_shape
        if not shape.is_fully_defined():  # nothing written: the element shape is decided by the first write
            return GraphTensorArray(wrap(np.zeros(len(items), self.dtype.np)), spec)
        if not any(item is not None for item in items):
            return GraphTensorArray(zero_rows(np.array([len(items)], np.int64), shape, self.dtype), spec)
        zeros = wrap(np.zeros(shape.as_list(), self.dtype.np))
        return GraphTensorArray(pack([zeros if item is None else item for item in items]), spec)


class TensorArraySpec:
    """The type of a TensorArray: element shape, dtype, ``dynamic_size`` and ``infer_shape``.

    Parameters
    ----------
    element_shape : TensorShape or list, optional
        The elements' shape (None: unknown).
    dtype : DType, default tf.float32
    dynamic_size : bool, default False
    infer_shape : bool, default True
    """

    def __init__(self, element_shape=None, dtype=_dtypes.float32, dynamic_size=False, infer_shape=True):
        self._element_shape = as_shape(element_shape)
        self._dtype = _dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = bool(infer_shape)

    @property
    def value_type(self):
        """The type of the values this spec describes (TensorArray)."""
        return TensorArray

    def _key(self):
        dims = None if self._element_shape.rank is None else tuple(self._element_shape.as_list())
        return dims, self._dtype, self._dynamic_size, self._infer_shape

    def __eq__(self, other):
        return isinstance(other, TensorArraySpec) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"TensorArraySpec({self._element_shape!r}, {self._dtype!r}, {self._dynamic_size}, "
                f"{self._infer_shape})")

    def is_compatible_with(self, other):
        """Whether ``other`` (a spec or a TensorArray) has this dtype and flags and a compatible element shape."""
        if isinstance(other, TensorArray):
            other = other._type_spec
        return (isinstance(other, TensorArraySpec) and self._key()[1:] == other._key()[1:]
                and self._element_shape.is_compatible_with(other._element_shape))

    # -- the protocol of ``_composites`` (graph loops) --------------------------------------------
    def _with_shape(self, shape):
        return TensorArraySpec(shape, self._dtype, self._dynamic_size, self._infer_shape)

    def _to_components(self, value):
        return [value._as_graph()._buffer]

    def _from_components(self, components):
        from vfw.frontends.tensorflow._tensor_array_graph import GraphTensorArray

        return GraphTensorArray(components[0], self)

    def _undecided(self):
        return not self._element_shape.is_fully_defined()

    def _component_invariants(self):
        if self._undecided():
            return [TensorShape(None)]
        return [TensorShape([None, *self._element_shape.as_list()]) if self._dynamic_size else None]

    def _settled(self, value, after):
        """``value`` (its elements all unwritten) in the element shape that the spec ``after`` (of the loop body's
        result) learned, or ``value`` when the body did not learn one."""
        if after._undecided() or not self._undecided():
            return value
        from vfw.frontends.tensorflow._tensor_array_graph import GraphTensorArray, length, zero_rows

        return GraphTensorArray(zero_rows(length(value._as_graph()._buffer), after._element_shape, self._dtype),
                                self._with_shape(after._element_shape))


def _index_list(indices, what):
    """Indices given as a list, numpy array or integer tensor, as a list of ints (read once per trace inside a
    tf.function: a later call with other values raises InvalidArgumentError)."""
    tensor = convert_to_tensor(indices)
    values = [int(i) for i in tensor.array.reshape(-1)]
    pinned(tensor, tuple(values), what, None)
    return values


NAMESPACES = {"tf": ["TensorArray", "TensorArraySpec"]}
TENSOR_METHODS = {}
