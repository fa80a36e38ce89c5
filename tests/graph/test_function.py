"""``vfw.core.graph.function``: traces per signature, structures, captures, state updates, training steps.

The oracle is eager execution of the same Python function: graph results must
be identical (bit for bit: the same kernels run in the same order) at every
optimization level.
"""

import collections

import numpy as np
import pytest

from vfw.core import DTypeError, OpInputError, ShapeError, Tensor, Workspace, execute
from vfw.core.autograd import gradient
from vfw.core.graph import ConcreteFunction, Function, assign, function, get_default_opt_level, set_default_opt_level
from vfw.core.ops import random as vfw_random

LEVELS = (0, 1, 2, 3)


def t(a, dtype=np.float32, requires_grad=False):
    return Tensor(np.asarray(a, dtype), requires_grad=requires_grad)


def rand(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


class FrontTensor(Tensor):
    """A frontend-style subclass (frontends add methods, not storage)."""

    __slots__ = ()

    def double(self):
        return execute("Add", self, self)


FrontTensor.result_class = FrontTensor

def leaves_equal(a, b):
    """Structure, classes and values of two results agree exactly."""
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, Tensor):
        np.testing.assert_array_equal(a.array, b.array, strict=True)
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b, strict=True)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            leaves_equal(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            leaves_equal(x, y)
    else:
        assert a == b


# -- signatures and retracing -------------------------------------------------------------------------------
def test_one_trace_per_signature():
    calls = []

    def f(x, y):
        calls.append(1)
        return execute("Mul", execute("Add", x, y), y)

    g = function(f)
    rng = np.random.default_rng(0)
    for _ in range(4):
        x, y = t(rand(rng, 3, 4)), t(rand(rng, 3, 4))
        leaves_equal(g(x, y), f(x, y))
    assert g.tracing_count == 1
    assert len(calls) == 1 + 4  # one tracing run, then the eager oracle calls only
    g(t(rand(rng, 2, 4)), t(rand(rng, 2, 4)))  # new shape
    assert g.tracing_count == 2
    g(t(rand(rng, 2, 4), np.float64), t(rand(rng, 2, 4), np.float64))  # new dtype
    assert g.tracing_count == 3
    out = g(t(np.ones((3, 4))), t(np.full((3, 4), 2.0)))  # known signature: no retrace
    np.testing.assert_array_equal(out.array, np.full((3, 4), 6.0, np.float32))
    assert g.tracing_count == 3


def test_non_tensor_arguments_select_the_trace():
    def f(x, n, mode="add"):
        c = np.asarray(n, x.dtype)
        return execute("Add" if mode == "add" else "Mul", x, c)

    g = function(f)
    x = t([1.0, 2.0])
    np.testing.assert_array_equal(g(x, 2).array, [3.0, 4.0])
    np.testing.assert_array_equal(g(x, 3).array, [4.0, 5.0])
    np.testing.assert_array_equal(g(x, 3, mode="mul").array, [3.0, 6.0])
    np.testing.assert_array_equal(g(x, 3, mode="mul").array, [3.0, 6.0])
    assert g.tracing_count == 3
    # 1, 1.0 and True are equal in Python but are different signatures.
    g(x, 1), g(x, 1.0), g(x, True)
    assert g.tracing_count == 6


def test_unhashable_argument_is_a_clear_error():
    g = function(lambda x, s: execute("Neg", x))
    with pytest.raises(OpInputError, match="hashable"):
        g(t([1.0]), bytearray(b"x"))
    with pytest.raises(OpInputError, match="hashable"):
        g(t([1.0]), [1, {2}])  # lists are structure; the set in it is a value


def test_repeated_tensor_is_one_input_and_aliasing_retraces():
    g = function(lambda a, b: execute("Add", a, b))
    x, y = t([1.0, 1.0]), t([2.0, 2.0])
    np.testing.assert_array_equal(g(x, x).array, [2.0, 2.0])
    np.testing.assert_array_equal(g(x, y).array, [3.0, 3.0])  # not the (x, x) trace
    np.testing.assert_array_equal(g(y, y).array, [4.0, 4.0])
    np.testing.assert_array_equal(g(y, x).array, [3.0, 3.0])
    assert g.tracing_count == 2
    assert len(g.get_concrete_function(x, x).input_names) == 1


def test_tensor_class_is_part_of_the_signature_and_outputs_keep_it():
    g = function(lambda x: execute("Relu", x.double()))
    for _ in range(3):
        y = g(FrontTensor(np.array([-1.0, 2.0], np.float32)))
        assert type(y) is FrontTensor
        np.testing.assert_array_equal(y.array, [0.0, 4.0])
    assert g.tracing_count == 1
    h = function(lambda x: execute("Neg", x))
    assert type(h(t([1.0]))) is Tensor
    assert type(h(FrontTensor(np.ones(1, np.float32)))) is FrontTensor
    assert type(h(FrontTensor(np.ones(1, np.float32)))) is FrontTensor
    assert type(h(t([1.0]))) is Tensor
    assert h.tracing_count == 2


def test_get_concrete_function_then_call():
    g = function(lambda x: execute("Add", x, x))
    concrete = g.get_concrete_function(t([1.0]))
    assert isinstance(concrete, ConcreteFunction)
    # The tracing run's result must not leak into a later call.
    np.testing.assert_array_equal(g(t([5.0])).array, [10.0])
    np.testing.assert_array_equal(concrete(t([7.0])).array, [14.0])
    assert g.tracing_count == 1


# -- argument and result structures ---------------------------------------------------------------------------
Pair = collections.namedtuple("Pair", "left right")


def structured(batch, weights, scale=1.0, extra=None):
    a, b = batch
    h = execute("MatMul", a, weights["w"])
    h = execute("Add", h, weights["b"])
    s = execute("Mul", h, np.asarray(scale, np.float32))
    total = execute("ReduceSum", s, keepdims=0)
    out = {"h": h, "pair": Pair(s, [b, total]), "n": 3, "label": "ok", "none": None}
    if extra is not None:
        out["extra"] = execute("Neg", extra[0])
    return out, total


@pytest.mark.parametrize("level", LEVELS)
def test_nested_arguments_and_results(level):
    g = function(structured, opt_level=level)
    rng = np.random.default_rng(1)
    for _ in range(3):
        batch = (t(rand(rng, 2, 3)), rand(rng, 4))  # a tensor and a numpy array
        weights = {"b": t(rand(rng, 5)), "w": rand(rng, 3, 5)}
        extra = [t(rand(rng, 2))]
        # The function sees array arguments as tensors (as tf.function does).
        as_tensors = (batch[0], Tensor(batch[1])), {"b": weights["b"], "w": Tensor(weights["w"])}
        expected = structured(*as_tensors, scale=0.5, extra=extra)
        got = g(batch, weights, scale=0.5, extra=extra)
        leaves_equal(got, expected)
        assert isinstance(got[0]["pair"], Pair) and isinstance(got[0]["pair"].right, list)
    assert g.tracing_count == 1
    # The same structure with dict keys given in another order: the same trace.
    g((batch[0], batch[1]), {"w": weights["w"], "b": weights["b"]}, scale=0.5, extra=extra)
    assert g.tracing_count == 1
    g(batch, weights, scale=0.5)  # extra=None: another structure
    g(list(batch), weights, scale=0.5, extra=extra)  # a list instead of a tuple
    assert g.tracing_count == 3


def test_input_names_follow_the_arguments():
    g = function(structured)
    batch = (t(np.ones((2, 3))), np.ones(4, np.float32))
    weights = {"w": np.ones((3, 5), np.float32), "b": t(np.ones(5))}
    concrete = g.get_concrete_function(batch, weights, extra=[t(np.ones(2))])
    assert concrete.input_names == ["batch[0]", "batch[1]", "weights['b']", "weights['w']", "extra[0]"]


def test_python_scalar_and_array_results():
    def f(x):
        y = execute("Exp", x)
        return 2.5, y.array, [y, "text"]

    g = function(f)
    for v in ([0.0, 1.0], [2.0, 3.0]):
        x = t(v)
        got = g(x)
        leaves_equal(got, f(x))
        assert got[0] == 2.5 and isinstance(got[1], np.ndarray)


def test_varargs_and_methods():
    class Model:
        def __init__(self):
            self.w = t([2.0, 3.0])

        @function
        def forward(self, x):
            return execute("Mul", x, self.w)

    m1, m2 = Model(), Model()
    m2.w.array[:] = 10.0
    for _ in range(2):
        np.testing.assert_array_equal(m1.forward(t([1.0, 1.0])).array, [2.0, 3.0])
        np.testing.assert_array_equal(m2.forward(t([1.0, 1.0])).array, [10.0, 10.0])
    assert Model.forward.tracing_count == 2  # one trace per instance

    g = function(lambda *xs: execute("Sum", *xs))
    assert g.get_concrete_function(t([1.0]), t([2.0])).input_names == ["xs[0]", "xs[1]"]
    np.testing.assert_array_equal(g(t([1.0]), t([2.0]), t([3.0])).array, [6.0])


# -- captures and state --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("level", LEVELS)
def test_captures_are_read_by_reference(level):
    w = t([1.0, 2.0, 3.0])
    b = t([0.5, 0.5, 0.5])
    g = function(lambda x: execute("Add", execute("Mul", x, w), b), opt_level=level)
    x = t([1.0, 1.0, 1.0])
    np.testing.assert_array_equal(g(x).array, [1.5, 2.5, 3.5])
    np.testing.assert_array_equal(g(x).array, [1.5, 2.5, 3.5])
    w.array[:] = 2.0  # in place
    np.testing.assert_array_equal(g(x).array, [2.5, 2.5, 2.5])
    b.array = np.zeros(3, np.float32)  # a new array of the same shape
    np.testing.assert_array_equal(g(x).array, [2.0, 2.0, 2.0])
    assert g.tracing_count == 1
    assert [type(c) for _, c in g.get_concrete_function(x).captures] == [Tensor, Tensor]


def test_capture_with_a_new_shape_is_a_clear_error():
    w = t([1.0, 2.0])
    g = function(lambda x: execute("Mul", x, w))
    g(t([1.0, 1.0]))
    w.array = np.ones(3, np.float32)
    with pytest.raises(ShapeError, match=r"\(2,\)"):
        g(t([1.0, 1.0]))


@pytest.mark.parametrize("level", LEVELS)
def test_assign_updates_apply_every_call_and_reads_see_them(level):
    counter = t(0.0)
    total = t([0.0, 0.0])

    def f(x):
        before = execute("Neg", execute("Neg", counter))  # fresh memory (Identity would alias the state)
        assign(counter, execute("Add", counter, np.asarray(1.0, np.float32)))
        after = execute("Mul", counter, np.asarray(1.0, np.float32))  # reads the new value
        assign(total, execute("Add", total, execute("Mul", x, counter)))
        return before, after

    g = function(f, opt_level=level)
    for i in range(5):
        before, after = g(t([1.0, 2.0]))
        assert float(before.array) == i and float(after.array) == i + 1
    assert float(counter.array) == 5
    np.testing.assert_array_equal(total.array, [15.0, 30.0])
    assert g.tracing_count == 1
    concrete = g.get_concrete_function(t([1.0, 2.0]))
    assert len(concrete.updates) == 2


def test_assign_numpy_value_and_in_place_write():
    state = t([1.0, 2.0])
    view = state.array[:1]  # a view sees in-place writes
    g = function(lambda x: (assign(state, np.array([7.0, 8.0])), execute("Add", x, state))[1])
    np.testing.assert_array_equal(g(t([1.0, 1.0])).array, [8.0, 9.0])
    state.array[:] = 0.0
    np.testing.assert_array_equal(g(t([1.0, 1.0])).array, [8.0, 9.0])
    np.testing.assert_array_equal(state.array, [7.0, 8.0])
    assert view[0] == 7.0 and state.array.dtype == np.float32


@pytest.mark.parametrize("level", LEVELS)
def test_assign_to_an_argument_writes_it_back_and_to_an_intermediate_gives_it_a_new_value(level):
    one, two = np.asarray(1.0, np.float32), np.asarray(2.0, np.float32)

    def f(x):
        y = execute("Neg", x)
        assign(x, execute("Add", x, one))  # the caller's tensor changes, after every call
        assign(y, execute("Mul", y, two))  # later reads of y see the new value
        return execute("Add", y, x)

    g = function(f, opt_level=level)
    for i in range(4):
        values = np.array([1.0, -2.0 * i], np.float32)
        x, same = t(values), t(values.copy())
        expected = f(same)
        leaves_equal(g(x), expected)
        np.testing.assert_array_equal(x.array, same.array)
    assert g.tracing_count == 1


# -- training ------------------------------------------------------------------------------------------------------
def mlp_step(params, lr=0.1):
    rate = np.asarray(lr, np.float32)

    def step(x, labels):
        w1, b1, w2, b2 = params
        h = execute("Tanh", execute("Gemm", x, w1, b1, transB=1))
        logits = execute("Gemm", h, w2, b2, transB=1)
        loss = execute("SoftmaxCrossEntropyLoss", logits, labels)[0]
        for p, g in zip(params, gradient(loss, params)):
            assign(p, execute("Sub", p, execute("Mul", g, rate)))
        return loss

    return step


def cnn_step(params, lr=0.05):
    rate = np.asarray(lr, np.float32)

    def step(x, labels):
        w, b, fw, fb = params
        h = execute("Relu", execute("Conv", x, w, b, pads=[1, 1, 1, 1]))
        h = execute("MaxPool", h, kernel_shape=[2, 2], strides=[2, 2])[0]
        logits = execute("Gemm", execute("Flatten", h), fw, fb, transB=1)
        loss = execute("SoftmaxCrossEntropyLoss", logits, labels)[0]
        for p, g in zip(params, gradient(loss, params)):
            assign(p, execute("Sub", p, execute("Mul", g, rate)))
        return loss, logits

    return step


def make_params(rng, shapes):
    arrays = [rng.standard_normal(s).astype(np.float32) * 0.5 for s in shapes]
    return lambda: [Tensor(a.copy(), requires_grad=True) for a in arrays]


def run_training(make_step, fresh_params, batches, level):
    eager_params, graph_params = fresh_params(), fresh_params()
    eager = make_step(eager_params)
    traced = function(make_step(graph_params), opt_level=level)
    for x, labels in batches:
        leaves_equal(traced(Tensor(x), Tensor(labels)), eager(Tensor(x), Tensor(labels)))
    for p, q in zip(eager_params, graph_params):
        np.testing.assert_array_equal(q.array, p.array, strict=True)
    assert traced.tracing_count == 1
    return eager_params


@pytest.mark.parametrize("level", LEVELS)
def test_mlp_training_step_matches_eager(level):
    rng = np.random.default_rng(2)
    fresh = make_params(rng, [(16, 8), (16,), (4, 16), (4,)])
    batches = [(rand(rng, 6, 8), rng.integers(0, 4, 6)) for _ in range(20)]
    before = fresh()
    after = run_training(mlp_step, fresh, batches, level)
    assert not np.array_equal(before[0].array, after[0].array)  # it did train


@pytest.mark.parametrize("level", LEVELS)
def test_cnn_training_step_matches_eager(level):
    rng = np.random.default_rng(3)
    fresh = make_params(rng, [(3, 1, 3, 3), (3,), (4, 48), (4,)])
    batches = [(rand(rng, 2, 1, 8, 8), rng.integers(0, 4, 2)) for _ in range(8)]
    run_training(cnn_step, fresh, batches, level)


# -- random ops ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("level", LEVELS)
def test_random_ops_draw_new_values_each_call(level):
    def f(x):
        noise = execute("RandomNormal", shape=[3, 4], dtype=np.float32)
        like = execute("RandomUniformLike", x)
        dropped = execute("Dropout", x, np.asarray(0.5, np.float32), np.asarray(True))[0]
        return execute("Add", x, noise), like, dropped

    x = t(np.ones((3, 4)))
    vfw_random.seed(11)
    expected = [f(x) for _ in range(4)]
    vfw_random.seed(11)
    g = function(f, opt_level=level)
    got = [g(x) for _ in range(4)]
    for e, r in zip(expected, got):
        leaves_equal(r, e)  # same draws, in the same order, from the engine generator
    assert not np.array_equal(got[1][0].array, got[2][0].array)
    assert not np.array_equal(got[1][1].array, got[2][1].array)


# -- nesting -------------------------------------------------------------------------------------------------------
def test_function_called_inside_a_trace_is_inlined():
    inner = function(lambda a, b: execute("Mul", a, b))

    @function
    def outer(x):
        return execute("Add", inner(x, x), x)

    for v in (1.0, 2.0, 3.0):
        np.testing.assert_array_equal(outer(t([v])).array, [v * v + v])
    assert inner.tracing_count == 0 and outer.tracing_count == 1
    np.testing.assert_array_equal(inner(t([3.0]), t([4.0])).array, [12.0])
    np.testing.assert_array_equal(outer(t([4.0])).array, [20.0])
    concrete = inner.get_concrete_function(t([3.0]), t([4.0]))

    @function
    def outer2(x):
        return execute("Neg", concrete(x, x))

    np.testing.assert_array_equal(outer2(t([2.0])).array, [-4.0])
    np.testing.assert_array_equal(outer2(t([5.0])).array, [-25.0])


# -- errors --------------------------------------------------------------------------------------------------------
def test_concrete_function_rejects_wrong_feeds():
    g = function(lambda x, pair: execute("Add", x, execute("Mul", pair[0], pair[1])))
    x = t(np.ones((2, 3)))
    concrete = g.get_concrete_function(x, (x, np.ones((2, 3), np.float32)))
    with pytest.raises(DTypeError, match=r"argument 'x' must be float32\[2, 3\], got float64\[2, 3\]"):
        concrete(t(np.ones((2, 3)), np.float64), (x, np.ones((2, 3), np.float32)))
    with pytest.raises(ShapeError, match=r"argument 'pair\[1\]' must be float32\[2, 3\], got float32\[3, 2\]"):
        concrete(x, (x, np.ones((3, 2), np.float32)))
    with pytest.raises(OpInputError, match="structure"):
        concrete(x, [x, np.ones((2, 3), np.float32)])
    with pytest.raises(OpInputError, match="one tensor"):
        concrete(x, (t(np.ones((2, 3))), np.ones((2, 3), np.float32)))
    # The compiled graph names its inputs after the arguments.
    with pytest.raises(ShapeError, match=r"input 'x' must have shape \(2, 3\), got \(4,\)"):
        concrete.compiled(np.ones(4, np.float32), np.ones((2, 3), np.float32))
    with pytest.raises(DTypeError, match="input 'pair\\[1\\]' must be float32, got int64"):
        concrete.compiled(np.ones((2, 3), np.float32), np.ones((2, 3), np.int64))


def test_errors_in_the_traced_function_propagate_and_leave_no_trace():
    g = function(lambda x: execute("Add", x, np.ones(5, np.float32)))
    with pytest.raises(ShapeError, match="Add"):
        g(t(np.ones(3)))
    assert g.tracing_count == 0
    assert execute("Neg", t([1.0])).array[0] == -1.0  # no trace left recording


def test_opt_levels():
    with pytest.raises(OpInputError, match="opt_level"):
        function(lambda x: x, opt_level=4)
    with pytest.raises(OpInputError, match="opt_level"):
        set_default_opt_level(7)
    previous = get_default_opt_level()
    try:
        set_default_opt_level(1)
        g = function(lambda x: execute("Neg", x))
        assert g.get_concrete_function(t([1.0])).opt_level == 1
        assert function(opt_level=2)(lambda x: x).get_concrete_function(t([1.0])).opt_level == 2
    finally:
        set_default_opt_level(previous)
    assert isinstance(function(opt_level=0)(len), Function)


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_seeded_random_op_continues_its_stream_like_eager(level):
    def draw(x):
        return execute("RandomNormalLike", x, seed=11.0)

    x = Tensor(np.zeros(4, np.float32))
    with Workspace().as_default():
        eager = [draw(x).array for _ in range(3)]
    with Workspace().as_default():
        traced = function(draw, opt_level=level)
        graph = [traced(x).array for _ in range(3)]
    for e, g in zip(eager, graph):
        np.testing.assert_array_equal(g, e)
    assert not np.array_equal(graph[0], graph[1])


def test_public_names():
    import vfw

    assert vfw.function is function and vfw.assign is assign and vfw.gradient is gradient
