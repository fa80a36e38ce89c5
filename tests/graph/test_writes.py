"""Graphs replay in-place writes and host callbacks (PyFunc) as the traced Python code ran them.

The oracle is eager execution of the same function (run on copies of the same inputs, call
after call): at every optimization level a graph must give the same results, leave arguments
and captured state as the eager calls leave them, and draw the same numbers.  The writes are
made here as a frontend makes them: ``Trace.record_write`` before writing memory with numpy,
``Trace.confirm_write`` after.
"""

import numpy as np
import pytest

from vfw.core import Tensor, execute
from vfw.core.errors import OpInputError, TraceError
from vfw.core.graph import Trace, assign, current_trace, function, save_graph

LEVELS = (0, 1, 2, 3)
ONE = np.asarray(1.0, np.float32)


def t(a, dtype=np.float32):
    return Tensor(np.array(a, dtype))


def write_into(target, value):
    """``target[...] = value`` as a frontend's in-place op does it (told to an open trace)."""
    trace = current_trace()
    array = value.array if isinstance(value, Tensor) else np.asarray(value)
    if trace is not None:
        trace.record_write(target, value)
    np.copyto(target.array, array, casting="unsafe")
    if trace is not None:
        trace.confirm_write(target)


def view(x, op, *inputs, **attrs):
    """An engine op whose kernel returns a view of ``x`` (Slice, Transpose, Reshape)."""
    out = execute(op, x, *inputs, **attrs)
    assert np.shares_memory(out.array, x.array)
    return out


def ints(*values):
    return np.asarray(values, np.int64)


def same_calls(fn, make_args, level, calls=4, state=()):
    """Run ``fn`` eagerly and as a graph on equal arguments, call after call; compare everything."""
    eager_state = [Tensor(s.array.copy()) for s in state]
    graph_state = [Tensor(s.array.copy()) for s in state]
    graph = function(lambda *args: fn(*args, *graph_state), opt_level=level)
    for i in range(calls):
        eager_args, graph_args = make_args(i), make_args(i)
        want = fn(*eager_args, *eager_state)
        got = graph(*graph_args)
        want, got = (want, got) if isinstance(want, tuple) else ((want,), (got,))
        for w, g in zip(want + tuple(eager_args) + tuple(eager_state), got + tuple(graph_args) + tuple(graph_state)):
            np.testing.assert_array_equal(g.array, w.array, strict=True)
    assert graph.tracing_count == 1
    return graph


def matrix(i):
    return [t(np.arange(12).reshape(3, 4) * (i + 1) - 5)]


# -- writes through views ---------------------------------------------------------------------------------
@pytest.mark.parametrize("level", LEVELS)
def test_a_write_into_a_view_reaches_its_base_and_the_other_views(level):
    def fn(x):
        base = execute("Neg", x)
        row = view(base, "Slice", ints(1), ints(2), ints(0))
        column = view(base, "Slice", ints(2), ints(3), ints(1))
        transposed = view(base, "Transpose", perm=[1, 0])
        flat = view(base, "Reshape", ints(-1))
        write_into(row, execute("Add", row, np.asarray(100.0, np.float32)))
        write_into(column, ONE)  # a broadcast value
        return execute("Neg", base), execute("Neg", transposed), execute("Neg", flat), execute("Neg", row)

    same_calls(fn, matrix, level)


@pytest.mark.parametrize("level", LEVELS)
def test_partly_overlapping_views_see_the_elements_they_share(level):
    def fn(x):
        base = execute("Neg", x)
        first = view(base, "Slice", ints(0), ints(3), ints(1))
        last = view(base, "Slice", ints(2), ints(4), ints(1))
        every_other = view(base, "Slice", ints(0), ints(4), ints(1), ints(2))
        write_into(first, execute("Mul", first, np.asarray(10.0, np.float32)))
        return execute("Neg", last), execute("Neg", every_other), execute("Neg", base)

    same_calls(fn, matrix, level)


