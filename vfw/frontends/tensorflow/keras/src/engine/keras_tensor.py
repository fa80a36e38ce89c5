"""``keras.KerasTensor`` (a symbolic shape and dtype) and the graph nodes built from calls on them.

- ``KerasTensor(shape, dtype="float32", sparse=False, ragged=False, record_history=True, name=None)``:
  immutable shape (tuple, None for unknown dims) and dtype (a string); named ``keras_tensor``,
  ``keras_tensor_1``...  Using it where a value is needed (``int()``, ``numpy``, a tf op) raises
  Keras' errors; its operators (``+``, ``*``, ``[...]``, comparisons...) are symbolic operations
  recorded in the graph.
- ``Node(operation, call_args, call_kwargs, outputs)``: one call of an operation on KerasTensors.
  It appends itself to ``operation._inbound_nodes`` and to the ``_outbound_nodes`` of the
  operations that produced its inputs, and stamps each output with ``_keras_history =
  KerasHistory(operation, node_index, tensor_index)``.  Functional models walk these histories.
"""

import collections

from vfw.frontends.tensorflow import nest
from vfw.frontends.tensorflow.keras.src.engine import naming
from vfw.frontends.tensorflow.keras.src.engine.dtype_policy import standardize_dtype, standardize_shape

_VALUE_MESSAGE = ("A KerasTensor is symbolic: it's a placeholder for a shape an a dtype. It doesn't have any actual "
                  "numerical value. You cannot convert it to {}.")


class KerasTensor:
    """A symbolic tensor: a shape (None for unknown dims) and a dtype, used to build functional models.

    Parameters
    ----------
    shape : tuple
    dtype : str or dtype
    sparse, ragged : bool
        Recorded (vfw computes densely).
    record_history : bool
        Whether calls on it record graph nodes.
    name : str, optional
    """

    def __init__(self, shape, dtype="float32", sparse=False, ragged=False, record_history=True, name=None, **kwargs):
        ragged_rank = kwargs.pop("ragged_rank", None)
        row_splits_dtype = kwargs.pop("row_splits_dtype", None)
        if kwargs:
            raise TypeError(f"Unexpected keyword arguments: {', '.join(kwargs.keys())}")
        self._shape = standardize_shape(shape)
        self._dtype = standardize_dtype(dtype)
        self._sparse = bool(sparse)
        self._ragged = bool(ragged)
        if self._sparse and self._ragged:
            raise ValueError("KerasTensor cannot have `sparse=True` and `ragged=True` at the same time.")
        self._ragged_rank = None if ragged_rank is None else int(ragged_rank)
        self._row_splits_dtype = None if row_splits_dtype is None else standardize_dtype(row_splits_dtype)
        self.name = name or naming.auto_name(type(self).__name__)
        self.record_history = record_history

    @property
    def shape(self):
        """tuple: the shape (None for unknown dims)."""
        return self._shape

    @shape.setter
    def shape(self, value):
        raise AttributeError("The `shape` attribute of KerasTensor is immutable. One should create a new instance of "
                             "KerasTensor for this.")

    @property
    def dtype(self):
        """str: the dtype."""
        return self._dtype

    @dtype.setter
    def dtype(self, value):
        raise AttributeError("The `dtype` attribute of KerasTensor is immutable. One should create a new instance of "
                             "KerasTensor for this.")

    @property
    def sparse(self):
        return self._sparse

    @property
    def ragged(self):
        return self._ragged

    @property
    def ragged_rank(self):
        return self._ragged_rank

    @property
    def row_splits_dtype(self):
        return self._row_splits_dtype

    @property
    def ndim(self):
        """int: the number of dimensions."""
        return len(self._shape)

    def reshape(self, newshape):
        return _symbolic("Reshape", self, newshape=tuple(newshape))

    def squeeze(self, axis=None):
        return _symbolic("Squeeze", self, axis=axis)

    def __int__(self):
        raise ValueError(_VALUE_MESSAGE.format("an int"))

    def __float__(self):
        raise ValueError(_VALUE_MESSAGE.format("a float"))

    def __array__(self, dtype=None, copy=None):
        raise ValueError(_VALUE_MESSAGE.format("a NumPy array"))

    def __repr__(self):
        return (f"<KerasTensor shape={self._shape}, dtype={self._dtype}, sparse={self._sparse}, "
                f"ragged={self._ragged}, name={self.name}>")

    def __iter__(self):
        raise NotImplementedError("Iterating over a symbolic KerasTensor is not supported.")

    def __bool__(self):
        raise TypeError("A symbolic KerasTensor cannot be used as a boolean.")

    def __getitem__(self, key):
        return _symbolic("GetItem", self, key)

    def __round__(self, ndigits=None):
        return _symbolic("Round", self, decimals=ndigits or 0)


def _symbolic(class_name, *args, **kwargs):
    from vfw.frontends.tensorflow.keras.src.engine import symbolic_ops

    return symbolic_ops.apply(class_name, *args, **kwargs)


def _operator(class_name, reflected=False):
    def method(self, *args):
        operands = (args[0], self) if reflected else (self,) + args
        return _symbolic(class_name, *operands)

    return method


