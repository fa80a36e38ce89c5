"""``keras.Operation``: a named callable that records graph nodes when called on KerasTensors.

Layers are operations; so are the symbolic forms of tensor operators on KerasTensors
(``x + 1`` in a functional model is an ``Add`` operation).  Contract for other modules (keras.ops):

- subclass ``Operation``, implement ``call(*args, **kwargs)`` with tf ops; calling an instance on
  KerasTensors returns KerasTensors and records a ``Node`` (the functional graph), calling it on
  tensors runs ``call``;
- ``compute_output_spec(*args, **kwargs)`` defaults to ``infer_output_spec(self.call, ...)``:
  ``call`` runs inside a scratch trace on zero tensors standing for the KerasTensors, typed
  SymbolicTensor with the KerasTensors' static shapes (``x.shape[0]`` is None, as in Keras), twice
  when they have None dims (with two sizes for them, so dims that follow them come out None), inside
  a StatelessScope and SymbolicScope (no state changes).  Override it (or, for layers,
  ``compute_output_shape``) to skip the run.
- ``__new__`` records the constructor arguments: ``get_config()`` returns them when a subclass
  does not override it and they are all plain values (Keras' automatic configs).
"""

import contextlib
import inspect
import textwrap

import vfw.frontends.tensorflow as tf
from vfw.core.graph.subgraph import SubgraphTrace
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _function, _tensor, _traced_shapes, nest
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

    _probes_symbolically = True  # False: ``call`` is library code run on concrete zeros (see infer_output_spec)

    def compute_output_spec(self, *args, **kwargs):
        """KerasTensors describing the outputs of ``call`` on the given (symbolic) arguments."""
        try:
            return infer_output_spec(self.call, *args, _symbolic=self._probes_symbolically, **kwargs)
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
def infer_output_spec(fn, *args, _symbolic=True, **kwargs):
    """KerasTensors for the outputs of ``fn`` called on the given arguments (KerasTensors in them become zeros).

    As Keras runs ``call`` in a scratch graph on placeholders, ``fn`` runs inside a trace where each zero
    tensor standing for a KerasTensor is a SymbolicTensor whose static shape is the KerasTensor's (``x.shape[0]``
    is None for a batch dim): code reading shapes sees what it sees in Keras, and a tensor used as a Python
    ``bool`` raises.  The output shapes are the static shapes the trace infers; since vfw computes some shapes
    in Python from the traced sizes (``tf.reshape(x, [-1])``), ``fn`` runs twice when a KerasTensor has a None
    dim, with different sizes for those dims, and an output dim is None where the runs differ or where no run
    knows it statically (a third run tells the dims vfw's shape inference loses: see ``_undecided``).
    The runs change no variable and add no loss (StatelessScope, SymbolicScope, the
    trace's writes undone), and the second leaves the name counters as the first left them: layers ``fn``
    makes (``keras.layers.add`` inside a ``call``) take names once, as in Keras' single symbolic run.
    Non-tensor outputs are returned as they are.  ``_symbolic=False`` runs ``fn`` eagerly on the zeros instead
    (vfw's own keras.ops, whose output specs Keras computes without running them, read sizes in Python).
    """
    flat = nest.flatten((args, kwargs))
    has_none = any(d is None for x in flat if isinstance(x, KerasTensor) for d in x.shape)
    mode = _symbolic and "relaxed"
    runs = [_probe(fn, flat, (args, kwargs), _PROBE_SIZES[0], mode)]
    if has_none:
        with naming.preserved_counters():
            runs += [_probe(fn, flat, (args, kwargs), size, mode) for size in _PROBE_SIZES[1:]]
            if mode and _undecided(runs):
                runs.append(_probe(fn, flat, (args, kwargs), _PROBE_SIZES[0], "declared"))
    result = runs[0][0]
    specs = []
    for i, out in enumerate(nest.flatten(result)):
        if not tf.is_tensor(out):
            specs.append(out)
            continue
        shape = _merged_shape([shapes[i] for _, shapes in runs])
        specs.append(KerasTensor(shape, dtype=out.dtype.name))
    return nest.pack_sequence_as(result, specs)


