"""The channels-last layout rewrite at import (``_import_layout``): results against ONNX's reference evaluator and
onnxruntime (first run, and the buffer-planned graph of later runs), and the rewritten graph's ops."""

import numpy as np
import onnxruntime
import pytest
from onnx import helper

from tests.onnx.models import model, reference, tensor
from vfw.core.graph.executor import buffers_of
from vfw.onnx_io import load

RNG = np.random.default_rng(0)


def _f32(*shape, low=-1.0, high=1.0):
    return RNG.uniform(low, high, shape).astype(np.float32)


def _assert_runs_match(m, feeds, rtol=1e-5, atol=1e-5):
    """The reference's and onnxruntime's outputs, on vfw's first run and on its planned graph (second run)."""
    expected = reference(m, feeds)
    session = onnxruntime.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    for e, o in zip(expected, session.run(None, feeds)):
        np.testing.assert_allclose(o, e, rtol=rtol, atol=atol)  # the two oracles agree
    loaded = load(m)
    for _ in range(2):
        ours = loaded.run(feeds)
        assert len(ours) == len(expected)
        for a, e in zip(ours, expected):
            assert a.shape == e.shape and a.dtype == e.dtype
            np.testing.assert_allclose(a, e, rtol=rtol, atol=atol)
    planned = next(iter(loaded._planned.values()))
    # the rewrite's values (no ONNX names) have shapes for the memory plan: they get pooled buffers
    assert planned is not None and any(
        op.type.startswith("ChannelsLast") and buffers_of(op)[0] >= 0 for op in planned.graph.op)
    return [op.type for op in loaded.graph.op]


def _cnn(batch):
    """Conv+bias (pads, stride) -> Relu -> MaxPool -> [depthwise Conv, grouped dilated Conv+bias] -> residual Add ->
    per-channel Mul -> Sigmoid -> AveragePool (pads excluded) -> Concat with a Conv -> Softmax over the channels (no
    channels-last form: transposed back) -> Conv -> GlobalAveragePool -> Flatten -> Gemm; the first Conv's output is
    also an output of the graph."""
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 2, 1, 0], strides=[1, 2]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 1]),
        helper.make_node("Conv", ["p1", "wd"], ["d"], group=8, pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["p1", "wg", "bg"], ["g"], group=2, pads=[2, 2, 2, 2], dilations=[2, 2]),
        helper.make_node("Add", ["d", "g"], ["s"]),
        helper.make_node("Mul", ["scale", "s"], ["m"]),
        helper.make_node("Sigmoid", ["m"], ["sg"]),
        helper.make_node("AveragePool", ["sg"], ["a"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["a", "w2"], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("Concat", ["a", "c2"], ["cat"], axis=1),
        helper.make_node("Softmax", ["cat"], ["n"], axis=1),
        helper.make_node("Conv", ["n", "w3", "b3"], ["c3"]),
        helper.make_node("GlobalAveragePool", ["c3"], ["gp"]),
        helper.make_node("Flatten", ["gp"], ["f"]),
        helper.make_node("Gemm", ["f", "wf"], ["y"], transB=1),
    ]
    inits = [("w1", _f32(8, 3, 3, 3)), ("b1", _f32(8)), ("wd", _f32(8, 1, 3, 3)), ("wg", _f32(8, 4, 3, 3)),
             ("bg", _f32(8)), ("scale", _f32(1, 8, 1, 1)), ("w2", _f32(4, 8, 3, 3)), ("w3", _f32(6, 12, 1, 1)),
             ("b3", _f32(6)), ("wf", _f32(5, 6))]
    return model(nodes, [tensor("x", shape=[batch, 3, 9, 12])], [tensor("y"), tensor("c1")], inits)


def test_cnn_runs_channels_last_with_the_same_results():
    ops = _assert_runs_match(_cnn(3), {"x": _f32(3, 3, 9, 12)})
    assert "Conv" not in ops and ops.count("ChannelsLastConv") == 5
    assert {"ChannelsLastMaxPool", "ChannelsLastAveragePool", "ReduceMean"} <= set(ops)
    # into channels-last once at the input; back for the second output, the Softmax and the Flatten; Softmax's output in
    assert ops.count("Transpose") == 5
    # the Relu read only by the max pool applies to the pooled values
    assert ops.index("ChannelsLastMaxPool") < ops.index("Relu")


def test_max_pool_alone_reading_a_convolution_runs_with_it():
    # Conv -> Relu -> MaxPool (the Relu moves after the pool) and Conv -> MaxPool: each pair one fused op
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Conv", ["p1", "w2"], ["c2"], group=2),
             helper.make_node("MaxPool", ["c2"], ["p2"], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1]),
             helper.make_node("Flatten", ["p2"], ["f"]),
             helper.make_node("Gemm", ["f", "wf"], ["y"], transB=1)]
    inits = [("w1", _f32(8, 3, 3, 3)), ("b1", _f32(8)), ("w2", _f32(6, 4, 2, 2)), ("wf", _f32(5, 6 * 4 * 5))]
    m = model(nodes, [tensor("x", shape=[40, 3, 10, 12])], [tensor("y")], inits)
    ops = _assert_runs_match(m, {"x": _f32(40, 3, 10, 12)})
    assert ops == ["Transpose", "ChannelsLastConvMaxPool", "Relu", "ChannelsLastConvMaxPool", "Transpose", "Flatten",
                   "Gemm"]


def test_one_image_keeps_its_layout():
    ops = _assert_runs_match(_cnn(1), {"x": _f32(1, 3, 9, 12)})
    assert "ChannelsLastConv" not in ops and ops.count("Conv") == 5


def test_unknown_batch_runs_channels_last():
    m = _cnn(3)
    m.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "N"
    for batch in (2, 1):
        ops = _assert_runs_match(m, {"x": _f32(batch, 3, 9, 12)})
        assert "Conv" not in ops


@pytest.mark.parametrize("pool", [
    dict(op_type="MaxPool", kernel_shape=[2, 2], ceil_mode=1),  # TensorFlow's windows have no ceil mode
    dict(op_type="AveragePool", kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1),
])
def test_pools_without_a_channels_last_form_read_the_value_as_imported(pool):
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"]), helper.make_node(inputs=["c"], outputs=["p"], **pool),
             helper.make_node("Relu", ["p"], ["y"])]
    m = model(nodes, [tensor("x", shape=[2, 3, 7, 7])], [tensor("y")], [("w", _f32(4, 3, 2, 2))])
    ops = _assert_runs_match(m, {"x": _f32(2, 3, 7, 7)})
    assert ops[:3] == ["Transpose", "ChannelsLastConv", "Transpose"] and pool["op_type"] in ops


def test_elementwise_operand_of_another_layout_is_transposed_back():
    # a (1, 1, 1, 5) operand varies along the width, not the channels: the Add reads the Conv as imported
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]), helper.make_node("Add", ["c", "t"], ["y"])]
    inits = [("w", _f32(4, 3, 3, 3)), ("t", _f32(1, 1, 1, 5))]
    m = model(nodes, [tensor("x", shape=[2, 3, 5, 5])], [tensor("y")], inits)
    ops = _assert_runs_match(m, {"x": _f32(2, 3, 5, 5)})
    assert ops == ["Transpose", "ChannelsLastConv", "Transpose", "Add"]
