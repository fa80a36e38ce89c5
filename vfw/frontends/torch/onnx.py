"""torch.onnx: export vfw.torch models to ONNX files that onnxruntime (and vfw.onnx_io) run.

``export`` traces the model once on the example arguments (as torch's TorchScript exporter,
``dynamo=False``, does) with vfw's graph tracer and writes the graph with
:mod:`vfw.onnx_io`'s exporter.  Where vfw differs from torch 2.13:

- Both ``dynamo=True`` (the default, returning an :class:`ONNXProgram`) and ``dynamo=False``
  (returning ``None``) use this one tracer; ``dynamic_shapes`` (per argument, by ``forward``'s parameter name or in
  order; per tensor ``{axis: Dim}`` or one ``Dim``/``None`` per dim; nested like the argument) and ``dynamic_axes``
  both work with either.  With ``dynamo=True`` names follow torch's exporter (see ``_onnx_names``): a ``Dim("n")``
  dim is ``n``, ``Dim.AUTO``/``Dim.DYNAMIC`` torch.export's symbol ``s<k>`` (torch merges symbols of dims it finds
  equal, which vfw does not), outputs are named after the operator computing them (``linear``, ``add_1``), a path
  ``f`` gets its weights in ``<f>.data``; an ``ExportedProgram`` is exported from the module it was made from, on
  its example inputs.  A dynamic axis is generalized by tracing the
  model again at two other sizes per axis (one and two more than the example's, or twice and
  three times it for a model that takes only multiples, such as a U-Net) and rebuilding the
  constants that change from the input shapes (see ``vfw.onnx_io._export_dynamic``): a model
  whose operations change with the size (Python control flow on shapes, ``split``/``chunk`` into
  a size-dependent number of parts, windows computed from a size), or that needs a size the
  integer formulas cannot express (``chunk`` sizes ``ceil(n / k)``, positions of ``diagonal`` /
  ``index_put``), is refused with an error naming the operation; so is one whose generalized graph gives other
  results than a trace at other sizes (every axis at twice its size plus 3: a strided convolution's output size
  read in Python).  (Where torch's exporter bakes
  sizes silently, e.g. in ``nn.MultiheadAttention``'s reshapes, vfw's graph follows the axes.)
- Values computed in Python or numpy from tensor values (``x.item()``, ``pack_padded_sequence``'s lengths) would
  be frozen into the graph: the exporter traces again with other input values (float inputs shuffled and scaled,
  integer and bool inputs shuffled) and refuses such constants.
- The default opset is the newest the installed onnxruntime runs (torch 2.13: 20); opsets 9 and
  newer can be asked for (torch: 7 to 20); names of inputs default to ``forward``'s parameter
  names (torch's TorchScript exporter: its value names, such as ``input.1``) and, with ``dynamo=False``, outputs
  to ``output`` / ``output_<k>`` (torch numbers them); node names are ``<OpType>_<k>`` (torch writes
  module scopes).
- Ops with no ONNX form (linear algebra decompositions, special functions, gradient ops, random
  draws in training mode) raise :class:`UnsupportedOperatorError` naming the op.
- ``export_params=False`` makes every weight the model reads a graph input, buffers included
  (torch keeps buffers as constants); ``training=TRAINING`` exports batch norm with batch
  statistics (standard ops) and refuses dropout (a random draw).
- ``report=True`` writes a short markdown report (the exported graph) in ``artifacts_dir``.
- ``custom_opsets``, ``export_modules_as_functions``, ``operator_export_type``,
  ``profile``, ``dump_exported_program``, ``custom_translation_table`` and ``autograd_inlining``
  are accepted and have no effect.
"""

import abc
import contextlib
import enum
import inspect
import os
import threading
import types

import numpy as np

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _onnx_names
from vfw.frontends.torch._dispatch import new_tensor
from vfw.frontends.torch._dtype import default_float_np
from vfw.frontends.torch._onnx_symbolics import (  # noqa: F401
    register_custom_op_symbolic,
    select_model_mode_for_export,
    unregister_custom_op_symbolic,
)
from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.autograd.grad_mode import no_grad
from vfw.frontends.torch.export._program import Dim as _Dim
from vfw.frontends.torch.export._program import ExportedProgram
from vfw.frontends.torch.nn.modules.module import Module

