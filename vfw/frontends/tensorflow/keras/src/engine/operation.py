"""``keras.Operation``: a named callable that records graph nodes when called on KerasTensors.

Layers are operations; so are the symbolic forms of tensor operators on KerasTensors
(``x + 1`` in a functional model is an ``Add`` operation).  Contract for other modules (keras.ops):

- subclass ``Operation``, implement ``call(*args, **kwargs)`` with tf ops; calling an instance on
  KerasTensors returns KerasTensors and records a ``Node`` (the functional graph), calling it on
  tensors runs ``call``;
- ``compute_output_spec(*args, **kwargs)`` defaults to ``infer_output_spec(self.call, ...)``:
  ``call`` runs on zero tensors standing for the KerasTensors (twice, with two sizes for their
  None dims, so dims that follow them come out None; in the first run, traced, they show ``call``
  the KerasTensors' None dims as Keras' symbolic tensors do), inside a StatelessScope and
  SymbolicScope (no state changes).  Override it (or, for layers, ``compute_output_shape``) to skip the run.
- ``__new__`` records the constructor arguments: ``get_config()`` returns them when a subclass
  does not override it and they are all plain values (Keras' automatic configs).
"""

import inspect
import textwrap

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import _tensor, _traced_shapes, nest
from vfw.frontends.tensorflow._silenced_prints import silenced_prints
from vfw.frontends.tensorflow.keras.src.engine import naming
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor, Node, any_symbolic_tensors
from vfw.frontends.tensorflow.keras.src.engine.variables import StatelessScope, SymbolicScope

_PLAIN = (str, int, float, bool, type(None))
_PROBE_SIZES = (30, 42)  # what None dims become in the two probe runs (distinct, with small divisors)


def default(method):
    """Mark ``method`` as the base implementation (``is_default`` tells whether a subclass overrides it)."""
    method._keras_default = True
    return method


def is_default(method):
    """Whether ``method`` (bound or not) is a base implementation marked with ``default``."""
    return getattr(method, "_keras_default", False)


class Operation:
    """A named callable recording graph nodes on symbolic calls.

    Parameters
    ----------
    name : str, optional
        No ``/``; defaults to the class name in snake case, made unique.
    """

    def __new__(cls, *args, **kwargs):
        instance = super().__new__(cls)
        instance._auto_config, instance._auto_config_error = _constructor_config(cls, args, kwargs)
        return instance

    def __init__(self, name=None):
        if name is None:
            name = naming.auto_name(type(self).__name__)
        naming.check_name(name)
        self.name = name
        self._inbound_nodes = []
        self._outbound_nodes = []

    def __call__(self, *args, **kwargs):
        fn = self.symbolic_call if any_symbolic_tensors(args, kwargs) else self.call
        return call_reporting_arguments(fn, f"{type(self).__name__}.call()", args, kwargs)

    def symbolic_call(self, *args, **kwargs):
        """The output KerasTensors of a call on KerasTensors, recorded as a node of the graph."""
        outputs = self.compute_output_spec(*args, **kwargs)
        Node(self, args, kwargs, outputs)
        return outputs

    def call(self, *args, **kwargs):
        raise NotImplementedError

    def compute_output_spec(self, *args, **kwargs):
        """KerasTensors describing the outputs of ``call`` on the given (symbolic) arguments."""
        try:
            return infer_output_spec(self.call, *args, **kwargs)
        except Exception as e:
            cls = type(self).__name__
            raise _same_kind(e, f"Could not automatically infer the output shape / dtype of '{self.name}' (of type "
                             f"{cls}). Either the `{cls}.call()` method is incorrect, or you need to implement the "
                             f"`{cls}.compute_output_spec() / compute_output_shape()` method. Error encountered:\n\n"
                             f"{e}").with_traceback(e.__traceback__) from None

    # -- configs ---------------------------------------------------------------------------------------------
    @default
    def get_config(self):
        """The constructor arguments that rebuild the object (``name`` plus the recorded arguments)."""
        config = {"name": self.name}
        if not is_default(self.get_config):
            return config  # a subclass's get_config extends this
        if self._auto_config is None:
            reason = ("positional only or variadic positional arguments (e.g.,\n`*args`) to `__init__()`, which is "
                      "not supported by the\nautomatic config generation" if self._auto_config_error else
                      "non-serializable argument values in `__init__()`,\nand therefore the object must override "
                      "`get_config()` in\norder to be serializable")
            raise NotImplementedError(textwrap.dedent(f"""
                Object {type(self).__name__} was created by passing
                {reason}. Please implement `get_config()` or
                override `get_config()` and `from_config()` to make the object serializable."""))
        config.update(self._auto_config)
        parameters = inspect.signature(self.__init__).parameters
        takes_kwargs = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values())
        if "name" not in parameters and not takes_kwargs:
            config.pop("name", None)
        return config

    @classmethod
    def from_config(cls, config):
        """The object ``get_config`` describes (``cls(**config)``; a serialized dtype policy becomes its name)."""
        from vfw.frontends.tensorflow.keras.src.engine import dtype_policy

        if isinstance(config.get("dtype"), dict):
            config = dict(config, dtype=dtype_policy.deserialize(config["dtype"]).name)
        try:
            return cls(**config)
        except Exception as e:
            raise TypeError(f"Error when deserializing class '{cls.__name__}' using config={config}.\n\n"
                            f"Exception encountered: {e}") from None

    def __repr__(self):
        return f"<Operation name={self.name}>"

    # -- graph -------------------------------------------------------------------------------------------
    @property
    def input(self):
        """The input tensor(s) of the first call on KerasTensors."""
        return self._node_attribute(0, "input_tensors", "input")

    @property
    def output(self):
        """The output tensor(s) of the first call on KerasTensors."""
        return self._node_attribute(0, "output_tensors", "output")

    def _node_attribute(self, index, attribute, what):
        if not self._inbound_nodes:
            raise AttributeError(f"The layer {self.name} has never been called and thus has no defined {what}.")
        if len(self._inbound_nodes) <= index:
            raise ValueError(f"Asked to get {what} at node {index}, but the operation has only "
                             f"{len(self._inbound_nodes)} inbound nodes.")
        values = getattr(self._inbound_nodes[index], attribute)
        return values[0] if isinstance(values, list) and len(values) == 1 else values

    def _obj_type(self):
        return "Operation"


