"""Constant folding, and every optimization level against eager execution."""

import numpy as np
import pytest

from tests.graph.graphs import applied, assert_same_results, graph_of, run, types
from vfw.core import Tensor, execute
from vfw.core import dtypes as dt
from vfw.core.autograd import gradient
from vfw.core.errors import VfwError
from vfw.core.graph import CompiledGraph, Trace, assign, function, optimize
from vfw.core.graph.passes import fold as fold_module
from vfw.core.graph.passes.fold import MAX_FOLDED_BYTES, fold_constants
from vfw.core.ir import make_opdef, proto_to_tensor
from vfw.core.ops.random import seed
from vfw.core.proto import ValueInfo

RNG = np.random.default_rng(2)
X = RNG.standard_normal((3, 4)).astype(np.float32)








def folded(g, keep=None):
    return applied(fold_constants, g, keep)


def constant(g, name):
    (proto,) = [t for t in g.initializer if t.name == name]
    return proto_to_tensor(proto)


def info(g, name):
    (vi,) = [vi for vi in g.value_info if vi.name == name]
    return tuple(vi.dims), dt.as_dtype(vi.data_type)




# -- folding -----------------------------------------------------------------------------------

def test_chain_of_constant_ops_folds():
    a, b = np.arange(4, dtype=np.float32), np.full(4, 0.5, np.float32)
    ops = [make_opdef("Add", ["a", "b"], ["s"]), make_opdef("Mul", ["s", "a"], ["p"]),
           make_opdef("Cast", ["p"], ["c"], to=np.dtype(np.float64)), make_opdef("Cast", ["c"], ["c32"], to="float32"),
           make_opdef("Mul", ["x", "c32"], ["y"])]
    g = graph_of(ops, ["x"], ["y"], consts=[("a", a), ("b", b)], infos=[("s", a), ("p", a), ("c", a.astype(float))])
    out = folded(g)
    assert types(out) == ["Mul"]
    np.testing.assert_array_equal(constant(out, "c32"), (a + b) * a)
    assert info(out, "c") == ((4,), np.dtype(np.float64))
    # Values without a value info get one.
    assert info(out, "c32") == ((4,), np.dtype(np.float32))
    assert_same_results(g, out, X)


def test_ops_reading_inputs_do_not_fold():
    ops = [make_opdef("Add", ["x", "c"], ["a"]), make_opdef("Add", ["d", "c"], ["b"]),
           make_opdef("Mul", ["a", "b"], ["y"])]
    # "d" is an initializer and a graph input: a default that a feed replaces, so no constant.
    g = graph_of(ops, ["x", "d"], ["y"], consts=[("c", np.float32(1)), ("d", np.float32(2))])
    out = folded(g)
    assert types(out) == types(g)
    np.testing.assert_array_equal(run(out, X, np.float32(5))[0], (X + 1) * np.float32(6))


def test_kept_values_are_not_folded_and_stay_fresh_arrays():
    ops = [make_opdef("Add", ["c", "c"], ["two"]), make_opdef("Mul", ["two", "c"], ["y"]),
           make_opdef("Neg", ["c"], ["upd"])]
    g = graph_of(ops, [], ["y"], consts=[("c", np.ones(3, np.float32))])
    out = folded(g, keep=["y", "upd"])
    assert types(out) == ["Mul", "Neg"]
    compiled = CompiledGraph(out, extra_outputs=["upd"])
    first, upd = compiled()
    second, _ = compiled()
    assert first.flags.writeable and not np.shares_memory(first, second)
    np.testing.assert_array_equal(first, [2, 2, 2])
    np.testing.assert_array_equal(upd, [-1, -1, -1])


def test_absent_optional_inputs_and_zero_input_ops_fold():
    ops = [make_opdef("Constant", [], ["k"], value=np.arange(6, dtype=np.float32)),
           make_opdef("Clip", ["k", "", "hi"], ["clipped"]), make_opdef("Add", ["x", "clipped"], ["y"])]
    g = graph_of(ops, ["x"], ["y"], consts=[("hi", np.float32(3))])
    out = folded(g)
    assert types(out) == ["Add"]
    np.testing.assert_array_equal(constant(out, "clipped"), [0, 1, 2, 3, 3, 3])
    x = RNG.standard_normal(6).astype(np.float32)
    assert_same_results(g, out, x)


