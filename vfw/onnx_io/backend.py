"""``onnx.backend.base.Backend`` over the vfw engine: what ONNX's backend test suite drives.

>>> from vfw.onnx_io import backend
>>> rep = backend.prepare(model)            # doctest: +SKIP
>>> outputs = rep.run([x])                  # doctest: +SKIP
"""

import numpy as np
import onnx
from onnx import helper
from onnx.backend.base import Backend, BackendRep

from vfw.onnx_io._import import load
from vfw.onnx_io._import_tensors import OnnxModelError

DEVICES = ("CPU",)


def _check_device(device):
    if not VfwBackend.supports_device(device):
        raise ValueError(f"vfw backend: unsupported device {device!r} (supported: {', '.join(DEVICES)})")


class VfwBackendRep(BackendRep):
    """A prepared model: ``run(inputs)`` returns its outputs as a tuple.

    Parameters
    ----------
    model : vfw.onnx_io.ImportedModel
    """

    def __init__(self, model):
        self.model = model

    def run(self, inputs, **kwargs):
        """Run on ``inputs``: one value, a list (by position) or a dict (by name)."""
        if isinstance(inputs, np.ndarray) or not isinstance(inputs, (list, tuple, dict)):
            inputs = [inputs]
        return tuple(self.model.run(inputs))


class VfwBackend(Backend):
    """The vfw engine as an ONNX backend (CPU)."""

    @classmethod
    def prepare(cls, model, device="CPU", **kwargs):
        """Import ``model`` (a ModelProto, bytes or a path) for ``device``; keyword ``base_dir`` locates
        external data of a ModelProto."""
        _check_device(device)
        return VfwBackendRep(load(model, base_dir=kwargs.get("base_dir")))

    @classmethod
    def run_model(cls, model, inputs, device="CPU", **kwargs):
        """Prepare ``model`` and run it once on ``inputs``."""
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def run_node(cls, node, inputs, device="CPU", outputs_info=None, **kwargs):
        """Run one node on ``inputs`` (arrays in the node's input order, or a dict by input name).

        Keyword ``opset_version`` picks the default-domain opset (default: the newest onnx defines).
        """
        _check_device(device)
        if isinstance(inputs, dict):
            feeds = [inputs[name] for name in node.input if name]
        else:
            feeds = list(inputs)
        names = [name for name in node.input if name]
        if len(feeds) != len(names):
            raise OnnxModelError(f"run_node: node {node.op_type} has {len(names)} inputs, got {len(feeds)} values")
        graph_inputs = [helper.make_tensor_value_info(name, _elem_type(value), None) if not isinstance(value, list)
                        else helper.make_tensor_sequence_value_info(name, _elem_type(value[0]) if value else 1, None)
                        for name, value in zip(names, feeds)]
        graph_outputs = [helper.make_empty_tensor_value_info(name) for name in node.output if name]
        graph = helper.make_graph([node], f"run_node_{node.op_type}", graph_inputs, graph_outputs)
        opsets = [helper.make_opsetid("", kwargs.get("opset_version", onnx.defs.onnx_opset_version()))]
        if node.domain not in ("", "ai.onnx"):
            opsets.append(helper.make_opsetid(node.domain, kwargs.get("domain_version", 1)))
        model = helper.make_model(graph, opset_imports=opsets)
        return cls.run_model(model, feeds, device)

    @classmethod
    def supports_device(cls, device):
        """Whether ``device`` is one vfw runs on (``"CPU"``)."""
        return str(device).upper().split(":")[0] in DEVICES


def _elem_type(value):
    return helper.np_dtype_to_tensor_dtype(np.asarray(value).dtype)


prepare = VfwBackend.prepare
run_model = VfwBackend.run_model
run_node = VfwBackend.run_node
supports_device = VfwBackend.supports_device
