"""BatchNormalizationGrad (the fused training-mode gradient of BatchNormalization) and RMSNormalization's gradient.

The fused kernel is checked against central differences of BatchNormalization's forward kernel, and against
the composition of engine ops the gradient maker records when the backward is itself differentiated.
"""

import numpy as np
import pytest

from tests.autograd.gradcheck import check_gradient, check_higher_order
from tests.autograd.test_normalization_grad import check_low_precision
from vfw.core import ShapeError, Tensor, autograd, execute, get_schema, run

RNG = np.random.default_rng(3)


def bn_inputs(shape, offset=0.0):
    c = shape[1]
    return [RNG.standard_normal(shape) + offset, RNG.standard_normal(c), RNG.standard_normal(c),
            RNG.standard_normal(c), RNG.random(c) + 0.5]


def bn_training_grads(inputs, create_graph, epsilon=1e-5):
    """Gradients of ``<w, Y>`` to X, scale and B, with the backward recorded or not."""
    tensors = [Tensor(a, requires_grad=i < 3) for i, a in enumerate(inputs)]
    y = execute("BatchNormalization", *tensors, training_mode=1, epsilon=epsilon)[0]
    w = Tensor(np.random.default_rng(0).standard_normal(y.array.shape).astype(y.array.dtype))
    return [g.array for g in autograd.gradient([y], tensors[:3], [w], create_graph=create_graph)]


@pytest.mark.parametrize("shape", [(6, 3), (4, 2, 3), (2, 3, 2, 2), (2, 2, 1, 2, 3)])
@pytest.mark.parametrize("epsilon", [1e-5, 0.5])
def test_fused_gradient_matches_finite_differences(shape, epsilon):
    # Only Y is weighed; the backward is not recorded, so the maker runs BatchNormalizationGrad.
    check_gradient("BatchNormalization", bn_inputs(shape), {"training_mode": 1, "epsilon": epsilon},
                   wrt=[0, 1, 2], outputs=[0])


@pytest.mark.parametrize("shape,offset", [((5, 4, 3), 0.0), ((8, 2, 6), 100.0), ((3, 5), -7.0)])
def test_fused_gradient_matches_the_recorded_composition(shape, offset):
    inputs = bn_inputs(shape, offset)
    for fused, composed in zip(bn_training_grads(inputs, False), bn_training_grads(inputs, True)):
        np.testing.assert_allclose(fused, composed, rtol=1e-10, atol=1e-10)


def far_from_zero(offset, rng):
    return offset + rng.standard_normal((64, 3, 50))


def skewed_instances(offset, rng):
    # The mean is estimated from every 8th instance: here those sit far from the others.
    x = rng.standard_normal((64, 3, 50))
    x[::8] += offset
    return x


@pytest.mark.parametrize("offset", [1e3, 1e4])
@pytest.mark.parametrize("make", [far_from_zero, skewed_instances])
def test_float32_statistics_keep_float64_accuracy(offset, make):
    # A float32 estimate of the mean is off by about one unit of the values' last place (or, from a sample, by
    # up to a few standard deviations); the corrected second pass (the mean of the deviations) removes that
    # error from Y and from the gradients.
    rng = np.random.default_rng(0)
    x = make(offset, rng).astype(np.float32)
    dy, scale = rng.standard_normal(x.shape).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    stats = [np.zeros(3, np.float32), np.ones(3, np.float32)]
    got = [run("BatchNormalization", x, scale, scale, *stats, training_mode=1)[0],
           *run("BatchNormalizationGrad", dy, x, scale)]
    wide = [a.astype(np.float64) for a in (dy, x, scale)]
    want = [run("BatchNormalization", wide[1], wide[2], wide[2], *(a.astype(np.float64) for a in stats),
                training_mode=1)[0], *run("BatchNormalizationGrad", *wide)]
    for g, w in zip(got, want):
        assert np.abs(g - w).max() <= 2e-6 * np.abs(w).max()