def _undecided(runs):
    """Whether an output dim has the same size in every run but no run knows it statically: a dim that follows no
    None dim of the inputs but passed an op without shape inference in vfw (``tf.cond``'s If), or a data-dependent
    size.  A run whose stand-ins have their None dims declared only (not varying) tells them apart."""
    for i, observed in enumerate(runs[0][1]):
        if observed is not None:
            column = [shapes[i] for _, shapes in runs]
            if _merged_shape(column) != _merged_shape([(traced, None) for traced, _ in column]):
                return True
    return False


def _merged_shape(observed):
    """The output shape from each run's ``(traced shape, static shape)``: a dim is known when every run traced
    the same size and some run knows it statically (an unknown dim may coincide with a probe size)."""
    traced = [t for t, _ in observed]
    static = [s for _, s in observed if s is not None and len(s) == len(traced[0])]
    dims = []
    for k, size in enumerate(traced[0]):
        same = all(len(t) == len(traced[0]) and t[k] == size for t in traced)
        known = not static or any(s[k] is not None for s in static)
        dims.append(size if same and known else None)
    return tuple(dims)


def _probe(fn, flat, structure, size, symbolic):
    """``fn``'s outputs on zeros standing for the KerasTensors (None dims ``size``), with each tensor output's
    ``(traced shape, static shape)`` (None for other outputs; static shapes None when not ``symbolic``).
    ``symbolic``: False (an eager run), ``"declared"`` or ``"relaxed"`` (see ``_scratch_graph``)."""
    stand_ins = []
    concrete = [_stand_in(x, size, stand_ins) if isinstance(x, KerasTensor) else x for x in flat]
    args, kwargs = nest.pack_sequence_as(structure, concrete)
    scratch = _scratch_graph(stand_ins, symbolic == "relaxed") if symbolic else contextlib.nullcontext()
    with StatelessScope(), SymbolicScope(), scratch:
        try:
            result = fn(*args, **kwargs)
        except tf.errors.InvalidArgumentError as e:
            raise _function.graph_error(e) from None  # shape and dtype mismatches: TF's errors building a graph
        shapes = [_observed_shape(out, symbolic) if tf.is_tensor(out) else None for out in nest.flatten(result)]
    return result, shapes


def _observed_shape(t, symbolic):
    if isinstance(t, CoreTensor):
        return tuple(t.array.shape), _traced_shapes.shown_shape(t) if symbolic else None
    return tuple(t.shape), None


@contextlib.contextmanager
def _scratch_graph(stand_ins, relaxed):
    """A trace whose inputs are ``stand_ins`` (``(tensor, KerasTensor)`` pairs), each declared with the
    KerasTensor's static shape and typed SymbolicTensor while the trace is open.  ``relaxed``: their None dims
    also vary for the trace, so sizes computed from them (``tf.zeros([tf.shape(x)[0], 5])``) are None too, as in
    Keras; ops whose shape inference vfw lacks (``tf.cond``'s If) then lose every dim, which a declared-only run
    keeps (the dims that do not follow the stand-ins' sizes)."""
    with SubgraphTrace("scratch_graph", None) as trace, _function.building_graph():
        for t, spec in stand_ins:
            trace.add_input(t)
            _traced_shapes.declare_shape(t, spec.shape)
            if relaxed and None in spec.shape:
                trace.relax_shape(t, spec.shape)
        retyped = _tensor.as_symbolic([t for t, _ in stand_ins])
        try:
            yield trace
        finally:
            _tensor.as_eager(retyped)


def _stand_in(x, size, stand_ins):
    """A zero tensor with ``x``'s dtype and shape (None dims ``size``), carrying a zero mask when ``x`` has one;
    appends ``(tensor, x)`` for it (and for its mask) to ``stand_ins``.  Each is a new array: the trace's inputs
    must not share memory."""
    shape = [size if d is None else d for d in x.shape]
    value = tf.zeros(shape, dtype=x.dtype) if x.dtype != "string" else tf.fill(shape, "")
    stand_ins.append((value, x))
    mask = getattr(x, "_keras_mask", None)
    if isinstance(mask, KerasTensor):
        value._keras_mask = _stand_in(mask, size, stand_ins)
    return value


API = {"keras": ["Operation"]}
