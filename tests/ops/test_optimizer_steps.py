"""Adagrad, Momentum and Adam (ai.onnx.preview.training) against ONNX's reference evaluator."""

import numpy as np
import pytest

from tests.ops.oracle import assert_same, onnx_run, rand, vfw_run
from vfw.core import OpInputError, ShapeError, run

DOMAIN = "ai.onnx.preview.training"


def _compare(op_type, inputs, attrs, n_outputs):
    ours = vfw_run(op_type, inputs, attrs)
    theirs = onnx_run(op_type, inputs, attrs, n_outputs, opset=1, domain=DOMAIN)
    assert len(ours) == n_outputs
    for k, (a, e) in enumerate(zip(ours, theirs)):
        assert_same(a, e, rtol=1e-5, atol=1e-6, what=f"{op_type} output {k}")


def _tensors(count, per_tensor, dtype, seed):
    shapes = [(3,), (2, 2)][:count]
    groups = [[rand(s, dtype, seed=seed + 10 * g + k) for k, s in enumerate(shapes)] for g in range(per_tensor)]
    groups[-1] = [np.abs(t) for t in groups[-1]]  # accumulated squares are non-negative
    return [t for group in groups for t in group]


@pytest.mark.parametrize("count", [1, 2])
@pytest.mark.parametrize("step", [0, 3])
def test_adagrad(count, step):
    inputs = [np.array(0.1, np.float32), np.array(step, np.int64)] + _tensors(count, 3, np.float32, 1)
    _compare("Adagrad", inputs, {"decay_factor": 0.1, "epsilon": 1e-5, "norm_coefficient": 0.01}, 2 * count)


@pytest.mark.parametrize("mode", ["standard", "nesterov"])
@pytest.mark.parametrize("step", [0, 2])
def test_momentum(mode, step):
    inputs = [np.array(0.1, np.float64), np.array(step, np.int64)] + _tensors(2, 3, np.float64, 2)
    _compare("Momentum", inputs, {"alpha": 0.9, "beta": 0.5, "norm_coefficient": 0.01, "mode": mode}, 4)


@pytest.mark.parametrize("step", [0, 4])
def test_adam(step):
    inputs = [np.array(0.01, np.float32), np.array(step, np.int64)] + _tensors(2, 4, np.float32, 3)
    _compare("Adam", inputs, {"alpha": 0.8, "beta": 0.95, "epsilon": 1e-4, "norm_coefficient": 0.02,
                              "norm_coefficient_post": 0.01}, 6)


def test_errors():
    with pytest.raises(OpInputError, match="per optimized tensor"):
        run("Adam", np.array(0.1, np.float32), np.array(1, np.int64), rand((2,)), rand((2,)))
    with pytest.raises(ShapeError, match="share a shape"):
        run("Adagrad", np.array(0.1, np.float32), np.array(1, np.int64), rand((2,)), rand((3,)), rand((2,)))
