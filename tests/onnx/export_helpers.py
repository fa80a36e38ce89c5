"""Helpers of the export tests: trace engine code into an ONNX model and run it in onnxruntime."""

import numpy as np
import onnx
import onnxruntime as ort

from vfw.core import Tensor
from vfw.onnx_io._export_trace import export_function


def export_engine(fn, arrays, opset=None, dynamic=None, tensor_class=Tensor):
    """Export ``fn(*tensors)`` (engine code on :class:`vfw.core.Tensor` inputs, or those of a frontend's
    ``tensor_class``) and check the model."""
    tensors = [tensor_class.wrap(np.array(a)) for a in arrays]
    model = export_function(fn, tensors, [f"x{i}" for i in range(len(arrays))], dynamic=dynamic, opset=opset)
    onnx.checker.check_model(model, full_check=True)
    return model


def run_model(model, arrays):
    """The outputs of ``model`` in onnxruntime (CPU)."""
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {i.name: np.asarray(a) for i, a in zip(session.get_inputs(), arrays)})


def op_types(model):
    """The op types of the main graph's nodes."""
    return [n.op_type for n in model.graph.node]
