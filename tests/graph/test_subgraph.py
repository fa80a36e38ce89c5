"""Subgraph tracing for control flow (``vfw.core.graph.subgraph``, ``control_flow``): captures, undone writes,
state written once by the op, graphs replaying other branches and trip counts, and shapes that vary."""

import numpy as np

from vfw.core import Tensor, execute
from vfw.core.graph import assign, current_trace, function
from vfw.core.graph.control_flow import run_if, run_loop
from vfw.core.graph.subgraph import trace_subgraph, tracing_subgraph


def _scalar(x, dtype=np.float64):
    return Tensor(np.array(x, dtype))


def cond(pred, true_fn, false_fn):
    """The engine form of a frontend's cond: Python eagerly, an If op while tracing."""
    if current_trace() is None:
        return true_fn() if bool(pred.array) else false_fn()
    return run_if(pred, [trace_subgraph(lambda fn=fn: [fn()], [], "branch") for fn in (true_fn, false_fn)])[0]


def while_loop(n, body, initial, varying=None):
    """``initial = body(*initial)`` ``n`` times (``n`` an int64 tensor) as a Loop op while tracing."""
    if current_trace() is None:
        values = list(initial)
        for _ in range(int(n.array)):
            values = body(*values)
        return values
    inputs = [_scalar(0, np.int64), _scalar(True, np.bool_)] + [Tensor(t.array.copy()) for t in initial]
    sub = trace_subgraph(lambda i, c, *v: [c, *body(*v)], inputs, "body")
    return run_loop(n, None, list(initial), sub, varying=varying)


def test_branches_read_outer_values_and_bare_arrays_as_inputs():
    w = _scalar([1.0, 2.0])

    @function
    def f(x, p):
        y = execute("Mul", x, w)
        # The false branch reads y's array bare (as frontends' numpy code may): still the traced value.
        return cond(p, lambda: execute("Add", y, x), lambda: execute("Sub", y.array, np.ones(2)))

    x = _scalar([3.0, 4.0])
    for p in (True, False, True, False):
        want = x.array * w.array + x.array if p else x.array * w.array - 1
        np.testing.assert_array_equal(f(x, _scalar(p, np.bool_)).array, want)
    w.array = np.array([5.0, 6.0])  # a capture: read by reference on every run
    np.testing.assert_array_equal(f(x, _scalar(False, np.bool_)).array, x.array * w.array - 1)
    assert f.tracing_count == 1


def test_writes_in_branches_happen_once_when_the_branch_runs():
    state = _scalar([0.0, 0.0])
    calls = []

    @function
    def f(p):
        def write():
            calls.append("traced")
            assign(state, execute("Add", state, np.ones(2)))
            return execute("Mul", state, np.full(2, 10.0))
        return cond(p, write, lambda: execute("Mul", state, np.full(2, -1.0)))

    expected = np.zeros(2)
    for p in (True, True, False, True, False):
        out = f(_scalar(p, np.bool_))
        if p:
            expected = expected + 1
        np.testing.assert_array_equal(state.array, expected)
        np.testing.assert_array_equal(out.array, expected * (10 if p else -1))
    assert calls == ["traced"]


def test_loops_replay_other_trip_counts_and_carry_the_state_they_write():
    total = _scalar(0.0)

    @function
    def f(n, x):
        def body(v):
            assign(total, execute("Add", total, np.array(1.0)))
            return [execute("Add", execute("Mul", v, np.array(2.0)), np.array(1.0))]
        return while_loop(n, body, [x])[0]

    x = _scalar(1.0)
    runs = 0
    for n in (3, 0, 5, 1):
        value = 1.0
        for _ in range(n):
            value = 2 * value + 1
        np.testing.assert_array_equal(f(_scalar(n, np.int64), x).array, value)
        runs += n
        assert total.array == runs
    assert f.tracing_count == 1


def test_a_body_traced_reports_it_and_its_tracing_run_is_undone():
    seen = []
    counter = _scalar(5.0)

    def body():
        seen.append(tracing_subgraph())
        assign(counter, execute("Add", counter, np.array(1.0)))
        return [counter]

    @function
    def f():
        sub = trace_subgraph(body, [], "body")
        seen.append(counter.array.item())  # the tracing run's write is undone
        return sub.written

    assert f() == [0]
    assert seen == [True, 5.0] and not tracing_subgraph()


def test_a_loop_value_whose_shape_varies_is_not_folded():
    @function
    def f(n, x):
        (grown,) = while_loop(n, lambda v: [execute("Concat", v, v, axis=0)], [x], varying={0: (None,)})
        return execute("Shape", grown), execute("ReduceSum", grown, keepdims=0)

    x = _scalar([1.0, 2.0])
    for n in (2, 0, 3):
        shape, total = f(_scalar(n, np.int64), x)
        assert shape.array.tolist() == [2 * 2 ** n]
        assert total.array == 3.0 * 2 ** n
    assert f.get_concrete_function(_scalar(1, np.int64), x).opt_level == 0


def test_graphs_with_control_flow_save_and_load_unless_a_body_calls_python(tmp_path):
    import pytest

    from vfw.core import OpInputError
    from vfw.core.graph import CompiledGraph, load_graph, save_graph
    from vfw.core.ops.callback import register_callback

    @function
    def f(x, p):
        return cond(p, lambda: execute("Mul", x, x), lambda: execute("Neg", x))

    x = _scalar([1.5, -2.0])
    concrete = f.get_concrete_function(x, _scalar(True, np.bool_))
    concrete.save(tmp_path / "g.pb")
    loaded = CompiledGraph(load_graph(tmp_path / "g.pb"))
    for p in (True, False):
        np.testing.assert_array_equal(loaded(x.array, np.array(p))[0], x.array * x.array if p else -x.array)

    noted = []

    def note(x):
        noted.append(1)
        return x * 2

    token = register_callback(note)  # alive while this test runs (the registry holds it weakly)

    @function
    def g(x, p):
        return cond(p, lambda: execute("PyFunc", x, token=token)[0], lambda: execute("Neg", x))

    with pytest.raises(OpInputError, match="PyFunc"):
        save_graph(g.get_concrete_function(x, _scalar(True, np.bool_)).graph_def, tmp_path / "h.pb")
    assert noted == [1, 1]  # the tracing run of the branch called it, then the If op did
