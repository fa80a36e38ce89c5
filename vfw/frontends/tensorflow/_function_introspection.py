"""What scripts read about a tf.function and its concrete functions (TF 2.21's texts and attributes).

- ``Function.function_spec`` (``fullargspec``, ``input_signature``, ``jit_compile``, ``arg_names``,
  ``default_values``...), ``Function.function_type`` / ``ConcreteFunction.function_type`` (their
  ``repr`` is TF's: ``(x, y=<captured_default_value>)`` / ``(x: TensorSpec(...), y: Literal[2]) -> ...``),
  ``Function.pretty_printed_concrete_signatures(verbose=True)``,
  ``Function.experimental_get_compiler_ir`` (TF's ValueError unless ``jit_compile=True``; vfw has no XLA).
- ``ConcreteFunction.pretty_printed_signature(verbose=True)``, ``variables`` / ``trainable_variables``
  (the variables the function reads, in first-read order), ``captured_inputs``, ``graph``.

Differences from TF: a capture is the captured variable itself (TF gives its resource handle tensor;
vfw has no resource tensors), the ``Captures:`` lines show the variable's ``id``, and ``graph`` describes
the trace without a TensorFlow ``GraphDef`` (``as_graph_def()`` raises NotImplementedError).
"""

import collections
import inspect

from vfw.frontends.tensorflow import nest
from vfw.frontends.tensorflow._custom_gradient import _VariableWatcher
from vfw.frontends.tensorflow._silenced_prints import silenced_prints
from vfw.frontends.tensorflow._tensor_spec import TensorSpec

_RESOURCE_SPEC = "TensorSpec(shape=(), dtype=tf.resource, name=None)"


def type_text(value):
    """TF's text for the trace type of ``value`` (a TensorSpec, a Python value, or a nest of them)."""
    if isinstance(value, TensorSpec):
        return repr(value)
    if isinstance(value, dict):
        items = ", ".join(f"[{key!r}, {type_text(item)}]" for key, item in value.items())  # insertion order
        return f"Dict[{items}]"
    if isinstance(value, (list, tuple)):
        kind = "List" if isinstance(value, list) else "Tuple"
        return f"{kind}[{', '.join(type_text(v) for v in value)}]"
    return f"Literal[{value!r}]"


