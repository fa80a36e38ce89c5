"""Memory plans of imported graphs (``load`` at opt_level 2 and 3, ``_import_shapes``): results against ONNX's
reference evaluator on repeated runs and several input signatures, and when a plan is (not) made."""

import numpy as np
import pytest
from onnx import TensorProto, helper

from tests.onnx.models import model, reference, tensor
from vfw.onnx_io import load

RNG = np.random.default_rng(0)


def _f32(*shape):
    return RNG.uniform(-1.0, 1.0, shape).astype(np.float32)


def _conv_relu_chain(batch="N"):
    """Conv -> Relu -> Conv -> Add(skip) -> Relu -> Sigmoid: in-place chains and buffers to share."""
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c1"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1]),
             helper.make_node("Add", ["c2", "r1"], ["s"]),
             helper.make_node("Relu", ["s"], ["r2"]),
             helper.make_node("Sigmoid", ["r2"], ["y"])]
    inits = [("w1", _f32(4, 3, 3, 3)), ("b1", _f32(4)), ("w2", _f32(4, 4, 3, 3))]
    return model(nodes, [tensor("x", shape=[batch, 3, 6, 6])], [tensor("y")], inits)


def _check(imported, m, feeds):
    for _ in range(3):  # the first run plans, later runs use the plan (pooled buffers reused)
        ours = imported.run(feeds)
        for a, e in zip(ours, reference(m, feeds)):
            assert a.dtype == e.dtype and a.shape == e.shape
            np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-5)
    return ours


@pytest.mark.parametrize("level", [2, 3])
def test_planned_graph_matches_reference_for_each_input_signature(level):
    m = _conv_relu_chain()
    imported = load(m, opt_level=level)
    first = _check(imported, m, {"x": _f32(2, 3, 6, 6)})
    _check(imported, m, {"x": _f32(5, 3, 6, 6)})
    assert len(imported._planned) == 2 and all(p is not None for p in imported._planned.values())
    again = imported.run({"x": np.zeros((2, 3, 6, 6), np.float32)})
    assert not np.shares_memory(again[0], first[0])  # outputs never live in the pools across calls
    plan = "inplace" if level == 2 else "buffers"
    for planned in imported._planned.values():
        assert any(arg.name == "memory_plan" and arg.s.decode() == plan for arg in planned.graph.arg)


def test_levels_agree_exactly():
    m = _conv_relu_chain(batch=2)
    x = _f32(2, 3, 6, 6)
    results = [load(m, opt_level=level).run({"x": x})[0] for level in (1, 2, 3)]
    for level in (2, 3):
        imported = load(m, opt_level=level)
        imported.run({"x": x})
        np.testing.assert_array_equal(imported.run({"x": x})[0], results[0])


def test_inferred_shape_that_disagrees_with_the_run_keeps_the_unplanned_graph(monkeypatch):
    # the first run checks every inferred shape against the computed value: a wrong one (here injected) means
    # that signature runs unplanned, with correct results
    import vfw.onnx_io._import as importer

    real = importer.static_shapes

    def wrong_c1(skeleton, feeds):
        shapes = real(skeleton, feeds)
        shapes["c1"] = ((1, 5, 6, 6), shapes["c1"][1])
        return shapes

    monkeypatch.setattr(importer, "static_shapes", wrong_c1)
    m = _conv_relu_chain(batch=1)  # one image: c1 stays a value (no channels-last rewrite)
    imported = load(m, opt_level=3)
    _check(imported, m, {"x": _f32(1, 3, 6, 6)})
    assert list(imported._planned.values()) == [None]


def test_declared_value_infos_are_not_trusted():
    # a wrong declared shape of an intermediate does not reach the plan (the skeleton drops declarations)
    m = _conv_relu_chain(batch=2)
    m.graph.value_info.append(helper.make_tensor_value_info("c1", TensorProto.FLOAT, [2, 5, 6, 6]))
    _check(load(m, opt_level=3), m, {"x": _f32(2, 3, 6, 6)})


def test_data_dependent_shapes_get_no_buffer():
    # NonZero's count depends on the values: the same input shape gives different result shapes
    nodes = [helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("NonZero", ["r"], ["nz"]),
             helper.make_node("Cast", ["nz"], ["f"], to=TensorProto.FLOAT),
             helper.make_node("Neg", ["f"], ["y"])]
    m = model(nodes, [tensor("x", shape=[3, 4])], [tensor("y")])
    imported = load(m, opt_level=3)
    for density in (0.1, 0.9):
        x = (RNG.uniform(0, 1, (3, 4)) < density).astype(np.float32)
        _check(imported, m, {"x": x})


def test_opt_level_is_checked():
    with pytest.raises(ValueError, match="opt_level"):
        load(_conv_relu_chain(), opt_level=4)
