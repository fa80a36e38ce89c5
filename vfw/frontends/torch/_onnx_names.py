"""Names torch.onnx.export (``dynamo=True``) gives: dynamic dims from ``dynamic_shapes``, graph outputs, files.

torch 2.13's exporter runs ``torch.export`` first, so what users see in the file follows it:

- a dim given as ``Dim("batch")`` (or a string) is named ``batch``; ``Dim.AUTO`` / ``Dim.DYNAMIC`` get the symbol
  torch.export's shape environment makes for the input's source, ``s<k>`` with ``k`` the SHA-256 of
  ``L['x'].size()[0]`` modulo 100 (the next free number on a collision);
- an output is named after the FX node computing it: the ATen operator's name (``linear``, ``relu``, ``add``...)
  numbered ``_1``, ``_2``... in graph order when it repeats, and never a Python builtin's name (``sum_1``).
  vfw names it after the ONNX node computing it, which is the same operator for the common layers and functions
  (torch's decompositions can renumber nodes under dynamic shapes: ``add_3``, which vfw does not reproduce).
"""

import builtins
import hashlib
import inspect
import os

from vfw.frontends.torch._aten_names import aten_name
from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.export._program import Dim, _DimHint

__all__ = []

# ONNX node type -> the FX node name torch's exporter keeps for the module or function that made it.
_FX_NAMES = {"Gemm": "linear", "Reshape": "view", "Flatten": "view", "Clip": "clamp", "Identity": "clone",
             "GlobalAveragePool": "adaptive_avg_pool2d", "GlobalMaxPool": "adaptive_max_pool2d",
             "LayerNormalization": "layer_norm", "ArgMax": "argmax", "ArgMin": "argmin", "Transpose": "permute",
             "Cast": "to", "Expand": "expand", "Unsqueeze": "unsqueeze", "Squeeze": "squeeze", "Slice": "slice",
             "Equal": "eq", "Less": "lt", "Greater": "gt", "Not": "logical_not", "ReduceMax": "amax",
             "ReduceMin": "amin", "Pad": "pad"}


def _fx_base(node, initializers):
    """The FX node name (without its number) torch gives what the ONNX ``node`` computes."""
    kind = node.op_type
    if kind in ("Conv", "ConvTranspose"):
        spatial = next((len(a.ints) for a in node.attribute if a.name == "kernel_shape"), 2)
        return ("conv" if kind == "Conv" else "conv_transpose") + f"{spatial}d"
    if kind in ("MaxPool", "AveragePool"):
        spatial = next((len(a.ints) for a in node.attribute if a.name == "kernel_shape"), 2)
        return ("max_pool" if kind == "MaxPool" else "avg_pool") + f"{spatial}d"
    if kind == "Gather" and node.input and node.input[0] in initializers:
        return "embedding"
    return _FX_NAMES.get(kind) or aten_name(kind)


def rename_outputs(model, keep):
    """Rename (in place) the graph outputs of ``model`` after the FX names of their producers, leaving the first
    ``keep`` (named by the caller's ``output_names``) and outputs no node computes as they are."""
    graph = model.graph
    initializers = {t.name for t in graph.initializer}
    renamed = {o.name for o in graph.output[keep:]}
    taken = {i.name for i in graph.input} | initializers | {o.name for o in graph.output[:keep]} | \
        {n for node in graph.node for n in node.output if n not in renamed}
    counts, fx_names = {}, {}
    linear, absorbed = _linear_nodes(graph, initializers)
    for position, node in enumerate(graph.node):
        if not node.output or position in absorbed:
            continue
        base = "linear" if position in linear else _fx_base(node, initializers)
        count = counts.get(base, 0)
        while True:  # FX numbers repeats in graph order and never uses a builtin's name (sum -> sum_1)
            name = base if count == 0 else f"{base}_{count}"
            count += 1
            if name not in taken and not (name == base and hasattr(builtins, base)):
                break
        counts[base] = count
        fx_names[node.output[0]] = name
        taken.add(name)
    mapping = {o.name: fx_names[o.name] for o in graph.output[keep:] if o.name in fx_names}
    if len(set(mapping.values())) != len(mapping):
        return
    for node in graph.node:
        node.input[:] = [mapping.get(n, n) for n in node.input]
        node.output[:] = [mapping.get(n, n) for n in node.output]
    for value in list(graph.output) + list(graph.value_info):
        value.name = mapping.get(value.name, value.name)


def _linear_nodes(graph, initializers):
    """``(linear, absorbed)``: positions of the nodes ending an ``nn.Linear`` on an input of rank > 2 (``MatMul``
    by a transposed weight, then ``Add`` of a bias), which torch names ``linear``, and of the nodes before them."""
    nodes = list(graph.node)
    producer = {out: k for k, node in enumerate(nodes) for out in node.output}
    linear, absorbed = set(), set()
    for k, node in enumerate(nodes):
        if node.op_type != "MatMul" or len(node.input) != 2 or node.input[1] not in producer:
            continue
        weight = producer[node.input[1]]
        if nodes[weight].op_type != "Transpose" or nodes[weight].input[0] not in initializers:
            continue
        readers = [j for j, n in enumerate(nodes) if node.output[0] in n.input]
        end = k
        if len(readers) == 1 and nodes[readers[0]].op_type == "Add" and \
                any(i in initializers for i in nodes[readers[0]].input):
            end = readers[0]
            absorbed.add(k)
        absorbed.add(weight)
        linear.add(end)
    return linear, absorbed


