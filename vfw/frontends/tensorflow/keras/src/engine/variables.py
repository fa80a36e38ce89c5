"""``keras.Variable``: Keras' variable over a vfw ``tf.Variable``, and the scopes that redirect its state.

Contract (for layers, optimizers, metrics, random seed generators)
----------------------------------------------------------------
- ``Variable(initializer, shape=None, dtype=None, trainable=True, autocast=True, aggregation="none",
  synchronization="auto", name=None)``: ``initializer`` is a value (array, number, tensor: its dtype
  is used when ``dtype`` is None) or a callable ``initializer(shape, dtype)`` (strings go through
  ``keras.initializers.get``).  The value lives in a vfw ``tf.Variable`` (``v.value``), created in the
  open ``keras.name_scope`` so its TF name is ``<path>:0``.
- tf ops accept a Keras variable wherever they accept a tensor (``_as_tensor``: a read of the
  tf.Variable, watched by GradientTapes, captured by tf.function traces); ``tape.gradient(loss, v)``
  works on Keras variables (the tape resolves them to their tf.Variable through ``_tf_variable``).
- ``assign`` / ``assign_add`` / ``assign_sub`` convert and cast the value to the variable's dtype and
  check its shape (Keras' ValueError); they return the new value (a tensor).  Inside a tf.function
  they become graph state updates (the tf.Variable's assign).
- ``path`` (``"dense/kernel"``), ``name`` (``"kernel"``), ``dtype`` (a string), ``shape`` (a
  TensorShape), ``ndim``, ``trainable`` (settable; tapes keep watching the tf.Variable as in Keras on
  TF), ``regularizer``, ``constraint``, ``overwrite_with_gradient``, ``numpy()``, operators.

Scopes
------
- ``StatelessScope(state_mapping=None, collect_losses=False)``: inside, reads of the mapped variables
  give the mapped values and assigns are recorded in the scope (``get_current_value``) instead of
  changing the variables.  Keras' shape inference runs layers in one so that symbolic calls change
  no state (moving statistics, seed generator counters).
- ``SymbolicScope()``: marks such shape-inference runs (``in_symbolic_scope()``).
- A variable created inside a StatelessScope is initialized at once, outside the scope (Keras defers
  the initialization to the end of the scope: the initial values and the random draws are the same,
  in the same order).
"""

import threading

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.engine import dtype_policy, naming
from vfw.frontends.tensorflow.keras.src.engine.dtype_policy import standardize_dtype, standardize_shape

_AGGREGATIONS = {"none": tf.VariableAggregation.NONE, "mean": tf.VariableAggregation.MEAN,
                 "sum": tf.VariableAggregation.SUM, "only_first_replica": tf.VariableAggregation.ONLY_FIRST_REPLICA}
_SYNCHRONIZATIONS = {"none": tf.VariableSynchronization.NONE, "on_read": tf.VariableSynchronization.ON_READ,
                     "on_write": tf.VariableSynchronization.ON_WRITE, "auto": tf.VariableSynchronization.AUTO}


# -- scopes -------------------------------------------------------------------------------------------------
class _Scopes(threading.local):
    def __init__(self):
        self.stateless = None
        self.symbolic = 0


_scopes = _Scopes()


def get_stateless_scope():
    """The open StatelessScope, or None."""
    return _scopes.stateless


def in_stateless_scope():
    """bool: whether a StatelessScope is open."""
    return _scopes.stateless is not None


def in_symbolic_scope():
    """bool: whether a symbolic (shape inference) run is in progress."""
    return _scopes.symbolic > 0


class StatelessScope:
    """Redirect variable state: reads of mapped variables see the mapped values, assigns are recorded here.

    Parameters
    ----------
    state_mapping : list of (Variable, value), optional
        Values the variables read as inside the scope.
    collect_losses : bool
        Whether ``add_loss`` inside the scope adds its losses here (``losses``) rather than dropping them.
    initialize_variables : bool
        Accepted (variables created inside are always initialized at once).
    """

    def __init__(self, state_mapping=None, collect_losses=False, initialize_variables=True):
        self.collect_losses = collect_losses
        self.losses = []
        self.state_mapping = {}
        for variable, value in state_mapping or ():
            if not isinstance(variable, Variable):
                raise ValueError("Invalid reference variable in StatelessScope: all keys in argument "
                                 "`mapping` must be Variable instances. Received instead: "
                                 f"{variable}")
            value = tf.convert_to_tensor(value)
            value = tf.cast(value, variable.dtype) if value.dtype.name != variable.dtype else value
            if value.shape != variable.shape:
                raise ValueError("Invalid variable value in StatelessScope: all values in argument `mapping` "
                                 "must be tensors with a shape that matches the corresponding variable shape. "
                                 f"For variable {variable}, received invalid value {value} with shape "
                                 f"{value.shape}.")
            self.state_mapping[id(variable)] = value
        self._saved = []

    def add_loss(self, loss):
        self.losses.append(loss)

    def add_update(self, update):
        variable, value = update
        self.state_mapping[id(variable)] = value

    def get_current_value(self, variable):
        """The value ``variable`` has in this scope (None when neither mapped nor assigned here)."""
        return self.state_mapping.get(id(variable))

    def __enter__(self):
        self._saved.append(_scopes.stateless)
        _scopes.stateless = self
        return self

    def __exit__(self, *exc):
        _scopes.stateless = self._saved.pop()
        return False


