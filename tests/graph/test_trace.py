"""``Trace`` and ``assign``: what concrete tracing records, and how state writes behave."""

import threading

import numpy as np
import pytest

from vfw.core import OpInputError, Tensor, dtypes, execute
from vfw.core.autograd import gradient, stop_gradient
from vfw.core.graph import CompiledGraph, Trace, assign, current_trace
from vfw.core.ir import opdef_attrs, proto_to_tensor


def t(a, dtype=np.float32, requires_grad=False):
    return Tensor(np.asarray(a, dtype), requires_grad=requires_grad)


def ops_of(graph):
    return [(op.type, list(op.input), list(op.output)) for op in graph.op]


def defined_names(graph):
    names = list(graph.input) + [i.name for i in graph.initializer]
    names += [n for op in graph.op for n in op.output if n]
    return names


def run(trace, *feeds):
    """Run the recorded graph on the argument feeds plus the captures' current arrays."""
    graph = type(trace.graph)()
    graph.CopyFrom(trace.graph)
    graph.input.extend(trace.captures)
    updates = list(trace.updates.values())
    return CompiledGraph(graph, extra_outputs=updates)(*feeds, *[c.array for c in trace.captures.values()])


def test_inputs_captures_constants_and_value_infos():
    w = t(np.arange(6).reshape(2, 3))
    x = t(np.ones((4, 2)))
    with Trace("g") as trace:
        assert current_trace() is trace
        name = trace.add_input(x, "x")
        y = execute("MatMul", x, w)
        z = execute("ReduceSum", y, np.array([1]), keepdims=0)
        trace.set_outputs([z])
    assert current_trace() is None
    graph = trace.graph
    assert name == "x" and list(graph.input) == ["x"]
    assert list(trace.captures) == ["capture1"] and trace.captures["capture1"] is w
    assert [op.type for op in graph.op] == ["MatMul", "ReduceSum"]
    assert graph.op[0].input[:] == ["x", "capture1"]
    (const,) = graph.initializer
    np.testing.assert_array_equal(proto_to_tensor(const), [1])
    assert graph.op[1].input[1] == const.name and opdef_attrs(graph.op[1])["keepdims"] == 0
    infos = {vi.name: (tuple(vi.dims), vi.data_type) for vi in graph.value_info}
    f32 = dtypes.onnx_code(dtypes.float32)
    assert infos["x"] == ((4, 2), f32) and infos["capture1"] == ((2, 3), f32)
    assert infos[graph.op[0].output[0]] == ((4, 3), f32)
    assert infos[graph.output[0]] == ((4,), f32)
    assert infos[const.name] == ((1,), dtypes.onnx_code(dtypes.int64))
    names = defined_names(graph)
    assert len(names) == len(set(names))  # SSA
    np.testing.assert_array_equal(run(trace, x.array)[0], z.array)


def test_generated_names_never_collide_with_input_names():
    x, y = t([1.0]), t([2.0])
    with Trace() as trace:
        trace.add_input(x, "v2")
        trace.add_input(y, "capture3")
        out = execute("Add", execute("Mul", x, y), t([1.0]))
        trace.set_outputs([out])
        with pytest.raises(OpInputError, match="already used"):
            trace.add_input(t([0.0]), "v2")
    names = defined_names(trace.graph)
    assert len(names) == len(set(names))
    np.testing.assert_array_equal(run(trace, x.array, y.array)[0], [3.0])


def test_multi_output_ops_and_absent_outputs():
    x = t([[3.0, 1.0, 2.0]])
    stats = [t(v) for v in ([1.0], [0.0], [0.0], [1.0])]
    with Trace() as trace:
        trace.add_input(x, "x")
        values, indices = execute("TopK", x, np.array([2]))
        normed = execute("BatchNormalization", execute("Unsqueeze", x, np.array([0])), *stats)  # (Y, None, None)
        trace.set_outputs([indices, values, normed[0]])
    topk, _, batchnorm = trace.graph.op
    assert len(topk.output) == 2 and all(topk.output)
    assert list(batchnorm.output) == [trace.graph.output[2]]  # absent trailing outputs are not named
    got = run(trace, x.array)
    np.testing.assert_array_equal(got[0], [[0, 2]])
    np.testing.assert_array_equal(got[1], [[3.0, 2.0]])
    np.testing.assert_array_equal(got[2], normed[0].array)


def test_backward_ops_are_recorded_and_rewrapped_arrays_resolve():
    x = t([0.5, -1.0, 2.0], requires_grad=True)
    with Trace() as trace:
        trace.add_input(x, "x")
        y = execute("Tanh", x)
        (g,) = gradient(execute("ReduceSum", y, keepdims=0), [x])
        # A new wrapper around a recorded array is that value, not a capture; so is the bare array.
        same = stop_gradient(y)
        out = execute("Add", execute("Add", g, same), y.array)
        trace.set_outputs([out])
    assert not trace.captures or all(c.array.shape == () for c in trace.captures.values())  # seed ones only
    types = [op.type for op in trace.graph.op]
    assert types[:2] == ["Tanh", "ReduceSum"] and len(types) > 4
    for v in ([0.5, -1.0, 2.0], [0.0, 3.0, -0.25]):
        a = np.asarray(v, np.float32)
        th = np.tanh(a)
        expected = (1 - th * th) + th + th
        np.testing.assert_allclose(run(trace, a)[0], expected, rtol=1e-6)


