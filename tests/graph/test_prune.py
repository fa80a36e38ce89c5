"""Pruning: only what the fetched values need stays; inputs, outputs and the random stream are untouched."""

import numpy as np

from tests.graph.graphs import applied, assert_same_results, graph_of, run, types
from vfw.core import Tensor, execute
from vfw.core.graph import CompiledGraph, Trace, assign
from vfw.core.graph.passes.prune import prune
from vfw.core.ir import make_opdef
from vfw.core.ops.random import seed

RNG = np.random.default_rng(1)
X = RNG.standard_normal((3, 4)).astype(np.float32)








def pruned(g, keep=None):
    return applied(prune, g, keep)




def test_unused_ops_initializers_and_infos_go():
    ops = [make_opdef("Exp", ["x"], ["a"]), make_opdef("Mul", ["a", "c"], ["dead"]),
           make_opdef("Add", ["dead", "d"], ["dead2"]), make_opdef("Neg", ["a"], ["y"])]
    g = graph_of(ops, ["x"], ["y"], consts=[("c", np.float32(2)), ("d", np.float32(3))],
                 infos=[("x", X), ("a", X), ("dead", X), ("dead2", X), ("y", X)])
    out = pruned(g)
    assert types(out) == ["Exp", "Neg"]
    assert len(out.initializer) == 0
    assert sorted(vi.name for vi in out.value_info) == ["a", "x", "y"]
    assert_same_results(g, out, X)


def test_graph_inputs_are_never_removed():
    # "w" is read by nothing that is needed, "z" by nothing at all: both stay inputs, in order.
    ops = [make_opdef("Mul", ["x", "w"], ["dead"]), make_opdef("Relu", ["x"], ["y"])]
    g = graph_of(ops, ["x", "z", "w"], ["y"], infos=[("x", X), ("z", X), ("w", X)])
    out = pruned(g)
    assert list(out.input) == ["x", "z", "w"]
    assert sorted(vi.name for vi in out.value_info) == ["w", "x", "z"]
    assert types(out) == ["Relu"]
    np.testing.assert_array_equal(run(out, X, X, X)[0], np.maximum(X, 0))


def test_graph_outputs_are_kept_even_without_keep():
    ops = [make_opdef("Exp", ["x"], ["a"]), make_opdef("Neg", ["x"], ["b"])]
    g = graph_of(ops, ["x"], ["a", "b"])
    out = pruned(g, keep=[])
    assert types(out) == ["Exp", "Neg"]
    assert_same_results(g, out, X)


def test_extra_kept_values_are_computed():
    ops = [make_opdef("Exp", ["x"], ["a"]), make_opdef("Neg", ["a"], ["upd"]), make_opdef("Abs", ["x"], ["y"]),
           make_opdef("Sin", ["x"], ["dead"])]
    g = graph_of(ops, ["x"], ["y"])
    out = pruned(g, keep=["y", "upd"])
    assert types(out) == ["Exp", "Neg", "Abs"]
    assert_same_results(g, out, X, extra=["upd"])


def test_multi_output_op_with_one_needed_output():
    ops = [make_opdef("Split", ["x"], ["s0", "s1", "s2"], axis=1, num_outputs=3),
           make_opdef("Neg", ["s1"], ["y"]),
           make_opdef("TopK", ["x", "k"], ["vals", "idx"], axis=1), make_opdef("Identity", ["idx"], ["z"])]
    x = RNG.standard_normal((2, 6)).astype(np.float32)
    g = graph_of(ops, ["x"], ["y", "z"], consts=[("k", np.array([2], np.int64))],
                 infos=[("s0", x[:, :2]), ("s1", x[:, 2:4]), ("s2", x[:, 4:]), ("y", x[:, 2:4])])
    out = pruned(g)
    assert types(out) == ["Split", "Neg", "TopK", "Identity"]
    # Unneeded outputs lose their names (trailing ones are dropped); the needed ones keep theirs.
    assert list(out.op[0].output) == ["", "s1"]
    assert list(out.op[2].output) == ["", "idx"]
    assert sorted(vi.name for vi in out.value_info) == ["k", "s1", "y"]
    assert_same_results(g, out, x)
    np.testing.assert_array_equal(run(out, x)[0], -x[:, 2:4])


def test_multi_output_op_with_no_needed_output_goes():
    ops = [make_opdef("Split", ["x"], ["s0", "s1"], axis=1, num_outputs=2), make_opdef("Neg", ["x"], ["y"])]
    g = graph_of(ops, ["x"], ["y"])
    assert types(pruned(g)) == ["Neg"]


def test_unseeded_random_ops_stay_to_keep_the_stream():
    ops = [make_opdef("RandomUniform", [], ["unused"], shape=[3]),
           make_opdef("RandomNormal", [], ["seeded"], shape=[3], seed=5.0),
           make_opdef("Exp", ["x"], ["h"]), make_opdef("RandomNormalLike", ["h"], ["unused2"]),
           make_opdef("Dropout", ["x", "", "train"], ["drop"]), make_opdef("Dropout", ["x"], ["infer"]),
           make_opdef("RandomUniform", [], ["y"], shape=[3])]
    g = graph_of(ops, ["x"], ["y"], consts=[("train", np.array(True))])
    out = pruned(g)
    assert types(out) == ["RandomUniform", "Exp", "RandomNormalLike", "Dropout", "RandomUniform"]
    assert [t.name for t in out.initializer] == ["train"]
    seed(0)
    (want,) = run(g, X)
    seed(0)
    (got,) = run(out, X)
    np.testing.assert_array_equal(got, want)


def test_traced_random_stream_matches_eager():
    def f(x):
        execute("RandomNormalLike", x)  # unused draw
        noise = execute("RandomUniformLike", x)
        return execute("Add", x, noise)

    x = Tensor(X)
    seed(3)
    want = f(x).array
    with Trace("t") as trace:
        trace.add_input(x)
        trace.set_outputs([f(x)])
    compiled = CompiledGraph(pruned(trace.graph))
    assert types(compiled.graph) == ["RandomNormalLike", "RandomUniformLike", "Add"]
    seed(3)
    np.testing.assert_array_equal(compiled(X)[0], want)


def test_traced_state_updates_keep_their_values():
    w = Tensor(RNG.standard_normal((4,)).astype(np.float32))
    counter = Tensor(np.zeros((), np.float32))

    def f(x):
        execute("Exp", x)  # dead
        assign(counter, execute("Add", counter, np.float32(1)))
        return execute("Mul", x, w)

    x = Tensor(X)
    with Trace("t") as trace:
        trace.add_input(x)
        trace.set_outputs([f(x)])
    g = trace.graph
    g.input.extend(trace.captures)
    updates = list(trace.updates.values())
    out = pruned(g, keep=list(g.output) + updates)
    assert types(out) == ["Add", "Mul"]
    assert list(out.input) == list(g.input)
    feeds = [X] + [t.array for t in trace.captures.values()]
    assert_same_results(g, out, *feeds, extra=updates)


def test_idempotent():
    ops = [make_opdef("Exp", ["x"], ["a"]), make_opdef("Split", ["a"], ["s0", "s1"], axis=1, num_outputs=2),
           make_opdef("Neg", ["s0"], ["y"])]
    g = graph_of(ops, ["x"], ["y"])
    once = pruned(g)
    assert pruned(once).SerializeToString(deterministic=True) == once.SerializeToString(deterministic=True)
