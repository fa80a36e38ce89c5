"""Control-flow ops "If" and "Loop": kernels against plain Python control flow over numpy, gradients by
finite differences (first and second order), and the graph passes' treatment of bodies with side effects."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from tests.graph.graphs import graph_of
from vfw.core import DTypeError, OpAttributeError, OpInputError, ShapeError, Tensor, autograd, execute, run
from vfw.core.graph import CompiledGraph, optimize
from vfw.core.ir import make_opdef
from vfw.core.ops.callback import register_callback

F64 = np.float64


def _x(shape=(3,)):
    return np.zeros(shape, F64)


# Branches of If(cond, a, b): then a * b + a, else sin(a) - b.
THEN = graph_of([make_opdef("Mul", ["a", "b"], ["ab"]), make_opdef("Add", ["ab", "a"], ["y"])], ["a", "b"], ["y"],
                infos=[("a", _x()), ("b", _x())])
ELSE = graph_of([make_opdef("Sin", ["a"], ["s"]), make_opdef("Sub", ["s", "b"], ["y"])], ["a", "b"], ["y"],
                infos=[("a", _x()), ("b", _x())])
IF = {"then_branch": THEN, "else_branch": ELSE}

# Loop body (i, cond, k, x, w) -> (k + 1 < 4, k + 1, x * w + cos(x) * i, w): carries a counter, a value
# and a weight passed through; the scan variant also stacks x.
BODY = graph_of([make_opdef("Add", ["k", "one"], ["k1"]), make_opdef("Less", ["k1", "four"], ["c"]),
                 make_opdef("Mul", ["x", "w"], ["xw"]), make_opdef("Cos", ["x"], ["cx"]),
                 make_opdef("Cast", ["i"], ["fi"], to=11), make_opdef("Mul", ["cx", "fi"], ["cxi"]),
                 make_opdef("Add", ["xw", "cxi"], ["x1"])],
                ["i", "cond", "k", "x", "w"], ["c", "k1", "x1", "w"],
                consts=[("one", np.array(1, np.int64)), ("four", np.array(4, np.int64))],
                infos=[("i", np.array(0, np.int64)), ("cond", np.array(True)), ("k", np.array(0, np.int64)),
                       ("x", _x((2,))), ("w", _x((2,)))])


def _python_loop(trips, cond, k, x, w, limit=4):
    i = 0
    xs = []
    while cond and (trips is None or i < trips):
        xs.append(x)
        k, x = k + 1, x * w + np.cos(x) * i
        cond = k < limit
        i += 1
    return k, x, xs


def test_if_runs_the_branch_cond_selects():
    a, b = np.array([0.5, -1.0, 2.0]), np.array([3.0, 0.25, -2.0])
    (got,) = run("If", np.array(True), a, b, **IF)
    np.testing.assert_allclose(got, a * b + a)
    (got,) = run("If", np.array([False]), a, b, **IF)  # one element of any shape
    np.testing.assert_allclose(got, np.sin(a) - b)


def test_if_outputs_never_share_memory_with_inputs_or_constants():
    passthrough = graph_of([], ["a"], ["a"], infos=[("a", _x())])
    constant = graph_of([], ["a"], ["c"], consts=[("c", np.ones(3))], infos=[("a", _x())])
    a = np.array([1.0, 2.0, 3.0])
    for branch in (passthrough, constant):
        (got,) = run("If", np.array(True), a, then_branch=branch, else_branch=branch)
        assert not np.shares_memory(got, a) and got.flags.writeable
    (got,) = run("If", np.array(True), a, then_branch=passthrough, else_branch=passthrough)
    np.testing.assert_array_equal(got, a)


def test_if_errors():
    a = np.ones(3)
    with pytest.raises(ShapeError, match="cond must hold one value"):
        run("If", np.array([True, False]), a, a, **IF)
    with pytest.raises(DTypeError, match="cond"):
        run("If", np.array(1.0), a, a, **IF)
    with pytest.raises(OpAttributeError, match="same numbers of inputs and outputs"):
        run("If", np.array(True), a, a, then_branch=THEN, else_branch=graph_of([], ["a", "b"], ["a", "b"]))
    with pytest.raises(OpAttributeError, match="then_branch"):
        run("If", np.array(True), a, a, then_branch="not a graph", else_branch=ELSE)
    with pytest.raises(ShapeError, match="'b' must have shape"):
        run("If", np.array(True), a, np.ones(4), **IF)


@pytest.mark.parametrize("trips, cond", [(None, True), (2, True), (0, True), (None, False), (10, True)])
def test_loop_matches_python_control_flow(trips, cond):
    x, w = np.array([0.3, -0.7]), np.array([1.5, 0.5])
    k, got_x, got_w = run("Loop", None if trips is None else np.array(trips, np.int64), np.array(cond),
                          np.array(0, np.int64), x, w, body=BODY)
    want_k, want_x, _ = _python_loop(trips, cond, 0, x, w)
    assert k == want_k and k.dtype == np.int64
    np.testing.assert_allclose(got_x, want_x)
    np.testing.assert_array_equal(got_w, w)
    assert not np.shares_memory(got_w, w) and not np.shares_memory(got_x, x)


def test_loop_without_cond_runs_m_iterations_and_stacks_scan_outputs():
    scan = graph_of([make_opdef("Mul", ["x", "x"], ["y"])], ["i", "c", "x"], ["c", "y", "x"],
                    infos=[("i", np.array(0, np.int64)), ("c", np.array(True)), ("x", _x((2,)))])
    x = np.array([1.1, 0.9])
    final, stacked = run("Loop", np.array(3, np.int64), None, x, body=scan)
    np.testing.assert_allclose(final, x ** 8)
    np.testing.assert_allclose(stacked, np.stack([x, x ** 2, x ** 4]))
    final, stacked = run("Loop", np.array(0, np.int64), None, x, body=scan)
    assert stacked.shape == (0, 2) and stacked.dtype == F64
    np.testing.assert_array_equal(final, x)


def test_loop_errors():
    x, w = np.ones(2), np.ones(2)
    with pytest.raises(OpInputError, match="carries 3 values"):
        run("Loop", None, np.array(True), x, w, body=BODY)
    with pytest.raises(ShapeError, match="M must hold one value"):
        run("Loop", np.array([1, 2], np.int64), None, np.array(0, np.int64), x, w, body=BODY)
    with pytest.raises(DTypeError, match="M"):
        run("Loop", np.array(2, np.int32), None, np.array(0, np.int64), x, w, body=BODY)
    with pytest.raises(OpAttributeError, match="iteration_num, cond"):
        run("Loop", None, np.array(True), x, body=graph_of([], ["x"], ["x"]))
    grows = graph_of([make_opdef("Concat", ["x", "x"], ["y"], axis=0)], ["i", "c", "x"], ["c", "y", "x"])
    with pytest.raises(ShapeError, match="scan output 0 changes shape"):
        run("Loop", np.array(2, np.int64), None, x, body=grows)
    not_bool = graph_of([], ["i", "c", "x"], ["i", "x"])
    with pytest.raises(DTypeError, match="condition must be bool"):
        run("Loop", np.array(2, np.int64), None, x, body=not_bool)


@pytest.mark.parametrize("cond", [True, False])
def test_if_gradient(cond):
    rng = np.random.default_rng(1)
    check_gradient("If", [np.array(cond), rng.standard_normal(3), rng.standard_normal(3)], IF)
    check_higher_order("If", [np.array(cond), rng.standard_normal(3), rng.standard_normal(3)], IF)


@pytest.mark.parametrize("trips, cond", [(None, True), (2, True), (0, True), (None, False)])
def test_loop_gradient(trips, cond):
    rng = np.random.default_rng(2)
    inputs = [None if trips is None else np.array(trips, np.int64), np.array(cond), np.array(0, np.int64),
              rng.standard_normal(2), rng.standard_normal(2)]
    check_gradient("Loop", inputs, {"body": BODY}, wrt=[3, 4])


def test_loop_second_order_gradient():
    rng = np.random.default_rng(3)
    check_higher_order("Loop", [np.array(3, np.int64), None, np.array(0, np.int64), rng.standard_normal(2),
                                rng.standard_normal(2)], {"body": BODY}, wrt=[3, 4])


def test_if_nested_in_a_loop_body_is_differentiated():
    # body: x <- If(x[0] > 0, x * w, x - w); three iterations.
    branch_infos = [("x", _x((2,))), ("w", _x((2,)))]
    inner = {"then_branch": graph_of([make_opdef("Mul", ["x", "w"], ["y"])], ["x", "w"], ["y"], infos=branch_infos),
             "else_branch": graph_of([make_opdef("Sub", ["x", "w"], ["y"])], ["x", "w"], ["y"], infos=branch_infos)}
    body = graph_of([make_opdef("Gather", ["x", "zero"], ["x0"], axis=0), make_opdef("Greater", ["x0", "fzero"], ["p"]),
                     make_opdef("If", ["p", "x", "w"], ["y"], **inner)],
                    ["i", "c", "x", "w"], ["c", "y", "w"],
                    consts=[("zero", np.array(0, np.int64)), ("fzero", np.array(0.0))],
                    infos=[("i", np.array(0, np.int64)), ("c", np.array(True))] + branch_infos)
    check_gradient("Loop", [np.array(3, np.int64), None, np.array([0.8, -0.3]), np.array([-1.2, 0.7])],
                   {"body": body}, wrt=[2, 3])


def test_gradients_of_a_loop_are_recorded_by_an_open_trace():
    # Differentiating inside a trace records the history loop and the reverse loop: the traced graph
    # gives the gradients of other inputs (another trip count) too.
    from vfw.core.graph import function

    w = Tensor(np.array([1.5, 0.5]), requires_grad=True)

    @function
    def grads(trips, x):
        x = Tensor(x.array, requires_grad=True)
        _, y, _ = execute("Loop", trips, None, np.array(0, np.int64), x, w, body=BODY)
        total = execute("ReduceSum", y, keepdims=0)
        return autograd.gradient([total], [x, w])

    def expected(trips, x):
        def f(xv, wv):
            return _python_loop(int(trips), True, 0, xv, wv)[1].sum()
        eps = 1e-6
        gx = [(f(x + eps * e, w.array) - f(x - eps * e, w.array)) / (2 * eps) for e in np.eye(2)]
        gw = [(f(x, w.array + eps * e) - f(x, w.array - eps * e)) / (2 * eps) for e in np.eye(2)]
        return gx, gw

    x = np.array([0.3, -0.7])
    for trips in (3, 1, 5, 0):
        gx, gw = grads(Tensor(np.array(trips, np.int64)), Tensor(x))
        want_x, want_w = expected(trips, x)
        np.testing.assert_allclose(gx.array, want_x, rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(gw.array, want_w, rtol=1e-6, atol=1e-8)
    assert grads.tracing_count == 1


def test_bodies_with_side_effects_are_neither_pruned_nor_merged():
    calls = []

    def note(*arrays):
        calls.append(1)
        return np.zeros((), np.bool_)

    token = register_callback(note)
    printing = graph_of([make_opdef("PyFunc", ["a"], ["p"], token=token)], ["a"], ["a"], infos=[("a", _x())])
    plain = graph_of([], ["a"], ["a"], infos=[("a", _x())])
    ops = [make_opdef("If", ["c", "a"], ["u"], then_branch=printing, else_branch=plain),
           make_opdef("If", ["c", "a"], ["v"], then_branch=printing, else_branch=plain)]
    g = graph_of(ops, ["c", "a"], ["a"], infos=[("c", np.array(True)), ("a", _x())])
    optimized = optimize(g, 3)
    assert [op.type for op in optimized.op] == ["If", "If"]
    CompiledGraph(optimized)(np.array(True), np.ones(3))
    assert len(calls) == 2
    # Without side effects, the unused If is pruned.
    unused = graph_of([make_opdef("If", ["c", "a"], ["u"], then_branch=plain, else_branch=plain)], ["c", "a"], ["a"])
    assert not optimize(unused, 1).op