class SymbolicScope:
    """Marks a symbolic (shape inference) run: ``in_symbolic_scope()`` is True inside."""

    def __enter__(self):
        _scopes.symbolic += 1
        return self

    def __exit__(self, *exc):
        _scopes.symbolic -= 1
        return False


class _StateScopesSuspended:
    """Close the stateless and symbolic scopes for a while (variable initialization runs for real)."""

    def __enter__(self):
        self._saved = (_scopes.stateless, _scopes.symbolic)
        _scopes.stateless, _scopes.symbolic = None, 0

    def __exit__(self, *exc):
        _scopes.stateless, _scopes.symbolic = self._saved
        return False


# -- the variable ---------------------------------------------------------------------------------------
class Variable:
    """A Keras variable: a named, tracked tensor-valued state over a vfw ``tf.Variable``.

    Parameters
    ----------
    initializer : array-like, tensor, callable or str
        The initial value, or ``initializer(shape, dtype)`` (a string names a Keras initializer).
    shape : tuple, optional
        Required with a callable initializer; no None dims.
    dtype : str or dtype, optional
        Defaults to the initial value's dtype, or ``floatx()`` with a callable initializer.
    trainable : bool
    autocast : bool
        Whether layers computing in another float dtype read it cast to that dtype.
    aggregation, synchronization : str
        Validated and passed to the tf.Variable (one device).
    name : str, optional
        No ``/``; defaults to ``variable``, ``variable_1``...
    """

    def __init__(self, initializer, shape=None, dtype=None, trainable=True, autocast=True, aggregation="none",
                 synchronization="auto", name=None, layout=None, **kwargs):
        name = name or naming.auto_name(type(self).__name__)
        if not isinstance(name, str) or "/" in name:
            raise ValueError(f"Argument `name` must be a string and cannot contain character `/`. Received: "
                             f"name={name}")
        if aggregation not in (None, "none", "mean", "sum", "only_first_replica"):
            raise ValueError("Invalid value for argument `aggregation`. Expected one of `None`, `'none'`, `'mean'`, "
                             f"`'sum'`, `'only_first_replica'`. Received: aggregation={aggregation}")
        if synchronization not in (None, "none", "on_read", "on_write", "auto"):
            raise ValueError("Invalid value for argument `synchronization`. Expected one of `None`, `'none'`, "
                             f"`'on_read'`, `'on_write'`, `'auto'`. Received: synchronization={synchronization}")
        self._name = name
        parent = naming.current_path()
        self._path = f"{parent}/{name}" if parent else name
        self._trainable = bool(trainable)
        self._autocast = bool(autocast)
        self._aggregation = aggregation or "none"
        self._synchronization = synchronization or "none"
        self._regularizer = None
        self._constraint = None
        self._overwrite_with_gradient = False
        if isinstance(initializer, str):
            from vfw.frontends.tensorflow.keras.src import initializers

            initializer = initializers.get(initializer)
        if callable(initializer):
            if shape is None:
                raise ValueError("When creating a Variable from an initializer, the `shape` argument should be "
                                 f"specified. Received: initializer={initializer} and shape={shape}")
            shape = standardize_shape(shape)
            if None in shape:
                raise ValueError("Shapes used to initialize variables must be fully-defined (no `None` dimensions). "
                                 f"Received: shape={shape} for variable path='{self._path}'")
            self._dtype = standardize_dtype(dtype)
            with _StateScopesSuspended():
                value = initializer(shape, dtype=self._dtype)
        else:
            value = _as_tensor_of(initializer, None if dtype is None else standardize_dtype(dtype))
            self._dtype = standardize_dtype(value.dtype) if dtype is None else standardize_dtype(dtype)
        self._value = tf.Variable(value, dtype=self._dtype, trainable=self._trainable, name=name,
                                  aggregation=_AGGREGATIONS[self._aggregation],
                                  synchronization=_SYNCHRONIZATIONS[self._synchronization])
        self._shape = self._value.shape
        if shape is not None and callable(initializer) and tuple(self._shape.as_list()) != shape:
            raise ValueError(f"Initializer {initializer} returned a value of shape {self._shape}; the variable's "
                             f"shape is {shape}.")

    # -- reading -------------------------------------------------------------------------------------------
    def _as_tensor(self):
        """The value as a tf tensor (the tf.Variable read; cast under an AutocastScope; mapped in a StatelessScope)."""
        stateless = _scopes.stateless
        if stateless is not None:
            value = stateless.get_current_value(self)
            if value is not None:
                return self._maybe_autocast(value)
        return self._maybe_autocast(self._value._as_tensor())

    def _maybe_autocast(self, value):
        scope = dtype_policy.get_autocast_scope()
        if scope is not None and self._autocast:
            return scope.maybe_cast(value)
        return value

    @property
    def _tf_variable(self):
        """The tf.Variable holding the value (GradientTapes differentiate with respect to it)."""
        return self._value

    @property
    def value(self):
        """The tf.Variable (a tensor cast to the autocast dtype inside an AutocastScope)."""
        stateless = _scopes.stateless
        if stateless is not None and stateless.get_current_value(self) is not None:
            return self._as_tensor()
        scope = dtype_policy.get_autocast_scope()
        if scope is not None and self._autocast and scope.dtype not in (None, self._dtype) \
                and dtype_policy.is_float_dtype(self._dtype):
            return scope.maybe_cast(self._value._as_tensor())
        return self._value

    def numpy(self):
        """A numpy copy of the value."""
        return self._value.numpy()

    def __array__(self, dtype=None, copy=None):
        array = np.asarray(self._as_tensor().numpy())
        return array if dtype is None else array.astype(dtype)

    # -- writing -------------------------------------------------------------------------------------------
    def assign(self, value):
        """Set the value (converted and cast to the variable's dtype; same shape); returns it."""
        value = _as_tensor_of(value, self._dtype)
        if not _shapes_match(value.shape, self._shape):
            raise ValueError("The shape of the target variable and the shape of the target value in "
                             f"`variable.assign(value)` must match. variable.shape={self.shape}, Received: "
                             f"value.shape={value.shape}. Target variable: {self}")
        stateless = _scopes.stateless
        if stateless is not None:
            stateless.add_update((self, value))
        else:
            self._value.assign(value)
        return value

    def assign_add(self, value):
        """Add ``value`` (broadcast to the variable's shape) to the value; returns the new value."""
        return self.assign(self._as_stored() + _as_tensor_of(value, self._dtype))

    def assign_sub(self, value):
        """Subtract ``value`` (broadcast to the variable's shape) from the value; returns the new value."""
        return self.assign(self._as_stored() - _as_tensor_of(value, self._dtype))

    def _as_stored(self):
        """The current value in the variable's own dtype (no autocast)."""
        stateless = _scopes.stateless
        if stateless is not None:
            value = stateless.get_current_value(self)
            if value is not None:
                return value
        return self._value._as_tensor()

    # -- properties ----------------------------------------------------------------------------------------
    @property
    def name(self):
        """str: the variable's own name (``"kernel"``)."""
        return self._name

    @property
    def path(self):
        """str: the name under its layer's scopes (``"dense/kernel"``)."""
        return self._path

    @property
    def dtype(self):
        """str: the dtype (the autocast dtype inside an AutocastScope, for float variables)."""
        scope = dtype_policy.get_autocast_scope()
        if scope is not None and scope.dtype is not None and self._autocast and \
                dtype_policy.is_float_dtype(self._dtype):
            return scope.dtype
        return self._dtype

    @property
    def shape(self):
        """TensorShape: the shape."""
        return self._shape

    @property
    def ndim(self):
        """int: the number of dimensions."""
        return self._shape.rank

    @property
    def trainable(self):
        """bool: whether optimizers train it (settable)."""
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        self._trainable = bool(value)

    @property
    def aggregation(self):
        return self._aggregation

    @property
    def synchronization(self):
        return self._synchronization

    @property
    def handle(self):
        """The tf.Variable (vfw has no resource handles)."""
        return self._value

    @property
    def regularizer(self):
        """callable or None: the penalty ``regularizer(variable)`` added to its layer's ``losses``."""
        return self._regularizer

    @regularizer.setter
    def regularizer(self, value):
        if value is not None and not callable(value):
            raise ValueError("Invalid value for attribute `regularizer`. Expected a callable (such as a "
                             f"`keras.regularizers.Regularizer` instance) or `None`. Received: regularizer={value}")
        self._regularizer = value

    @property
    def constraint(self):
        """callable or None: the projection optimizers apply after each update."""
        return self._constraint

    @constraint.setter
    def constraint(self, value):
        if value is not None and not callable(value):
            raise ValueError("Invalid value for attribute `constraint`. Expected a callable (such as a "
                             f"`keras.constraints.Constraint` instance) or `None`. Received: constraint={value}")
        self._constraint = value

    @property
    def overwrite_with_gradient(self):
        """bool: whether optimizers overwrite the variable with its gradient instead of descending."""
        return self._overwrite_with_gradient

    @overwrite_with_gradient.setter
    def overwrite_with_gradient(self, value):
        if not isinstance(value, bool):
            raise TypeError(f"`overwrite_with_gradient` must be a boolean. Received: {value}")
        self._overwrite_with_gradient = value

    # -- Python protocol ------------------------------------------------------------------------------------
    def __repr__(self):
        try:
            value_text = f", value={np.array(self._value.numpy())}"
        except AttributeError:  # read inside a tf.function trace: the value is symbolic, Keras leaves it out
            value_text = ""
        return f"<Variable path={self._path}, shape={self._shape}, dtype={self.dtype}{value_text}>"

    __str__ = __repr__

    def __getitem__(self, key):
        return self._as_tensor()[key]

    def __bool__(self):
        raise TypeError("A Keras Variable cannot be used as a boolean.")

    def _scalar(self, convert):
        if self.ndim:
            raise TypeError(f"Only scalar arrays can be converted to Python scalars. Got: shape={self.shape}")
        return convert(self._as_tensor().numpy())

    def __int__(self):
        return self._scalar(int)

    def __float__(self):
        return self._scalar(float)

    def __pos__(self):
        return self._as_tensor()

    __hash__ = None  # elementwise __eq__, as Keras