def test_multi_output_ops_fold_every_named_output():
    c = RNG.standard_normal((6, 2)).astype(np.float32)
    ops = [make_opdef("Split", ["c"], ["s0", "", "s2"], axis=0, num_outputs=3),
           make_opdef("TopK", ["c", "k"], ["", "idx"], axis=0),
           make_opdef("Sub", ["s0", "s2"], ["d"]), make_opdef("Add", ["x", "d"], ["y"]),
           make_opdef("Identity", ["idx"], ["i"])]
    g = graph_of(ops, ["x"], ["y", "i"], consts=[("c", c), ("k", np.array([3], np.int64))])
    out = folded(g, keep=["y", "i"])
    assert types(out) == ["Add", "Identity"]
    np.testing.assert_array_equal(constant(out, "d"), c[:2] - c[4:])
    np.testing.assert_array_equal(constant(out, "idx"), np.argsort(-c, axis=0, kind="stable")[:3])
    assert {t.name for t in out.initializer} == {"c", "k", "s0", "s2", "d", "idx"}
    assert_same_results(g, out, RNG.standard_normal((2, 2)).astype(np.float32))


RANDOM_OPS = [
    ("RandomNormal", [], {"shape": [3, 4]}),
    ("RandomUniform", [], {"shape": [3, 4], "seed": 3.0}),
    ("RandomNormalLike", ["c"], {}),
    ("RandomUniformLike", ["c"], {"seed": 1.0}),
    ("Bernoulli", ["p"], {}),
    ("Multinomial", ["c"], {"sample_size": 5}),
    ("Dropout", ["c", "", "train"], {}),
]


@pytest.mark.parametrize("op_type, inputs, attrs", RANDOM_OPS)
def test_random_ops_never_fold(op_type, inputs, attrs):
    ops = [make_opdef(op_type, inputs, ["r"], **attrs), make_opdef("Identity", ["r"], ["y"])]
    consts = [("c", X), ("p", np.full((3, 4), 0.5, np.float32)), ("train", np.array(True))]
    g = graph_of(ops, [], ["y"], consts=consts)
    out = folded(g)
    assert types(out) == types(g)
    if "seed" not in attrs:
        seed(0)
        assert not np.array_equal(run(out)[0], run(out)[0])  # a new draw per run


def test_inference_dropout_folds():
    ops = [make_opdef("Dropout", ["c", "half", "off"], ["d", "mask"]), make_opdef("Add", ["x", "d"], ["y"]),
           make_opdef("Cast", ["mask"], ["m"], to="float32"), make_opdef("Mul", ["y", "m"], ["z"])]
    g = graph_of(ops, ["x"], ["z"], consts=[("c", X), ("off", np.array(False)), ("half", np.float32(0.5))])
    out = folded(g)
    assert types(out) == ["Add", "Mul"]
    assert_same_results(g, out, X)


def test_size_cap():
    small = np.ones((1, 1), np.float32)
    big = RNG.standard_normal((512, 1024)).astype(np.float32)  # 2 MiB
    at_cap = np.array([512, 512], np.int64)  # 512 * 512 float32 = exactly the cap
    over_cap = np.array([1024, 512], np.int64)
    ops = [make_opdef("ConstantOfShape", ["at_cap"], ["e1"], value=np.ones(1, np.float32)),
           make_opdef("Tile", ["small", "over_cap"], ["e2"]),
           make_opdef("ConstantOfShape", ["over_cap"], ["e3"], value=np.zeros(1, np.float32)),
           make_opdef("Neg", ["big"], ["t"]), make_opdef("Cast", ["big"], ["c64"], to="float64")]
    ops += [make_opdef("ReduceSum", [v], [f"s{i}"], keepdims=0) for i, v in enumerate(["e1", "e2", "e3", "t", "c64"])]
    infos = [("e1", np.empty((512, 512), np.float32)), ("e2", np.empty((1024, 512), np.float32)),
             ("e3", np.empty((1024, 512), np.float32)), ("t", big), ("c64", np.empty(big.shape))]
    g = graph_of(ops, [], ["s0", "s1", "s2", "s3", "s4"],
                 consts=[("small", small), ("big", big), ("at_cap", at_cap), ("over_cap", over_cap)], infos=infos)
    assert 512 * 512 * 4 == MAX_FOLDED_BYTES
    out = folded(g)
    # e1 (at the cap) and t (no larger than its input) fold; the large tensors made from small inputs and the
    # widening Cast stay.
    assert types(out) == ["Tile", "ConstantOfShape", "Cast"] + ["ReduceSum"] * 5
    assert {"e1", "t"} <= {t.name for t in out.initializer}
    assert_same_results(g, out)