for _name, _op, _reflected in (
        ("__add__", "Add", False), ("__radd__", "Add", True), ("__sub__", "Subtract", False),
        ("__rsub__", "Subtract", True), ("__mul__", "Multiply", False), ("__rmul__", "Multiply", True),
        ("__matmul__", "Matmul", False), ("__rmatmul__", "Matmul", True), ("__truediv__", "TrueDivide", False),
        ("__rtruediv__", "TrueDivide", True), ("__neg__", "Negative", False),
        ("__abs__", "Absolute", False), ("__pow__", "Power", False), ("__rpow__", "Power", True),
        ("__floordiv__", "FloorDivide", False), ("__rfloordiv__", "FloorDivide", True), ("__mod__", "Mod", False),
        ("__rmod__", "Mod", True), ("__lt__", "Less", False), ("__le__", "LessEqual", False),
        ("__gt__", "Greater", False), ("__ge__", "GreaterEqual", False), ("__ne__", "NotEqual", False),
        ("__and__", "LogicalAnd", False), ("__rand__", "LogicalAnd", True), ("__or__", "LogicalOr", False),
        ("__ror__", "LogicalOr", True), ("__invert__", "LogicalNot", False), ("__xor__", "LogicalXor", False),
        ("__rxor__", "LogicalXor", True)):
    setattr(KerasTensor, _name, _operator(_op, _reflected))


def symbolic_cast(x, dtype):
    """``x`` (a KerasTensor) cast to ``dtype``: a recorded ``Cast`` operation."""
    return _symbolic("Cast", x, dtype=dtype)


def any_symbolic_tensors(args=None, kwargs=None):
    """Whether a KerasTensor appears anywhere in ``args`` / ``kwargs``."""
    for items in (args or (), kwargs.values() if kwargs else ()):
        for x in items:
            if isinstance(x, KerasTensor):
                return True
            if nest.is_nested(x) and any(isinstance(y, KerasTensor) for y in nest.flatten(x)):
                return True
    return False


def is_keras_tensor(x):
    """Whether ``x`` is a KerasTensor (``keras.utils.is_keras_tensor``)."""
    return isinstance(x, KerasTensor)


# -- graph nodes ----------------------------------------------------------------------------------------
class KerasHistory(collections.namedtuple("KerasHistory", ["operation", "node_index", "tensor_index"])):
    """Which call (node) of which operation produced a KerasTensor, and which of its outputs it is."""

    __slots__ = ()


class SymbolicArguments:
    """The arguments of a call, with the KerasTensors among them found once."""

    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs
        self.keras_tensors = [x for x in nest.flatten((args, kwargs)) if isinstance(x, KerasTensor)]
        self._single = len(args) == 1 and not kwargs and isinstance(args[0], KerasTensor)

    def fill_in(self, values_by_id):
        """``(args, kwargs)`` with each KerasTensor replaced by ``values_by_id[id(tensor)]``."""
        if self._single:  # the common call: one tensor
            return (values_by_id.get(id(self.args[0])),), {}
        if not self.keras_tensors:
            return self.args, self.kwargs
        flat = [values_by_id.get(id(x)) if isinstance(x, KerasTensor) else x
                for x in nest.flatten((self.args, self.kwargs))]
        return nest.pack_sequence_as((self.args, self.kwargs), flat)


class Node:
    """One call of ``operation`` on KerasTensors (see the module docstring)."""

    def __init__(self, operation, call_args=(), call_kwargs=None, outputs=None):
        self.operation = operation
        self.arguments = SymbolicArguments(*call_args, **(call_kwargs or {}))
        self.outputs = [] if outputs is None else nest.flatten(outputs)
        for x in self.outputs:
            if not isinstance(x, KerasTensor):
                raise ValueError(f"All operation outputs must be tensors. Operation {operation} returned a "
                                 f"non-tensor. Non-tensor received: {x}")
        record = all(x.record_history for x in self.arguments.keras_tensors)
        if record:
            for x in self.arguments.keras_tensors:
                if not hasattr(x, "_keras_history"):
                    x._keras_history = KerasHistory(None, 0, 0)
        operation._inbound_nodes.append(self)
        for x in self.arguments.keras_tensors:
            inbound = getattr(x, "_keras_history", (None,))[0]
            if inbound is not None:
                inbound._outbound_nodes.append(self)
        if record:
            index = len(operation._inbound_nodes) - 1
            for i, x in enumerate(self.outputs):
                x._keras_history = KerasHistory(operation, index, i)
        self.is_input = not self.arguments.keras_tensors

    def __repr__(self):
        return f"<Node operation={self.operation.name}, id={id(self)}>"

    @property
    def input_tensors(self):
        """list: the KerasTensors the operation was called on."""
        return self.arguments.keras_tensors

    @property
    def output_tensors(self):
        """list: the KerasTensors the call returned."""
        return self.outputs

    @property
    def parent_nodes(self):
        """list: the nodes that produced this node's inputs."""
        parents = []
        for x in self.arguments.keras_tensors:
            operation, index, _ = x._keras_history
            if operation is not None:
                parents.append(operation._inbound_nodes[index])
        return parents


API = {"keras": ["KerasTensor"]}
