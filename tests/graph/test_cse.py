"""Common subexpression elimination: equal ops and equal initializers appear once, results unchanged."""

import numpy as np
import pytest

from tests.graph.graphs import applied, assert_same_results, graph_of, run, types
from vfw.core import Tensor, execute
from vfw.core import dtypes as dt
from vfw.core.graph import Trace
from vfw.core.graph.passes.cse import draws_from_engine, eliminate_common_subexpressions, is_random
from vfw.core.ir import make_opdef
from vfw.core.ops.random import seed

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4)).astype(np.float32)




def _code(value):
    return dt.onnx_code(np.asarray(value).dtype)






def cse(g, keep=None):
    return applied(eliminate_common_subexpressions, g, keep)




def traced(fn, *args):
    """Trace ``fn`` on tensors; return (graph, feeds) with captures appended to the inputs."""
    tensors = [Tensor(a) for a in args]
    with Trace("t") as trace:
        for t in tensors:
            trace.add_input(t)
        result = fn(*tensors)
        outs = list(result) if isinstance(result, tuple) else [result]
        trace.set_outputs(outs)
    g = trace.graph
    g.input.extend(trace.captures)
    feeds = list(args) + [t.array for t in trace.captures.values()]
    return g, feeds, [t.array for t in outs]


# -- ops ---------------------------------------------------------------------------------------

def test_equal_ops_merge_and_uses_are_renamed():
    g = graph_of([make_opdef("Exp", ["x"], ["a"]), make_opdef("Exp", ["x"], ["b"]),
                  make_opdef("Add", ["a", "b"], ["y"])], ["x"], ["y"], infos=[("a", X), ("b", X), ("y", X)])
    out = cse(g)
    assert types(out) == ["Exp", "Add"]
    assert list(out.op[1].input) == ["a", "a"]
    assert "b" not in {vi.name for vi in out.value_info}
    assert_same_results(g, out, X)


def test_chains_merge_to_a_fixed_point():
    # Each pair only becomes equal once the pair before it is merged.
    ops = []
    for branch in "pq":
        ops += [make_opdef("Mul", ["x", "two"], [f"{branch}1"]), make_opdef("Tanh", [f"{branch}1"], [f"{branch}2"]),
                make_opdef("Sub", [f"{branch}2", "x"], [f"{branch}3"])]
    ops.append(make_opdef("Div", ["p3", "q3"], ["y"]))
    g = graph_of(ops, ["x"], ["y"], consts=[("two", np.float32(2))])
    out = cse(g)
    assert types(out) == ["Mul", "Tanh", "Sub", "Div"]
    assert list(out.op[-1].input) == ["p3", "p3"]
    assert_same_results(g, out, X)


def test_different_types_inputs_or_attributes_do_not_merge():
    ops = [make_opdef("Exp", ["x"], ["a"]), make_opdef("Log", ["x"], ["b"]), make_opdef("Exp", ["z"], ["c"]),
           make_opdef("ReduceSum", ["x"], ["d"], keepdims=1), make_opdef("ReduceSum", ["x"], ["e"], keepdims=0),
           make_opdef("Concat", ["x", "z"], ["f"], axis=0), make_opdef("Concat", ["z", "x"], ["h"], axis=0)]
    g = graph_of(ops, ["x", "z"], ["a", "b", "c", "d", "e", "f", "h"])
    out = cse(g)
    assert types(out) == types(g)
    assert out.SerializeToString(deterministic=True) == g.SerializeToString(deterministic=True)


def test_attributes_compare_regardless_of_order():
    a = make_opdef("Gemm", ["x", "w"], ["a"], alpha=0.5, transB=1)
    b = make_opdef("Gemm", ["x", "w"], ["b"], transB=1, alpha=0.5)
    c = make_opdef("Gemm", ["x", "w"], ["c"], transB=1, alpha=0.25)
    assert [arg.name for arg in a.arg] != [arg.name for arg in b.arg]
    g = graph_of([a, b, c, make_opdef("Sum", ["a", "b", "c"], ["y"])], ["x", "w"], ["y"])
    out = cse(g)
    assert types(out) == ["Gemm", "Gemm", "Sum"]
    assert list(out.op[-1].input) == ["a", "a", "c"]
    w = RNG.standard_normal((5, 4)).astype(np.float32)
    assert_same_results(g, out, X, w)


def test_trailing_absent_inputs_do_not_matter():
    g = graph_of([make_opdef("Clip", ["x", "lo"], ["a"]), make_opdef("Clip", ["x", "lo", ""], ["b"]),
                  make_opdef("Add", ["a", "b"], ["y"])], ["x"], ["y"], consts=[("lo", np.float32(0))])
    out = cse(g)
    assert types(out) == ["Clip", "Add"]
    assert_same_results(g, out, X)


def test_multi_output_ops_merge_output_by_output():
    ops = [make_opdef("Split", ["x"], ["a0", "a1"], axis=1, num_outputs=2),
           make_opdef("Split", ["x"], ["b0", "b1"], axis=1, num_outputs=2),
           make_opdef("Sub", ["a0", "b1"], ["y"]), make_opdef("Sub", ["b0", "a1"], ["z"])]
    g = graph_of(ops, ["x"], ["y", "z"])
    out = cse(g)
    assert types(out) == ["Split", "Sub", "Sub"]
    assert [list(op.input) for op in out.op[1:]] == [["a0", "a1"], ["a0", "a1"]]
    assert_same_results(g, out, X)


