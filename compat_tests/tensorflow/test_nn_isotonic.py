"""tf.nn.isotonic_regression against real TF 2.21: fits, segments, result types, dtypes and gradients."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, check_grad, real, vtf

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4, 9)).astype(np.float32)
TIES = np.array([[1, 3, 2, 2, 5, 0, 0, 4], [5, 4, 4, 3, 3, 3, 6, 1]], np.float32)


@pytest.mark.parametrize("x", [X[0], TIES, np.cumsum(RNG.standard_normal((2, 40)), 1).astype(np.float32)])
@pytest.mark.parametrize("decreasing", [True, False])
def test_fit_and_gradient(x, decreasing):
    check_grad(lambda tf, x: tuple(tf.nn.isotonic_regression(x, decreasing=decreasing)), x)


@pytest.mark.parametrize("decreasing", [True, False])
def test_fit_and_gradient_of_other_ranks_row_by_row(decreasing):
    """TF's gradient is malformed beyond 2-D (and fails for scalars): the oracle is TF on the rows as a matrix."""
    def gradient(lib, x, shape):
        x = lib.constant(x)
        weights = lib.constant(np.arange(x.shape.num_elements(), dtype=np.float32).reshape(shape))
        with lib.GradientTape() as tape:
            tape.watch(x)
            fit = lib.nn.isotonic_regression(lib.reshape(x, shape), decreasing=decreasing)[0]
            total = lib.reduce_sum(fit * weights)
        return fit.numpy().reshape(x.shape), tape.gradient(total, x).numpy()
    for x in (X, X[0, 0]):
        want, got = gradient(real, x, (-1, x.shape[-1])), gradient(vtf, x, x.shape)
        for w, g in zip(want, got):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("axis", [0, 1, -2, -3])
@pytest.mark.parametrize("decreasing", [True, False])
def test_other_axes(axis, decreasing):
    check(lambda tf, x: tf.nn.isotonic_regression(x, decreasing=decreasing, axis=axis), X)


@pytest.mark.parametrize("dtype", ["float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8",
                                   "uint32"])
def test_dtypes(dtype):
    check(lambda tf, x: tuple(tf.nn.isotonic_regression(tf.cast(x, dtype))), np.round(TIES * 3))


@pytest.mark.parametrize("x", [np.float32(3.0), np.zeros((2, 0), np.float32), np.array([[True]])])
def test_edge_cases(x):
    check(lambda tf, x: tuple(tf.nn.isotonic_regression(x)), x)


def test_axis_out_of_range():
    check(lambda tf, x: tf.nn.isotonic_regression(x, axis=3), X)


def test_result_types():
    for decreasing, axis in ((True, -1), (False, -1), (True, 0)):
        want = real.nn.isotonic_regression(X, decreasing=decreasing, axis=axis)
        got = vtf.nn.isotonic_regression(X, decreasing=decreasing, axis=axis)
        assert type(got).__name__ == type(want).__name__
