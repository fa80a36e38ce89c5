"""``ExportedProgram``: an engine graph of a module's forward with its parameters and buffers as inputs."""

import numpy as np

from vfw.core.graph.executor import CompiledGraph
from vfw.frontends.torch import _dispatch
from vfw.frontends.torch.export.graph_signature import InputKind
from vfw.frontends.torch.nn.modules.module import Module
from vfw.frontends.torch.nn.parameter import Parameter


class UserError(RuntimeError):
    """An export the user must change (torch._dynamo.exc.UserError, a RuntimeError)."""


class _DimHint:
    """``Dim.AUTO``, ``Dim.DYNAMIC`` (a dynamic dimension vfw names itself) or ``Dim.STATIC`` (a static one)."""

    def __init__(self, kind):
        self.kind = kind
        self.min = self.max = None

    def __repr__(self):
        return f"DimHint({self.kind})"


class Dim:
    """A named dynamic dimension of an input: ``Dim("batch", min=2, max=1024)`` in ``dynamic_shapes``; or a hint:
    ``Dim.AUTO``/``Dim.DYNAMIC`` (dynamic, unnamed), ``Dim.STATIC`` (fixed to the example's size).

    Parameters
    ----------
    name : str
    min, max : int, optional
        The sizes the dimension may take (inclusive).
    """

    AUTO, DYNAMIC, STATIC = _DimHint("AUTO"), _DimHint("DYNAMIC"), _DimHint("STATIC")

    def __init__(self, name, *, min=None, max=None):
        if min is not None and max is not None and min > max:
            raise ValueError(f"Cannot create Dim with inconsistent min={min}, max={max}")
        self.__name__ = name
        self.min, self.max = min, max

    def __repr__(self):
        bounds = "".join(f", {k}={v}" for k, v in (("min", self.min), ("max", self.max))
                         if v is not None and not (k == "min" and v <= 2))
        return f"Dim({self.__name__!r}{bounds})"


def template(tree):
    """``tree``'s structure as JSON-able data (``None`` for each tensor leaf)."""
    if isinstance(tree, (tuple, list)):
        return {type(tree).__name__ if type(tree) in (tuple, list) else "tuple": [template(x) for x in tree]}
    if isinstance(tree, dict):
        return {"dict": [[k, template(v)] for k, v in tree.items()]}
    return None


def from_template(spec, values):
    """The structure ``spec`` (see :func:`template`) with its leaves taken in order from the iterator ``values``."""
    if spec is None:
        return next(values)
    (kind, items), = spec.items()
    if kind == "dict":
        return {k: from_template(v, values) for k, v in items}
    built = [from_template(x, values) for x in items]
    return tuple(built) if kind == "tuple" else built


class ProgramRunner:
    """Runs an exported graph: checks the user inputs against the traced shapes (dynamic dims within their
    ranges), feeds state and inputs, and arranges the outputs as traced."""

    def __init__(self, graph_def, user_names, input_shapes, input_dtypes, dynamic, out_template):
        self.graph_def = graph_def
        self.compiled = CompiledGraph(graph_def)
        self.user_names, self.input_shapes, self.input_dtypes = user_names, input_shapes, input_dtypes
        self.dynamic = dynamic  # {(input index, dim): (min, max)}
        self.out_template = out_template

    def check(self, inputs):
        """Raise torch's guard errors for inputs the program was not exported for."""
        if len(inputs) != len(self.user_names):
            raise TypeError(f"ExportedProgram.module(): expected {len(self.user_names)} tensor inputs "
                            f"({', '.join(self.user_names)}), got {len(inputs)}")
        for k, (name, x, shape, dtype) in enumerate(zip(self.user_names, inputs, self.input_shapes,
                                                         self.input_dtypes)):
            if not hasattr(x, "array"):
                raise TypeError(f"ExportedProgram.module(): input {name!r} must be a Tensor, got {type(x).__name__}")
            got = tuple(x.shape)
            if len(got) != len(shape):
                raise RuntimeError(f"Unexpected number of dimensions in input at {name}.shape: expected "
                                   f"{len(shape)}, but got {len(got)}")
            if np.dtype(x.array.dtype) != np.dtype(dtype):
                raise AssertionError(f"Guard failed: {name}.dtype == {dtype}, got {x.array.dtype}")
            for d, (size, traced) in enumerate(zip(got, shape)):
                bounds = self.dynamic.get((k, d))
                if bounds is None:
                    if size != traced:
                        raise AssertionError(f"Guard failed: {name}.size()[{d}] == {traced}")
                    continue
                low, high = bounds
                if low is not None and size < low:
                    raise AssertionError(f"Guard failed: {name}.size()[{d}] >= {low}")
                if high is not None and size > high:
                    raise AssertionError(f"Guard failed: {name}.size()[{d}] <= {high}")

    def __call__(self, state_tensors, inputs):
        self.check(inputs)
        feeds = [t.array for t in state_tensors] + [x.array for x in inputs]
        results = self.compiled(*feeds)
        return from_template(self.out_template, iter([_dispatch.wrap(np.array(r)) for r in results]))


