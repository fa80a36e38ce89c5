"""The graph form of tf.TensorArray: what graph loops carry (TF's TensorList semantics inside tf.function).

A graph TensorArray is one tensor, ``buffer``, of shape ``(size, *element_shape)`` (unwritten
elements are zeros), and its :class:`~vfw.frontends.tensorflow._tensor_array.TensorArraySpec`
(dtype, element shape, ``dynamic_size``).  Its updates are engine ops, so a graph run replays
them with that run's values and GradientTape differentiates them: ``write``/``scatter`` are a
``Pad`` (growing a ``dynamic_size`` array) and a ``ScatterND``, ``read``/``gather`` a ``Gather``,
``stack`` the buffer itself and ``concat`` a ``Reshape``.  The index checks (TF's
InvalidArgumentError "Trying to modify element 3 in a list with 3 elements.") are a host
computation that also gives the growth, so they run at every graph run.

As in TF's graph TensorArray, reads do not clear elements and an element may be written again.
Before any write the element shape may be unknown; then ``buffer`` is a 1-D placeholder of
zeros and the first write decides the shape (graph loops learn it by a trial run of the body,
see ``_composites.settled``).
"""

import numpy as np

from vfw.core.errors import IndexOutOfRangeError
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, host, op_error, wrap
from vfw.frontends.tensorflow._op_support import int64s
from vfw.frontends.tensorflow._shape import TensorShape
from vfw.frontends.tensorflow._tensor_array import TensorArray
from vfw.frontends.tensorflow._traced_shapes import as_int64

_SCALAR = np.zeros(0, np.int64)


def zero_rows(count, shape, dtype):
    """Zeros of shape ``(count, *shape)``: ``count`` a 1-element int64 array, or such a tensor (computed by the
    graph)."""
    if isinstance(count, np.ndarray):
        return wrap(np.zeros((int(count[0]), *shape.as_list()), dtype.np))
    full = call("Concat", count, int64s(shape.as_list()), axis=0, tf_op="ConcatV2")
    return call("Expand", wrap(np.zeros((), dtype.np)), full, tf_op="Fill")


