"""Small ONNX models built with ``onnx.helper`` for the importer tests, and the reference to compare with."""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from vfw.onnx_io import load

F = TensorProto.FLOAT


def tensor(name, elem=F, shape=None):
    return helper.make_tensor_value_info(name, elem, shape)


def model(nodes, inputs, outputs, initializers=(), opset=None, domains=(), functions=(), ir_version=None,
          value_info=()):
    """A model of one graph; ``opset`` None is the newest; ``domains`` adds (domain, version) imports."""
    graph = helper.make_graph(nodes, "test_graph", inputs, outputs,
                              [numpy_helper.from_array(np.asarray(v), n) for n, v in initializers],
                              value_info=list(value_info))
    imports = [helper.make_opsetid("", opset or onnx.defs.onnx_opset_version())]
    imports += [helper.make_opsetid(d, v) for d, v in domains]
    m = helper.make_model(graph, opset_imports=imports, functions=list(functions))
    m.ir_version = ir_version or min(m.ir_version, onnx.IR_VERSION)
    return m


def reference(m, feeds):
    """Outputs of ONNX's reference evaluator (the oracle)."""
    return ReferenceEvaluator(m).run(None, feeds)


def assert_matches_reference(m, feeds, rtol=1e-5, atol=1e-6):
    """vfw's import of ``m`` gives the reference's outputs (dtypes, shapes, values; sequences elementwise)."""
    ours = load(m).run(feeds)
    theirs = reference(m, feeds)
    assert len(ours) == len(theirs)
    for k, (a, e) in enumerate(zip(ours, theirs)):
        _assert_value(a, e, rtol, atol, f"output {k}")
    return ours


def _assert_value(actual, expected, rtol, atol, where):
    if isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), f"{where}: {actual!r} vs {expected!r}"
        for k, (a, e) in enumerate(zip(actual, expected)):
            _assert_value(a, e, rtol, atol, f"{where}[{k}]")
        return
    if expected is None:
        assert actual is None, where
        return
    expected = np.asarray(expected)
    if expected.dtype.kind == "U":
        expected = expected.astype(object)
    assert actual.dtype == expected.dtype, f"{where}: dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape, f"{where}: shape {actual.shape} != {expected.shape}"
    if actual.dtype.kind in "fc":
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, err_msg=where)
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=where)
