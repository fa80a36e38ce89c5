"""Gradients of the normalization ops, checked against central finite differences of their kernels."""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from vfw.core import Tensor, autograd, execute

RNG = np.random.default_rng(0)


def randn(*shape):
    return RNG.standard_normal(shape)


def positive(*shape):
    return RNG.random(shape) + 0.5


def engine_grads(op_type, inputs, attrs, wrt, outputs=(0,), seed=1):
    """Engine gradients of ``sum_k <w_k, op(inputs)[k]>`` (random weights in the output dtypes)."""
    tensors = [None if a is None else Tensor(a, requires_grad=i in wrt) for i, a in enumerate(inputs)]
    outs = execute(op_type, *tensors, **attrs)
    outs = outs if isinstance(outs, tuple) else (outs,)
    rng = np.random.default_rng(seed)
    weights = [Tensor(rng.standard_normal(outs[k].shape).astype(outs[k].dtype)) for k in outputs]
    return autograd.gradient([outs[k] for k in outputs], [tensors[j] for j in wrt], weights)


def check_low_precision(op_type, inputs, attrs, tol, wrt=None, outputs=(0,)):
    """Gradients for ``inputs`` (float32/float16/mixed) have the input dtypes and match the float64 gradients."""
    wrt = [i for i, a in enumerate(inputs) if a is not None and a.dtype.kind == "f"] if wrt is None else wrt
    exact = engine_grads(op_type, [None if a is None or a.dtype.kind != "f" else a.astype(np.float64)
                                   for a in inputs], attrs, wrt, outputs)
    approx = engine_grads(op_type, inputs, attrs, wrt, outputs)
    for j, g, ref in zip(wrt, approx, exact):
        assert g.dtype == inputs[j].dtype, f"{op_type}: gradient of input {j} has dtype {g.dtype}"
        np.testing.assert_allclose(g.array.astype(np.float64), ref.array, rtol=tol, atol=tol,
                                   err_msg=f"{op_type} d/d input {j}")


# -- BatchNormalization ---------------------------------------------------------------------------------------


def bn_inputs(shape):
    c = shape[1]
    return [randn(*shape), randn(c), randn(c), randn(c), positive(c)]


@pytest.mark.parametrize("shape", [(5, 3), (4, 2, 3), (2, 3, 2, 2)])
@pytest.mark.parametrize("epsilon", [1e-5, 0.5])
def test_batch_norm_training(shape, epsilon):
    # Only Y is weighed: the running statistics are buffers (not differentiable, see the next test).
    check_gradient("BatchNormalization", bn_inputs(shape), {"training_mode": 1, "epsilon": epsilon}, wrt=[0, 1, 2],
                   outputs=[0])


@pytest.mark.parametrize("shape", [(5, 3), (4, 2, 3), (2, 3, 2, 2)])
@pytest.mark.parametrize("epsilon", [1e-5, 0.5])
def test_batch_norm_inference(shape, epsilon):
    check_gradient("BatchNormalization", bn_inputs(shape), {"training_mode": 0, "epsilon": epsilon})


@pytest.mark.parametrize("wrt", [[0], [1], [2], [3], [4], [3, 4]])
def test_batch_norm_inference_single_inputs(wrt):
    check_gradient("BatchNormalization", bn_inputs((3, 2, 2)), {}, wrt=wrt)


@pytest.mark.parametrize("wrt", [[0], [1], [2]])
def test_batch_norm_training_single_inputs(wrt):
    check_gradient("BatchNormalization", bn_inputs((3, 2, 2)), {"training_mode": 1}, wrt=wrt, outputs=[0])


def test_batch_norm_running_stats_are_not_differentiable():
    # Gradients arriving at running_mean/running_var are ignored; the statistics inputs get none in training.
    grads = engine_grads("BatchNormalization", bn_inputs((4, 3)), {"training_mode": 1}, wrt=[0, 3, 4],
                         outputs=(1, 2))
    np.testing.assert_array_equal(grads[0].array, 0.0)
    assert grads[1] is None and grads[2] is None


def test_batch_norm_training_gradient_sums_to_zero_over_the_batch():
    # Y is invariant to a per-channel shift of X, so dX sums to zero over every axis but the channel axis.
    (dx,) = engine_grads("BatchNormalization", bn_inputs((3, 2, 4)), {"training_mode": 1}, wrt=[0])
    np.testing.assert_allclose(dx.array.sum(axis=(0, 2)), 0.0, atol=1e-12)


@pytest.mark.parametrize("training_mode", [0, 1])
def test_batch_norm_constant_inputs(training_mode):
    # Running statistics usually arrive as plain arrays (buffers), not tensors.
    inputs = bn_inputs((3, 2, 2))
    results = []
    for constant in (True, False):
        args = [Tensor(a, requires_grad=i < 2) if i < 2 or not constant else a for i, a in enumerate(inputs)]
        y = execute("BatchNormalization", *args, training_mode=training_mode)[0]
        results.append(autograd.gradient([y], args[:2]))
    for g, ref in zip(*results):
        np.testing.assert_array_equal(g.array, ref.array)


