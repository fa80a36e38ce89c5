"""An imported ONNX model as a trainable ``vfw.torch.nn.Module``.

:func:`to_torch_module` imports the model (``vfw.onnx_io.load`` without constant folding, so
the weights stay the file's initializers) and wraps its engine graph: float initializers become
``Parameter``\\s, batch norm's running statistics buffers (as in torch: gradient descent leaves
them alone) and the others (shapes, indices, scalars, settings such as ReLU6's bounds: see
``initializer_roles``) non-persistent buffers, under their ONNX names
(a dotted name such as ``encoder.0.weight`` becomes nested submodules, so ``state_dict()``
keys are the initializer names and a model exported from vfw.torch loads its original
``state_dict``).  Next to a batch norm's ``<name>.running_mean`` the module holds the
``<name>.num_batches_tracked`` count torch's batch norm keeps (0 until a state_dict sets it;
the graph never reads it), so ``state_dict()`` keys match the original model's both ways.
Float ``Constant`` ops become non-persistent buffers too, so ``.double()`` converts them with
the weights, and Dropout ops the file runs in training mode follow ``train()`` / ``eval()``.
``forward`` runs the graph op by op through the eager executor, so autograd records it:
gradients reach the parameters, ``vfw.torch.optim`` trains them, and ``torch.onnx.export``
traces the module again.
"""

import numpy as np

import vfw.torch as torch
from vfw.core import dtypes as dt
from vfw.core.graph.subgraph import run_graph
from vfw.core.ir import opdef_attrs, proto_to_tensor
from vfw.core.proto import GraphDef
from vfw.onnx_io._import import initializer_roles


def _owner(root, name, taken):
    """``(module, attribute)`` to hold the initializer ``name``: nested submodules along its dotted path, or the
    root with the dots replaced when the path cannot be used (an empty part, or a part already holding a tensor)."""
    parts = name.split(".")
    module = root
    usable = all(parts)
    for part in parts[:-1] if usable else ():
        child = module._modules.get(part)
        if child is None:
            if part in module._parameters or part in module._buffers or hasattr(type(module), part):
                usable = False
                break
            child = torch.nn.Module()
            module.add_module(part, child)
        module = child
    leaf = parts[-1]
    if usable and leaf not in module._modules and leaf not in taken.get(id(module), set()) and \
            not hasattr(type(module), leaf):
        return module, leaf
    flat = name.replace(".", "_") or "initializer"
    while flat in root._modules or flat in taken.get(id(root), set()) or hasattr(type(root), flat):
        flat += "_"
    return root, flat


def _follow_training_mode(runnable, graph):
    """Make the Dropout ops of ``runnable`` that the file runs in training mode (a constant ``training_mode``
    True: an export in torch's TRAINING mode) read a last graph input instead, which ``forward`` feeds with
    the module's ``training`` flag: ``.eval()`` stops them dropping, as it stops torch's Dropout.  Returns
    whether there is such an input."""
    constants = {t.name: t for t in graph.initializer}
    made = {op.output[0]: opdef_attrs(op).get("value") for op in runnable.op if op.type == "Constant"}

    def always_true(name):
        value = made.get(name)
        if value is None and name in constants:
            value = proto_to_tensor(constants[name])
        return isinstance(value, np.ndarray) and value.dtype == np.bool_ and value.size == 1 and bool(value)

    dropouts = [op for op in runnable.op if op.type == "Dropout" and len(op.input) > 2 and always_true(op.input[2])]
    if not dropouts:
        return False
    used = set(runnable.input) | {n for op in runnable.op for n in list(op.input) + list(op.output)}
    flag = "training_mode"
    while flag in used:
        flag += "_"
    for op in dropouts:
        op.input[2] = flag
    runnable.input.append(flag)
    return True