def test_fused_kernel_formula():
    # dB = sum(dY), dscale = sum(dY xhat), dX = scale inv (dY - mean(dY) - xhat mean(dY xhat)), per channel.
    x, scale = RNG.standard_normal((4, 3, 5)), RNG.standard_normal(3)
    dy = RNG.standard_normal(x.shape)
    dx, dscale, db = run("BatchNormalizationGrad", dy, x, scale, epsilon=0.1)
    mean, var = x.mean(axis=(0, 2), keepdims=True), x.var(axis=(0, 2), keepdims=True)
    inv = 1 / np.sqrt(var + 0.1)
    xhat = (x - mean) * inv
    np.testing.assert_allclose(db, dy.sum(axis=(0, 2)), rtol=1e-12)
    np.testing.assert_allclose(dscale, (dy * xhat).sum(axis=(0, 2)), rtol=1e-12)
    want = scale[:, None] * inv * (dy - dy.mean(axis=(0, 2), keepdims=True)
                                   - xhat * (dy * xhat).mean(axis=(0, 2), keepdims=True))
    np.testing.assert_allclose(dx, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtypes,tol", [((np.float32,) * 3, 1e-4), ((np.float16, np.float32, np.float32), 3e-2),
                                        ((np.float32, np.float64, np.float64), 1e-4)])
def test_fused_gradient_low_precision_and_mixed_dtypes(dtypes, tol):
    x, scale, b, mean, var = bn_inputs((4, 3, 5))
    inputs = [x.astype(dtypes[0]), scale.astype(dtypes[1]), b.astype(dtypes[1]), mean.astype(dtypes[2]),
              var.astype(dtypes[2])]
    check_low_precision("BatchNormalization", inputs, {"training_mode": 1}, tol, wrt=[0, 1, 2])


def test_fused_gradient_empty_batch():
    dx, dscale, db = run("BatchNormalizationGrad", np.zeros((0, 3, 2)), np.zeros((0, 3, 2)), np.ones(3))
    assert dx.shape == (0, 3, 2) and dscale.shape == db.shape == (3,)
    np.testing.assert_array_equal(db, 0.0)


def test_fused_kernel_bad_input():
    x = np.zeros((2, 3, 4), np.float32)
    with pytest.raises(ShapeError, match=r"BatchNormalizationGrad: dY .* and X .* must have the same shape"):
        run("BatchNormalizationGrad", x[:1], x, np.ones(3, np.float32))
    with pytest.raises(ShapeError, match="BatchNormalizationGrad: scale has shape"):
        run("BatchNormalizationGrad", x, x, np.ones(4, np.float32))


def test_fused_kernel_is_not_differentiable():
    assert get_schema("BatchNormalizationGrad").differentiable is False


def test_recorded_training_backward_is_twice_differentiable():
    # create_graph takes the composed path, whose own gradient is checked here.
    check_higher_order("BatchNormalization", bn_inputs((3, 2, 2)), {"training_mode": 1}, wrt=[0, 1, 2])


# -- RMSNormalization -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape,axis,scale_shape", [((3, 4), -1, (4,)), ((2, 3, 4), 1, (3, 4)),
                                                    ((2, 3, 4), -1, (2, 1, 4)), ((5,), 0, ())])
@pytest.mark.parametrize("epsilon", [1e-5, 0.2])
def test_rms_norm_gradient(shape, axis, scale_shape, epsilon):
    check_gradient("RMSNormalization", [RNG.standard_normal(shape), RNG.standard_normal(scale_shape)],
                   {"axis": axis, "epsilon": epsilon})


def test_rms_norm_higher_order():
    check_higher_order("RMSNormalization", [RNG.standard_normal((2, 3)), RNG.standard_normal(3)], {"epsilon": 0.1})
    check_higher_order("RMSNormalization", [RNG.standard_normal((2, 3)), RNG.standard_normal(3)], {"epsilon": 0.1},
                       order=3)


@pytest.mark.parametrize("dtypes,tol", [((np.float16, np.float16), 3e-2), ((np.float32, np.float64), 1e-5)])
def test_rms_norm_gradient_low_precision(dtypes, tol):
    inputs = [RNG.standard_normal((3, 4)).astype(dtypes[0]), RNG.standard_normal(4).astype(dtypes[1])]
    check_low_precision("RMSNormalization", inputs, {}, tol)