class _ExportedModule(Module):
    """What ``ExportedProgram.module()`` returns: a module holding the program's state whose forward runs the
    exported graph on it."""

    def __init__(self, program):
        super().__init__()
        self._program_runner = program.runner
        self._state_keys = [spec.target for spec in program.graph_signature.input_specs
                            if spec.kind is not InputKind.USER_INPUT]
        kinds = {spec.target: spec.kind for spec in program.graph_signature.input_specs}
        for key in self._state_keys:
            owner, _, leaf = key.rpartition(".")
            module = self
            for part in owner.split(".") if owner else ():
                if part not in module._modules:
                    module.add_module(part, Module())
                module = module._modules[part]
            value = program.state_dict[key]
            if kinds[key] is InputKind.PARAMETER:
                module.register_parameter(leaf, value if isinstance(value, Parameter) else Parameter(value))
            else:
                module.register_buffer(leaf, value)

    def forward(self, *args, **kwargs):
        runner = self._program_runner
        inputs = list(args) + [kwargs[name] for name in runner.user_names[len(args):] if name in kwargs]
        tensors = dict(self.named_parameters())
        tensors.update(self.named_buffers())
        state = [tensors[k] for k in self._state_keys]
        return runner(state, inputs)


class ExportedProgram:
    """A traced, functional form of a module's forward (``torch.export.export``'s result).

    Attributes
    ----------
    graph_signature : ExportGraphSignature
    state_dict : dict[str, Tensor]
        The parameters and buffers the program reads (the exported module's own tensors).
    graph : GraphDef
        The engine graph (inputs: state in signature order, then user inputs).
    """

    def __init__(self, runner, graph_signature, state_dict, example_inputs=None, range_constraints=None):
        self.runner = runner
        self.graph_signature = graph_signature
        self.state_dict = state_dict
        self.example_inputs = example_inputs
        self.range_constraints = range_constraints or {}

    @property
    def graph(self):
        return self.runner.graph_def

    def module(self):
        """A module whose ``forward`` runs this program (same outputs as the exported module)."""
        return _ExportedModule(self)

    def run_decompositions(self, decomp_table=None, decompose_custom_triton_ops=False):
        """A program of core operations: vfw's graph is already made of engine ops, so an equal program."""
        return ExportedProgram(self.runner, self.graph_signature, dict(self.state_dict), self.example_inputs,
                               self.range_constraints)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Unable to call ExportedProgram directly. You should use `exported_program.module()` "
                           "instead.")

    def __str__(self):
        ops = "\n".join(f"    {', '.join(op.output)} = {op.type}({', '.join(op.input)})" for op in self.graph.op)
        return f"ExportedProgram:\n  graph ({len(self.graph.op)} ops):\n{ops}\n\nGraph signature: " \
               f"{self.graph_signature}\nRange constraints: {self.range_constraints}\n"
