"""tf.nn.fractional_max_pool / fractional_avg_pool against real TF 2.21: the seeded pooling sequences (to the
bit), pooled values, dtypes, errors and GradientTape gradients."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, check_grad

RNG = np.random.default_rng(0)
X = RNG.standard_normal((2, 17, 13, 3)).astype(np.float32)


def _seeded(fn):
    def case(tf, *args):
        tf.random.set_seed(None)
        return fn(tf, *args)
    return case


@pytest.mark.parametrize("op", ["fractional_max_pool", "fractional_avg_pool"])
@pytest.mark.parametrize("pseudo_random", [False, True])
@pytest.mark.parametrize("overlapping", [False, True])
@pytest.mark.parametrize("ratio", [[1, 1.5, 1.3, 1], [1, 2.0, 1.44, 1], [1, 4.2, 3.1, 1], [1, 1.0, 2.0, 1]])
def test_values_sequences_and_gradients(op, pseudo_random, overlapping, ratio):
    check_grad(_seeded(lambda tf, x: tuple(getattr(tf.nn, op)(x, ratio, pseudo_random, overlapping, seed=7))), X)


@pytest.mark.parametrize("seed", [1, 12345, 2 ** 31 - 2])
def test_seeds(seed):
    check(_seeded(lambda tf, x: [tuple(tf.nn.fractional_max_pool(x, [1, 1.6, 1.6, 1], p, seed=seed))
                                 for p in (False, True)]), X)


def test_global_seed():
    def case(tf, x):
        tf.random.set_seed(3)
        return [tuple(tf.nn.fractional_avg_pool(x, [1, 1.5, 1.5, 1], seed=5)) for _ in range(2)]
    check(case, X)


def test_unseeded_sequences_are_valid():
    import vfw.tensorflow as vtf
    out, rows, cols = vtf.nn.fractional_max_pool(X, [1, 1.5, 1.5, 1])
    for seq, n in ((rows.numpy(), 17), (cols.numpy(), 13)):
        assert seq[0] == 0 and seq[-1] == n and set(np.diff(seq)) <= {1, 2}
    assert out.shape == (2, 11, 8, 3)


@pytest.mark.parametrize("dtype", ["float64", "int32", "int64"])
@pytest.mark.parametrize("op", ["fractional_max_pool", "fractional_avg_pool"])
def test_dtypes(dtype, op):
    check(_seeded(lambda tf, x: tuple(getattr(tf.nn, op)(x, [1, 1.5, 1.5, 1], True, True, seed=2))),
          np.round(X * 10).astype(dtype))


@pytest.mark.parametrize("ratio", [[1.5, 1.5], [1, 0.5, 1.5, 1], [2, 1.5, 1.5, 1], [1, 20, 1.5, 1],
                                   [1, 1.5, 1.5, 2], [1, 1.5, 1.5], 1.5, (1, 1.5, 1.5, 1)])
@pytest.mark.parametrize("op", ["fractional_max_pool", "fractional_avg_pool"])
def test_ratio_errors(op, ratio):
    check(lambda tf, x: getattr(tf.nn, op)(x, ratio, seed=3), X)


@pytest.mark.parametrize("x", [X[0], X.astype(np.float16)])
def test_input_errors(x):
    check(lambda tf, x: tf.nn.fractional_avg_pool(x, [1, 1.5, 1.5, 1], seed=3), x)