@pytest.mark.parametrize("training_mode", [0, 1])
def test_batch_norm_second_order(training_mode):
    check_higher_order("BatchNormalization", bn_inputs((3, 2, 2)), {"training_mode": training_mode})


@pytest.mark.parametrize("training_mode", [0, 1])
@pytest.mark.parametrize("dtypes", [(np.float32,) * 3, (np.float16, np.float32, np.float32),
                                    (np.float16, np.float16, np.float64), (np.float32, np.float64, np.float16)])
def test_batch_norm_low_precision_and_mixed_dtypes(training_mode, dtypes):
    x, scale, b, mean, var = bn_inputs((4, 3, 2))
    t, t1, t2 = dtypes
    inputs = [x.astype(t), scale.astype(t1), b.astype(t1), mean.astype(t2), var.astype(t2)]
    tol = 2e-2 if np.float16 in dtypes else 1e-4
    check_low_precision("BatchNormalization", inputs, {"training_mode": training_mode}, tol,
                        wrt=[0, 1, 2] if training_mode else None)


# -- LayerNormalization ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape, axis, scale_shape, b_shape", [
    ((4, 5), -1, (5,), (5,)),
    ((2, 3, 4), -1, (4,), (1, 4)),
    ((2, 3, 4), 1, (3, 4), (4,)),
    ((2, 3, 4), -2, (1, 4), (3, 1)),
    ((2, 3, 4), 0, (2, 3, 4), (2, 3, 4)),
    ((3, 2, 2, 2), 2, (2, 2), None),
])
@pytest.mark.parametrize("epsilon", [1e-5, 0.3])
def test_layer_norm(shape, axis, scale_shape, b_shape, epsilon):
    # Mean and InvStdDev are float32 (stash_type) even for float64 X, too coarse for finite differences:
    # only Y is weighed here; their gradients are checked against a float64 formula below.
    inputs = [randn(*shape), randn(*scale_shape), None if b_shape is None else randn(*b_shape)]
    check_gradient("LayerNormalization", inputs if b_shape else inputs[:2], {"axis": axis, "epsilon": epsilon},
                   outputs=[0])


@pytest.mark.parametrize("wrt", [[0], [1], [2]])
def test_layer_norm_single_inputs(wrt):
    check_gradient("LayerNormalization", [randn(3, 4), randn(4), randn(4)], {}, wrt=wrt, outputs=[0])


@pytest.mark.parametrize("shape, axis", [((3, 4), -1), ((2, 3, 2), 1), ((2, 3), 0)])
def test_layer_norm_statistics_outputs(shape, axis):
    """Gradients arriving at Mean and InvStdDev flow to X (central differences of a float64 formula)."""
    x, eps = randn(*shape), 0.1
    ax = tuple(range(axis % len(shape), len(shape)))
    tensors = [Tensor(x, requires_grad=True), Tensor(randn(*shape[ax[0]:]))]
    y, mean, inv = execute("LayerNormalization", *tensors, axis=axis, epsilon=eps)
    wy, wm, wi = (RNG.standard_normal(t.shape).astype(t.dtype) for t in (y, mean, inv))
    (dx,) = autograd.gradient([y, mean, inv], [tensors[0]], [Tensor(wy), Tensor(wm), Tensor(wi)])

    def stats_part(z):
        m = z.mean(axis=ax, keepdims=True)
        return np.sum(wm * m) + np.sum(wi / np.sqrt(((z - m) ** 2).mean(axis=ax, keepdims=True) + eps))

    expected = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[idx] += 1e-6
        lo[idx] -= 1e-6
        expected[idx] = (stats_part(hi) - stats_part(lo)) / 2e-6
    (dx_y,) = autograd.gradient([execute("LayerNormalization", *tensors, axis=axis, epsilon=eps)[0]],
                                [tensors[0]], [Tensor(wy)])
    np.testing.assert_allclose(dx.array - dx_y.array, expected, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("shape, axis, with_b", [((2, 3), -1, True), ((2, 2, 3), 1, True), ((3, 4), -1, False)])
def test_layer_norm_second_order(shape, axis, with_b):
    # Every output is weighed here: the first-order gradient is computed in float64 whatever the stash type.
    ax = axis % len(shape)
    inputs = [randn(*shape), randn(*shape[ax:]), randn(*shape[ax:])]
    check_higher_order("LayerNormalization", inputs if with_b else inputs[:2], {"axis": axis, "epsilon": 0.1})


def test_layer_norm_third_order():
    check_higher_order("LayerNormalization", [randn(2, 3), randn(3), randn(3)], {"epsilon": 0.1}, order=3)


@pytest.mark.parametrize("dtype, tol", [(np.float32, 1e-4), (np.float16, 2e-2)])
def test_layer_norm_low_precision(dtype, tol):
    inputs = [randn(3, 4).astype(dtype), randn(4).astype(dtype), randn(4).astype(dtype)]
    check_low_precision("LayerNormalization", inputs, {}, tol, outputs=(0, 1, 2))


def test_layer_norm_bfloat16_stash():
    x = Tensor(randn(2, 3), requires_grad=True)
    _, mean, inv = execute("LayerNormalization", x, Tensor(randn(3)), stash_type=16)
    (dx,) = autograd.gradient([mean, inv], [x])
    assert dx.dtype == np.float64 and np.isfinite(dx.array).all()


# -- GroupNormalization / InstanceNormalization ---------------------------------------------------------------


@pytest.mark.parametrize("shape, groups", [((2, 4), 2), ((2, 4, 3), 1), ((2, 4, 3), 2), ((2, 4, 3), 4),
                                           ((1, 6, 2, 2), 3)])
@pytest.mark.parametrize("epsilon", [1e-5, 0.3])
def test_group_norm(shape, groups, epsilon):
    c = shape[1]
    check_gradient("GroupNormalization", [randn(*shape), randn(c), randn(c)],
                   {"num_groups": groups, "epsilon": epsilon})


@pytest.mark.parametrize("wrt", [[0], [1], [2]])
def test_group_norm_single_inputs(wrt):
    check_gradient("GroupNormalization", [randn(2, 4, 2), randn(4), randn(4)], {"num_groups": 2}, wrt=wrt)


def test_group_norm_second_order():
    check_higher_order("GroupNormalization", [randn(2, 4, 2), randn(4), randn(4)], {"num_groups": 2})


@pytest.mark.parametrize("stash_type, tol", [(1, 1e-4), (11, 1e-4)])
def test_group_norm_float32(stash_type, tol):
    inputs = [randn(2, 4, 3).astype(np.float32), randn(4).astype(np.float32), randn(4).astype(np.float32)]
    check_low_precision("GroupNormalization", inputs, {"num_groups": 2, "stash_type": stash_type}, tol)


@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4), (2, 2, 2, 3)])
@pytest.mark.parametrize("epsilon", [1e-5, 0.3])
def test_instance_norm(shape, epsilon):
    c = shape[1]
    check_gradient("InstanceNormalization", [randn(*shape), randn(c), randn(c)], {"epsilon": epsilon})


