"""In-place pass (O2): the allow-listed kernels accept ``out`` aliasing an input, and the plan only ever
overwrites intermediates read for the last time."""

import numpy as np
import pytest

from tests.graph.test_buffers import build_graph, check_plan, eager_values, plan_ids, run_compiled
from vfw.core import get_schema, make_op
from vfw.core.graph.passes import optimize
from vfw.core.graph.passes.inplace import INPLACE_OPS, OVERLAP_SAFE, plan_inplace

# -- kernels: writing over an input gives the result of writing elsewhere -----------------------------

_ATTRS = {
    "BitShift": [{"direction": "LEFT"}, {"direction": "RIGHT"}],
    "Mod": [{"fmod": 0}, {"fmod": 1}],
    "Gelu": [{}, {"approximate": "tanh"}],
    "LeakyRelu": [{}, {"alpha": 0.0}, {"alpha": 2.0}],
    "Celu": [{}, {"alpha": -0.5}],
    "Softmax": [{}, {"axis": 0}],
    "LogSoftmax": [{}, {"axis": 0}],
    "Hardmax": [{}, {"axis": 0}],
}
_NO_SCALARS = {"Softmax", "LogSoftmax", "Hardmax"}  # need an axis
_CANDIDATES = (np.float32, np.float16, np.float64, np.int32, np.int64, np.uint8, np.bool_)


def _dtypes(op_type):
    schema = get_schema(op_type)
    allowed = schema.types[schema.inputs[0].type]
    picks = [np.dtype(d) for d in _CANDIDATES if np.dtype(d) in allowed]
    # One float (native and the widened half path) and one integer type at most: enough to see every branch.
    floats = [d for d in picks if d.kind == "f"][:2]
    ints = [d for d in picks if d.kind in "iu"][:1]
    return floats + ints + [d for d in picks if d.kind == "b"]


def _array(rng, shape, dtype):
    if dtype.kind == "b":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype.kind == "u":
        return np.asarray(rng.integers(0, 9, shape), dtype)
    if dtype.kind == "i":
        return np.asarray(rng.integers(-6, 7, shape), dtype)
    x = np.asarray(rng.standard_normal(shape) * 3)
    if x.size >= 8:  # IEEE corner cases go through every branch too
        x.flat[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5]
    return x.astype(dtype)


def _inputs(rng, op_type, shape, dtype, n_variadic):
    schema = get_schema(op_type)
    if op_type == "Clip":
        lo, hi = np.array(-1, dtype), np.array(2, dtype)
        return [_array(rng, shape, dtype), lo, hi]
    if schema.inputs[-1].variadic:
        return [_array(rng, shape, dtype) for _ in range(n_variadic)]
    return [_array(rng, shape, dtype) for s in schema.inputs if not s.optional]


def _cases():
    for op_type in sorted(INPLACE_OPS):
        for attrs in _ATTRS.get(op_type, [{}]):
            for dtype in _dtypes(op_type):
                for n in ((2, 3) if get_schema(op_type).inputs[-1].variadic else (None,)):
                    yield pytest.param(op_type, attrs, dtype, n, id=f"{op_type}-{attrs}-{dtype}-{n}")


def _same(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)  # NaN equals NaN here, bits otherwise


pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # IEEE corner cases on purpose


@pytest.mark.parametrize(("op_type", "attrs", "dtype", "n"), list(_cases()))
def test_kernel_writes_over_an_allowed_input(op_type, attrs, dtype, n):
    rng = np.random.default_rng(0)
    if op_type == "Cast":
        attrs = {"to": dtype}
    op = make_op(op_type, attrs)
    slots = INPLACE_OPS[op_type]
    for shape in ((4, 6), (0, 3)) if op_type in _NO_SCALARS else ((4, 6), (), (0, 3)):
        inputs = _inputs(rng, op_type, shape, dtype, n)
        if op_type == "CastLike":
            inputs[1] = inputs[1].astype(dtype)
        expected = op.kernel(*inputs, out=np.empty(shape, dtype))
        for j in range(len(inputs)) if slots is None else slots:
            if j >= len(inputs) or inputs[j].shape != shape:
                continue
            args = [x.copy() for x in inputs]
            buffer = args[j]
            got = op.kernel(*args, out=buffer)
            _same(np.asarray(got), expected)
            _same(buffer, expected)