def test_size_cap_checks_results_without_value_infos(monkeypatch):
    monkeypatch.setattr(fold_module, "MAX_FOLDED_BYTES", 64)
    ops = [make_opdef("Tile", ["one", "reps"], ["e"]), make_opdef("ReduceSum", ["e"], ["y"], keepdims=0),
           make_opdef("Tile", ["one", "few"], ["f"]), make_opdef("ReduceSum", ["f"], ["z"], keepdims=0)]
    consts = [("one", np.ones(1, np.float32)), ("reps", np.array([100], np.int64)), ("few", np.array([16]))]
    g = graph_of(ops, [], ["y", "z"], consts=consts)
    out = folded(g)
    assert types(out) == ["Tile", "ReduceSum", "ReduceSum"]  # 400 bytes > 64; 64 bytes fold


def test_expand_views_do_not_fold():
    # Expand returns a broadcast (zero-strided) view: see test_non_contiguous_results_do_not_fold.
    ops = [make_opdef("Expand", ["one", "shape"], ["e"]), make_opdef("ReduceSum", ["e"], ["y"], keepdims=0)]
    g = graph_of(ops, [], ["y"], consts=[("one", np.ones(1, np.float32)), ("shape", np.array([4, 3]))])
    assert types(folded(g)) == ["Expand", "ReduceSum"]


def test_non_contiguous_results_do_not_fold():
    # A reduction over a transposed view may round differently from one over a contiguous copy.
    w = RNG.standard_normal((64, 300)).astype(np.float32)
    ops = [make_opdef("Transpose", ["w"], ["t"], perm=[1, 0]), make_opdef("Mul", ["t", "two"], ["m"]),
           make_opdef("ReduceSum", ["m"], ["y"], keepdims=0), make_opdef("Reshape", ["w", "shape"], ["r"]),
           make_opdef("ReduceSum", ["r"], ["z"], keepdims=0)]
    g = graph_of(ops, [], ["y", "z"], consts=[("w", w), ("two", np.float32(2)), ("shape", np.array([300, 64]))])
    out = folded(g)
    assert types(out) == ["Transpose", "Mul", "ReduceSum", "ReduceSum"]
    assert_same_results(g, out)


def test_failing_op_stays_and_fails_at_run_time():
    ops = [make_opdef("Reshape", ["c", "shape"], ["r"]), make_opdef("Add", ["x", "r"], ["y"])]
    g = graph_of(ops, ["x"], ["y"], consts=[("c", np.ones(6, np.float32)), ("shape", np.array([4, 2], np.int64))])
    out = folded(g)
    assert types(out) == types(g)
    with pytest.raises(VfwError, match="Reshape"):
        run(out, X)


# -- shapes ------------------------------------------------------------------------------------

def test_shape_of_known_value_folds_and_feeds_reshape():
    ops = [make_opdef("Exp", ["x"], ["e"]), make_opdef("Shape", ["e"], ["shp"]),
           make_opdef("Gather", ["shp", "zero"], ["rows"], axis=0), make_opdef("Size", ["e"], ["n"]),
           make_opdef("Div", ["n", "rows"], ["cols"]), make_opdef("Concat", ["cols", "rows"], ["new"], axis=0),
           make_opdef("Reshape", ["e", "new"], ["y"]), make_opdef("Shape", ["x"], ["tail"], start=-1)]
    g = graph_of(ops, ["x"], ["y", "tail"], consts=[("zero", np.array([0], np.int64))],
                 infos=[("x", X), ("e", X)])
    out = folded(g)
    assert types(out) == ["Exp", "Reshape", "Shape"]  # the last Shape is an output: not folded
    np.testing.assert_array_equal(constant(out, "new"), [4, 3])
    assert constant(out, "n").shape == () and constant(out, "n").dtype == np.int64
    assert info(out, "n") == ((), np.dtype(np.int64))
    assert_same_results(g, out, X)


def test_shape_with_unknown_dims_does_not_fold():
    ops = [make_opdef("Shape", ["x"], ["s"]), make_opdef("Shape", ["u"], ["t"]),
           make_opdef("Concat", ["s", "t"], ["y"], axis=0)]
    g = graph_of(ops, ["x", "u"], ["y"], infos=[("x", X)])
    g.value_info.append(ValueInfo(name="u", data_type=dt.onnx_code(np.float32), dims=[-1, 4]))
    out = folded(g)
    assert types(out) == ["Shape", "Concat"] and list(out.op[0].input) == ["u"]
    np.testing.assert_array_equal(run(out, X, X)[0], [3, 4, 3, 4])


# -- every level against eager -----------------------------------------------------------------

def _mlp(rng):
    w1 = Tensor(rng.standard_normal((8, 16)).astype(np.float32))
    b1 = Tensor(rng.standard_normal(16).astype(np.float32))
    w2 = rng.standard_normal((16, 5)).astype(np.float32)  # numpy weights: constants of the graph
    b2 = rng.standard_normal(5).astype(np.float32)

    def forward(x):
        h = execute("Relu", execute("Add", execute("MatMul", x, w1), b1))
        logits = execute("Gemm", h, execute("Transpose", w2, perm=[1, 0]), execute("Mul", b2, np.float32(2)),
                         transB=1)
        return execute("Softmax", logits, axis=-1), logits

    return forward, [rng.standard_normal((4, 8)).astype(np.float32)]


