"""PyFunc: the op calling a registered Python function (checked against calling the function directly)."""

import gc

import numpy as np
import pytest

from vfw.core import DTypeError, OpAttributeError, ShapeError, Tensor, execute, get_schema, make_op, run
from vfw.core.ops.callback import register_callback


def test_calls_the_function_on_inputs_of_any_dtypes_and_returns_its_arrays():
    def fn(a, b):
        return a * 2, (b + 1).astype(np.int8)

    token = register_callback(fn)
    a, b = np.arange(6, dtype=np.float64).reshape(2, 3), np.array([1, 2], np.int32)
    got = run("PyFunc", a, b, token=token)
    want = fn(a, b)
    assert len(got) == 2
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w, strict=True)


def test_no_inputs_and_a_single_array_result():
    draws = iter(range(10))

    def fn():
        return np.full(3, next(draws), np.float32)

    token = register_callback(fn)
    op = make_op("PyFunc", {"token": token})
    first, second = op()[0], op()[0]  # called anew each time: the function's state moves on
    np.testing.assert_array_equal(first, [0, 0, 0])
    np.testing.assert_array_equal(second, [1, 1, 1])


def test_a_result_sharing_memory_with_an_input_is_copied():
    def tail(x):
        return x[1:]

    token = register_callback(tail)
    x = np.arange(4.0)
    (y,) = run("PyFunc", x, token=token)
    np.testing.assert_array_equal(y, [1.0, 2.0, 3.0])
    assert not np.shares_memory(x, y)


def test_bad_results_and_inputs_are_vfw_errors():
    def a_list():
        return [1.0, 2.0]

    def same(x):
        return x

    token = register_callback(a_list)
    with pytest.raises(DTypeError, match="must return numpy arrays"):
        run("PyFunc", token=token)
    token = register_callback(same)
    with pytest.raises(DTypeError, match="input 0 must be a numpy array"):
        run("PyFunc", "text", token=token)
    with pytest.raises(OpAttributeError, match="token"):
        run("PyFunc", np.ones(2))


def test_the_registry_holds_functions_weakly():
    token = register_callback(lambda: np.zeros(1))  # nothing else holds the lambda
    gc.collect()
    with pytest.raises(OpAttributeError, match="no live Python function"):
        make_op("PyFunc", {"token": token})


def test_errors_of_the_function_name_the_op():
    def fn(x):
        raise ValueError("bad value")

    token = register_callback(fn)
    with pytest.raises(ShapeError, match="PyFunc.*bad value"):
        run("PyFunc", np.ones(2), token=token)


def test_not_differentiable():
    schema = get_schema("PyFunc")
    assert schema.differentiable is False
    def triple(x):
        return x * 3

    token = register_callback(triple)
    (y,) = execute("PyFunc", Tensor(np.ones(2), requires_grad=True), token=token)
    assert not y.requires_grad and y.grad_node is None
