"""tf.Variable: mutable state that reads as a tensor.

Design
------
A variable keeps its value in a private engine tensor, its *storage* (``_Storage``), whose
array is never written in place (copy on write): ``assign`` gives the storage a new array.
Reads (``_as_tensor()``, which ``convert_to_tensor``, operators and every tf function use) return
a tf tensor around the current array, one per assigned value, so

- autograd nodes that saved a read keep the value read (TF's snapshot semantics), and a tensor
  obtained from a variable does not change when the variable is assigned later;
- GradientTapes watch the read tensors (``_tape_state.notify_read``): ``tape.gradient(loss, v)``
  is the sum of the gradients of the tensors read from ``v`` while the tape recorded;
- under a graph trace (``tf.function``) the storage is a *capture* (read by reference on every
  run) and an assign is a graph state update (``vfw.core.graph.assign``), so a traced training
  step updates the variable on every call.  A variable created during a trace gets memory the
  trace does not know, so the graph captures it rather than recomputing its initial value.

``variable_creator_scope`` (TF's hook) lets other code intercept variable creation (tf.function
uses it to refuse variables created after the first trace).
"""

import contextlib
import enum
import inspect
import threading

import numpy as np

from vfw.core.graph import assign as _graph_assign
from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dispatch, _dtypes, _name_scope, _tape_state
from vfw.frontends.tensorflow._op_support import shape_text
from vfw.frontends.tensorflow._ragged import RaggedTensor
from vfw.frontends.tensorflow._shape import TensorShape
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor
from vfw.frontends.tensorflow._tensor import DEVICE, Tensor, _numpy_text, _Reference
from vfw.frontends.tensorflow._variable_legacy import LegacyVariableMethods
from vfw.frontends.tensorflow._variable_updates import GatherScatterMethods, compute

_wrap = _dispatch.wrap
_observers = _tape_state.ACTIVE


class VariableSynchronization(enum.Enum):
    """When a distributed variable is synchronized (accepted; vfw runs on one device)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class _Aggregation(enum.Enum):
    """Members of TF's two aggregation enums compare (and hash) equal by value."""

    def __eq__(self, other):
        if isinstance(other, _Aggregation):
            return self.value == other.value
        return NotImplemented

    def __hash__(self):
        return hash(self.value)