@pytest.mark.parametrize("level", LEVELS)
def test_writes_into_an_argument_are_written_back(level):
    def fn(x):
        write_into(x, execute("Add", x, ONE))
        row = view(x, "Slice", ints(0), ints(1), ints(0))
        write_into(row, np.zeros((1, 4), np.float32))
        return execute("ReduceSum", x, ints(0), keepdims=0)

    graph = same_calls(fn, matrix, level)
    concrete = graph.get_concrete_function(*matrix(0))
    assert len(concrete.updates) == 1 and concrete.updates[0][0] == concrete.input_names[0]


@pytest.mark.parametrize("level", LEVELS)
def test_writes_into_captured_state_and_views_of_it_are_state_updates(level):
    def fn(x, state):
        window = view(state, "Slice", ints(1), ints(3), ints(0))
        sums = execute("Slice", execute("ReduceSum", x, ints(0), keepdims=0), ints(0), ints(2), ints(0))
        write_into(window, execute("Add", window, sums))
        return execute("Mul", state, np.asarray(2.0, np.float32))

    same_calls(fn, matrix, level, state=[t(np.zeros(5))])


def test_a_captured_view_of_outside_memory_is_written_in_that_memory():
    memory = np.zeros(6, np.float32)
    state = Tensor(memory[2:5])  # state living in part of a bigger array, as torch buffers may
    g = function(lambda x: (write_into(state, execute("Add", state, x)), execute("Neg", state))[1])
    for i in range(3):
        np.testing.assert_array_equal(g(t([1.0, 2.0, 3.0])).array, -(i + 1) * np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(memory, [0, 0, 3, 6, 9, 0])


@pytest.mark.parametrize("level", LEVELS)
def test_a_tensor_made_inside_the_function_starts_from_its_value_every_run(level):
    def fn(x):
        scratch = Tensor(np.zeros(4, np.float32))
        if current_trace() is not None:  # as a frontend's factory (torch.zeros) tells it
            current_trace().mark_fresh(scratch)
        write_into(scratch, execute("Add", scratch, execute("ReduceSum", x, ints(0), keepdims=0)))
        return execute("Neg", scratch)

    graph = same_calls(fn, matrix, level)
    concrete = graph.get_concrete_function(*matrix(0))
    assert concrete.captures == [] and concrete.updates == []


def test_assign_with_a_new_shape_rebinds_the_state():
    state = t([1.0, 2.0])
    g = function(lambda x: (assign(state, execute("Concat", state, x, axis=0)), execute("Neg", state))[1])
    np.testing.assert_array_equal(g(t([3.0])).array, [-1.0, -2.0, -3.0])
    state.array = np.array([5.0, 6.0], np.float32)  # the graph reads the state's current array each call
    np.testing.assert_array_equal(g(t([7.0])).array, [-5.0, -6.0, -7.0])
    np.testing.assert_array_equal(state.array, [5.0, 6.0, 7.0])


# -- what a graph cannot replay ----------------------------------------------------------------------------
def test_a_write_the_trace_was_not_told_of_is_a_trace_error_after_an_eager_run():
    state = t([1.0, 2.0])

    def fn(x):
        state.array += x.array  # numpy, in place: a graph cannot see it
        current_trace().confirm_write(state, "a numpy update")
        return execute("Neg", state)

    with pytest.raises(TraceError, match="a numpy update wrote into a tensor"):
        function(fn)(t([1.0, 1.0]))
    np.testing.assert_array_equal(state.array, [2.0, 3.0])  # the tracing call ran once, eagerly


def test_writes_through_memory_two_arguments_share_are_refused():
    def fn(x, y):
        write_into(x, execute("Add", x, ONE))
        return execute("Neg", y)

    g = function(fn)
    memory = np.zeros(4, np.float32)
    with pytest.raises(TraceError, match="memory shared by x, y"):
        g(Tensor(memory[:3]), Tensor(memory[1:]))
    g(t(np.zeros(3)), t(np.zeros(3)))  # traced with separate memory
    with pytest.raises(OpInputError, match="argument 'x', which the function writes in place, shares memory"):
        g(Tensor(memory[:3]), Tensor(memory[1:]))


def test_writes_through_a_view_with_another_dtype_are_refused():
    def fn(x):
        base = execute("Neg", x)
        bits = execute("Neg", Tensor(base.array.view(np.int32)))  # a frontend's dtype view of a traced value
        write_into(base, ONE)
        return bits

    with pytest.raises(TraceError, match="viewed with another dtype"):
        function(fn)(t([1.0, 2.0]))


# -- results --------------------------------------------------------------------------------------------
def cloned(x):
    """A copy of ``x`` in memory of its own, as frontends make one (Identity, then a copy the trace is told of)."""
    out = execute("Identity", x)
    copy = out.array.copy()
    if current_trace() is not None:
        current_trace().bind_copy(copy, out)
    out.array = copy
    return out


def test_results_alias_what_they_aliased_when_traced():
    g = function(lambda x, y: (x, cloned(y), view(y, "Reshape", ints(-1))))
    g(t([1.0]), t([[2.0]]))
    x, y = t([1.0]), t([[2.0]])
    same, copy, flat = g(x, y)
    assert same is x  # the argument itself, as eagerly
    assert not np.shares_memory(copy.array, y.array)  # the graph returns Identity(y): copied, as traced
    assert np.shares_memory(flat.array, y.array)  # traced: a view of the argument


def test_a_broadcast_written_value_comes_back_writable():
    def fn(x):
        y = execute("Neg", x)
        write_into(y, ONE)
        return y

    g = function(fn)
    g(t([1.0, 2.0]))
    out = g(t([3.0, 4.0]))
    np.testing.assert_array_equal(out.array, [1.0, 1.0])
    assert out.array.flags.writeable


# -- PyFunc: host callbacks -------------------------------------------------------------------------------
def host(fn):
    """``fn()`` as a tensor; under a trace a PyFunc op calling ``fn`` (what frontends do for their generators)."""
    trace = current_trace()
    if trace is None:
        return Tensor(fn())
    return execute("PyFunc", token=trace.callback(fn))[0]


def draws(rng):
    """A function of ``x`` drawing three times from ``rng``: one draw is added, one unused, one multiplied by 0."""
    def fn(x):
        def noise():
            return rng.standard_normal(x.array.shape).astype(np.float32)

        sample, _, again = host(noise), host(noise), host(noise)
        return execute("Add", execute("Add", x, sample), execute("Mul", again, np.asarray(0.0, np.float32)))
    return fn


@pytest.mark.parametrize("level", LEVELS)
def test_py_func_draws_again_on_every_run_in_trace_order(level):
    g = function(draws(np.random.default_rng(5)), opt_level=level)
    x = t(np.zeros((2, 3)))
    got = [g(x).array for _ in range(4)]
    reference = np.random.default_rng(5)
    for value in got:
        want = reference.standard_normal((2, 3)).astype(np.float32)
        reference.standard_normal((2, 3))  # the unused draw
        reference.standard_normal((2, 3))
        np.testing.assert_array_equal(value, want)
    graph = g.get_concrete_function(x).graph_def
    assert sum(op.type == "PyFunc" for op in graph.op) == 3  # never pruned, merged or folded


def test_graphs_with_py_func_cannot_be_saved(tmp_path):
    g = function(draws(np.random.default_rng(0)))
    x = t(np.zeros(2))
    g(x)
    with pytest.raises(OpInputError, match="PyFunc"):
        save_graph(g.get_concrete_function(x).graph_def, tmp_path / "g.pb")
    with pytest.raises(OpInputError, match="PyFunc"):
        g.get_concrete_function(x).save(tmp_path / "g.pb")


def test_trace_keeps_its_callbacks_alive():
    with Trace() as trace:
        token = trace.callback(lambda: np.ones(2, np.float32))
        (out,) = execute("PyFunc", token=token)
    np.testing.assert_array_equal(out.array, [1.0, 1.0])
    assert len(trace.callbacks) == 1