class _Shown:
    """An annotation or default shown as the given text in a signature (``inspect`` prints its repr)."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


_CAPTURED_DEFAULT = _Shown("<captured_default_value>")


def _concrete_parameters(signature, template):
    """``inspect.Parameter``s annotated with the trace types of ``template`` (``(args, kwargs)``, bound):
    as TF, ``*args`` items become positional-only ``args_0``... (and so do the parameters before them),
    ``**kwargs`` items keyword-only."""
    args, kwargs = template
    if signature is None:
        return [inspect.Parameter(f"arg{i}", inspect.Parameter.POSITIONAL_ONLY, annotation=_Shown(type_text(a)))
                for i, a in enumerate(args)]
    kinds = [p.kind for p in signature.parameters.values()]
    positional_only = inspect.Parameter.VAR_POSITIONAL in kinds
    entries, position, rest = [], 0, dict(kwargs)
    for parameter in signature.parameters.values():
        kind = parameter.kind
        if kind in (kind.POSITIONAL_ONLY, kind.POSITIONAL_OR_KEYWORD) and position < len(args):
            entries.append((parameter.name, kind.POSITIONAL_ONLY if positional_only else kind, args[position]))
            position += 1
        elif kind is kind.VAR_POSITIONAL:
            entries += [(f"{parameter.name}_{i}", kind.POSITIONAL_ONLY, a) for i, a in enumerate(args[position:])]
            position = len(args)
        elif kind is kind.KEYWORD_ONLY and parameter.name in rest:
            entries.append((parameter.name, kind, rest.pop(parameter.name)))
        elif kind is kind.VAR_KEYWORD:
            entries += [(name, inspect.Parameter.KEYWORD_ONLY, rest.pop(name)) for name in list(rest)]
    return [inspect.Parameter(name, kind, annotation=_Shown(type_text(value))) for name, kind, value in entries]


_NO_OUTPUT = object()


class FunctionType:
    """The parameters (and, for a concrete function, their traced types, the output type and the captures).

    ``str()`` is the signature (``(x, y=<captured_default_value>)``, ``(x: TensorSpec(...)) -> ...``),
    ``repr()`` TF's longer form (``Input Parameters:`` / ``Output Type:`` / ``Captures:``).

    Attributes
    ----------
    parameters : mappingproxy of name -> inspect.Parameter
    output : object
        The output structure (TensorSpecs for tensors); None for a polymorphic function.
    captures : OrderedDict
        ``id -> variable`` of the captured variables (empty for a polymorphic function).
    """

    def __init__(self, parameters, output=_NO_OUTPUT, captures=()):
        self._output = output
        returns = inspect.Signature.empty if output is _NO_OUTPUT else _Shown(type_text(output))
        self._signature = inspect.Signature(parameters, return_annotation=returns)
        self.captures = collections.OrderedDict((id(v), v) for v in captures)

    @property
    def parameters(self):
        return self._signature.parameters

    @property
    def output(self):
        return None if self._output is _NO_OUTPUT else self._output

    def __str__(self):
        return str(self._signature)

    def __repr__(self):
        lines = ["Input Parameters:"]
        for p in self.parameters.values():
            shown = "None" if p.annotation is p.empty else repr(p.annotation)
            lines.append(f"  {p.name} ({p.kind.name}): {shown}")
        lines += ["Output Type:", "  None" if self._output is _NO_OUTPUT else f"  {type_text(self._output)}",
                  "Captures:"]
        lines += [f"  {key}: {_RESOURCE_SPEC}" for key in self.captures] if self.captures else ["  None"]
        return "\n".join(lines)


class FunctionSpec:
    """The Python signature and options of a tf.function (``tf.function(f).function_spec``)."""

    def __init__(self, function):
        self._function = function
        spec = self.fullargspec = inspect.getfullargspec(function.python_function)
        self.input_signature = function.input_signature
        self.jit_compile = function._options.get("jit_compile")
        self.is_pure = False
        self.arg_names = list(spec.args)
        self.default_values = dict(zip(spec.args[len(spec.args) - len(spec.defaults or ()):], spec.defaults or ()))
        self.default_values.update(spec.kwonlydefaults or {})

    @property
    def function_type(self):
        return self._function.function_type

    @property
    def flat_input_signature(self):
        """tuple: the input signature's TensorSpecs, flattened (``(None,)`` without one, as TF)."""
        return tuple(nest.flatten(self.input_signature))

    def signature_summary(self, default_values=False):
        """The function type's long form, followed by the defaults when asked."""
        text = repr(self.function_type)
        if default_values and self.default_values:
            text += "\nDefaults:\n" + "\n".join(f"  {name}: {value!r}" for name, value in self.default_values.items())
        return text


