"""Eager executor: tensors in and out, subclasses flow through, autograd recording, out= buffers."""

import numpy as np

from vfw.core import Tensor, execute, get_op, run


class MyTensor(Tensor):
    __slots__ = ()


MyTensor.result_class = MyTensor


class MyParameter(MyTensor):
    __slots__ = ()


def test_execute_wraps_outputs_in_the_first_tensor_inputs_result_class():
    a = MyTensor(np.ones(3, np.float32))
    y = execute("Add", np.ones(3, np.float32), a)
    assert type(y) is MyTensor and not y.requires_grad
    assert type(execute("Add", MyParameter(np.ones(3)), np.ones(3))) is MyTensor  # subclasses give the base
    np.testing.assert_array_equal(y.numpy(), np.full(3, 2, np.float32))
    assert type(execute("Add", np.ones(1), np.ones(1))) is Tensor


def test_run_writes_into_out_buffer():
    a = np.arange(4, dtype=np.float64)
    buf = np.empty(4)
    result = run("Add", a, a, out=buf)
    assert result is buf
    np.testing.assert_array_equal(buf, a + a)


def test_ops_reading_tensors_that_require_grad_are_recorded():
    x = Tensor(np.ones(2), requires_grad=True)
    c = Tensor(np.ones(2))
    assert execute("Mul", c, c).grad_node is None
    y = execute(get_op("Mul"), x, c)
    assert y.requires_grad and y.grad_node.op is get_op("Mul")
    assert y.grad_node.inputs == (x, c)


def test_results_are_plain_numpy_results():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(5, 4)), rng.normal(size=(4,))
    np.testing.assert_array_equal(run("Sub", a, b), a - b)
    np.testing.assert_array_equal(execute("Mul", Tensor(a), Tensor(b)).array, a * b)
