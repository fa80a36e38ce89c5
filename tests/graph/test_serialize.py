"""Saving and loading graphs: round trips, validation on load, names that look like code, function snapshots."""

import builtins

import numpy as np
import pytest

from vfw.core import (
    DTypeError,
    OpAttributeError,
    OpInputError,
    ShapeError,
    Tensor,
    UnknownOpError,
    Workspace,
    execute,
)
from vfw.core.graph import CompiledGraph, assign, function, load_graph, save_graph, validate_graph
from vfw.core.ir import make_argument, make_opdef, tensor_to_proto
from vfw.core.proto import GraphDef, ValueInfo

LEVELS = (0, 1, 2, 3)


def small_graph(names=("x", "w", "h", "y")):
    x, w, h, y = names
    graph = GraphDef(name="small", input=[x], output=[y])
    graph.initializer.append(tensor_to_proto(np.arange(6, dtype=np.float32).reshape(3, 2), w))
    graph.op.append(make_opdef("MatMul", [x, w], [h]))
    graph.op.append(make_opdef("Relu", [h], [y]))
    graph.value_info.extend([ValueInfo(name=x, data_type=1, dims=[2, 3]), ValueInfo(name=h, data_type=1, dims=[2, 2]),
                             ValueInfo(name=y, data_type=1, dims=[2, 2])])
    return graph


def saved(tmp_path, graph, name="g.pb"):
    path = tmp_path / name
    save_graph(graph, path)
    return path


def test_round_trip_is_byte_identical(tmp_path):
    graph = small_graph()
    loaded = load_graph(saved(tmp_path, graph))
    assert loaded.SerializeToString() == graph.SerializeToString()
    x = np.array([[1.0, -2.0, 3.0], [0.5, 0.5, -4.0]], np.float32)
    with Workspace().as_default():
        (y,) = CompiledGraph(loaded)(x)
    np.testing.assert_array_equal(y, np.maximum(x @ np.arange(6, dtype=np.float32).reshape(3, 2), 0))
    with pytest.raises(OpInputError, match="GraphDef"):
        save_graph(b"bytes", tmp_path / "no.pb")


