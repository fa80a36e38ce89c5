"""Backward frees what it no longer needs: training steps do not accumulate engine memory."""

import gc
import tracemalloc

import numpy as np

from vfw.core import Tensor, execute
from vfw.core.autograd import gradient
from vfw.core.autograd_tape import GradientTape
from vfw.core.ops._common import int64s


def _live_tensors():
    gc.collect()
    return sum(1 for o in gc.get_objects() if issubclass(type(o), Tensor))  # type(): no __class__ lookups


def _mlp_step(params, x, labels, lr):
    w1, b1, w2, b2 = params
    h = execute("Relu", execute("Gemm", x, w1, b1, transB=1))
    logits = execute("Gemm", h, w2, b2, transB=1)
    loss = execute("SoftmaxCrossEntropyLoss", logits, labels)[0]
    grads = gradient(loss, params)
    for p, g in zip(params, grads):
        p.array -= lr * g.array  # plain SGD on the leaves
    return float(loss.array)


def test_two_thousand_steps_do_not_grow_live_tensors_or_bytes():
    rng = np.random.default_rng(0)
    params = [Tensor(rng.standard_normal(s) * 0.1, requires_grad=True) for s in [(32, 16), (32,), (4, 32), (4,)]]
    x = Tensor(rng.standard_normal((8, 16)))
    labels = rng.integers(0, 4, size=8).astype(np.int64)
    first = _mlp_step(params, x, labels, 0.1)
    for _ in range(99):
        _mlp_step(params, x, labels, 0.1)
    tracemalloc.start()
    try:
        live_before = _live_tensors()
        bytes_before = tracemalloc.get_traced_memory()[0]
        for _ in range(1900):
            last = _mlp_step(params, x, labels, 0.1)
        live_after = _live_tensors()
        bytes_after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert last < first  # it trains
    assert live_after <= live_before
    assert bytes_after - bytes_before < 64 * 1024, (bytes_before, bytes_after)


def test_saved_tensors_are_released_by_backward():
    x = Tensor(np.ones((64, 64)), requires_grad=True)
    y = execute("ReduceSum", execute("Mul", execute("Mul", x, x), x), int64s([]), keepdims=0)
    node = y.grad_node
    gradient(y, [x])
    assert node.inputs is None  # freed as soon as its gradient was computed


def test_non_persistent_tape_frees_saved_tensors():
    x = Tensor(np.ones(3))
    with GradientTape() as tape:
        tape.watch(x)
        y = execute("Mul", x, x)
    node = y.grad_node
    tape.gradient(y, [x])
    assert node.inputs is None
