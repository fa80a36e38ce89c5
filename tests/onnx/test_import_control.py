"""Control flow with outer-scope references, Scan, SequenceMap, functions, sequences and optionals, against
ONNX's reference evaluator."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from tests.onnx.models import F, assert_matches_reference, model, tensor
from vfw.onnx_io import OnnxModelError, load

I64, BOOL = TensorProto.INT64, TensorProto.BOOL
RNG = np.random.default_rng(1)


def graph(nodes, inputs, outputs, name="body"):
    return helper.make_graph(nodes, name, inputs, outputs)


def test_if_branches_read_outer_values():
    then = graph([helper.make_node("Mul", ["a", "b"], ["t"])], [], [tensor("t", F, [3])], "then")
    other = graph([helper.make_node("Sub", ["a", "c"], ["e"])], [], [tensor("e", F, [3])], "else")
    nodes = [helper.make_node("Neg", ["x"], ["a"]), helper.make_node("Exp", ["x"], ["c"]),
             helper.make_node("If", ["cond"], ["y"], then_branch=then, else_branch=other)]
    m = model(nodes, [tensor("x", F, [3]), tensor("b", F, [3]), tensor("cond", BOOL, [])], [tensor("y", F, [3])])
    x, b = RNG.standard_normal(3).astype(np.float32), RNG.standard_normal(3).astype(np.float32)
    for flag in (True, False):
        assert_matches_reference(m, {"x": x, "b": b, "cond": np.array(flag)})


def test_loop_with_outer_values_scan_outputs_and_nested_if():
    inner_then = graph([helper.make_node("Add", ["acc_in", "step"], ["r"])], [], [tensor("r", F, [2])], "grow")
    inner_else = graph([helper.make_node("Sub", ["acc_in", "step"], ["r2"])], [], [tensor("r2", F, [2])], "shrink")
    body = graph([
        helper.make_node("Less", ["i", "half"], ["small"]),
        helper.make_node("If", ["small"], ["acc_out"], then_branch=inner_then, else_branch=inner_else),
        helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        helper.make_node("Mul", ["acc_out", "acc_out"], ["squared"]),
    ], [tensor("i", I64, []), tensor("cond_in", BOOL, []), tensor("acc_in", F, [2])],
        [tensor("cond_out", BOOL, []), tensor("acc_out", F, [2]), tensor("squared", F, [2])])
    inputs = [tensor("n", I64, []), tensor("init", F, [2]), tensor("step", F, [2]), tensor("half", I64, [])]
    outputs = [tensor("final", F, [2]), tensor("history", F, [None, 2])]
    m = model([helper.make_node("Loop", ["n", "go", "init"], ["final", "history"], body=body)], inputs, outputs,
              [("go", np.array(True))])
    feeds = {"init": np.array([1, 2], np.float32), "step": np.array([0.5, -1], np.float32),
             "half": np.array(2, np.int64)}
    for n in (5, 1):
        assert_matches_reference(m, {"n": np.array(n, np.int64), **feeds})
    # Without cond the loop runs M times (ONNX's reference reads an absent cond as false: numpy is the oracle).
    no_cond = model([helper.make_node("Loop", ["n", "", "init"], ["final", "history"], body=body)], inputs, outputs)
    final, history = load(no_cond).run({"n": np.array(3, np.int64), **feeds})
    acc, rows = feeds["init"], []
    for i in range(3):
        acc = acc + feeds["step"] if i < 2 else acc - feeds["step"]
        rows.append(acc * acc)
    np.testing.assert_allclose(final, acc)
    np.testing.assert_allclose(history, np.stack(rows))
    final, history = load(no_cond).run({"n": np.array(0, np.int64), **feeds})
    np.testing.assert_array_equal(final, feeds["init"])
    assert history.shape == (0, 2) and history.dtype == np.float32


def test_loop_stops_on_condition():
    body = graph([helper.make_node("Add", ["v", "one"], ["v_out"]), helper.make_node("Less", ["v_out", "limit"],
                                                                                       ["go"])],
                 [tensor("i", I64, []), tensor("c", BOOL, []), tensor("v", F, [])],
                 [tensor("go", BOOL, []), tensor("v_out", F, [])])
    m = model([helper.make_node("Loop", ["", "start", "v0"], ["v_end"], body=body)],
              [tensor("start", BOOL, []), tensor("v0", F, []), tensor("limit", F, [])], [tensor("v_end", F, [])],
              [("one", np.float32(1.0))])
    assert_matches_reference(m, {"start": np.array(True), "v0": np.array(0.5, np.float32),
                                 "limit": np.array(4.0, np.float32)})


@pytest.mark.parametrize("in_dir,out_dir,out_axis", [(0, 0, 0), (1, 0, 0), (0, 1, 1), (1, 1, -1)])
def test_scan(in_dir, out_dir, out_axis):
    # ONNX's reference only scans axis 0 forward: numpy is the oracle.
    body = graph([helper.make_node("Add", ["s", "row"], ["s_out"]), helper.make_node("Mul", ["s_out", "w"], ["o"])],
                 [tensor("s", F, [2]), tensor("row", F, [2])], [tensor("s_out", F, [2]), tensor("o", F, [2])])
    node = helper.make_node("Scan", ["s0", "xs"], ["s_final", "ys"], body=body, num_scan_inputs=1,
                            scan_input_axes=[1], scan_input_directions=[in_dir], scan_output_directions=[out_dir],
                            scan_output_axes=[out_axis])
    m = model([node], [tensor("s0", F, [2]), tensor("xs", F, [2, 4]), tensor("w", F, [2])],
              [tensor("s_final", F, [2]), tensor("ys", F, None)])
    s0, xs, w = np.zeros(2, np.float32), RNG.standard_normal((2, 4)).astype(np.float32), np.array([2, -1], np.float32)
    s_final, ys = load(m).run([s0, xs, w])
    columns = xs.T[::-1] if in_dir else xs.T  # the scan's rows, in the order it reads them
    running = np.cumsum(columns, axis=0) + s0
    stacked = (running * w)[::-1] if out_dir else running * w
    np.testing.assert_allclose(s_final, running[-1], rtol=1e-6)
    np.testing.assert_allclose(ys, np.moveaxis(stacked, 0, out_axis), rtol=1e-6)
    if not in_dir and not out_dir and out_axis == 0:
        forward = helper.make_node("Scan", ["s0", "xt"], ["s_final", "ys"], body=body, num_scan_inputs=1)
        m = model([forward], [tensor("s0", F, [2]), tensor("xt", F, [4, 2]), tensor("w", F, [2])],
                  [tensor("s_final", F, [2]), tensor("ys", F, None)])
        assert_matches_reference(m, {"s0": s0, "xt": xs.T.copy(), "w": w})


def test_scan_opset_8_has_a_batch_axis():
    body = graph([helper.make_node("Add", ["s", "row"], ["s_out"]), helper.make_node("Identity", ["s_out"], ["o"])],
                 [tensor("s", F, [2]), tensor("row", F, [2])], [tensor("s_out", F, [2]), tensor("o", F, [2])])
    m = model([helper.make_node("Scan", ["", "s0", "xs"], ["s_final", "ys"], body=body, num_scan_inputs=1,
                                directions=[1])],
              [tensor("s0", F, [3, 2]), tensor("xs", F, [3, 4, 2])], [tensor("s_final", F, [3, 2]),
                                                                      tensor("ys", F, [3, 4, 2])], opset=8)
    s0, xs = RNG.standard_normal((3, 2)).astype(np.float32), RNG.standard_normal((3, 4, 2)).astype(np.float32)
    s_final, ys = load(m).run([s0, xs])
    expected = s0[:, None, :] + np.cumsum(xs[:, ::-1], axis=1)  # reversed scan: running sums from the end
    np.testing.assert_allclose(ys, expected, rtol=1e-6)
    np.testing.assert_allclose(s_final, expected[:, -1], rtol=1e-6)


def test_sequence_map_with_a_tensor_input():
    body = graph([helper.make_node("Add", ["item", "offset"], ["shifted"]),
                  helper.make_node("Shape", ["item"], ["shape"])],
                 [tensor("item", F, None), tensor("offset", F, [1])],
                 [tensor("shifted", F, None), tensor("shape", I64, [None])])
    nodes = [helper.make_node("SplitToSequence", ["x", "sizes"], ["seq"]),
             helper.make_node("SequenceMap", ["seq", "offset"], ["out", "shapes"], body=body)]
    seq = helper.make_tensor_sequence_value_info
    m = model(nodes, [tensor("x", F, [6]), tensor("sizes", I64, [3]), tensor("offset", F, [1])],
              [seq("out", F, None), seq("shapes", I64, None)])
    assert_matches_reference(m, {"x": np.arange(6, dtype=np.float32), "sizes": np.array([1, 3, 2], np.int64),
                                 "offset": np.array([10], np.float32)})


def test_sequences_and_optionals_cross_the_model_boundary():
    seq = helper.make_tensor_sequence_value_info
    optional = helper.make_value_info("maybe", helper.make_optional_type_proto(
        helper.make_tensor_type_proto(F, [2])))
    nodes = [helper.make_node("SequenceInsert", ["items", "x"], ["more"]),
             helper.make_node("SequenceLength", ["more"], ["count"]),
             helper.make_node("OptionalHasElement", ["maybe"], ["has"]),
             helper.make_node("Identity", ["more"], ["same"])]
    m = model(nodes, [seq("items", F, None), tensor("x", F, [2]), optional],
              [seq("more", F, None), tensor("count", I64, []), tensor("has", BOOL, []), seq("same", F, None)])
    items = [np.ones(2, np.float32), np.zeros(2, np.float32)]
    x = np.full(2, 3.0, np.float32)
    more, count, has, same = load(m).run([items, x, None])
    assert [a.tolist() for a in more] == [[1, 1], [0, 0], [3, 3]] and count == 3 and not has
    assert [a.tolist() for a in same] == [a.tolist() for a in more]
    assert load(m).run([[], x, x])[2]


def _local_function():
    """``domain.Scale(x; alpha) = x * alpha + Inner(x)``, Inner(x) = Relu(x); alpha defaults to 2."""
    inner = helper.make_function("local", "Inner", ["a"], ["r"], [helper.make_node("Relu", ["a"], ["r"])],
                                 [helper.make_opsetid("", 18)])
    alpha = helper.make_node("Constant", [], ["k"], value_float=1.0)
    alpha.attribute[0].ref_attr_name = "alpha"
    body = [alpha, helper.make_node("Mul", ["x", "k"], ["scaled"]),
            helper.make_node("Inner", ["x"], ["relu"], domain="local"),
            helper.make_node("Add", ["scaled", "relu"], ["out"])]
    scale = helper.make_function("local", "Scale", ["x"], ["out"], body,
                                 [helper.make_opsetid("", 18), helper.make_opsetid("local", 1)], ["alpha"])
    scale.attribute_proto.append(helper.make_attribute("alpha", 2.0))
    return scale, inner


def test_local_functions_with_attributes_and_nesting():
    scale, inner = _local_function()
    nodes = [helper.make_node("Scale", ["x"], ["y"], domain="local", alpha=0.5),
             helper.make_node("Scale", ["x"], ["z"], domain="local")]
    m = model(nodes, [tensor("x", F, [4])], [tensor("y", F, [4]), tensor("z", F, [4])],
              domains=[("local", 1)], functions=[scale, inner])
    # ONNX's reference cannot call a local function from another one: numpy is the oracle.
    x = np.array([-1, 0, 1, 2], np.float32)
    y, z = load(m).run([x])
    np.testing.assert_allclose(y, x * 0.5 + np.maximum(x, 0))
    np.testing.assert_allclose(z, x * 2 + np.maximum(x, 0))


def test_recursive_function_is_refused():
    looping = helper.make_function("local", "Again", ["x"], ["y"],
                                   [helper.make_node("Again", ["x"], ["y"], domain="local")],
                                   [helper.make_opsetid("local", 1)])
    m = model([helper.make_node("Again", ["x"], ["y"], domain="local")], [tensor("x", F, [1])],
              [tensor("y", F, [1])], domains=[("local", 1)], functions=[looping])
    with pytest.raises(OnnxModelError, match="recursive"):
        load(m)


def test_ops_defined_by_onnx_function_bodies():
    x = RNG.standard_normal((2, 3, 5)).astype(np.float32)
    swish = model([helper.make_node("Swish", ["x"], ["y"], alpha=0.7)], [tensor("x", F, [2, 3, 5])],
                  [tensor("y", F, [2, 3, 5])], opset=24)
    assert_matches_reference(swish, {"x": x})
    crop = model([helper.make_node("CenterCropPad", ["x", "shape"], ["y"], axes=[1, 2])],
                 [tensor("x", F, [2, 3, 5]), tensor("shape", I64, [2])], [tensor("y", F, None)], opset=18)
    assert_matches_reference(crop, {"x": x, "shape": np.array([5, 2], np.int64)})


def test_models_of_the_official_test_data_in_old_ir():
    # Initializers listed among the inputs (IR 3) stay constants: the model takes only the other inputs.
    m = model([helper.make_node("Add", ["x", "w"], ["y"])], [tensor("x", F, [2]), tensor("w", F, [2])],
              [tensor("y", F, [2])], [("w", np.array([1, 2], np.float32))], opset=9, ir_version=3)
    imported = load(m)
    assert imported.input_names == ["x"]
    np.testing.assert_array_equal(imported.run([np.zeros(2, np.float32)])[0], [1, 2])
    assert onnx.IR_VERSION >= imported.ir_version == 3