def test_unnamed_output_of_the_survivor_takes_the_duplicates_name():
    # The first TopK only names Values, the second only Indices: one TopK names both after merging.
    ops = [make_opdef("TopK", ["x", "k"], ["v"], axis=1), make_opdef("TopK", ["x", "k"], ["", "i"], axis=1),
           make_opdef("Cast", ["i"], ["fi"], to=np.dtype(np.float32)), make_opdef("Add", ["v", "fi"], ["y"])]
    g = graph_of(ops, ["x"], ["y"], consts=[("k", np.array([2], np.int64))])
    out = cse(g)
    assert types(out) == ["TopK", "Cast", "Add"]
    assert list(out.op[0].output) == ["v", "i"]
    assert_same_results(g, out, X)


def test_kept_duplicate_gives_its_name_to_the_survivor():
    ops = [make_opdef("Exp", ["x"], ["a"]), make_opdef("Neg", ["a"], ["n"]), make_opdef("Exp", ["x"], ["b"])]
    g = graph_of(ops, ["x"], ["n", "b"], infos=[("a", X), ("b", X), ("n", X)])
    out = cse(g)
    assert types(out) == ["Exp", "Neg"]
    assert list(out.op[0].output) == ["b"] and list(out.op[1].input) == ["b"]
    assert list(out.output) == ["n", "b"]
    assert "a" not in {vi.name for vi in out.value_info} and "b" in {vi.name for vi in out.value_info}
    assert_same_results(g, out, X)


def test_value_in_keep_stays_defined():
    # "b" is not a graph output but a fetched extra value (a state update, say).
    ops = [make_opdef("Exp", ["x"], ["a"]), make_opdef("Exp", ["x"], ["b"]), make_opdef("Neg", ["a"], ["y"])]
    g = graph_of(ops, ["x"], ["y"])
    out = cse(g, keep=["y", "b"])
    assert types(out) == ["Exp", "Neg"]
    assert_same_results(g, out, X, extra=["b"])


def test_two_kept_equal_values_stay_distinct_arrays():
    g = graph_of([make_opdef("Exp", ["x"], ["a"]), make_opdef("Exp", ["x"], ["b"])], ["x"], ["a", "b"])
    out = cse(g)
    assert types(out) == ["Exp", "Exp"]
    a, b = run(out, X)
    assert not np.shares_memory(a, b)


# -- random ops --------------------------------------------------------------------------------

RANDOM_PAIRS = [
    ("RandomNormal", [], {"shape": [3, 4]}),
    ("RandomUniform", [], {"shape": [3, 4], "seed": 3.0}),
    ("RandomNormalLike", ["x"], {}),
    ("RandomUniformLike", ["x"], {"seed": 1.0}),
    ("Bernoulli", ["p"], {}),
    ("Multinomial", ["x"], {"sample_size": 20}),
    ("Dropout", ["x", "", "train"], {}),
    ("Dropout", ["x", "half", "train"], {"seed": 7}),
]


@pytest.mark.parametrize("op_type, inputs, attrs", RANDOM_PAIRS)
def test_random_ops_are_never_merged(op_type, inputs, attrs):
    ops = [make_opdef(op_type, inputs, ["a"], **attrs), make_opdef(op_type, inputs, ["b"], **attrs),
           make_opdef("Identity", ["a"], ["ya"]), make_opdef("Identity", ["b"], ["yb"])]
    consts = [("p", np.full((3, 4), 0.5, np.float32)), ("train", np.array(True)), ("half", np.float32(0.5))]
    g = graph_of(ops, ["x"], ["ya", "yb"], consts=consts)
    seed(0)
    out = cse(g)
    assert types(out) == types(g)
    assert is_random(out.op[0], {t.name: t for t in out.initializer})
    if "seed" not in attrs:  # (equally seeded ops own equal streams: their draws agree)
        ya, yb = run(out, X)
        assert not np.array_equal(ya, yb)  # two draws from the engine stream


def test_inference_dropout_is_deterministic_and_merges():
    ops = [make_opdef("Dropout", ["x"], ["a"]), make_opdef("Dropout", ["x", "half", "off"], ["b"]),
           make_opdef("Dropout", ["x", "half", "off"], ["c"]), make_opdef("Sum", ["a", "b", "c"], ["y"])]
    g = graph_of(ops, ["x"], ["y"], consts=[("off", np.array(False)), ("half", np.float32(0.5))])
    constants = {t.name: t for t in g.initializer}
    assert not is_random(g.op[0], constants) and not is_random(g.op[1], constants)
    out = cse(g)
    assert types(out) == ["Dropout", "Dropout", "Sum"]
    assert_same_results(g, out, X)