__all__ = ["ExportableModule", "ONNXProgram", "OnnxExporterError", "TrainingMode", "errors", "export",
           "is_in_onnx_export", "register_custom_op_symbolic", "select_model_mode_for_export",
           "unregister_custom_op_symbolic"]


class TrainingMode(enum.IntEnum):
    """The mode modules are exported in (``training=`` of :func:`export`)."""

    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


class OperatorExportTypes(enum.IntEnum):
    """Accepted for compatibility: vfw always writes standard ONNX operators."""

    ONNX = 0
    ONNX_ATEN = 1
    ONNX_ATEN_FALLBACK = 2
    ONNX_FALLTHROUGH = 3


class OnnxExporterError(RuntimeError):
    """Errors raised by the ONNX exporter (torch.onnx.OnnxExporterError)."""


class UnsupportedOperatorError(OnnxExporterError):
    """An operation with no ONNX form at the target opset."""


errors = types.SimpleNamespace(OnnxExporterError=OnnxExporterError, UnsupportedOperatorError=UnsupportedOperatorError)
"""``torch.onnx.errors``."""

class ExportableModule(Module, abc.ABC):
    """A module that carries its export arguments (torch.onnx.ExportableModule).

    Subclasses implement :meth:`example_arguments` and may override :meth:`dynamic_shapes`,
    :meth:`input_names` and :meth:`output_names`; :func:`export` (or :meth:`to_onnx`) uses them
    where its own arguments are not given.
    """

    @abc.abstractmethod
    def example_arguments(self):
        """``(args, kwargs)``: example arguments of ``forward`` (``kwargs`` may be ``None``)."""

    def dynamic_shapes(self):
        """Dynamic dims of the inputs (see :func:`export`'s ``dynamic_shapes``), or ``None``."""
        return None

    def input_names(self):
        """Names of the graph inputs, or ``None``."""
        return None

    def output_names(self):
        """Names of the graph outputs, or ``None``."""
        return None

    def to_onnx(self, **kwargs):
        """``export(self, **kwargs)``: an :class:`ONNXProgram`."""
        return export(self, **kwargs)


class _ExportState(threading.local):
    active = False
    retracing = False  # tracing again at other sizes or values than the caller's example inputs


_state = _ExportState()


def is_in_onnx_export():
    """bool: whether :func:`export` is tracing a model (in this thread)."""
    return _state.active


class ONNXProgram:
    """An exported model (what ``export(..., dynamo=True)`` returns).

    Attributes
    ----------
    model_proto : onnx.ModelProto
    """

    def __init__(self, model_proto):
        self.model_proto = model_proto
        self._session = None

    def __repr__(self):
        graph = self.model_proto.graph
        return (f"ONNXProgram(inputs={[i.name for i in graph.input]}, outputs={[o.name for o in graph.output]}, "
                f"nodes={len(graph.node)}, opset={self.model_proto.opset_import[0].version})")

    def save(self, destination, *, include_initializers=True, keep_initializers_as_inputs=False, external_data=None):
        """Write the model to a path or binary file object (weights in an external file with ``external_data``)."""
        import onnx

        model = self.model_proto
        if not include_initializers or keep_initializers_as_inputs:
            model = type(model)()
            model.CopyFrom(self.model_proto)
            inputs = {i.name for i in model.graph.input}
            if keep_initializers_as_inputs:
                model.graph.input.extend(onnx.helper.make_tensor_value_info(t.name, t.data_type, list(t.dims))
                                         for t in model.graph.initializer if t.name not in inputs)
            if not include_initializers:
                del model.graph.initializer[:]
        if not isinstance(destination, (str, os.PathLike)) and not hasattr(destination, "write"):
            raise TypeError(f"ONNXProgram.save: destination must be a path or a binary file object, got "
                            f"{type(destination).__name__}")
        _onnx_names.save(model, destination, bool(external_data))

    def optimize(self):
        """No effect: the exporter already folds constants and prunes."""

    def initialize_inference_session(self, initializer=None):
        """Create the onnxruntime session :meth:`__call__` uses."""
        import onnxruntime

        self._session = (initializer or (lambda m: onnxruntime.InferenceSession(
            m.SerializeToString(), providers=["CPUExecutionProvider"])))(self.model_proto)

    def release(self):
        """Drop the onnxruntime session."""
        self._session = None

    def __call__(self, *args, **kwargs):
        """Run the model in onnxruntime on tensors; returns the outputs as a list of tensors."""
        if self._session is None:
            self.initialize_inference_session()
        leaves = _tensor_leaves((args, kwargs))
        names = [i.name for i in self._session.get_inputs()]
        feeds = {n: np.ascontiguousarray(t.array) for n, t in zip(names, leaves)}
        return [Tensor.wrap(np.asarray(r)) for r in self._session.run(None, feeds)]