def test_numpy_views_of_traced_values_are_recorded():
    x = t(np.arange(6).reshape(2, 3))
    with Trace() as trace:
        trace.add_input(x, "x")
        y = execute("Neg", x)
        flat = execute("Add", y.array.reshape(-1), np.ones(6, np.float32))  # same layout: a Reshape of y
        columns = execute("Neg", y.array[:, 1:])  # other views: a Gather of the elements of a value holding them
        transposed = execute("Neg", x.array.T)
        trace.set_outputs([flat, columns, transposed])
    assert [op.type for op in trace.graph.op][:3] == ["Neg", "Reshape", "Add"]
    feed = np.arange(10, 16, dtype=np.float32).reshape(2, 3)
    got = run(trace, feed)
    np.testing.assert_array_equal(got[0], 1 - feed.reshape(-1))
    np.testing.assert_array_equal(got[1], feed[:, 1:])
    np.testing.assert_array_equal(got[2], -feed.T)


def test_views_no_traced_value_holds_are_errors():
    base = np.arange(8, dtype=np.float32)
    left, right = Tensor(base[:4]), Tensor(base[4:])
    with Trace():
        execute("Add", left, right)
        with pytest.raises(OpInputError, match="numpy view"):
            execute("Neg", base[2:6])  # straddles two captured values
        y = execute("Neg", left)
        with pytest.raises(OpInputError, match="numpy view"):
            execute("Neg", y.array.view(np.int32))  # the same memory read as another dtype


def test_unrelated_arrays_become_constants():
    base = np.arange(8, dtype=np.float32)
    w = Tensor(base[:4])  # state living in part of a bigger array
    x = t(np.zeros(4))
    with Trace() as trace:
        trace.add_input(x, "x")
        out = execute("Add", execute("Add", x, w), base[4:])  # the other half does not overlap w: a constant
        trace.set_outputs([out])
    assert len(trace.graph.initializer) == 1 and list(trace.captures.values()) == [w]
    np.testing.assert_array_equal(run(trace, np.ones(4, np.float32))[0], [5.0, 7.0, 9.0, 11.0])


def test_assign_under_trace_records_an_update_and_later_reads_see_it():
    state = t([1.0, 2.0])
    x = t([10.0, 20.0])
    with Trace() as trace:
        trace.add_input(x, "x")
        first = execute("Mul", state, np.asarray(2.0, np.float32))
        assign(state, execute("Add", state, x))
        second = execute("Mul", state, np.asarray(2.0, np.float32))
        trace.set_outputs([first, second])
    np.testing.assert_array_equal(state.array, [11.0, 22.0])  # the tracing run wrote eagerly
    (capture,) = trace.captures
    assert trace.updates == {capture: trace.graph.op[1].output[0]}
    assert trace.graph.op[2].input[0] == trace.graph.op[1].output[0]  # the read after assign
    state.array = np.array([1.0, 2.0], np.float32)
    a, b, new_state = run(trace, x.array)
    np.testing.assert_array_equal(a, [2.0, 4.0])
    np.testing.assert_array_equal(b, [22.0, 44.0])
    np.testing.assert_array_equal(new_state, [11.0, 22.0])


def test_assign_to_an_argument_or_an_intermediate_under_trace():
    x = t([1.0])
    two = t([2.0])
    with Trace() as trace:
        trace.add_input(x, "x")
        assign(x, two)  # an argument: written back after each run
        y = execute("Neg", x)
        assign(stop_gradient(y), x)  # a wrapper around a computed value is that value: later reads of y see x
        z = execute("Neg", y)
        trace.set_outputs([z])
    np.testing.assert_array_equal(x.array, [2.0])  # the tracing run wrote eagerly
    np.testing.assert_array_equal(y.array, [2.0])
    assert trace.input_updates == {"x": "capture1"} and trace.captures["capture1"] is two and trace.updates == {}
    (out,) = run(trace, np.array([5.0], np.float32))
    np.testing.assert_array_equal(out, [-2.0])


def test_assign_eager_semantics():
    target = t([1.0, 2.0, 3.0])
    view = target.array[1:]
    out = assign(target, np.array([4, 5, 6]))  # int64 value, cast into float32 in place
    assert out is target and target.array.dtype == np.float32
    np.testing.assert_array_equal(view, [5.0, 6.0])
    assign(target, t([7.0, 8.0]))  # another shape: replaced by a copy, same dtype
    assert target.array.shape == (2,) and target.array.dtype == np.float32
    source = np.array([1.0, 1.0], np.float32)
    assign(target, source)
    source[0] = 9.0
    assert target.array[0] == 1.0  # copied, not shared
    frozen = np.zeros(2, np.float32)
    frozen.flags.writeable = False
    target.array = frozen
    assign(target, np.ones(2, np.float32))  # read-only storage is replaced, not written
    assert target.array[0] == 1.0 and frozen[0] == 0.0


def test_trace_stack_is_per_thread_and_exits_on_error():
    seen = []
    with Trace() as trace:
        thread = threading.Thread(target=lambda: seen.append((current_trace(), execute("Neg", t([1.0])))))
        thread.start()
        thread.join()
        assert seen[0][0] is None
    assert not trace.graph.op  # the other thread's op was not recorded
    with pytest.raises(ValueError), Trace():
        raise ValueError("boom")
    assert current_trace() is None
    with Trace() as outer:
        with Trace() as inner:
            assert current_trace() is inner
        assert current_trace() is outer