def _forwarded(method_name):
    def method(self, *args):
        return getattr(self._as_tensor(), method_name)(*args)

    method.__name__ = method_name
    method.__doc__ = f"The tensor operator ``{method_name}`` on the value."
    return method


def _keras_operator(method_name, function_name, reflected):
    """The operator ``method_name`` as Keras defines it on variables: ``keras.ops.<function_name>`` of the value
    and the other operand (Keras' dtype promotion: a float32 variable times a float64 array is float64)."""

    def method(self, other):
        from vfw.frontends.tensorflow.keras.src import ops  # ops import this module

        function = getattr(ops, function_name)
        return function(other, self._as_tensor()) if reflected else function(self._as_tensor(), other)

    method.__name__ = method_name
    method.__doc__ = f"``keras.ops.{function_name}`` of the value and the other operand."
    return method


for _name in ("__neg__", "__abs__", "__invert__"):
    setattr(Variable, _name, _forwarded(_name))
for _names, _function_name in ((("__add__", "__radd__"), "add"), (("__sub__", "__rsub__"), "subtract"),
                               (("__mul__", "__rmul__"), "multiply"), (("__truediv__", "__rtruediv__"), "true_divide"),
                               (("__floordiv__", "__rfloordiv__"), "floor_divide"), (("__mod__", "__rmod__"), "mod"),
                               (("__pow__", "__rpow__"), "power"), (("__matmul__", "__rmatmul__"), "matmul"),
                               (("__and__", "__rand__"), "logical_and"), (("__or__", "__ror__"), "logical_or"),
                               (("__xor__", "__rxor__"), "logical_xor"), (("__eq__",), "equal"),
                               (("__ne__",), "not_equal"), (("__lt__",), "less"), (("__le__",), "less_equal"),
                               (("__gt__",), "greater"), (("__ge__",), "greater_equal")):
    for _reflected, _name in enumerate(_names):
        setattr(Variable, _name, _keras_operator(_name, _function_name, bool(_reflected)))


def _round(self, ndigits=None):
    from vfw.frontends.tensorflow.keras.src import ops

    return ops.round(self._as_tensor(), decimals=ndigits or 0)


Variable.__round__ = _round


# -- helpers -----------------------------------------------------------------------------------------------
def _as_tensor_of(value, dtype):
    """``value`` as a tf tensor, cast to ``dtype`` when given (Keras converts then casts, as on TF)."""
    if isinstance(value, Variable):
        value = value._as_stored()
    if not tf.is_tensor(value):
        if dtype is not None and (dtype == "bool" or dtype_policy.is_int_dtype(dtype)):
            return tf.cast(tf.convert_to_tensor(value), dtype)
        return tf.convert_to_tensor(value, dtype=dtype)
    value = tf.convert_to_tensor(value)
    if dtype is not None and value.dtype.name != dtype:
        value = tf.cast(value, dtype)
    return value


def _shapes_match(a, b):
    a, b = tuple(a), tuple(b)
    return len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b))


API = {"keras": ["Variable", "StatelessScope", "SymbolicScope"]}
