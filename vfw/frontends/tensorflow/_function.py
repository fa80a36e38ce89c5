"""tf.function: Python functions traced into engine graphs (``vfw.core.graph``) and run as compiled graphs.

How it maps onto the engine, and where it differs from TensorFlow 2.21:

- **Traces.** The engine traces concretely: the first call with a new input signature runs the
  Python function eagerly while every op is recorded (that run is the call's result), and later
  calls with that signature run the compiled graph, so Python side effects (``print``, appending
  to a list) happen while tracing only, as in TF.  ``experimental_get_tracing_count()`` follows
  TF's rules: tensor arguments by shape and dtype (numpy arrays as tensors, variables by shape
  and dtype), Python values by value (equal numbers such as ``2`` and ``2.0`` select the trace
  of the first one passed, which the function then sees), nested lists/tuples/dicts by structure;
  ``reduce_retracing=True`` generalizes a retraced shape to the most specific shape covering
  the earlier traces (``(None, 2)``...), and an ``input_signature`` (``tf.TensorSpec`` with
  ``None`` dims) admits every matching call in one trace.  Since vfw's graphs are compiled for
  concrete shapes, a call whose shapes are new to the engine (a new batch size under a
  ``None`` dim) is traced again by the engine: results are the same, the tracing count is TF's,
  but the Python function runs once more: its ``print`` calls are silenced then (``_silenced_prints``),
  its other side effects repeat.
- **Variables** may be created on the first trace only: a variable created by a later trace
  raises TF's ValueError (through ``tf.variable_creator_scope``).  As TF, a function that
  created variables is traced a second time (which raises the error at once for a function
  that creates them on every call): vfw runs it once more under a trace whose writes are
  undone (Python side effects run, as in TF's second trace).  Variables read inside are
  captures (read by reference on every run), their ``assign``\\s state updates of the graph;
  a variable passed as an argument is traced once per variable by the engine (TF's count
  follows its shape and dtype), and a variable returned is returned as its value.
- **Gradients.** A GradientTape recording around a call runs the Python function eagerly,
  so the tape records its ops: values and gradients are those of the traced function (TF
  differentiates the call), and Python side effects run again on such calls.  A tape inside
  the function (the usual training step) is traced into the graph with its gradient and the
  optimizer's updates.
- **Control flow** over tensors: ``tf.cond``/``tf.while_loop``/``tf.case``/``tf.switch_case``
  become ``If``/``Loop`` ops.  With ``autograph=True`` (the default) the traced Python function
  is first converted by AutoGraph (``_autograph_*``): Python ``if``/``while``/``for``, ``and``/
  ``or``/``not`` and conditional expressions on tensors become those ops, Python control flow
  over Python values still unrolls while tracing, as in TF, and user functions it calls are
  converted too.  In code left unconverted (``autograph=False``, library code, lambdas), a
  tensor used as a Python ``bool`` while tracing raises ``OperatorNotAllowedInGraphError``
  instead of freezing the traced branch, iterating over a tensor unrolls over its first dim
  (a dim that follows values raises TF's error), and ``int()``/``float()`` of a tensor computed
  from the arguments raise TF's TypeError; ``tensor.numpy()`` raises TF's AttributeError.
- **Values read from tensors** (``tf.zeros([n])``, ``tf.reshape(x, [n, -1])``...) follow each
  call's values: the graph computes such shapes (see ``_traced_shapes``).
- **Datasets and iterators.** Their trace type is their element spec, as TF's.  ``next(iterator)``,
  ``get_next()``, ``get_next_as_optional()`` and converted ``for`` loops over datasets are ops of the
  graph reading at every call (``data._graph_reads``, ``_autograph_datasets``); an iterator argument
  enters the engine by spec and position, so one graph reads each call's iterator
  (``_function_arguments``), while the engine traces each dataset argument again.
- ``get_concrete_function`` runs the function once as TF traces it (example tensors showing the
  signature's static shapes, writes undone): its prints and output specs are TF's; the engine's
  trace at the first call prints nothing.
- ``jit_compile`` and the ``experimental_*`` options are accepted and ignored.
"""

import contextlib
import functools
import inspect
import re
import threading
import weakref