class OnnxModule(torch.nn.Module):
    """An ONNX graph with trainable initializers (see :func:`vfw.onnx_io.to_torch_module`).

    Attributes
    ----------
    input_names, output_names : list[str]
    graph : GraphDef
        The engine graph run by ``forward`` (initializers moved to inputs after the model's
        inputs, one per parameter or buffer the graph reads).
    """

    def __init__(self, graph, input_names, output_names):
        super().__init__()
        graph, roles = initializer_roles(graph)
        runnable = GraphDef()
        runnable.CopyFrom(graph)
        del runnable.initializer[:]
        taken = {}
        tensors = []
        for proto in graph.initializer:
            array = proto_to_tensor(proto)
            module, attr = _owner(self, proto.name, taken)
            taken.setdefault(id(module), set()).add(attr)
            if roles[proto.name] == "statistic":
                module.register_buffer(attr, torch.from_numpy(array))
                if attr == "running_mean" and "num_batches_tracked" not in taken[id(module)] and \
                        not hasattr(type(module), "num_batches_tracked"):
                    # torch's batch norm keeps a count of batches next to its running statistics: the graph
                    # never reads it, but it is part of the original model's state_dict
                    taken[id(module)].add("num_batches_tracked")
                    module.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.int64))
            elif roles[proto.name] == "weight":
                module.register_parameter(attr, torch.nn.Parameter(torch.from_numpy(array)))
            else:
                module.register_buffer(attr, torch.from_numpy(array), persistent=False)
            tensors.append((module, attr))
            runnable.input.append(proto.name)
        self._hoist_float_constants(runnable, taken, tensors)
        object.__setattr__(self, "_held", tensors)
        object.__setattr__(self, "_mode_input", _follow_training_mode(runnable, graph))
        self.graph = runnable
        self.input_names = list(input_names)
        self.output_names = list(output_names)

    def _hoist_float_constants(self, runnable, taken, tensors):
        """Make the float ``Constant`` ops of the main graph non-persistent buffers (graph inputs), as the float
        initializers that are not weights are: ``.double()`` / ``.half()`` / ``.to(dtype)`` then convert them
        with the parameters, as torch converts a module's float buffers (a ReLU6's bounds stay the input's type)."""
        kept = []
        for op in runnable.op:
            value = opdef_attrs(op).get("value") if op.type == "Constant" else None
            if not (isinstance(value, np.ndarray) and value.dtype in dt.FLOATS):
                kept.append(op)
                continue
            name = op.output[0]
            module, attr = _owner(self, name, taken)
            taken.setdefault(id(module), set()).add(attr)
            module.register_buffer(attr, torch.from_numpy(value.copy()), persistent=False)
            tensors.append((module, attr))
            runnable.input.append(name)
        if len(kept) != len(runnable.op):
            del runnable.op[:]
            runnable.op.extend(kept)

    def forward(self, *inputs, **named):
        """Run the graph on the inputs (tensors or arrays, by position or by input name)."""
        if named:
            if inputs:
                raise TypeError("OnnxModule.forward: give the inputs by position or by name, not both")
            missing = [n for n in self.input_names if n not in named]
            unknown = sorted(set(named) - set(self.input_names))
            if missing or unknown:
                raise TypeError(f"OnnxModule.forward: inputs are {self.input_names}; missing {missing}, "
                                f"unknown {unknown}")
            inputs = [named[n] for n in self.input_names]
        if len(inputs) != len(self.input_names):
            raise TypeError(f"OnnxModule.forward() takes {len(self.input_names)} input(s) "
                            f"({', '.join(self.input_names)}), got {len(inputs)}")
        feeds = [x if isinstance(x, torch.Tensor) else torch.as_tensor(np.asarray(x)) for x in inputs]
        held = [getattr(module, attr) for module, attr in self._held]
        if self._mode_input:
            held.append(torch.tensor(self.training))
        results = run_graph(self.graph, feeds + held)
        results = [r if isinstance(r, torch.Tensor) else torch.Tensor.wrap(r.array) for r in results]
        return results[0] if len(results) == 1 else tuple(results)

    def extra_repr(self):
        return f"inputs={self.input_names}, outputs={self.output_names}, ops={len(self.graph.op)}"


def to_torch_module(model):
    """Wrap an ONNX model as a ``vfw.torch.nn.Module`` whose initializers are trainable parameters.

    Parameters
    ----------
    model : str, os.PathLike, bytes, file object, onnx.ModelProto or ImportedModel
        An :class:`~vfw.onnx_io.ImportedModel` is wrapped as it is (its graph may have been
        constant-folded at import); anything else is imported without folding.

    Returns
    -------
    OnnxModule
        Call it with the model's inputs (by position or by name); one output is returned bare,
        several as a tuple.
    """
    from vfw.onnx_io._import import ImportedModel, load

    imported = model if isinstance(model, ImportedModel) else load(model, opt_level=0)
    return OnnxModule(imported.self_contained_graph(), imported.input_names, imported.output_names)