class FunctionIntrospection:
    """Mixin of tf.function's ``Function``: its spec, type, concrete signatures and compiler IR."""

    @property
    def function_spec(self):
        """FunctionSpec: the Python signature, input signature and options."""
        return FunctionSpec(self)

    @property
    def function_type(self):
        """FunctionType: the parameters; annotated with the input signature's specs when there is one."""
        parameters = list(self._signature.parameters.values()) if self._signature is not None else []
        specs = list(self.input_signature or ())
        shown = []
        for i, p in enumerate(parameters):
            annotation = _Shown(repr(specs[i])) if i < len(specs) else p.empty
            default = _CAPTURED_DEFAULT if p.default is not p.empty else p.empty
            shown.append(p.replace(annotation=annotation, default=default))
        return FunctionType(shown)

    def _concrete_functions(self):
        """The concrete functions traced so far (with an input signature: its one, traced now)."""
        if self.input_signature is not None:
            return [self.get_concrete_function()]
        return [self.get_concrete_function(*args, **kwargs) for args, kwargs in self._trace_templates]

    def pretty_printed_concrete_signatures(self, verbose=True):
        """str: the signatures of the concrete functions traced so far, one per trace."""
        texts = [c.pretty_printed_signature(verbose=verbose) for c in self._concrete_functions()]
        return ("\n\n" if verbose else "\n").join(texts)

    def experimental_get_compiler_ir(self, *args, **kwargs):
        """TF's ValueError unless ``jit_compile=True``; vfw has no XLA compiler to show the IR of."""
        if not self._options.get("jit_compile"):
            raise ValueError("Compiler IR can only be returned for functions marked with 'jit_compile=True'")
        raise NotImplementedError(f"experimental_get_compiler_ir: vfw has no XLA compiler, so tf.function "
                                  f"{self.name!r} has no compiler IR (HLO) to return")


class ConcreteIntrospection:
    """Mixin of tf.function's ``ConcreteFunction``: its signature text, variables, captures and graph."""

    def _read_variables(self):
        """The variables an example run reads, in first-read order (the run changes nothing)."""
        if getattr(self, "_variables_read", None) is None:
            with _VariableWatcher() as watcher, silenced_prints():  # (TF reads its trace: no Python runs)
                self._example_run(2)
            self._variables_read = list(watcher.variables.values())
        return self._variables_read

    @property
    def variables(self):
        """tuple: the variables the function reads."""
        return tuple(self._read_variables())

    @property
    def trainable_variables(self):
        """tuple: the trainable variables the function reads."""
        return tuple(v for v in self._read_variables() if v.trainable)

    @property
    def captured_inputs(self):
        """list: the captured variables (TF: their resource handles), in the order the function reads them."""
        return list(self._read_variables())

    @property
    def function_type(self):
        """FunctionType: the parameters with their traced types, the output structure and the captures."""
        return FunctionType(_concrete_parameters(self._function._signature, self._template), self.structured_outputs,
                            self._read_variables())

    def pretty_printed_signature(self, verbose=True):
        """str: TF's text for this concrete function's inputs, output type (and, verbose, captures)."""
        function_type = self.function_type
        return repr(function_type) if verbose else str(function_type)

    @property
    def graph(self):
        """FuncGraph: what vfw can describe of the traced graph (no TensorFlow GraphDef)."""
        return FuncGraph(self)


class FuncGraph:
    """The graph of a concrete function as far as vfw represents it: its name, inputs, outputs and variables.

    vfw traces into its own engine graphs, not TensorFlow GraphDefs: ``as_graph_def`` and
    ``get_operations`` raise NotImplementedError.
    """

    def __init__(self, concrete):
        self._concrete = concrete
        self.name = concrete.name

    @property
    def inputs(self):
        """list of TensorSpec: the tensor inputs (TF: placeholders, then the captured handles)."""
        return list(self._concrete.inputs)

    @property
    def structured_input_signature(self):
        return self._concrete.structured_input_signature

    @property
    def outputs(self):
        """list of TensorSpec: the tensor outputs."""
        return list(self._concrete.outputs)

    @property
    def structured_outputs(self):
        return self._concrete.structured_outputs

    @property
    def variables(self):
        return self._concrete.variables

    @property
    def trainable_variables(self):
        return self._concrete.trainable_variables

    def as_graph_def(self, *args, **kwargs):
        raise NotImplementedError(f"FuncGraph.as_graph_def: the graph of tf.function {self.name!r} is a vfw engine "
                                  "graph, which has no TensorFlow GraphDef representation")

    def get_operations(self):
        raise NotImplementedError(f"FuncGraph.get_operations: the graph of tf.function {self.name!r} is a vfw engine "
                                  "graph, which has no TensorFlow operations")

    def __repr__(self):
        return f"<vfw.tensorflow FuncGraph {self.name}>"