def _constructor_config(cls, args, kwargs):
    """``(config, error)``: the plain-valued constructor arguments (None when unusable) and whether
    positional-only/variadic arguments made them so."""
    signature = inspect.signature(cls.__init__)
    try:
        bound = signature.bind(None, *args, **kwargs)
    except TypeError:
        return None, False
    parameters = list(signature.parameters.values())
    if any(p.kind is inspect.Parameter.POSITIONAL_ONLY for p in parameters[1:]):
        return None, True
    bound.apply_defaults()
    config = {}
    for p in parameters[1:]:
        value = bound.arguments.get(p.name)
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            config.update(value or {})
        elif p.kind is inspect.Parameter.VAR_POSITIONAL:
            if value:
                return None, True
        else:
            config[p.name] = value
    config.pop("name", None)
    try:
        if not all(isinstance(v, _PLAIN) for v in nest.flatten(config)):
            return None, False
    except TypeError:
        return None, False
    return config, False


# -- errors in calls -------------------------------------------------------------------------------------------
def call_reporting_arguments(fn, object_name, args, kwargs):
    """``fn(*args, **kwargs)``; an exception is re-raised (same type) with Keras' report of the arguments.

    Only the innermost failing call adds its report, and only while traceback filtering is on
    (``keras.config.is_traceback_filtering_enabled()``, the default).
    """
    try:
        return fn(*args, **kwargs)
    except Exception as e:
        if hasattr(e, "_keras_call_info_injected"):
            raise
        from vfw.frontends.tensorflow.keras.src import config

        if not config.is_traceback_filtering_enabled():
            raise
        reported = _with_arguments(e, fn, object_name, args, kwargs)
        if reported is None:
            raise
        raise reported.with_traceback(e.__traceback__) from None


def _with_arguments(error, fn, object_name, args, kwargs):
    signature = inspect.signature(fn)
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:
        return None
    lines = []
    for parameter in signature.parameters.values():
        if parameter.name in bound.arguments:
            value = nest.map_structure(_argument_text, bound.arguments[parameter.name])
        else:
            value = parameter.default
        lines.append(f"  \u2022 {parameter.name}={value}")
    if not lines:
        return error
    if isinstance(error, tf.errors.OpError):
        message = error.message
    else:
        message = error.args[0] if error.args else ""
    message = (f"Exception encountered when calling {object_name}.\n\n\x1b[1m{message}\x1b[0m\n\n"
               f"Arguments received by {object_name}:\n" + "\n".join(lines))
    reported = _same_kind(error, message)
    reported._keras_call_info_injected = True
    return reported


def _same_kind(error, message):
    """An exception of ``error``'s type carrying ``message`` (RuntimeError when that type cannot take one)."""
    if isinstance(error, tf.errors.OpError):
        return type(error)(error.node_def, error.op, message)
    try:
        return type(error)(message)
    except TypeError:
        return RuntimeError(message)