def _write(model, f, external_data):
    """Write the exported model to ``f``: with ``external_data`` (``dynamo=True``'s default) a path gets the weights
    in ``<f>.data`` as ``ONNXProgram.save`` writes them; a file object always gets the whole model."""
    if isinstance(f, (str, os.PathLike)):
        _onnx_names.save(model, f, external_data)
    elif hasattr(f, "write"):
        f.write(model.SerializeToString())
    else:
        raise TypeError(f"torch.onnx.export: f must be a path or a binary file object, got {type(f).__name__}")


def _tensor_leaves(obj):
    """The tensors in a (nested) tuple/list/dict, in order."""
    leaves = []
    _structure(obj, leaves)
    return leaves


def _structure(obj, leaves):
    """``obj`` with each tensor replaced by its position in ``leaves`` (a template to rebuild calls)."""
    if isinstance(obj, Tensor):
        leaves.append(obj)
        return ("tensor", len(leaves) - 1)
    if isinstance(obj, (tuple, list)):
        return (type(obj), [_structure(o, leaves) for o in obj])
    if isinstance(obj, dict):
        return (dict, {k: _structure(v, leaves) for k, v in obj.items()})
    return ("value", obj)


def _rebuild(template, tensors):
    kind, body = template
    if kind == "tensor":
        return tensors[body]
    if kind == "value":
        return body
    if kind is dict:
        return {k: _rebuild(v, tensors) for k, v in body.items()}
    return kind(_rebuild(v, tensors) for v in body)


