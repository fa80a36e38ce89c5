"""torch.export: ``export(module, args)`` traces a module's forward into an :class:`ExportedProgram`, an engine
graph whose inputs are the module's parameters and buffers, then the user's tensors; ``save``/``load`` write and
read it in vfw's own archive format (a zip of the protobuf graph, raw tensor bytes and JSON: loading never runs
code from the file).

The trace is vfw's graph tracing (``vfw.core.graph.function``, as ``torch.jit.trace``): concrete, so Python
control flow is fixed by the example inputs. Input shapes are fixed too, except dimensions named dynamic in
``dynamic_shapes`` (a ``Dim``), whose sizes may change within the Dim's range (the graph then runs unoptimized,
shapes taken from each call).
"""

import inspect

from vfw.core.graph.function import function as _graph_function
from vfw.frontends.torch import _export_guard
from vfw.frontends.torch._aten_names import aten_name
from vfw.frontends.torch.export._archive import load, save
from vfw.frontends.torch.export._program import Dim, ExportedProgram, ProgramRunner, UserError, template
from vfw.frontends.torch.export.graph_signature import (
    ExportGraphSignature,
    InputKind,
    InputSpec,
    OutputKind,
    OutputSpec,
    TensorArgument,
)
from vfw.frontends.torch.func import _pytree
from vfw.frontends.torch.func._functional_call import functional_call
from vfw.frontends.torch.nn.modules.module import Module

__all__ = ["Dim", "ExportGraphSignature", "ExportedProgram", "export", "load", "save"]


def _user_inputs(mod, args, kwargs):
    """``[(name, tensor)]`` of the forward's tensor arguments, by the forward's parameter names."""
    try:
        bound = inspect.signature(mod.forward).bind(*args, **kwargs)
    except TypeError as exc:
        raise TypeError(f"export(): the example inputs do not match {type(mod).__name__}.forward: {exc}") from None
    named = []
    for name, value in bound.arguments.items():
        values = value if isinstance(value, (tuple, list)) else [value]
        for k, v in enumerate(values):
            if _pytree.is_tensor(v):
                named.append((name if len(values) == 1 and v is value else f"{name}_{k}", v))
    return named


def _dynamic_dims(dynamic_shapes, names, args):
    """``{(input index, dim): (min, max)}`` from ``dynamic_shapes`` (a dict by argument name or a tuple)."""
    if dynamic_shapes is None:
        return {}
    if isinstance(dynamic_shapes, dict):
        unknown = set(dynamic_shapes) - {n for n, _ in names}
        if unknown:
            raise ValueError(f"export(): dynamic_shapes names {sorted(unknown)}, which are not tensor inputs of "
                             f"forward ({', '.join(n for n, _ in names)})")
        per_input = [dynamic_shapes.get(n) for n, _ in names]
    else:
        per_input = list(dynamic_shapes)
    dims = {}
    for k, spec in enumerate(per_input):
        items = spec.items() if isinstance(spec, dict) else enumerate(spec or ())
        for d, dim in items:
            if dim is not None and dim is not Dim.STATIC:
                dims[(k, d)] = (getattr(dim, "min", None), getattr(dim, "max", None))
    return dims


def _output_names(graph_def):
    """Names of the outputs after the ATen name of the op computing each (``add``, ``relu``, ``add_1``...)."""
    producer = {out: op.type for op in graph_def.op for out in op.output}
    names, used = [], {}
    for value in graph_def.output:
        base = aten_name(producer[value]) if value in producer else "output"
        count = used.get(base, 0)
        used[base] = count + 1
        names.append(base if count == 0 else f"{base}_{count}")
    return names


def _mark_dynamic(graph_def, user_input_names, dynamic):
    """Leave the dynamic dims of the user inputs unknown (-1) in the graph, so the executor accepts any size."""
    for info in graph_def.value_info:
        for (k, d) in dynamic:
            if info.name == user_input_names[k]:
                info.dims[d] = -1


def export(mod, args, kwargs=None, *, dynamic_shapes=None, strict=False, preserve_module_call_signature=()):
    """Trace ``mod``'s forward on the example ``args``/``kwargs`` into an :class:`ExportedProgram`.

    Parameters
    ----------
    mod : nn.Module
    args : tuple
        Example positional inputs.
    kwargs : dict, optional
    dynamic_shapes : dict or tuple, optional
        Per tensor input, ``{dim: Dim(...)}``: dimensions whose size may change.
    strict : bool
        Accepted (vfw traces one way).

    Returns
    -------
    ExportedProgram
    """
    if not isinstance(mod, Module):
        raise ValueError(f"Expected `mod` to be an instance of `torch.nn.Module`, got {type(mod)}.")
    if not isinstance(args, tuple):
        raise UserError(f"Expecting `args` to be a tuple of example positional inputs, got {type(args)}")
    kwargs = dict(kwargs or {})
    params = dict(mod.named_parameters())
    buffers = dict(mod.named_buffers())
    state_keys = list(params) + list(buffers)
    state = [params.get(k, buffers.get(k)) for k in state_keys]
    users = _user_inputs(mod, args, kwargs)
    dynamic = _dynamic_dims(dynamic_shapes, users, args)
    user_ids = [id(t) for _, t in users]
    structure = []  # the output's structure, noted by the tracing call

    def forward(*flat):
        swapped = dict(zip(state_keys, flat[:len(state)]))
        replacement = dict(zip(user_ids, flat[len(state):]))
        call_args, call_kwargs = _pytree.map_leaves(lambda v: replacement.get(id(v), v), (args, kwargs))
        result = functional_call(mod, swapped, call_args, call_kwargs)
        structure.append(template(result))
        return result

    traced = _graph_function(forward, opt_level=0 if dynamic else None)
    _export_guard.exporting.append(mod)  # Python decisions on traced tensor data raise, as in torch
    try:
        concrete = traced.get_concrete_function(*state, *(t for _, t in users))
    finally:
        _export_guard.exporting.remove(mod)
    graph_def = concrete.inference_graph()
    _mark_dynamic(graph_def, [graph_def.input[len(state) + k] for k in range(len(users))], dynamic)
    runner = ProgramRunner(graph_def, [n for n, _ in users], [tuple(t.shape) for _, t in users],
                           [str(t.array.dtype) for _, t in users], dynamic, structure[-1])
    input_specs = [InputSpec(InputKind.PARAMETER, TensorArgument("p_" + k.replace(".", "_")), k) for k in params]
    input_specs += [InputSpec(InputKind.BUFFER, TensorArgument("b_" + k.replace(".", "_")), k, True) for k in buffers]
    input_specs += [InputSpec(InputKind.USER_INPUT, TensorArgument(n)) for n, _ in users]
    output_specs = [OutputSpec(OutputKind.USER_OUTPUT, TensorArgument(n)) for n in _output_names(graph_def)]
    state_dict = dict(zip(state_keys, state))
    program = ExportedProgram(runner, ExportGraphSignature(input_specs, output_specs), state_dict,
                              example_inputs=(args, kwargs))
    program._traced_module = mod  # torch.onnx.export(program) traces the module again (with dynamic axes)
    return program