from vfw.core.errors import VfwError
from vfw.core.graph import function as _engine_function
from vfw.core.graph.subgraph import SubgraphTrace
from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import (
    _dispatch,
    _symbolic_names,
    _tape_state,
    _tensor,
    _traced_shapes,
    _variables,
    errors,
    nest,
)
from vfw.frontends.tensorflow._concrete_function import (
    ConcreteFunction,
    as_spec,
    describe_args,
    example,
    result_as_tensor,
)
from vfw.frontends.tensorflow._function_arguments import as_argument as _as_argument
from vfw.frontends.tensorflow._function_arguments import iterator_argument
from vfw.frontends.tensorflow._function_arguments import parameter as _parameter
from vfw.frontends.tensorflow._function_arguments import unwrapped as _unwrapped
from vfw.frontends.tensorflow._function_introspection import FunctionIntrospection
from vfw.frontends.tensorflow._silenced_prints import silenced_prints
from vfw.frontends.tensorflow._tensor import Tensor
from vfw.frontends.tensorflow._tensor_spec import TensorSpec, shape_within, spec_of
from vfw.frontends.tensorflow._trace_types import common, covers, trace_key

_run_eagerly = [False]


def run_functions_eagerly(run_eagerly):
    """Make every tf.function call run its Python function eagerly (for debugging), or stop."""
    _run_eagerly[0] = bool(run_eagerly)


def functions_run_eagerly():
    """bool: whether tf.function calls run eagerly (:func:`run_functions_eagerly`)."""
    return _run_eagerly[0]


# -- variable creation while tracing ---------------------------------------------------------------
class _TraceState(threading.local):
    def __init__(self):
        self.depth = 0  # tf.function traces in progress in this thread


_trace_state = _TraceState()


def in_function_trace():
    """bool: whether a tf.function is being traced in this thread."""
    return _trace_state.depth > 0


@contextlib.contextmanager
def reading_datasets():
    """Let a converted ``for`` loop read a dataset's elements while a tf.function is traced (it unrolls over them:
    the graph replays the elements read, see ``_autograph_control``)."""
    depth, _trace_state.depth = _trace_state.depth, 0
    try:
        yield
    finally:
        _trace_state.depth = depth


def _variable_creator(may_create, created):
    """A ``tf.variable_creator_scope`` creator refusing variables when ``may_create`` is false (TF's ValueError),
    and noting in ``created`` that the trace made one."""
    def creator(next_creator, **kwargs):
        if not may_create:
            raise ValueError("tf.function only supports singleton tf.Variables created on the first call. Make sure "
                             "the tf.Variable is only created once or created outside tf.function. See "
                             "https://www.tensorflow.org/guide/function#creating_tfvariables for more information.")
        created.append(True)
        return next_creator(**kwargs)
    return creator


def graph_error(e):
    """The error TF raises for ``e`` (an op's InvalidArgumentError) while it traces a function.

    TF checks static shapes and dtypes when it builds the graph: a shape mismatch is a ValueError,
    operands of different dtypes a TypeError.  Errors that depend on values (an index out of range)
    come when the graph runs: ``e`` itself.  An error from an engine op tells its kind by its
    cause; one raised by a frontend's own check, by its message.
    """
    if getattr(e, "at_run_time", False):
        return e
    message = e.message if hasattr(e, "message") else str(e)
    cause = e.__context__
    if "(zero-based) was expected to be a" in message:
        return TypeError(message)
    # Engine shape errors (and numpy's, on a frontend's fast path), and frontends' own checks of shapes (TF's
    # eager messages name shapes or dimensions); index errors are IndexErrors.
    if isinstance(cause, ValueError) or (cause is None and _SHAPE_WORDS.search(message)):
        return ValueError(message)
    return e


_SHAPE_WORDS = re.compile(r"shape|dimension|incompatible", re.IGNORECASE)


def run_time_error(message, tf_op):
    """An InvalidArgumentError that TF raises when the graph runs, also while tracing (see :func:`graph_error`)."""
    error = _dispatch.op_error(message, tf_op)
    error.at_run_time = True
    return error


_ITERATOR_KINDS = ("iterator", "distributed_iterator")


