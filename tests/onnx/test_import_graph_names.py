"""A model's graph name is only a label: any string ONNX allows (a NUL, non-ASCII text) loads and runs (found by
the import fuzzer: a NUL in the name broke the executor's compile of the generated code)."""

import numpy as np
import pytest
from onnx import TensorProto, helper

import vfw.onnx_io as onnx_io


@pytest.mark.parametrize("name", ["bad\x00name", "r\u00e9seau \U0001f600", "line\nbreak", ""])
def test_any_graph_name_loads_and_runs(name):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], name, [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    data = np.array([-1.0, 0.5, 2.0], np.float32)
    for opt_level in (0, 3):
        out = onnx_io.load(model.SerializeToString(), opt_level=opt_level)(data)
        np.testing.assert_array_equal(out, np.maximum(data, 0))