@pytest.mark.parametrize("op_type", sorted(OVERLAP_SAFE))
def test_overlap_safe_kernels_accept_an_input_sharing_storage_with_out(op_type):
    rng = np.random.default_rng(1)
    attrs = _ATTRS.get(op_type, [{}])[0]
    op = make_op(op_type, attrs)
    for dtype in _dtypes(op_type):
        a = _array(rng, (5, 5), dtype)
        expected_same = op.kernel(a, a, out=np.empty_like(a))
        expected_view = op.kernel(a, a.T.copy(), out=np.empty_like(a))
        buffer = a.copy()
        _same(np.asarray(op.kernel(buffer, buffer, out=buffer)), expected_same)
        buffer = a.copy()
        _same(np.asarray(op.kernel(buffer, buffer.T, out=buffer)), expected_view)  # a transposed view of out


# -- the plan --------------------------------------------------------------------------------------

F = np.float32


def _x(shape=(3, 4), seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(F)


def _planned(graph, keep=None):
    keep = list(graph.output) if keep is None else keep
    planned = plan_inplace(graph, keep)
    check_plan(planned, keep)
    return planned


def test_elementwise_chain_shares_one_buffer_and_stops_at_the_output():
    graph = build_graph({"x": _x(), "s": _x(seed=1)}, [
        ("Mul", ["x", "s"], ["m"]), ("Add", ["m", "s"], ["a"]), ("Tanh", ["a"], ["t"]),
        ("Relu", ["t"], ["y"]),
    ], ["y"])
    ids = plan_ids(_planned(graph))
    assert ids["m"] == ids["a"] == ids["t"] >= 0  # Mul writes a fresh buffer; Add and Tanh reuse it
    assert ids["y"] == -1  # graph outputs never live in buffers


def test_pass_does_not_mutate_its_input():
    graph = build_graph({"x": _x()}, [("Exp", ["x"], ["e"]), ("Relu", ["e"], ["y"]), ("Neg", ["y"], ["z"])], ["z"])
    before = graph.SerializeToString()
    plan_inplace(graph, ["z"])
    assert graph.SerializeToString() == before


def test_inputs_captures_and_constants_are_never_overwritten():
    c = _x(seed=2)
    graph = build_graph({"x": _x(), "w": _x(seed=1)}, [
        ("Relu", ["x"], ["a"]), ("Add", ["w", "c"], ["b"]), ("Mul", ["a", "b"], ["y"]),
    ], ["y"], initializers={"c": c})
    ids = plan_ids(_planned(graph))
    assert ids["a"] == ids["b"] == -1  # their inputs are an argument, a capture and a constant
    feeds = [_x(), _x(seed=1)]
    copies = [f.copy() for f in feeds]
    for level in range(4):
        (y,) = run_compiled(optimize(graph, level), feeds)
        np.testing.assert_array_equal(y, eager_values(graph, feeds)["y"])
        for f, copy in zip(feeds, copies):
            np.testing.assert_array_equal(f, copy)


def test_value_read_later_is_not_overwritten_fan_out():
    graph = build_graph({"x": _x()}, [
        ("Exp", ["x"], ["e"]), ("Relu", ["e"], ["r"]), ("Sigmoid", ["e"], ["s"]), ("Add", ["r", "s"], ["y"]),
    ], ["y"])
    ids = plan_ids(_planned(graph))
    assert ids["r"] == -1  # e is still read by Sigmoid
    assert ids["s"] == ids["e"] >= 0  # Sigmoid reads e last
    assert ids["r"] == -1 and ids["y"] == -1


def test_value_whose_view_is_read_later_is_not_overwritten():
    graph = build_graph({"x": _x()}, [
        ("Exp", ["x"], ["e"]), ("Transpose", ["e"], ["t"]), ("Relu", ["e"], ["r"]),
        ("Transpose", ["r"], ["rt"]), ("Add", ["t", "rt"], ["y"]),
    ], ["y"], attrs={1: {"perm": [1, 0]}, 3: {"perm": [1, 0]}})
    ids = plan_ids(_planned(graph))
    assert ids["r"] == -1 and ids["t"] == ids["rt"] == -1


def test_value_aliased_by_an_output_is_not_overwritten():
    graph = build_graph({"x": _x()}, [
        ("Exp", ["x"], ["e"]), ("Reshape", ["e", "shape"], ["v"]), ("Relu", ["e"], ["r"]), ("Neg", ["r"], ["y"]),
    ], ["v", "y"], initializers={"shape": np.array([4, 3], np.int64)})
    ids = plan_ids(_planned(graph))
    assert ids["e"] == ids["r"] == -1  # e's storage is the output v
    assert ids["y"] == -1
    feeds = [_x()]
    for level in range(4):
        v, y = run_compiled(optimize(graph, level), feeds)
        ref = eager_values(graph, feeds)
        np.testing.assert_array_equal(v, ref["v"])
        np.testing.assert_array_equal(y, ref["y"])


def test_shape_and_dtype_must_match_the_overwritten_input():
    graph = build_graph({"x": _x((1, 4)), "z": _x((3, 4))}, [
        ("Exp", ["x"], ["row"]), ("Exp", ["z"], ["big"]), ("Add", ["row", "big"], ["s"]),
        ("Cast", ["s"], ["h"]), ("Neg", ["h"], ["y"]),
    ], ["y"], attrs={3: {"to": np.dtype(np.float16)}})
    ids = plan_ids(_planned(graph))
    assert ids["s"] == ids["big"] >= 0 and ids["row"] == -1  # the broadcast row cannot hold the result
    assert ids["h"] == -1  # float16 over float32: no


def test_kernels_that_are_not_overlap_safe_do_not_overwrite_a_shared_input():
    graph = build_graph({"x": _x()}, [
        ("Exp", ["x"], ["e"]), ("PRelu", ["e", "e"], ["p"]), ("Exp", ["x"], ["f"]), ("Mul", ["f", "f"], ["m"]),
        ("Add", ["p", "m"], ["y"]),
    ], ["y"])
    ids = plan_ids(_planned(graph))
    assert ids["p"] == -1  # PRelu copies X into out before reading the slope
    assert ids["m"] == ids["f"] >= 0  # one ufunc pass: overlap is numpy's business


def test_variadic_ops_only_overwrite_their_first_two_inputs():
    graph = build_graph({"x": _x()}, [
        ("Exp", ["x"], ["a"]), ("Neg", ["x"], ["b"]), ("Sum", ["x", "x", "b"], ["s"]),
        ("Max", ["a", "s", "x"], ["y"]),
    ], ["y"])
    ids = plan_ids(_planned(graph))
    assert ids["s"] == -1  # b is input 2 of Sum
    feeds = [_x()]
    for level in range(4):
        np.testing.assert_array_equal(run_compiled(optimize(graph, level), feeds)[0], eager_values(graph, feeds)["y"])


def test_o3_keeps_the_chains():
    graph = build_graph({"x": _x(), "s": _x(seed=1)}, [
        ("Mul", ["x", "s"], ["m"]), ("Add", ["m", "s"], ["a"]), ("Tanh", ["a"], ["t"]),
        ("Exp", ["x"], ["u"]), ("Add", ["t", "u"], ["y"]),
    ], ["y"])
    ids = plan_ids(optimize(graph, 3))
    assert ids["m"] == ids["a"] == ids["t"] >= 0
    assert ids["u"] >= 0 and ids["u"] != ids["t"]  # live together at the last Add
    check_plan(optimize(graph, 3), ["y"])