# -- tf.function -----------------------------------------------------------------------------------
class Function(FunctionIntrospection):
    """A Python function compiled to graphs per input signature (what ``tf.function`` returns).

    Parameters
    ----------
    python_function : callable
    input_signature : sequence of (nested) TensorSpec, optional
        When given, every call must pass tensors matching it, and one trace serves them all.
    reduce_retracing : bool
        Generalize shapes on retracing (see the module docstring).
    name : str, optional
    """

    _declares_relaxed_shapes = True  # False: relaxed traces keep the call's shapes (Keras' own step functions)

    def __init__(self, python_function, input_signature=None, reduce_retracing=False, name=None, _options=None):
        functools.update_wrapper(self, python_function)
        self._python_function = python_function
        self._converted = None  # the function AutoGraph converted, made at the first trace
        self._input_signature = None if input_signature is None else tuple(input_signature)
        self._reduce_retracing = bool(reduce_retracing)
        self._name = name or getattr(python_function, "__name__", "function")
        self._options = dict(_options or {})
        try:
            self._signature = inspect.signature(python_function)
        except (TypeError, ValueError):
            self._signature = None
        params = [] if self._signature is None else list(self._signature.parameters.values())
        # A call with exactly the positional parameters needs no binding (the fast path).
        self._n_positional = len(params) if params and all(
            p.kind == p.POSITIONAL_OR_KEYWORD and p.default is p.empty for p in params) else -1
        if self._input_signature is not None:
            self._check_input_signature(params)
        self._traced = {}  # TF trace key -> list of traced shape tuples
        self._seen = set()  # (key, shapes) already covered by a trace
        self._fast = set()  # shapes and dtypes of all-tensor positional calls already covered
        self._literals = {}  # Python numbers passed so far: the first of each value (see _literal)
        self._iterator_slots = {}  # (position, type, element spec) -> the slot of the iterators passed there
        self._count = 0
        self._trace_templates = []  # (args, kwargs) of each counted trace, TensorSpecs for tensors
        self._engine_traced = False
        self._verify = False
        self._python_ran = set()  # the counted traces (see _note_signature) the Python function has run for
        self._call_trace = None  # the counted trace of the call being run
        self._engine = _engine_function(self._trace_body)
        self._instances = weakref.WeakKeyDictionary()
        self._concrete = {}

    def _check_input_signature(self, params):
        for spec in nest.flatten(self._input_signature):
            if not isinstance(spec, TensorSpec):
                raise TypeError(f"input_signature must be a possibly nested sequence of TensorSpec objects, got "
                                f"invalid args {self._input_signature!r} with types "
                                f"({', '.join(type(s).__name__ for s in self._input_signature)}).")
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if len(self._input_signature) > len(positional) and not any(p.kind == p.VAR_POSITIONAL for p in params):
            raise TypeError(f"input_signature contains {len(self._input_signature)} items, but the function takes "
                            f"{len(positional)} positional arguments")

    # -- TF's public surface ---------------------------------------------------------------------
    def _traced_function(self):
        """The function the traces run: converted by AutoGraph unless ``autograph=False``."""
        if self._converted is None:
            self._converted = self._python_function
            if self._options.get("autograph", True):
                from vfw.frontends.tensorflow._autograph_runtime import convert

                self._converted = convert(self._python_function)
        return self._converted

    @property
    def python_function(self):
        """The Python function this tf.function wraps."""
        return self._python_function

    @property
    def input_signature(self):
        """tuple of TensorSpec or None: the input signature given."""
        return self._input_signature

    @property
    def name(self):
        """str: the function's name."""
        return self._name

    def experimental_get_tracing_count(self):
        """int: how many times TF would have traced this function so far."""
        return self._count

    def __repr__(self):
        return f"<vfw.tensorflow.Function {self._name} at 0x{id(self):x}>"

    def __get__(self, instance, owner=None):
        # A decorated method: one tf.function per instance (its own traces and count), as TF.
        if instance is None:
            return self
        try:
            bound = self._instances.get(instance)
        except TypeError:  # instances that cannot be weakly referenced: no caching
            bound = None
        if bound is None:
            bound = Function(_weak_method(self._traced_function(), instance), self._input_signature,
                             self._reduce_retracing, self._name, self._options)
            try:
                self._instances[instance] = bound
            except TypeError:
                pass
        return bound

    # -- calls -----------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if _run_eagerly[0]:
            return self._python_function(*args, **kwargs)
        if not kwargs and len(args) == self._n_positional and self._input_signature is None:
            for a in args:
                if a.__class__ is not Tensor:
                    break
            else:
                key = tuple([(a.array.shape, a.array.dtype) for a in args])
                if key in self._fast and not _tracing and not _tape_state.ACTIVE:
                    return self._run(args, {})  # the common call: tensors of a traced signature
        args, kwargs = self._canonical(args, kwargs)
        trace = self._note_signature(args, kwargs)
        if (_tracing and current_trace() is not None) or _tape_state.recording():
            # Inside another trace: inlined into its graph; under a recording tape: eagerly, so the tape sees the ops.
            return self._traced_run(args, kwargs, inline=True)
        return self._run(args, kwargs, trace)

    def _run(self, args, kwargs, trace=None):
        self._call_trace = trace
        try:
            result = self._engine(*args, **kwargs)
        except VfwError as e:  # a kernel failing inside the graph: TF's error for a failing function call
            raise _dispatch.translate(e, f"__inference_{self._name}") from None
        finally:
            self._call_trace = None
        if self._verify:
            # TF traces a function that created variables again, refusing variables that trace creates (a
            # function making them on every call); vfw runs it once more, its effects undone.
            self._verify = False
            with SubgraphTrace(f"{self._name}_retrace", None):
                self._traced_run(args, kwargs, inline=True)
        return result

    def _bound(self, args, kwargs):
        """``(args, kwargs)`` bound to the function's parameters: keywords to positions, defaults filled in."""
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"Binding inputs to tf.function failed due to `{e}`. "
                            f"{describe_args(args, kwargs)}.") from None
        bound.apply_defaults()
        return bound.args, bound.kwargs

    def _canonical(self, args, kwargs):
        """The call's arguments bound to the parameters (keywords to positions), numpy arrays as tensors,
        and checked against the input signature."""
        if self._signature is not None and (kwargs or len(args) != self._n_positional):
            args, kwargs = self._bound(args, kwargs)
        if self._input_signature is not None:
            return self._conform(args, kwargs), {}
        iterators = []  # the iterators of this call, in order (see _function_arguments)

        def literal(x):
            return self._literal(x, iterators)
        return nest.map_structure(literal, args), nest.map_structure(literal, kwargs)

    def _literal(self, x, iterators):
        """An argument as the trace caches see it (``_as_argument``), a Python number replaced by the first equal one
        passed before: TF selects a trace by a literal's value, so ``2``, ``2.0`` (and ``1``, ``True``) share one.
        An iterator: an argument equal for all iterators of its element spec, whose graph reads the call's."""
        if x.__class__ is int or x.__class__ is float or x.__class__ is bool:
            return self._literals.setdefault(x, x)
        if getattr(type(x), "_tf_trace_kind", None) in _ITERATOR_KINDS:
            iterators.append(x)
            return iterator_argument(self._iterator_slots, x, len(iterators))
        return _as_argument(x)

    def _conform(self, args, kwargs):
        """``args`` as tensors matching the input signature (TF's TypeError otherwise)."""
        signature = self._input_signature
        if kwargs or len(args) != len(signature):
            raise TypeError(f"Binding inputs to tf.function failed due to `too many positional arguments`. "
                            f"{describe_args(args, kwargs)} for signature: {self._signature_text()}.")
        leaves = []
        for spec, value in zip(nest.flatten(signature), _flatten_like(signature, args)):
            tensor = value
            if not isinstance(value, CoreTensor) or hasattr(value, "_as_tensor"):
                try:
                    tensor = _dispatch.convert_to_tensor(value, dtype_hint=spec.dtype)
                except (TypeError, ValueError):
                    tensor = None
            got = spec_of(tensor) if tensor is not None else None
            if got is None or got.dtype != spec.dtype or not shape_within(got.shape, spec.shape):
                shown = repr(TensorSpec(got.shape, got.dtype)) if got is not None else repr(value)
                raise TypeError(f"Binding inputs to tf.function failed due to `Can not cast {shown} to "
                                f"{TensorSpec(spec.shape, spec.dtype)!r}`. {describe_args(args, kwargs)} for "
                                f"signature: {self._signature_text()}.")
            leaves.append(_dispatch.as_tf(tensor))
        return tuple(nest.pack_sequence_as(signature, leaves))

    def _signature_text(self):
        names = [] if self._signature is None else list(self._signature.parameters)
        parts = [f"{names[i] if i < len(names) else f'arg{i}'}: {spec!r}" for i, spec in
                 enumerate(self._input_signature)]
        return f"({', '.join(parts)})"

    def _note_signature(self, args, kwargs):
        """Count a TF trace if no earlier one covers this call (generalizing shapes with reduce_retracing); returns
        the counted trace covering the call, as ``(key, shapes)``."""
        shapes = []
        if self._input_signature is not None:
            key = trace_key(self._input_signature, shapes)
            shapes = tuple(shapes)
            if not self._traced:
                self._traced[key] = [shapes]
                self._count += 1
            return key, shapes
        key = trace_key((args, kwargs), shapes)
        shapes = tuple(shapes)
        traced = self._traced.setdefault(key, [])
        covering = next((general for general in traced if all(covers(g, s) for g, s in zip(general, shapes))), None)
        if (key, shapes) in self._seen:
            return key, covering
        if covering is None:
            covering = shapes
            if self._reduce_retracing:
                for general in traced:
                    covering = tuple([common(a, b) for a, b in zip(covering, general)])
            traced.append(covering)
            self._count += 1
            self._trace_templates.append(nest.map_structure(as_spec, (args, kwargs)))
        if not kwargs and all(isinstance(a, Tensor) for a in args):
            self._fast.add(tuple([(a.array.shape, a.array.dtype) for a in args]))
        self._seen.add((key, shapes))
        return key, covering

    def _trace_body(self, *args, **kwargs):
        """What the engine traces: the Python function, with its results' Python values as tensors (as TF).
        The argument tensors are SymbolicTensors while it runs, as TF's placeholders; the results are eager (the
        first call returns them)."""
        retyped = _tensor.as_symbolic(nest.flatten((args, kwargs)))
        self._declare_arguments(args, kwargs)
        trace = self._call_trace
        # the engine traces again for shapes (or variables) a counted trace already covers, where TF runs the graph:
        # the Python function's prints are TF's only on the first run for each counted trace
        quiet = trace is not None and trace in self._python_ran
        try:
            with silenced_prints() if quiet else contextlib.nullcontext():
                result = self._traced_run(args, kwargs, inline=False)
        finally:
            _tensor.as_eager(retyped)
        if trace is not None:
            self._python_ran.add(trace)
        _tensor.as_eager([t for t in nest.flatten(result) if t.__class__ is _tensor.SymbolicTensor])
        return result

    def _declare_arguments(self, args, kwargs):
        """Give the tensor arguments of the trace starting TF's names and static shapes: the input signature's, or
        those of the counted trace covering this call (None for the dims ``reduce_retracing`` relaxed).  The graph
        still computes with the call's shapes (the engine traces again for new ones)."""
        tensors, shapes = [], []
        if self._input_signature is not None:
            trace_key(self._input_signature, shapes)
            trace_key(args, [], tensors)
        elif self._declares_relaxed_shapes:
            key = trace_key((args, kwargs), shapes, tensors)
            shapes = next((general for general in self._traced.get(key, ()) if all(
                covers(g, s) for g, s in zip(general, shapes))), shapes)
        for t, dims in zip(tensors, shapes):
            if t is not None and (dims is None or dims != t.array.shape):
                _traced_shapes.declare_shape(t, dims)
        self._name_arguments(args, kwargs)

    def _name_arguments(self, args, kwargs):
        """TF's names of the argument tensors: the parameter's name (``xs``, ``xs_1``... for a nested argument;
        ``rest_0`` for the tensors of ``*rest``)."""
        params = [] if self._signature is None else list(self._signature.parameters.values())
        positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        star = next((p.name for p in params if p.kind == p.VAR_POSITIONAL), "args")
        named = [(positional[i] if i < len(positional) else f"{star}_{i - len(positional)}", a)
                 for i, a in enumerate(args)] + sorted(kwargs.items())
        for parameter, value in named:
            tensors = []
            trace_key(value, [], tensors)
            for t in tensors:
                if t.__class__ is _tensor.SymbolicTensor:
                    _symbolic_names.name_argument(t, parameter)

    def _traced_run(self, args, kwargs, inline):
        first = not self._engine_traced and not inline
        created = []
        _trace_state.depth += 1
        try:
            with _variables.variable_creator_scope(_variable_creator(not self._engine_traced, created)):
                unwrap = _unwrapped if inline else _parameter  # (inlined into another graph: that graph reads)
                result = self._traced_function()(*nest.map_structure(unwrap, args),
                                                 **nest.map_structure(unwrap, kwargs))
        except errors.InvalidArgumentError as e:
            raise graph_error(e) from None
        finally:
            _trace_state.depth -= 1
        if not inline:
            self._engine_traced = True
            if first and created:
                self._count += 1  # the second trace (see _run)
                self._verify = True
        return nest.map_structure(result_as_tensor, result)

    def get_concrete_function(self, *args, **kwargs):
        """A :class:`ConcreteFunction` for these arguments (tensors or TensorSpecs, and Python values).

        Without arguments, the input signature's.  The trace is counted; the function runs
        when the concrete function is first called.
        """
        if not args and not kwargs and self._input_signature is not None:
            args = self._input_signature
        if self._signature is not None:
            args, kwargs = self._bound(args, kwargs)
        template = nest.map_structure(as_spec, (tuple(args), dict(kwargs)))
        if self._input_signature is not None:
            self._conform(*nest.map_structure(example, template))
        shapes = []
        key = (trace_key(template, shapes), tuple(shapes))
        concrete = self._concrete.get(key)
        if concrete is None:
            trace = self._note_signature(*template)
            concrete = self._concrete[key] = ConcreteFunction(self, template)
            if trace not in self._python_ran:  # TF traces now: the Python function runs (and prints) once, here
                try:
                    concrete._static_outputs = concrete.trace_outputs()
                    self._python_ran.add(trace)
                except Exception:  # noqa: BLE001  (run when the outputs are asked for or at the first call)
                    pass
        return concrete