class GraphTensorArray(TensorArray):
    """A TensorArray as one stacked tensor (inside graph loops of a tf.function, and after them)."""

    def __init__(self, buffer, spec):  # noqa: D107 (built by TensorArraySpec and the methods here)
        self._buffer = buffer
        self._spec = spec

    def _next(self, buffer, spec=None):
        return GraphTensorArray(buffer, self._spec if spec is None else spec)

    @property
    def _type_spec(self):
        return self._spec

    def _as_graph(self):
        return self

    @property
    def dtype(self):
        """DType: the elements' dtype."""
        return self._spec._dtype

    @property
    def element_shape(self):
        """TensorShape: the elements' shape as known while the function is traced."""
        return self._spec._element_shape

    @property
    def dynamic_size(self):
        """bool: whether writes past the end grow the array."""
        return self._spec._dynamic_size

    def size(self, name=None):
        """The number of elements, as an int32 scalar tensor."""
        return call("Cast", call("Reshape", length(self._buffer), _SCALAR, tf_op="Size"), to=6, tf_op="Size")

    def identity(self):
        """A TensorArray object over the same elements."""
        return self._next(self._buffer)

    def close(self, name=None):
        """Accepted (a graph TensorArray is a value)."""

    # -- writing -----------------------------------------------------------------------------------
    def _shaped(self, shape):
        """This array's buffer and spec once elements of ``shape`` are written (TF's ValueError for another
        shape; the first write decides an unknown element shape)."""
        known = self._spec._element_shape
        if not known.is_compatible_with(shape):
            raise ValueError(f"Inconsistent shapes: saw {tuple(shape)} but expected {tuple(known.as_list())} ")
        if known.is_fully_defined():
            return self._buffer, self._spec
        shape = known.merge_with(shape)
        return zero_rows(length(self._buffer), shape, self.dtype), self._spec._with_shape(shape)

    def _positions(self, indices, verb, writing):
        """``indices`` (an int64 vector tensor) checked against the size, as ScatterND/Gather indices ``(k, 1)``,
        and the Pad growing a dynamic-size array to hold them (writing)."""
        dynamic = writing and self.dynamic_size
        rank = self._buffer.array.ndim

        def check(positions, buffer):
            count = buffer.shape[0]
            bad = positions[(positions < 0) | ((positions >= count) & (not dynamic))]
            if bad.size:
                raise IndexOutOfRangeError(f"Trying to {verb} element {bad[0]} in a list with {count} elements.")
            pads = np.zeros(2 * rank, np.int64)
            pads[rank] = max(0, int(positions.max(initial=-1)) + 1 - count) if dynamic else 0
            return positions.reshape(-1, 1), pads

        return host(check, indices, self._buffer)

    def _scattered(self, indices, rows, verb):
        buffer, spec = self._shaped(rows.array.shape[1:])
        positions, pads = GraphTensorArray(buffer, spec)._positions(indices, verb, True)
        if self.dynamic_size:
            buffer = call("Pad", buffer, pads, tf_op="TensorListSetItem")
        return self._next(call("ScatterND", buffer, positions, rows, tf_op="TensorListSetItem"), spec)

    def write(self, index, value, name=None):
        """Element ``index`` set to ``value`` (a new TensorArray; the index is checked when the graph runs)."""
        tensor = self._value(value)
        row = call("Reshape", tensor, int64s((1, *tensor.array.shape)), tf_op="TensorListSetItem")
        index = call("Reshape", _index_tensor(index), int64s([1]), tf_op="TensorListSetItem")
        return self._scattered(index, row, "modify")

    def scatter(self, indices, value, name=None):
        """Elements ``indices[k]`` set to ``value[k]``."""
        tensor = self._value(value)
        if tensor.array.ndim == 0:
            raise ValueError("Shape must be at least rank 1 but is rank 0")
        return self._scattered(_index_tensor(indices), tensor, "scatter")

    def unstack(self, value, name=None):
        """The elements set to the rows of ``value`` (the size becomes ``value.shape[0]``)."""
        tensor = self._value(value)
        if tensor.array.ndim == 0:
            raise ValueError("Argument `axis` = 0 not in range [0, 0)")
        _, spec = self._shaped(tensor.array.shape[1:])
        return self._next(tensor, spec)

    def split(self, value, lengths, name=None):
        """Not supported on a TensorArray carried by a graph loop (NotImplementedError)."""
        raise NotImplementedError("TensorArray.split on a TensorArray carried by a graph loop (tf.while_loop or "
                                  "a tensor loop inside tf.function) is not supported by vfw: split it before "
                                  "the loop, or use unstack")

    # -- reading -----------------------------------------------------------------------------------
    def _decided(self, tf_op):
        if self._spec._undecided():
            raise op_error("Tried to stack elements of an empty list with non-fully-defined element_shape: "
                           f"{self._spec._element_shape}", tf_op)
        return self._buffer

    def read(self, index, name=None):
        """Element ``index`` (zeros if it was never written; checked when the graph runs)."""
        buffer = self._decided("TensorListGetItem")
        positions, _ = self._positions(call("Reshape", _index_tensor(index), int64s([1])), "access", False)
        return call("Gather", buffer, call("Reshape", positions, _SCALAR), axis=0, tf_op="TensorListGetItem")

    def stack(self, name=None):
        """All elements stacked along a new first axis (the buffer)."""
        return self._decided("TensorListStack")

    def gather(self, indices, element_shape=None, name=None):
        """Elements ``indices`` stacked along a new first axis."""
        buffer = self._decided("TensorListGather")
        positions, _ = self._positions(_index_tensor(indices), "gather", False)
        return call("Gather", buffer, call("Reshape", positions, int64s([-1])), axis=0, tf_op="TensorListGather")

    def concat(self, name=None):
        """All elements concatenated along their first axis."""
        buffer = self._decided("TensorListConcatV2")
        shape = self._spec._element_shape.as_list()
        if not shape:
            raise op_error("Concat saw a scalar shape at index 0 but requires at least vectors.", "TensorListConcatV2")
        return call("Reshape", buffer, int64s((-1, *shape[1:])), tf_op="TensorListConcatV2")

    def __repr__(self):
        return f"<vfw.tensorflow.TensorArray dtype={self.dtype.name} element_shape={self.element_shape}>"


def length(buffer):
    """The length of ``buffer`` as a 1-element int64 tensor computed by the graph at each run (a host computation:
    inside a loop body the buffer's length changes from one iteration to the next, which a ``Shape`` op of the
    body would not see, its input's shape being recorded as traced)."""
    return host(_length_of, buffer)


def _length_of(buffer):
    return np.array([buffer.shape[0]], np.int64)


def _index_tensor(index):
    """An index or index list as an int64 tensor (TF's TypeError for non-integers)."""
    tensor = convert_to_tensor(index)
    if tensor.array.dtype.kind not in "iu":
        raise TypeError(f"TensorArray indices must be integers, got {TensorShape(tensor.array.shape)} "
                        f"{tensor.array.dtype}")
    return as_int64(tensor)