def test_draws_from_engine():
    assert draws_from_engine(make_opdef("RandomNormal", [], ["a"], shape=[2]))
    assert not draws_from_engine(make_opdef("RandomNormal", [], ["a"], shape=[2], seed=1.0))
    assert not draws_from_engine(make_opdef("Exp", ["x"], ["a"]))
    assert draws_from_engine(make_opdef("Dropout", ["x", "", "t"], ["a"]), {})
    # Nothing is known of an unregistered op: never merged or folded, but not kept alive by pruning either.
    unknown = make_opdef("NoSuchOp", ["x"], ["a"])
    assert is_random(unknown) and not draws_from_engine(unknown)


# -- initializers ------------------------------------------------------------------------------

def test_equal_initializers_merge_and_make_ops_equal():
    consts = [("c1", np.array([1.5, 2.0], np.float32)), ("c2", np.array([1.5, 2.0], np.float32)),
              ("c3", np.array([1.5, 2.0], np.float64)), ("c4", np.array([[1.5, 2.0]], np.float32)),
              ("c5", np.array([1.5, -2.0], np.float32))]
    ops = [make_opdef("Mul", ["x", "c1"], ["a"]), make_opdef("Mul", ["x", "c2"], ["b"]),
           make_opdef("Mul", ["x", "c4"], ["c"]), make_opdef("Mul", ["x", "c5"], ["d"]),
           make_opdef("Cast", ["c3"], ["e"], to=np.dtype(np.float32)),
           make_opdef("Sum", ["a", "b", "c", "d", "e"], ["y"])]
    g = graph_of(ops, ["x"], ["y"], consts=consts)
    x = RNG.standard_normal((3, 2)).astype(np.float32)
    out = cse(g)
    assert sorted(t.name for t in out.initializer) == ["c1", "c3", "c4", "c5"]
    assert types(out) == ["Mul", "Mul", "Mul", "Cast", "Sum"]
    assert list(out.op[-1].input) == ["a", "a", "c", "d", "e"]
    assert "c2" not in {vi.name for vi in out.value_info}
    assert_same_results(g, out, x)


def test_signed_zeros_and_nan_payloads_are_different_constants():
    quiet = np.array([np.nan], np.float32)
    other = quiet.view(np.uint32) | np.uint32(1)
    consts = [("z", np.float32(0.0)), ("nz", np.float32(-0.0)), ("n1", quiet), ("n2", other.view(np.float32))]
    ops = [make_opdef("Div", ["one", "z"], ["a"]), make_opdef("Div", ["one", "nz"], ["b"]),
           make_opdef("Identity", ["n1"], ["c"]), make_opdef("Identity", ["n2"], ["d"])]
    g = graph_of(ops, [], ["a", "b", "c", "d"], consts=consts + [("one", np.float32(1))])
    out = cse(g)
    assert len(out.initializer) == len(g.initializer)
    a, b, c, d = run(out)
    assert a == np.inf and b == -np.inf
    assert c.view(np.uint32)[0] != d.view(np.uint32)[0]


def test_kept_and_overridable_initializers_stay():
    one = np.float32(1)
    consts = [("c1", one), ("c2", one), ("c3", one), ("c4", one)]
    ops = [make_opdef("Add", ["x", "c2"], ["a"]), make_opdef("Add", ["x", "c3"], ["b"]),
           make_opdef("Add", ["x", "c4"], ["c"])]
    # c2 is fetched, c3 is also a graph input (a default a feed may replace): neither may disappear.
    g = graph_of(ops, ["x", "c3"], ["a", "b", "c", "c2"], consts=consts)
    out = cse(g)
    assert sorted(t.name for t in out.initializer) == ["c1", "c2", "c3"]
    assert [list(op.input) for op in out.op] == [["x", "c2"], ["x", "c3"], ["x", "c1"]]
    assert list(out.output) == list(g.output)
    results = run(out, X, np.float32(5))
    np.testing.assert_array_equal(results[1], X + 5)
    np.testing.assert_array_equal(results[2], X + 1)


# -- traced functions ------------------------------------------------------------------------

def test_traced_repeated_subexpressions():
    w = Tensor(RNG.standard_normal((4, 4)).astype(np.float32))

    def f(x):
        def block(v):
            h = execute("MatMul", v, w)
            return execute("Mul", execute("Tanh", h), np.float32(0.5))
        a, b = block(x), block(x)
        return execute("Add", execute("Add", a, b), block(x))

    g, feeds, eager = traced(f, X)
    assert len(g.initializer) == 3
    out = cse(g)
    assert types(out) == ["MatMul", "Tanh", "Mul", "Add", "Add"]
    assert len(out.initializer) == 1
    for got, want in zip(run(out, *feeds), eager, strict=True):
        np.testing.assert_array_equal(got, want)


def test_idempotent():
    w = Tensor(RNG.standard_normal((4,)).astype(np.float32))

    def f(x):
        a = execute("Add", x, w)
        return execute("Mul", a, execute("Add", x, w)), execute("Sub", x, w)

    g, feeds, _ = traced(f, X)
    once = cse(g)
    twice = cse(once)
    assert twice.SerializeToString(deterministic=True) == once.SerializeToString(deterministic=True)
    assert types(once) == ["Add", "Mul", "Sub"]