def _weak_method(fn, instance):
    """``fn`` bound to ``instance`` without keeping it alive (the per-instance cache is weak)."""
    ref = weakref.ref(instance)

    @functools.wraps(fn)
    def method(*args, **kwargs):
        return fn(ref(), *args, **kwargs)

    try:
        method.__signature__ = inspect.signature(fn.__get__(instance))
    except (TypeError, ValueError, AttributeError):
        pass
    return method


def _flatten_like(structure, values):
    """The parts of ``values`` at the positions of ``structure``'s leaves (a TypeError if they do not nest alike)."""
    if not nest.is_nested(structure):
        return [values]
    if isinstance(structure, dict):
        if not isinstance(values, dict) or set(values) != set(structure):
            raise TypeError(f"Binding inputs to tf.function failed: {values!r} does not match the structure of the "
                            f"input signature {structure!r}")
        return [v for k in sorted(structure, key=repr) for v in _flatten_like(structure[k], values[k])]
    if not isinstance(values, (list, tuple)) or len(values) != len(structure):
        raise TypeError(f"Binding inputs to tf.function failed: {values!r} does not match the structure of the "
                        f"input signature {structure!r}")
    return [v for s, x in zip(structure, values) for v in _flatten_like(s, x)]


def function(func=None, input_signature=None, autograph=True, jit_compile=None, reduce_retracing=False,
             experimental_implements=None, experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None, experimental_follow_type_hints=None):
    """Compile ``func`` into graphs traced per input signature (decorator or call).

    Parameters
    ----------
    func : callable, optional
        Without it, returns a decorator.
    input_signature : sequence of (nested) tf.TensorSpec, optional
    autograph : bool
        Convert Python control flow on tensors into graph control flow (AutoGraph, see the module docstring).
    jit_compile, experimental_*
        Accepted; vfw has no XLA.
    reduce_retracing : bool
    experimental_relax_shapes : bool, optional
        The former name of ``reduce_retracing``.

    Returns
    -------
    Function
    """
    relax = bool(reduce_retracing or experimental_relax_shapes)
    options = {"autograph": autograph, "jit_compile": jit_compile}

    def decorate(fn):
        return Function(fn, input_signature, relax, _options=options)

    return decorate if func is None else decorate(func)


NAMESPACES = {"tf": ["function"]}
TENSOR_METHODS = {}