def _numbers_as_tensors(obj):
    """The model's outputs with each Python number (a size: ``return y, x.shape[0]``) a 0-d tensor, an output
    of its own as torch exports it (computed from the input shapes when it follows a dynamic axis): an int is
    int64, a bool bool and a float of the default float dtype."""
    if isinstance(obj, (bool, np.bool_)):
        return new_tensor(np.array(obj, np.bool_))
    if isinstance(obj, (int, np.integer)):
        return new_tensor(np.array(obj, np.int64))
    if isinstance(obj, (float, np.floating)):
        return new_tensor(np.array(obj, default_float_np()))
    if isinstance(obj, (tuple, list)):
        items = [_numbers_as_tensors(o) for o in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else type(obj)(items)
    if isinstance(obj, dict):
        return {k: _numbers_as_tensors(v) for k, v in obj.items()}
    return obj


def _argument_names(model, args, kwargs):
    """Default input names: ``forward``'s parameter names (``name_<k>`` for the tensors inside a container)."""
    try:
        params = [p.name for p in inspect.signature(model.forward if isinstance(model, Module) else model)
                  .parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    named = [(params[i] if i < len(params) else f"input_{i}", value) for i, value in enumerate(args)]
    names = []
    for base, value in named + list(kwargs.items()):
        count = len(_tensor_leaves(value))
        names.extend([base] if isinstance(value, Tensor) else [f"{base}_{k}" for k in range(count)])
    return names


def _axes(spec, name):
    """``{axis: symbol}`` from a dynamic_axes / dynamic_shapes entry (dict of names, or a list of axes)."""
    if spec is None:
        return {}
    if isinstance(spec, dict):
        axes = {}
        for axis, symbol in spec.items():
            if symbol is None or symbol is _Dim.STATIC:
                continue
            label = symbol if isinstance(symbol, str) else getattr(symbol, "__name__", None)
            axes[int(axis)] = label or f"{name}_dynamic_axes_{len(axes) + 1}"
        return axes
    if isinstance(spec, (list, tuple)):
        return {int(axis): f"{name}_dynamic_axes_{k + 1}" for k, axis in enumerate(spec)}
    raise TypeError(f"torch.onnx.export: dynamic axes of {name!r} must be a dict {{axis: name}} or a list of axes, "
                    f"got {type(spec).__name__}")


def _dynamic_from_shapes(dynamic_shapes, model, args, kwargs, input_names):
    """``dynamic_shapes`` (per argument: by parameter name, or a tuple in argument order; per tensor a dict
    ``{axis: Dim}`` or a list with one Dim per dim) as ``{input: {axis: symbol}}``."""
    params = _onnx_names.forward_params(model)
    if isinstance(dynamic_shapes, dict):
        known = set(params[:len(args)]) | set(kwargs)
        unknown = [k for k in dynamic_shapes if k not in known]
        if unknown:
            raise OnnxExporterError(f"torch.onnx.export: dynamic_shapes names {unknown}, which are not arguments "
                                    f"of this call (the model's forward takes {params}, given "
                                    f"{sorted(known, key=str)})")
        per_argument = [dynamic_shapes.get(params[i]) if i < len(params) else None for i in range(len(args))]
        per_argument += [dynamic_shapes.get(k) for k in kwargs]
    else:
        per_argument = list(dynamic_shapes)
        if len(per_argument) != len(args) + len(kwargs):
            raise OnnxExporterError(f"torch.onnx.export: dynamic_shapes has {len(per_argument)} entries for "
                                    f"{len(args) + len(kwargs)} arguments")
    sources = _onnx_names.leaf_sources(model, args, kwargs, params)
    symbols = _onnx_names.AutoSymbols()
    result, position = {}, 0
    for value, spec in zip(list(args) + list(kwargs.values()), per_argument):
        leaves = _tensor_leaves(value)
        specs = [spec] if isinstance(value, Tensor) else _leaf_specs(value, spec)
        for k, leaf_spec in enumerate(specs[:len(leaves)]):
            name = input_names[position + k]
            try:
                result[name] = _onnx_names.shape_axes(leaf_spec, name, sources[position + k], symbols,
                                                      leaves[k].array.shape)
            except _onnx_names.DynamicShapesError as e:
                raise OnnxExporterError(f"torch.onnx.export: {e}") from None
        position += len(leaves)
    return result


def _leaf_specs(value, spec):
    """The per-tensor specs of a container argument's ``dynamic_shapes`` entry (nested like the argument)."""
    if isinstance(value, Tensor):
        return [spec]
    if isinstance(value, dict):
        spec = spec or {}
        return [s for key, item in value.items() for s in _leaf_specs(item, spec.get(key))]
    if isinstance(value, (tuple, list)):
        spec = list(spec) if spec is not None else [None] * len(value)
        return [s for item, sub in zip(value, spec) for s in _leaf_specs(item, sub)]
    return []


def _modes(model):
    return [(m, m.training) for m in model.modules()] if isinstance(model, Module) else []


def export(model, args=(), f=None, *, kwargs=None, verbose=None, input_names=None, output_names=None,
           opset_version=None, dynamo=True, external_data=True, dynamic_shapes=None, custom_translation_table=None,
           report=False, optimize=True, verify=False, profile=False, dump_exported_program=False, artifacts_dir=".",
           export_params=True, keep_initializers_as_inputs=False, dynamic_axes=None, training=TrainingMode.EVAL,
           operator_export_type=OperatorExportTypes.ONNX, do_constant_folding=True, custom_opsets=None,
           export_modules_as_functions=False, autograd_inlining=True):
    """Export a model to ONNX by tracing it on example arguments.

    Parameters
    ----------
    model : nn.Module, callable or torch.export.ExportedProgram
    args : tuple or Tensor
        Positional example arguments (a trailing dict holds keyword arguments). Tensors, possibly in
        nested tuples/lists/dicts, become graph inputs; other values are baked in.
    f : str, os.PathLike or binary file object, optional
        Where to write the model.
    kwargs : dict, optional
        Keyword example arguments.
    input_names, output_names : list of str, optional
        Names of the first graph inputs / outputs.
    opset_version : int, optional
        Default-domain opset (default: the newest the installed onnxruntime supports).
    dynamo : bool
        ``True`` returns an :class:`ONNXProgram`, ``False`` returns ``None`` (the same export).
    dynamic_axes : dict, optional
        ``{input or output name: {axis: symbol} or [axes]}``: dims left symbolic.
    dynamic_shapes : dict or tuple, optional
        Per argument (by ``forward`` parameter name, or in order), nested like the argument: per tensor
        ``{axis: Dim or name}`` or a list with one ``Dim``/name/``None`` per dim (``Dim.AUTO``, ``Dim.DYNAMIC``:
        dynamic, named as torch.export names them).
    export_params : bool
        Store the weights; ``False`` makes them graph inputs (named after the parameters).
    keep_initializers_as_inputs : bool
        Also list the weights as graph inputs (their stored values are defaults).
    training : TrainingMode
        ``EVAL`` (default) exports in eval mode (dropout off, batch norm with running statistics),
        ``TRAINING`` in training mode, ``PRESERVE`` in the modules' current modes.
    do_constant_folding : bool
        Fold what only depends on weights and constants.
    verify : bool
        Run the exported model in onnxruntime on the example and raise if it differs.
    verbose : bool, optional
        Print the exported graph.
    external_data : bool
        With ``dynamo=True`` and a path ``f``, weights over 256 bytes go to a ``<f>.data`` file next to ``f`` (as
        ``ONNXProgram.save`` writes them); models over 2 GB always keep their weights there.

    Returns
    -------
    ONNXProgram or None
    """
    from vfw.onnx_io._export import ExportError, UnsupportedOpError
    from vfw.onnx_io._export_layers import ModuleRecorder
    from vfw.onnx_io._export_trace import export_function

    if isinstance(model, ExportedProgram):
        model, args, kwargs, dynamic_shapes = _from_program(model, args, kwargs, dynamic_shapes)
    if not (isinstance(model, Module) or callable(model)):
        raise TypeError(f"torch.onnx.export: model must be an nn.Module or a callable, got {type(model).__name__}")
    if isinstance(model, ExportableModule):  # what the call leaves out comes from the module
        if not args and kwargs is None:
            args, kwargs = model.example_arguments()
        dynamic_shapes = model.dynamic_shapes() if dynamic_shapes is None else dynamic_shapes
        input_names = model.input_names() if input_names is None else input_names
        output_names = model.output_names() if output_names is None else output_names
    args = (args,) if isinstance(args, Tensor) else tuple(args)
    kwargs = dict(kwargs or {})
    if args and isinstance(args[-1], dict):  # torch's convention: a trailing dict holds keyword arguments
        args, kwargs = args[:-1], {**args[-1], **kwargs}
    leaves = []
    template = _structure((args, kwargs), leaves)
    if not leaves:
        raise ValueError("torch.onnx.export: the example arguments hold no tensor to make a graph input")
    names = _argument_names(model, args, kwargs)
    given = list(input_names or [])
    if len(given) > len(leaves):
        raise ValueError(f"torch.onnx.export: {len(given)} input names given for {len(leaves)} inputs")
    names = given + names[len(given):]
    out_names = list(output_names or [])
    dynamic_by_name = {}
    if dynamic_shapes is not None:
        dynamic_by_name.update(_dynamic_from_shapes(dynamic_shapes, model, args, kwargs, names))
    known_outputs = set(out_names)
    for key, spec in (dynamic_axes or {}).items():
        if key not in names and key not in known_outputs:
            warn_for_user(f"Provided key {key} for dynamic axes is not a valid input/output name", UserWarning)
            continue
        dynamic_by_name[key] = spec
    dynamic = {i: _axes(dynamic_by_name.get(n), n) for i, n in enumerate(names) if n in dynamic_by_name}
    output_dims = {n: _axes(dynamic_by_name[n], n) for n in out_names if n in dynamic_by_name}
    weight_names = {}
    if isinstance(model, Module):
        for name, tensor in list(model.named_parameters()) + list(model.named_buffers()):
            weight_names.setdefault(id(tensor), name)

    runs = []

    def run(*tensors):
        _state.retracing = bool(runs)  # the first run is on the caller's inputs, the others the exporter's
        runs.append(None)
        call_args, call_kwargs = _rebuild(template, tensors)
        return _numbers_as_tensors(model(*call_args, **call_kwargs))

    modes = _modes(model)
    if training == TrainingMode.EVAL and modes:
        model.train(False)
    elif training == TrainingMode.TRAINING and modes:
        model.train(True)
    # Tracing runs forward (several times with dynamic axes): what it writes is restored after each run.
    state = [] if not isinstance(model, Module) else list(model.buffers()) + (
        list(model.parameters()) if any(m.training for m in model.modules()) else [])
    weights = "constant" if export_params and not keep_initializers_as_inputs else \
        ("default" if export_params else "input")
    _state.active = True
    # an error about values of the graph names the submodule that traced them
    recorder = ModuleRecorder(model) if isinstance(model, Module) else contextlib.nullcontext()
    try:
        with no_grad(), recorder:
            proto = export_function(run, leaves, names, out_names, dynamic, output_dims, weight_names,
                                    opset=opset_version, fold=do_constant_folding, weights=weights,
                                    name="main_graph", state=state)
    except UnsupportedOpError as e:
        raise UnsupportedOperatorError(str(e)) from None
    except ExportError as e:
        message = recorder.explained(str(e), e) if isinstance(recorder, ModuleRecorder) else str(e)
        raise OnnxExporterError(message) from None
    finally:
        _state.active = _state.retracing = False
        for module, mode in modes:
            module.training = mode
    if dynamo:
        _onnx_names.rename_outputs(proto, len(out_names))
    if verbose:
        import onnx

        print(onnx.printer.to_text(proto))
    if verify:
        _verify(proto, run, leaves)
    if f is not None:
        _write(proto, f, bool(external_data) and dynamo)
    if report:
        _report(proto, model, artifacts_dir)
    return ONNXProgram(proto) if dynamo else None


def _from_program(program, args, kwargs, dynamic_shapes):
    """``(module, args, kwargs, dynamic_shapes)`` to export an ExportedProgram: its module traced again on the
    example inputs it was exported with (unless given), its dynamic dims named as torch.export names them."""
    module = getattr(program, "_traced_module", None)
    if module is None:
        raise OnnxExporterError("torch.onnx.export: this ExportedProgram does not hold the module it was exported "
                                "from (it was loaded from a file); export the module instead")
    if not args and kwargs is None and program.example_inputs is not None:
        args, kwargs = program.example_inputs
    args = (args,) if isinstance(args, Tensor) else tuple(args)
    kwargs = dict(kwargs or {})
    if dynamic_shapes is None and program.runner.dynamic:
        per_input = {}
        for (k, d) in program.runner.dynamic:
            per_input.setdefault(k, {})[d] = _Dim.AUTO
        count = iter(range(len(_tensor_leaves((args, kwargs)))))

        def like(value):  # the spec of each tensor in the argument's structure
            if isinstance(value, Tensor):
                return per_input.get(next(count))
            if isinstance(value, (tuple, list)):
                return type(value)(like(v) for v in value)
            if isinstance(value, dict):
                return {k: like(v) for k, v in value.items()}
            return None

        dynamic_shapes = [like(a) for a in args] + [like(v) for v in kwargs.values()]
    return module, args, kwargs, dynamic_shapes


def _report(proto, model, artifacts_dir):
    """Write the markdown export report torch writes with ``report=True`` (``onnx_export_<time>_success.md``)."""
    import datetime

    import onnx

    stamp = datetime.datetime.now().strftime("%Y-%m-%d_%H-%M-%S-%f")
    path = os.path.join(os.fspath(artifacts_dir), f"onnx_export_{stamp}_success.md")
    os.makedirs(os.fspath(artifacts_dir), exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        out.write(f"# PyTorch ONNX Conversion Report\n\n```\n✅ Obtain model graph for `{type(model).__name__}`\n"
                  f"✅ Translate the graph into ONNX\n```\n\n## ONNX model\n\n```\n{onnx.printer.to_text(proto)}\n"
                  "```\n")
    print(f"[torch.onnx] Export report has been saved to '{path}'.")


def _verify(proto, run, leaves):
    """Compare onnxruntime's outputs on the example with the model's (raises OnnxExporterError)."""
    from vfw.onnx_io.check import compare_outputs

    with no_grad():
        expected = [t.array for t in _tensor_leaves(run(*leaves))]
    got = ONNXProgram(proto)(*leaves)
    report = compare_outputs(expected, [g.array for g in got], [o.name for o in proto.graph.output])
    if not report.ok:
        raise OnnxExporterError(f"torch.onnx.export(verify=True): onnxruntime's results differ:\n{report}")