def leaf_sources(model, args, kwargs, forward_params):
    """torch.export's source name of each tensor in the arguments, in order: ``L['x']``, ``L['pair'][0]``."""
    sources = []

    def walk(value, path):
        if isinstance(value, Tensor):
            sources.append(path)
        elif isinstance(value, (tuple, list)):
            for k, item in enumerate(value):
                walk(item, f"{path}[{k}]")
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item, f"{path}[{key!r}]")

    for i, value in enumerate(args):
        walk(value, f"L[{forward_params[i]!r}]" if i < len(forward_params) else f"L['args'][{i}]")
    for key, value in kwargs.items():
        walk(value, f"L[{key!r}]")
    return sources


def forward_params(model):
    """The names of ``model.forward``'s (or the callable's) parameters, in order."""
    try:
        return list(inspect.signature(getattr(model, "forward", model)).parameters)
    except (TypeError, ValueError):
        return []


class AutoSymbols:
    """The ``s<k>`` names torch.export gives ``Dim.AUTO`` / ``Dim.DYNAMIC`` dims (one export's worth)."""

    def __init__(self):
        self.used = set()

    def name(self, source, axis):
        k = int(hashlib.sha256(f"{source}.size()[{axis}]".encode()).hexdigest(), 16) % 100
        while k in self.used:
            k += 1
        self.used.add(k)
        return f"s{k}"


class DynamicShapesError(ValueError):
    """``dynamic_shapes`` that do not fit the example inputs (torch.export refuses them)."""


def shape_axes(spec, name, source, symbols, shape):
    """``{axis: symbol}`` from one tensor's ``dynamic_shapes`` entry: a dict ``{axis: Dim or name}`` or a
    list/tuple with one ``Dim``/name/``None`` per dim (an int: the dim is static at that size).  ``shape``: the
    example tensor's; a size outside a ``Dim``'s range raises :class:`DynamicShapesError`."""
    if spec is None:
        return {}
    if isinstance(spec, dict):
        items = spec.items()
    elif isinstance(spec, (list, tuple)):
        items = enumerate(spec)
    else:
        raise TypeError(f"torch.onnx.export: dynamic_shapes of {name!r} must be a dict {{axis: Dim}} or a "
                        f"list/tuple with one Dim or None per dim, got {type(spec).__name__}")
    axes = {}
    for axis, dim in items:
        if not -len(shape) <= int(axis) < len(shape):
            raise DynamicShapesError(f"dynamic_shapes of {name!r}: dim {axis} is out of range for its example of "
                                     f"shape {list(shape)}")
        size = shape[int(axis)]
        if dim is None or dim is Dim.STATIC:
            continue
        if isinstance(dim, int) and not isinstance(dim, bool):
            if dim != size:
                raise DynamicShapesError(f"dynamic_shapes of {name!r}: dim {axis} is given as the static size "
                                         f"{dim}, but its example has size {size}")
            continue
        low, high = getattr(dim, "min", None), getattr(dim, "max", None)
        if (low is not None and size < low) or (high is not None and size > high):
            raise DynamicShapesError(f"dynamic_shapes of {name!r}: the example's dim {axis} has size {size}, "
                                     f"outside the range [{low}, {high}] of {dim!r}")
        if isinstance(dim, str):
            axes[int(axis)] = dim
        elif isinstance(dim, _DimHint):
            axes[int(axis)] = symbols.name(source, int(axis))
        elif isinstance(dim, Dim):
            axes[int(axis)] = dim.__name__
        else:
            raise TypeError(f"torch.onnx.export: dynamic_shapes of {name!r} at dim {axis}: expected a Dim, "
                            f"Dim.AUTO/DYNAMIC/STATIC, a name or None, got {type(dim).__name__}")
    return axes


def save(model, destination, external_data):
    """Write ``model`` as ``ONNXProgram.save`` does: with ``external_data``, tensors over 256 bytes go to
    ``<file>.data`` beside it (the file is written even when none does), without, inline (external anyway past
    protobuf's 2 GB)."""
    import onnx

    large = model.ByteSize() > onnx.checker.MAXIMUM_PROTOBUF
    if not (external_data or large):
        if hasattr(destination, "write"):
            destination.write(model.SerializeToString())
        else:
            onnx.save_model(model, os.fspath(destination))
        return
    if not isinstance(destination, (str, os.PathLike)):
        raise TypeError("ONNXProgram.save: external_data=True needs destination to be a file path, got "
                        f"{type(destination).__name__}")
    path = os.fspath(destination)
    location = os.path.basename(path) + ".data"
    data = os.path.join(os.path.dirname(path), location)
    if os.path.exists(data):
        os.remove(data)  # onnx appends to an existing data file
    copy = type(model)()
    copy.CopyFrom(model)  # onnx moves the tensors out of the model it saves
    onnx.save_model(copy, path, save_as_external_data=True, all_tensors_to_one_file=True, location=location,
                    size_threshold=256)
    if not os.path.exists(data):
        open(data, "wb").close()