def _argument_text(value):
    if tf.is_tensor(value):
        from vfw.frontends.tensorflow.keras.src.engine.dtype_policy import standardize_dtype

        return f"tf.Tensor(shape={value.shape}, dtype={standardize_dtype(value.dtype)})"
    return repr(value)


# -- shape inference by running on zeros ---------------------------------------------------------------------
def infer_output_spec(fn, *args, **kwargs):
    """KerasTensors for the outputs of ``fn`` called on the given arguments (KerasTensors in them become zeros).

    ``fn`` runs once when no KerasTensor has a None dim, else twice with different sizes for the
    None dims; an output dim that differs between the runs is None.  The runs change no variable
    and add no loss (StatelessScope, SymbolicScope), and the second leaves the name counters as the
    first left them and prints nothing: layers ``fn`` makes (``keras.layers.add`` inside a ``call``)
    take names once and ``print`` calls show once, as in Keras' single symbolic run.  Non-tensor
    outputs are returned as they are.
    """
    flat = nest.flatten((args, kwargs))
    symbolic = [x for x in flat if isinstance(x, KerasTensor)]
    has_none = any(d is None for x in symbolic for d in x.shape)
    runs = [_shown_probe(fn, flat, (args, kwargs)) if has_none else _probe(fn, flat, (args, kwargs), _PROBE_SIZES[0])]
    if has_none:
        with naming.preserved_counters(), silenced_prints():  # Keras runs call() once: prints show once
            runs += [_probe(fn, flat, (args, kwargs), size) for size in _PROBE_SIZES[1:]]
    first = nest.flatten(runs[0])
    others = [nest.flatten(r) for r in runs[1:]]
    specs = []
    for i, out in enumerate(first):
        if not tf.is_tensor(out):
            specs.append(out)
            continue
        shape = list(out.shape)
        for other in others:
            shape = [a if a == b else None for a, b in zip(shape, other[i].shape)]
        specs.append(KerasTensor(tuple(shape), dtype=out.dtype.name))
    return nest.pack_sequence_as(runs[0], specs)


def _shown_probe(fn, flat, structure):
    """The first :func:`_probe`, whose zeros show ``fn`` the KerasTensors' shapes (None dims), as Keras' symbolic
    tensors do (``print(x.shape)`` in a layer's ``call``).  Where ``fn`` cannot run on such tensors (code reading
    a None dim as a number: some of vfw's own ops still do, where Keras computes the size in the graph) it runs on
    the plain zeros, as before (its prints silenced: the failed run made them)."""
    saved = naming.counters()
    try:
        return _probe(fn, flat, structure, _PROBE_SIZES[0], shown=True)
    except Exception:
        naming.restore_counters(saved)
        with silenced_prints():
            return _probe(fn, flat, structure, _PROBE_SIZES[0])


def _probe(fn, flat, structure, size, shown=False):
    """``fn``'s outputs (tf tensors) on zeros standing for the KerasTensors, their None dims ``size``; ``shown``:
    traced, the zeros showing the KerasTensors' static shapes (see :func:`_shown_probe`)."""
    concrete = [zeros_like_spec(x, size) if isinstance(x, KerasTensor) else x for x in flat]
    args, kwargs = nest.pack_sequence_as(structure, concrete)
    with StatelessScope(), SymbolicScope():
        if not shown:
            return fn(*args, **kwargs)
        declared = [(c, tuple(x.shape)) for c, x in zip(concrete, flat) if isinstance(x, KerasTensor)]
        declared += [(c._keras_mask, tuple(x._keras_mask.shape)) for c, x in zip(concrete, flat)
                     if isinstance(x, KerasTensor) and isinstance(getattr(x, "_keras_mask", None), KerasTensor)]
        with _traced_shapes.showing_static_shapes("keras_symbolic_call", declared):
            result = fn(*args, **kwargs)
        _tensor.as_eager([t for t in nest.flatten(result) if t.__class__ is _tensor.SymbolicTensor])
        return result


def zeros_like_spec(x, size):
    """A zero tensor with ``x``'s dtype and shape (None dims ``size``), carrying a zero mask when ``x`` has one."""
    shape = [size if d is None else d for d in x.shape]
    value = tf.zeros(shape, dtype=x.dtype) if x.dtype != "string" else tf.fill(shape, "")
    mask = getattr(x, "_keras_mask", None)
    if isinstance(mask, KerasTensor):
        value._keras_mask = zeros_like_spec(mask, size)
    return value


API = {"keras": ["Operation"]}