class VariableAggregationV2(_Aggregation):
    """How a distributed variable aggregates updates (accepted; vfw runs on one device)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3


VariableAggregation = VariableAggregationV2
# TF 1's enum, still the default of tf.Variable (``v.aggregation`` prints ``VariableAggregation.NONE``).
_AggregationV1 = _Aggregation("VariableAggregation", [(m.name, m.value) for m in VariableAggregationV2])
_AggregationV1.__qualname__ = "_AggregationV1"  # what pickle looks up


class _Storage(Tensor):
    """The array a variable holds: what graph traces capture.  Never written in place."""

    __slots__ = ()
    copy_on_write = True  # vfw.core.graph.assign.write gives it a new array instead of overwriting


# -- creation -------------------------------------------------------------------------------------
class _Creators(threading.local):
    def __init__(self):
        self.stack = []


_creators = _Creators()


@contextlib.contextmanager
def variable_creator_scope(variable_creator):
    """Route ``tf.Variable(...)`` through ``variable_creator(next_creator, **kwargs)`` inside the block.

    ``next_creator(**kwargs)`` continues with the enclosing creator, the innermost last, and
    finally creates the variable.
    """
    _creators.stack.append(variable_creator)
    try:
        yield
    finally:
        _creators.stack.pop()


@contextlib.contextmanager
def creator_scopes_suspended():
    """No variable creator in scope inside the block: code TF traces into a graph of its own (the body of a
    ``for`` loop over a dataset inside tf.function), whose variables the enclosing tf.function does not see."""
    saved, _creators.stack = _creators.stack, []
    try:
        yield
    finally:
        _creators.stack = saved


class _VariableMeta(type):
    """``tf.Variable(...)`` builds a ResourceVariable, through the creators in scope."""

    def __call__(cls, *args, **kwargs):
        if cls is not Variable:
            return type.__call__(cls, *args, **kwargs)
        if not _creators.stack:
            return type.__call__(ResourceVariable, *args, **kwargs)
        bound = _INIT_SIGNATURE.bind(None, *args, **kwargs)
        bound.apply_defaults()  # creators see every argument, as in TF
        kwargs = bound.arguments
        del kwargs["self"]

        def creator_at(i):
            if i < 0:
                return lambda **kw: type.__call__(ResourceVariable, **kw)
            return lambda **kw: _creators.stack[i](creator_at(i - 1), **kw)

        return creator_at(len(_creators.stack) - 1)(**kwargs)


def _sync_mode(synchronization, aggregation, trainable):
    try:
        synchronization = VariableSynchronization(synchronization)
    except ValueError:
        raise ValueError(f"Invalid variable synchronization mode: {synchronization} for variable: None") from None
    if aggregation is None:
        aggregation = _AggregationV1.NONE
    elif not isinstance(aggregation, _Aggregation):
        try:
            aggregation = VariableAggregationV2(aggregation)
        except ValueError:
            raise ValueError(f"Invalid variable aggregation mode: {aggregation} for variable: None") from None
    if trainable is None:
        trainable = synchronization != VariableSynchronization.ON_READ
    return synchronization, aggregation, trainable


class Variable(GatherScatterMethods, LegacyVariableMethods, metaclass=_VariableMeta):
    """A tensor-valued variable: ``tf.Variable(initial_value, trainable=True, name=None, dtype=None, shape=None)``.

    Parameters
    ----------
    initial_value : tensor-like or callable
        The value (a callable is called with no arguments).
    trainable : bool, optional
        Whether GradientTapes watch it when it is read (default True, False for ON_READ
        synchronization).
    validate_shape : bool
        Accepted (eager variables always know their value's shape).
    name : str, optional
        Prefixed by the enclosing ``tf.name_scope``; ``.name`` adds ``":0"`` (default ``Variable``).
    dtype : DType, optional
        The initial value is converted to it.
    constraint : callable, optional
        Kept for optimizers (``constraint(value)`` projects after updates); not applied by ``assign``.
    synchronization, aggregation : optional
        Accepted and validated (one device).
    shape : TensorShape, optional
        The static shape (dims may be None: assigns may then change those dims).
    caching_device, variable_def, import_scope, experimental_enable_variable_lifting
        Accepted and ignored.
    """

    __array_priority__ = 100

    def __init__(self, initial_value=None, trainable=None, validate_shape=True, caching_device=None, name=None,
                 variable_def=None, dtype=None, import_scope=None, constraint=None,
                 synchronization=VariableSynchronization.AUTO, aggregation=_AggregationV1.NONE, shape=None,
                 experimental_enable_variable_lifting=True):
        if initial_value is None:
            raise ValueError("The `initial_value` arg to `tf.Variable` must be specified except when you are not "
                             "providing a `variable_def`. You provided neither.")
        if constraint is not None and not callable(constraint):
            raise ValueError(f"Argument `constraint` must be None or a callable. a callable. Got a {type(constraint)}:"
                             f"  {constraint}")
        self._synchronization, self._aggregation, self._trainable = _sync_mode(synchronization, aggregation,
                                                                               trainable)
        self._shared_name = _name_scope.full_name(name, "Variable")
        if callable(initial_value):
            initial_value = initial_value()
        value = _initial_tensor(initial_value, dtype)
        self._shape = value.shape if shape is None else TensorShape(shape)
        if not self._shape.is_compatible_with(value.shape):
            raise ValueError(f"In this `tf.Variable` creation, the initial value's shape ({value.shape}) is not "
                             f"compatible with the explicitly supplied `shape` argument ({self._shape}).")
        array = value.array
        if _tracing and current_trace() is not None:
            array = array.copy()  # memory the trace does not know: captured by the graph, not recomputed
        self._storage = _Storage.wrap(array)
        self._value = _wrap(array)
        self._dtype = _dtypes.of_array(array)
        self._constraint = constraint

    # -- reading ----------------------------------------------------------------------------------
    def _as_tensor(self):
        """The current value as a tf tensor (a read: tapes watch it, graph traces capture the storage)."""
        value = self._value
        array = self._storage.array
        if value.array is not array:  # assigned, or written by a graph run, since the last read
            value = self._value = _wrap(array)
        if _observers:
            _tape_state.notify_read(self, value)
        if _tracing:
            trace = current_trace()
            if trace is not None:
                _capture(trace, self._storage)
                if value.array is not self._storage.array:  # given memory of its own
                    value = self._value = _wrap(self._storage.array)
        return value

    def _current(self):
        """The current value as a tf tensor, unseen by tapes and traces (the tapes' own bookkeeping)."""
        value = self._value
        if value.array is not self._storage.array:
            value = self._value = _wrap(self._storage.array)
        return value

    def value(self):
        """Tensor: the current value."""
        return self._as_tensor()

    def read_value(self):
        """Tensor: the current value."""
        return self._as_tensor()

    def numpy(self):
        """A numpy copy of the current value."""
        return _wrap(self._storage.array).numpy()

    def __array__(self, dtype=None, copy=None):
        return np.array(self._storage.array, dtype=dtype)

    # -- properties ---------------------------------------------------------------------------------
    @property
    def name(self):
        """str: ``<scope/name>:0``."""
        return self._shared_name + ":0"

    @property
    def dtype(self):
        """DType: the element type."""
        return self._dtype

    @property
    def shape(self):
        """TensorShape: the static shape (None dims may change with assigns)."""
        return self._shape

    def get_shape(self):
        """TensorShape: the static shape."""
        return self._shape

    def set_shape(self, shape):
        """Check that ``shape`` is compatible with the variable's shape (eager variables keep theirs)."""
        if not self._shape.is_compatible_with(shape):
            raise ValueError(f"Shapes {self._shape} and {TensorShape(shape)} are not compatible")

    @property
    def trainable(self):
        """Whether tapes watch the variable when it is read."""
        return self._trainable

    @property
    def constraint(self):
        """callable or None: the projection optimizers apply after updates."""
        return self._constraint

    @property
    def synchronization(self):
        return self._synchronization

    @property
    def aggregation(self):
        return self._aggregation

    @property
    def device(self):
        """str: the device name (the CPU)."""
        return DEVICE

    @property
    def initial_value(self):
        raise RuntimeError("This property is not supported when eager execution is enabled.")

    @property
    def initializer(self):
        return None

    @property
    def graph(self):
        raise AttributeError("Tensor.graph is undefined when eager execution is enabled.")

    @property
    def op(self):
        raise AttributeError("Tensor.op is undefined when eager execution is enabled.")

    def ref(self):
        """A hashable reference to the variable (variables are unhashable)."""
        return _Reference(self)

    experimental_ref = ref

    # -- writing ----------------------------------------------------------------------------------
    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Set the value; returns the variable (as TF's ``UnreadVariable``), or None with ``read_value=False``.

        Raises ValueError when ``value``'s shape is incompatible with the variable's or its
        dtype differs (TF's conversion error).
        """
        value = _dispatch.convert_to_tensor(value, self._dtype)
        if not self._shape.is_compatible_with(value.array.shape):
            raise ValueError(f"Cannot assign value to variable ' {self.name}': Shape mismatch.The variable shape "
                             f"{self._shape}, and the assigned value shape {value.shape} are incompatible.")
        self._write(value)
        return self._result(read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        """Add ``delta`` (same shape) to the value; returns as ``assign``."""
        return self._update("Add", delta, "AssignAddVariableOp", read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        """Subtract ``delta`` (same shape) from the value; returns as ``assign``."""
        return self._update("Sub", delta, "AssignSubVariableOp", read_value)

    def _update(self, op_type, delta, tf_op, read_value):
        delta = _dispatch.convert_to_tensor(delta, self._dtype)
        shape = self._storage.array.shape
        if delta.array.shape != shape:
            raise _dispatch.op_error(f"Cannot update variable with shape {shape_text(shape)} using a Tensor with shape "
                                     f"{shape_text(delta.array.shape)}, shapes must be equal.", tf_op)
        trace = current_trace() if _tracing else None
        if trace is not None:
            _capture(trace, self._storage)
        self._write(compute(op_type, tf_op, self._storage, delta))
        return self._result(read_value)

    def _write(self, value):
        """Give the storage ``value``'s array (a graph state update under a trace)."""
        storage = self._storage
        if _tracing:
            trace = current_trace()
            if trace is not None:
                _capture(trace, storage)  # before the write, so the write becomes a state update
                _graph_assign(storage, value)
                return
        storage.array = value.array

    def _result(self, read_value):
        return _UnreadVariable.of(self) if read_value else None

    # -- Python protocol --------------------------------------------------------------------------------
    def __repr__(self):
        return (f"<tf.Variable '{self.name}' shape={self._shape} dtype={self._dtype.name}, "
                f"numpy={_numpy_text(_wrap(self._storage.array), True)}>")

    __str__ = __repr__

    def __hash__(self):
        raise TypeError(f"Variable is unhashable. Instead, use variable.ref() as the key. (Variable: {self!r})")

    def __bool__(self):
        return bool(self._storage.array)

    # Inside tf.function a variable's reads are symbolic: no Python value (it would be the traced one on every call).
    def __int__(self):
        _refuse_python_value_in_graph()
        return int(self._storage.array)

    def __float__(self):
        _refuse_python_value_in_graph()
        return float(self._storage.array)

    def __complex__(self):
        _refuse_python_value_in_graph()
        return complex(self._storage.array)

    def __iter__(self):
        return iter(self._as_tensor())

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return _rebuild(self._storage.array.copy(), self._trainable, self._shared_name, self._dtype.name,
                        self._constraint, self._synchronization, self._aggregation, self._shape.dims)

    def __reduce__(self):
        return (_rebuild, (self._storage.array, self._trainable, self._shared_name, self._dtype.name,
                           self._constraint, self._synchronization, self._aggregation, self._shape.dims))


_INIT_SIGNATURE = inspect.signature(Variable.__init__)


class ResourceVariable(Variable):
    """The class of the variables ``tf.Variable(...)`` creates."""


class _UnreadVariable(Variable):
    """What ``assign`` returns: the same variable under the name ``UnreadVariable`` (reads see later writes)."""

    @classmethod
    def of(cls, variable):
        unread = object.__new__(cls)
        unread.__dict__.update(variable.__dict__)
        unread._primary = getattr(variable, "_primary", variable)
        return unread

    @property
    def name(self):
        return "UnreadVariable"

    def _as_tensor(self):
        return self._primary._as_tensor()  # tapes attribute reads to the variable itself

    def _current(self):
        return self._primary._current()

    def numpy(self):
        return self._primary.numpy()  # as the variable reads (a sync-on-read one combines its replicas)

    def _write(self, value):
        self._primary._write(value)


def _refuse_python_value_in_graph():
    """TF's error for ``int(v)``/``float(v)``/``complex(v)`` of a variable while a tf.function is traced."""
    if _tracing and current_trace() is not None:
        raise AttributeError("'SymbolicTensor' object has no attribute 'numpy' (inside tf.function a variable has "
                             "no Python value: vfw.tensorflow traces without AutoGraph; compute with it, e.g. "
                             "tf.cast(v, tf.int32))")


def primary(variable):
    """The variable itself behind an ``UnreadVariable`` (tapes key watched variables by it)."""
    return getattr(variable, "_primary", variable)


def _rebuild(array, trainable, name, dtype, constraint, synchronization, aggregation, dims):
    with _name_scope.name_scope(""):
        return Variable(array, trainable=trainable, name=name, dtype=dtype, constraint=constraint,
                        synchronization=synchronization, aggregation=aggregation, shape=dims)


def _forwarded(method_name):
    def method(self, *args):
        fn = getattr(Tensor, method_name, None)
        if fn is None:
            return NotImplemented
        return fn(self._as_tensor(), *args)

    method.__name__ = method_name
    method.__doc__ = f"The tensor operator ``{method_name}`` on the current value."
    return method


# The operators TF overloads on variables: each applies the tensor's operator to the value read.
for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
              "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__matmul__",
              "__rmatmul__", "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__lt__", "__le__",
              "__gt__", "__ge__", "__eq__", "__ne__", "__neg__", "__abs__", "__invert__"):
    setattr(Variable, _name, _forwarded(_name))


# -- helpers ----------------------------------------------------------------------------------------
def _capture(trace, storage):
    """Capture ``storage`` in ``trace``, with memory of its own: eager ``b.assign(a)`` (or ``tf.Variable(a)``)
    leaves both variables holding one array, which a trace would take for one state."""
    holder = trace.captured_from(storage.array)
    if holder is not None and holder is not storage:
        storage.array = storage.array.copy()
    trace.name_of(storage)


def _initial_tensor(initial_value, dtype):
    """The initial value as a tensor of ``dtype``, with TF's errors."""
    if isinstance(initial_value, Variable):
        if dtype is not None and _dtypes.as_dtype(dtype) != initial_value.dtype:
            raise ValueError(f"Incompatible type conversion requested to type {_dtypes.as_dtype(dtype).name} for "
                             f"`tf.Variable of type {initial_value.dtype.name}. (Variable: {initial_value!r})")
        return _wrap(initial_value._storage.array)
    try:
        return _dispatch.convert_to_tensor(initial_value, dtype)
    except ValueError as e:
        if isinstance(initial_value, CoreTensor):
            raise ValueError(f"initial_value: {e}") from None
        raise


def is_tensor(x):
    """Whether ``x`` is a tf tensor or tensor-like (a variable, sparse or ragged tensor): TF's ``tf.is_tensor``."""
    return isinstance(x, (Tensor, SparseTensor, RaggedTensor)) or hasattr(type(x), "_as_tensor")


NAMESPACES = {"tf": ["Variable", "VariableAggregation", "VariableSynchronization", "variable_creator_scope",
                     "is_tensor"]}
TENSOR_METHODS = {}