def _repeated(rng):
    scale = Tensor(rng.standard_normal(6).astype(np.float32))

    def f(x):
        k = execute("Mul", execute("Add", np.float32(1.5), np.float32(2.0)), np.float32(0.25))
        a = execute("Tanh", execute("Mul", x, k))
        b = execute("Tanh", execute("Mul", x, k))
        s = execute("Mul", execute("Add", a, b), scale)
        shp = execute("Shape", s)
        flat = execute("Reshape", s, execute("Concat", execute("Gather", shp, np.array([0]), axis=0),
                                             np.array([-1], np.int64), axis=0))
        tot = execute("ReduceSum", execute("Exp", flat), np.array([1], np.int64), keepdims=1)
        tot2 = execute("ReduceSum", execute("Exp", flat), np.array([1], np.int64), keepdims=1)
        return execute("Div", execute("Exp", flat), execute("Add", tot, tot2)), execute("Add", tot, tot2)

    return f, [rng.standard_normal((5, 6)).astype(np.float32)]


def _step(rng):
    w = Tensor(rng.standard_normal((6, 3)).astype(np.float32), requires_grad=True)
    b = Tensor(np.zeros(3, np.float32), requires_grad=True)
    lr = np.float32(0.1)

    def step(x, labels):
        logits = execute("Add", execute("MatMul", x, w), b)
        loss = execute("SoftmaxCrossEntropyLoss", logits, labels)[0]
        for p, g in zip((w, b), gradient(loss, [w, b])):
            assign(p, execute("Sub", p, execute("Mul", g, lr)))
        return loss

    return step, [rng.standard_normal((4, 6)).astype(np.float32), rng.integers(0, 3, 4).astype(np.int64)], (w, b)


def _dropout(rng):
    def f(x):
        d = execute("Dropout", x, np.float32(0.3), np.array(True))[0]
        return execute("Add", d, execute("RandomNormalLike", x))

    return f, [rng.standard_normal((4, 5)).astype(np.float32)]


@pytest.mark.parametrize("program", [_mlp, _repeated])
@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_levels_match_eager(program, level):
    fn, args = program(np.random.default_rng(5))
    tensors = [Tensor(a) for a in args]
    want = fn(*tensors)
    compiled = function(fn, opt_level=level)
    compiled(*tensors)  # traces (eagerly)
    for _ in range(2):  # runs the graph; twice, so that reused buffers are exercised
        got = compiled(*tensors)
        for g, w in zip(got, want, strict=True):
            assert g.array.dtype == w.array.dtype and g.array.shape == w.array.shape
            np.testing.assert_array_equal(g.array, w.array)
    concrete = compiled.get_concrete_function(*tensors)
    if level:
        assert len(concrete.graph_def.op) < len(concrete.raw_graph.op)


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_levels_match_eager_with_state_updates(level):
    fn, args, params = _step(np.random.default_rng(6))
    start = [p.array.copy() for p in params]
    tensors = [Tensor(a) for a in args]
    want = []
    for _ in range(3):
        want.append((fn(*tensors).array, [p.array.copy() for p in params]))
    for p, s in zip(params, start):
        p.array = s.copy()
    compiled = function(fn, opt_level=level)
    for loss, values in want:
        got = compiled(*tensors)
        np.testing.assert_array_equal(got.array, loss)
        for p, v in zip(params, values):
            np.testing.assert_array_equal(p.array, v)


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_levels_keep_the_random_stream(level):
    fn, args = _dropout(np.random.default_rng(7))
    tensors = [Tensor(a) for a in args]
    compiled = function(fn, opt_level=level)
    compiled(*tensors)
    seed(11)
    want = fn(*tensors).array
    seed(11)
    np.testing.assert_array_equal(compiled(*tensors).array, want)


def test_optimize_does_not_mutate_and_keeps_the_interface():
    fn, args = _repeated(np.random.default_rng(8))
    tensors = [Tensor(a) for a in args]
    with Trace("t") as trace:
        for t in tensors:
            trace.add_input(t)
        trace.set_outputs(list(fn(*tensors)))
    g = trace.graph
    g.input.extend(trace.captures)
    before = g.SerializeToString(deterministic=True)
    for level in range(4):
        out = optimize(g, level)
        assert g.SerializeToString(deterministic=True) == before
        assert list(out.input) == list(g.input) and list(out.output) == list(g.output)