def test_instance_norm_second_order_and_float16():
    inputs = [randn(2, 3, 3), randn(3), randn(3)]
    check_higher_order("InstanceNormalization", inputs, {})
    check_low_precision("InstanceNormalization", [a.astype(np.float16) for a in inputs], {}, 3e-2)


# -- MeanVarianceNormalization --------------------------------------------------------------------------------


@pytest.mark.parametrize("shape, axes", [((2, 3, 2, 2), None), ((2, 3, 4), [-1]), ((2, 3, 4), [0, 2]),
                                         ((3, 4), []), ((2, 3, 2), [1])])
def test_mean_variance_norm(shape, axes):
    check_gradient("MeanVarianceNormalization", [randn(*shape)], {} if axes is None else {"axes": axes})


def test_mean_variance_norm_second_order():
    check_higher_order("MeanVarianceNormalization", [randn(3, 4)], {"axes": [1]})


def test_mean_variance_norm_constant_slice():
    # Over a constant slice Y = (X - mean) / (std + 1e-9) is linear to first order: dX = (g - mean(g)) * 1e9.
    x = randn(2, 4)
    x[1] = 0.7
    t = Tensor(x, requires_grad=True)
    g = randn(2, 4)
    (dx,) = autograd.gradient([execute("MeanVarianceNormalization", t, axes=[1])], [t], [Tensor(g)])
    np.testing.assert_allclose(dx.array[1], (g[1] - g[1].mean()) * 1e9, rtol=1e-12)
    check_gradient("MeanVarianceNormalization", [x[:1]], {"axes": [1]})


def test_mean_variance_norm_float16():
    check_low_precision("MeanVarianceNormalization", [randn(2, 3, 2, 2).astype(np.float16)], {}, 2e-2)


# -- LpNormalization ------------------------------------------------------------------------------------------


def away_from_zero(*shape):
    x = randn(*shape)
    return x + np.where(x < 0, -0.2, 0.2)  # p=1 has a kink where an entry is 0


@pytest.mark.parametrize("p", [1, 2])
@pytest.mark.parametrize("shape, axis", [((5,), 0), ((3, 4), -1), ((3, 4), 0), ((2, 3, 2), 1)])
def test_lp_norm(p, shape, axis):
    check_gradient("LpNormalization", [away_from_zero(*shape)], {"p": p, "axis": axis})


@pytest.mark.parametrize("p", [1, 2])
def test_lp_norm_second_order(p):
    check_higher_order("LpNormalization", [away_from_zero(3, 3)], {"p": p})


@pytest.mark.parametrize("p", [1, 2])
def test_lp_norm_zero_slice_gets_zero_gradient(p):
    x = away_from_zero(3, 4)
    x[1] = 0.0
    t = Tensor(x, requires_grad=True)
    (dx,) = autograd.gradient([execute("LpNormalization", t, p=p)], [t], [Tensor(randn(3, 4))])
    np.testing.assert_array_equal(dx.array[1], 0.0)
    assert np.isfinite(dx.array).all()


@pytest.mark.parametrize("p", [1, 2])
def test_lp_norm_float16(p):
    check_low_precision("LpNormalization", [away_from_zero(3, 4).astype(np.float16)], {"p": p}, 2e-2)