def test_names_containing_code_are_plain_names(tmp_path):
    payload = "__import__('builtins').__setattr__('vfw_pwned', 1)"
    names = (f"x); {payload}; (", f"w\n{payload}\n", f"{{{payload}}}", f"y'\"\"\"; {payload} #")
    graph = small_graph(names)
    graph.name = f"g>\n{payload}"
    graph.op[0].name = payload
    graph.op[1].domain = payload
    loaded = load_graph(saved(tmp_path, graph))
    with Workspace().as_default():
        compiled = CompiledGraph(loaded)
        (y,) = compiled(np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(y, [[6.0, 9.0], [6.0, 9.0]])
    assert not hasattr(builtins, "vfw_pwned")
    assert payload not in compiled.source and "import" not in compiled.source


def test_load_rejects_garbage(tmp_path):
    path = tmp_path / "junk.pb"
    path.write_bytes(b"\xff\xff\xff\xff not a protobuf")
    with pytest.raises(OpInputError, match="not a vfw GraphDef"):
        load_graph(path)


def broken(kind):
    graph = small_graph()
    if kind == "unknown op":
        graph.op[1].type = "os.system"
    elif kind == "undefined input":
        graph.op[1].input[0] = "nowhere"
    elif kind == "out of order":
        ops = list(reversed(graph.op))
        del graph.op[:]
        graph.op.extend(ops)
    elif kind == "undefined output":
        graph.output.append("missing")
    elif kind == "defined twice":
        graph.op[1].output[0] = "h"
    elif kind == "bad attribute":
        graph.op[1].arg.append(make_argument("alpha", 0.5))
    elif kind == "too many inputs":
        graph.op[1].input.append("x")
    elif kind == "bad dtype code":
        graph.initializer[0].data_type = 99
    elif kind == "short data":
        graph.initializer[0].raw_data = graph.initializer[0].raw_data[:-4]
    elif kind == "bad buffer plan":
        graph.op[0].arg.append(make_argument("buffer", [0]))
        del graph.value_info[:]
    return graph


@pytest.mark.parametrize("kind, error, match", [
    ("unknown op", UnknownOpError, r"op #1 \('os.system'\): unknown op type"),
    ("undefined input", OpInputError, r"op #1 \('Relu'\): reads 'nowhere'"),
    ("out of order", OpInputError, r"op #0 \('Relu'\): reads 'h'"),
    ("undefined output", OpInputError, "output 'missing' is not defined"),
    ("defined twice", OpInputError, "'h', which is already defined"),
    ("bad attribute", OpAttributeError, "Relu: unknown attribute 'alpha'"),
    ("too many inputs", OpInputError, "has 2 inputs; Relu takes 1 to 1"),
    ("bad dtype code", DTypeError, "unsupported data type code 99"),
    ("short data", OpInputError, "needs 24 bytes of data, has 20"),
    ("bad buffer plan", OpInputError, "assigned buffer 0 but has no value info"),
])
def test_load_validates(tmp_path, kind, error, match):
    path = saved(tmp_path, broken(kind))
    with pytest.raises(error, match=match) as info:
        load_graph(path)
    assert str(path) in str(info.value)
    with pytest.raises(error, match=match):
        validate_graph(broken(kind))


# -- function snapshots ----------------------------------------------------------------------------------------------
def mlp(rng):
    params = [Tensor(rng.standard_normal(s).astype(np.float32) * 0.3) for s in [(16, 8), (16,), (5, 16), (5,)]]

    def forward(x):
        h = execute("Relu", execute("Gemm", x, params[0], params[1], transB=1))
        logits = execute("Gemm", h, params[2], params[3], transB=1)
        return execute("Softmax", logits), logits

    return forward, params, lambda: rng.standard_normal((4, 8)).astype(np.float32)


def cnn(rng):
    params = [Tensor(rng.standard_normal(s).astype(np.float32) * 0.3) for s in [(4, 2, 3, 3), (4,), (3, 64), (3,)]]

    def forward(x):
        h = execute("Relu", execute("Conv", x, params[0], params[1], pads=[1, 1, 1, 1]))
        h = execute("MaxPool", h, kernel_shape=[2, 2], strides=[2, 2])[0]
        return execute("Gemm", execute("Flatten", h), params[2], params[3], transB=1)

    return forward, params, lambda: rng.standard_normal((2, 2, 8, 8)).astype(np.float32)


def flat(result):
    return list(result) if isinstance(result, tuple) else [result]


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("model", [mlp, cnn])
def test_function_save_load_round_trip(tmp_path, model, level):
    rng = np.random.default_rng(level)
    forward, params, batch = model(rng)
    f = function(forward, opt_level=level)
    concrete = f.get_concrete_function(Tensor(batch()))
    path = tmp_path / "model.pb"
    concrete.save(path)
    with Workspace().as_default():
        loaded = CompiledGraph(load_graph(path))
    assert list(loaded.input_names) == concrete.input_names == ["x"]
    for _ in range(3):
        x = batch()
        expected = [t.array for t in flat(f(Tensor(x)))]
        with Workspace().as_default():
            got = loaded(x)
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            np.testing.assert_array_equal(g, e, strict=True)
    # The snapshot holds the values at save time: later changes to the weights do not reach it.
    x = batch()
    before = loaded(x)
    params[0].array *= 2
    for g, b in zip(loaded(x), before):
        np.testing.assert_array_equal(g, b)
    assert not np.array_equal(flat(f(Tensor(x)))[0].array, before[0])


def test_saving_bakes_current_captures_and_drops_state_updates(tmp_path):
    scale = Tensor(np.array([1.0, 2.0], np.float32))
    calls = Tensor(np.zeros((), np.float32))

    @function
    def f(x):
        assign(calls, execute("Add", calls, np.ones((), np.float32)))
        y = execute("Mul", x, scale)
        assign(scale, execute("Add", scale, np.ones(2, np.float32)))
        return y

    x = Tensor(np.array([10.0, 10.0], np.float32))
    f(x), f(x)
    np.testing.assert_array_equal(scale.array, [3.0, 4.0])
    f.get_concrete_function(x).save(tmp_path / "f.pb")
    graph = load_graph(tmp_path / "f.pb")
    assert list(graph.input) == ["x"] and not any(op.type == "Add" for op in graph.op)
    with Workspace().as_default():
        (y,) = CompiledGraph(graph)(x.array)
        CompiledGraph(graph)(x.array)
    np.testing.assert_array_equal(y, [30.0, 40.0])
    np.testing.assert_array_equal(f(x).array, y)  # the function computes the same, then updates its state
    np.testing.assert_array_equal(scale.array, [4.0, 5.0])
    assert float(calls.array) == 3  # the loaded graph's runs changed nothing


def test_saving_after_a_capture_changed_shape_is_an_error(tmp_path):
    w = Tensor(np.ones(2, np.float32))
    f = function(lambda x: execute("Mul", x, w))
    concrete = f.get_concrete_function(Tensor(np.ones(2, np.float32)))
    w.array = np.ones(3, np.float32)
    with pytest.raises(ShapeError, match="trace the function again"):
        concrete.save(tmp_path / "f.pb")
