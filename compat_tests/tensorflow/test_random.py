"""tf.random's stateless ops and seed helpers against real TF 2.21: the same numbers for the same seeds."""

import math

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, check_grad, real, vtf
from compat_tests.tensorflow.random_harness import close, same

SEEDS = [(1, 2), (0, 0), (-3, 7), (2 ** 40, -(2 ** 50)), (2 ** 31 - 1, -(2 ** 31))]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
SHAPES = [[], [0], [1], [7], [3, 5], (2, 1, 4)]


def _seed(tf, seed):
    big = any(abs(s) >= 2 ** 31 for s in seed)
    return tf.constant(seed, tf.int64 if big else tf.int32)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_stateless_uniform_float_exact(seed, dtype, shape):
    same(lambda tf: tf.random.stateless_uniform(shape, _seed(tf, seed), dtype=dtype))


@pytest.mark.parametrize("dtype", FLOATS)
def test_stateless_uniform_range_and_large(dtype):
    same(lambda tf: tf.random.stateless_uniform([1001], [5, 9], minval=-2.5, maxval=4, dtype=dtype))
    same(lambda tf: tf.random.stateless_uniform([2, 3], [5, 9], minval=tf.constant([1.0, 2.0, 3.0], dtype),
                                                maxval=10.0, dtype=dtype))


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("dtype,low,high", [("int32", -5, 100), ("int64", -(2 ** 40), 2 ** 50), ("int32", -(2 ** 31),
                                                                                                    2 ** 31 - 1),
                                            ("int64", 0, 1), ("int32", 7, 8)])
def test_stateless_uniform_int(seed, dtype, low, high):
    same(lambda tf: tf.random.stateless_uniform([33], _seed(tf, seed), minval=low, maxval=high, dtype=dtype))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint32", "uint64"])
def test_stateless_uniform_full_int(dtype, seed):
    same(lambda tf: tf.random.stateless_uniform([4, 5], _seed(tf, seed), minval=None, maxval=None, dtype=dtype))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_stateless_normal(seed, dtype):
    close(lambda tf: tf.random.stateless_normal([257], _seed(tf, seed), dtype=dtype))
    check(lambda tf: tf.random.stateless_normal([3, 2], _seed(tf, seed), mean=1.5,
                                                stddev=tf.constant([2.0, 0.5], dtype), dtype=dtype))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_stateless_truncated_normal(seed, dtype):
    close(lambda tf: tf.random.stateless_truncated_normal([301], _seed(tf, seed), dtype=dtype))
    check(lambda tf: tf.random.stateless_truncated_normal([5], _seed(tf, seed), mean=-1.0, stddev=3.0, dtype=dtype))


@pytest.mark.parametrize("dtype,size", [("float32", 51012), ("float64", 8110)])
def test_truncated_normal_group_needing_a_third_block(dtype, size):
    """With seed (1, 0) the last group of these sizes keeps fewer than a group's values from its first two
    blocks (found by searching seeds), so it draws a third."""
    close(lambda tf: tf.random.stateless_truncated_normal([size], [1, 0], dtype=dtype)[-8:])


def test_normal_is_mostly_bit_exact():
    """float32 Box-Muller values differ from TF's only in the last bit, and rarely (the C library's float32
    log/sin/cos against float64 values rounded); float16 and bfloat16 results match exactly."""
    for lib_dtype, fraction in (("float32", 0.02), ("float16", 0.0), ("bfloat16", 0.0)):
        want, got = (np.asarray(lib.random.stateless_normal([20000], [11, 12], dtype=lib_dtype).numpy(), np.float64)
                     for lib in (real, vtf))
        assert np.mean(want != got) <= fraction
        assert np.all(np.abs(want - got) <= 3 * np.abs(np.spacing(want.astype(np.float32))))
    want, got = (lib.random.stateless_truncated_normal([20000], [11, 12]).numpy() for lib in (real, vtf))
    assert np.mean(want != got) <= 0.02 and np.all(np.abs(want - got) <= 3 * np.abs(np.spacing(want)))


LOGITS = np.log(np.array([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1], [0.25] * 4], np.float32))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_stateless_categorical(dtype, seed):
    same(lambda tf: tf.random.stateless_categorical(LOGITS, 7, _seed(tf, seed), dtype=dtype))


def test_stateless_categorical_logit_dtypes_and_edges():
    logits = LOGITS
    same(lambda tf: tf.random.stateless_categorical(logits.astype(np.float64), 1, [4, 2]))
    same(lambda tf: tf.random.stateless_categorical(logits.astype(np.float16), 5, [4, 2]))
    special = np.array([[-np.inf, 0.0, np.nan, 1.0], [-np.inf] * 4, [50.0, -50.0, 0.0, 49.0]], np.float32)
    same(lambda tf: tf.random.stateless_categorical(special, 6, [1, 1]))
    same(lambda tf: tf.random.stateless_categorical(np.zeros((0, 3), np.float32), 2, [1, 1]))
    same(lambda tf: tf.random.stateless_categorical(logits, 0, [1, 1]))


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_stateless_gamma(dtype, seed):
    alpha = np.array([0.3, 1.0, 2.5, 7.0, 1e-3, 50.0], dtype)
    close(lambda tf: tf.random.stateless_gamma([4, 6], _seed(tf, seed), alpha, dtype=dtype))
    close(lambda tf: tf.random.stateless_gamma([3, 2, 3], [1, 2], [[1.0], [0.5]], beta=[1.0, 2.0, 0.5], dtype=dtype),
          )
    close(lambda tf: tf.random.stateless_gamma([5], [1, 2], 0.5, dtype=dtype))


def test_stateless_gamma_gradients():
    """The gradient in alpha is TF's implicit reparameterization gradient (the derivative of the sample at a fixed
    value of its CDF), summed over the samples of each alpha; the one in beta comes from the division."""
    check_grad(lambda tf, beta: tf.random.stateless_gamma([4, 3], [1, 2], [0.5, 2.0, 4.0], beta=beta),
               np.array([1.0, 2.0, 0.5], np.float32))
    check_grad(lambda tf, alpha: tf.random.stateless_gamma([50, 5], [1, 2], alpha, dtype=tf.float64),
               np.array([0.05, 0.7, 1.0, 3.5, 300.0]))
    check_grad(lambda tf, alpha, beta: tf.random.stateless_gamma([6, 2, 3], [3, 4], alpha, beta=beta),
               np.array([[0.5], [2.0]], np.float32), np.array([1.0, 2.0, 0.5], np.float32))
    check_grad(lambda tf, alpha: tf.random.stateless_gamma([6], [3, 4], alpha), np.array(1.5, np.float32))


@pytest.mark.parametrize("lam_dtype", ["float32", "float64", "int32"])
@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64", "float16"])
def test_stateless_poisson(lam_dtype, dtype):
    lam = np.array([0.3, 3, 9, 10, 11, 50, 1000], lam_dtype)
    same(lambda tf: tf.random.stateless_poisson([5, 7], [4, 2], lam, dtype=dtype))
    same(lambda tf: tf.random.stateless_poisson([6], [-4, 9], np.array(2, lam_dtype), dtype=dtype))


@pytest.mark.parametrize("seed", SEEDS[:3])
@pytest.mark.parametrize("out", ["int32", "int64", "float32", "float64"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_stateless_binomial(dtype, out, seed):
    counts = np.array([10, 100, 5, 1000, 0, 7, 50, 3], dtype)
    probs = np.array([0.3, 0.8, 0.05, 0.5, 0.5, 1.0, 0.9, 0.0], dtype)
    same(lambda tf: tf.random.stateless_binomial([6, 8], _seed(tf, seed), counts, probs, output_dtype=out))
    same(lambda tf: tf.random.stateless_binomial([4, 2, 3], [1, 2], [[20.0], [200.0]], [0.2, 0.5, 0.95],
                                                 output_dtype=out))


@pytest.mark.parametrize("seed", SEEDS)
def test_stateless_shuffle(seed):
    same(lambda tf: tf.random.experimental.stateless_shuffle(tf.range(33), _seed(tf, seed)))
    same(lambda tf: tf.random.experimental.stateless_shuffle(np.arange(24.0).reshape(6, 2, 2), [3, 4]))
    same(lambda tf: tf.random.experimental.stateless_shuffle(np.arange(1), [3, 4]))


TRUNCATIONS = [{}, {"minvals": 0.5, "maxvals": 0.6}, {"minvals": 3.0, "maxvals": 10.0},
               {"means": 1.0, "stddevs": 2.0, "minvals": -1.0, "maxvals": 4.0}, {"minvals": -10.0, "maxvals": -3.0},
               {"minvals": 3.0, "maxvals": np.inf}, {"minvals": -np.inf, "maxvals": -3.0}, {"means": [0.0, 1.0, 2.0]},
               {"means": [[0.0], [5.0]], "minvals": [-1.0, 0.5, 3.0], "maxvals": [1.0, 0.6, 10.0]},
               {"minvals": 1.0, "maxvals": 1.2}, {"minvals": 0.2, "maxvals": 5.0}]


@pytest.mark.parametrize("seed", [[1, 2], [5, -9]])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("params", TRUNCATIONS, ids=range(len(TRUNCATIONS)))
def test_stateless_parameterized_truncated_normal(dtype, params, seed):
    """The three samplers (normal rejection, uniform proposals, exponential proposals), bounds flipped to the lower
    side, several parameter sets sampled one after the other."""
    arrays = {k: np.asarray(v, dtype) for k, v in {"means": 0.0, "stddevs": 1.0, "minvals": -2.0, "maxvals": 2.0,
                                                    **params}.items()}
    shape = [7, *np.broadcast_shapes(*(a.shape for a in arrays.values()))]
    same(lambda tf: tf.random.stateless_parameterized_truncated_normal(shape, seed, **arrays))


def test_many_parameter_sets_keep_the_distribution():
    """With many rows or parameter sets TF splits the work across its thread pool (so its numbers depend on the
    machine's thread count); vfw samples as one shard: the distributions must still be right."""
    probs = np.array([0.1, 0.2, 0.3, 0.4])
    draws = vtf.random.stateless_categorical(np.log(np.tile(probs, (2000, 1))).astype(np.float32), 25, [3, 4])
    np.testing.assert_allclose(np.bincount(draws.numpy().reshape(-1), minlength=4) / 50000, probs, atol=0.01)
    means = np.linspace(-1, 1, 500).astype(np.float32)
    x = vtf.random.stateless_parameterized_truncated_normal([400, 500], [1, 2], means=means, minvals=-0.5,
                                                            maxvals=1.5).numpy()
    assert x.min() >= -0.5 and x.max() <= 1.5
    a, b = -0.5 - means, 1.5 - means  # the bounds in standard units (stddev 1)
    pdf_a, pdf_b = (np.exp(-v ** 2 / 2) / np.sqrt(2 * np.pi) for v in (a, b))
    mass = np.array([real_cdf(v) for v in b]) - np.array([real_cdf(v) for v in a])
    shift = (pdf_a - pdf_b) / mass
    variance = 1 + (a * pdf_a - b * pdf_b) / mass - shift ** 2  # of a truncated normal
    deviation = (x.mean(axis=0) - (means + shift)) / np.sqrt(variance / x.shape[0])
    assert np.abs(deviation).max() < 5 and abs(deviation.mean()) < 5 / np.sqrt(deviation.size)


def real_cdf(v):
    return 0.5 * (1 + math.erf(v / math.sqrt(2)))


@pytest.mark.parametrize("seed", [(3, 4), (-1, 2 ** 33)])
def test_split_and_fold_in(seed):
    same(lambda tf: tf.random.split(_seed(tf, seed)))
    same(lambda tf: tf.random.split(_seed(tf, seed), 5))
    same(lambda tf: tf.random.experimental.stateless_split(_seed(tf, seed), num=3))
    same(lambda tf: tf.random.fold_in(_seed(tf, seed), 7))
    same(lambda tf: tf.random.fold_in(_seed(tf, seed), tf.constant(7, tf.int64)))
    same(lambda tf: tf.random.experimental.stateless_fold_in(_seed(tf, seed), 12345))
    same(lambda tf: tf.random.stateless_uniform([3], tf.random.fold_in(_seed(tf, seed), 2)))


@pytest.mark.parametrize("alg", ["auto_select", "philox", 1, 3, None, "PHILOX"])
def test_algorithms(alg):
    same(lambda tf: tf.random.stateless_uniform([6], [-3, 7], alg=alg))
    same(lambda tf: tf.random.stateless_normal([6], [-3, 7], alg=alg))


@pytest.mark.parametrize("seed", [[1, 2], np.array([1, 2], np.uint8), np.array([5, 6], np.int64), (2 ** 40, 1)])
def test_seed_forms(seed):
    same(lambda tf: tf.random.stateless_uniform([4], seed))


def test_shape_forms():
    same(lambda tf: tf.random.stateless_uniform(tf.TensorShape([2, 3]), [1, 2]))
    same(lambda tf: tf.random.stateless_uniform(tf.constant([2, 3], tf.int64), [1, 2]))
    same(lambda tf: tf.random.stateless_uniform(np.array([2, 3]), [1, 2]))
    same(lambda tf: tf.random.stateless_uniform((), [1, 2]))


ERRORS = [
    lambda tf: tf.random.stateless_uniform([2], seed=[1, 2, 3]),
    lambda tf: tf.random.stateless_uniform([2], seed=[1.0, 2.0]),
    lambda tf: tf.random.stateless_uniform([2], seed=1),
    lambda tf: tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.int32),
    lambda tf: tf.random.stateless_uniform([2], seed=[1, 2], minval=None),
    lambda tf: tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.uint8, minval=None, maxval=None),
    lambda tf: tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.uint32, minval=1, maxval=7),
    lambda tf: tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.int32, minval=5, maxval=5),
    lambda tf: tf.random.stateless_uniform([2], seed=[1, 2], dtype=tf.int32, minval=[1, 2], maxval=5),
    lambda tf: tf.random.stateless_uniform([2], seed=[1, 2], alg="threefry"),
    lambda tf: tf.random.stateless_uniform([2], seed=[1, 2], alg="foo"),
    lambda tf: tf.random.stateless_uniform([2], seed=[1, 2], alg=7),
    lambda tf: tf.random.stateless_uniform([-1], seed=[1, 2]),
    lambda tf: tf.random.stateless_uniform([1.5], seed=[1, 2]),
    lambda tf: tf.random.stateless_uniform([[2]], seed=[1, 2]),
    lambda tf: tf.random.stateless_uniform(tf.TensorShape([None]), seed=[1, 2]),
    lambda tf: tf.random.stateless_normal([2], seed=[1, 2], dtype=tf.int32),
    lambda tf: tf.random.stateless_normal([2], seed=[1, 2], mean=0, stddev=1, dtype=tf.int32),
    lambda tf: tf.random.stateless_normal([2], seed=[1, 2], stddev=tf.constant([1.0, 2.0, 3.0])),
    lambda tf: tf.random.stateless_normal([2], seed=[1, 2], mean=tf.constant(1.0, tf.float64)),
    lambda tf: tf.random.stateless_truncated_normal([2], seed=[1, 2], dtype=tf.string),
    lambda tf: tf.random.stateless_categorical([1.0, 2.0], 3, [1, 2]),
    lambda tf: tf.random.stateless_categorical([[1.0, 2.0]], -1, [1, 2]),
    lambda tf: tf.random.stateless_categorical([[1.0, 2.0]], 2, [1, 2, 3]),
    lambda tf: tf.random.stateless_categorical([[1.0, 2.0]], 2, [1, 2], dtype=tf.int16),
    lambda tf: tf.random.stateless_categorical(tf.zeros([2, 0]), 2, [1, 2]),
    lambda tf: tf.random.stateless_categorical([[1.0, 2.0]], 2.5, [1, 2]),
    lambda tf: tf.random.stateless_gamma([4], [1, 2], [1.0, 2.0]),
    lambda tf: tf.random.stateless_gamma([4, 2], [1, 2], [1.0, 2.0], beta=[1.0, 2.0, 3.0]),
    lambda tf: tf.random.stateless_gamma([2], [1, 2], 1, dtype=tf.int32),
    lambda tf: tf.random.stateless_poisson([4], [1, 2], [1.0, 2.0]),
    lambda tf: tf.random.stateless_poisson([2], [1, 2], 1.0, dtype=tf.bool),
    lambda tf: tf.random.stateless_binomial([4], [1, 2], [10.0, 20.0], 0.5),
    lambda tf: tf.random.stateless_binomial([4], [1, 2], 10.0, tf.constant(0.5, tf.float64)),
    lambda tf: tf.random.stateless_binomial([4], [1, 2], 10.0, 0.5, output_dtype=tf.uint8),
    lambda tf: tf.random.stateless_parameterized_truncated_normal([2], [1, 2], stddevs=-1.0),
    lambda tf: tf.random.stateless_parameterized_truncated_normal([2], [1, 2], minvals=3.0),
    lambda tf: tf.random.stateless_parameterized_truncated_normal([2], [1, 2], minvals=-np.inf, maxvals=np.inf),
    lambda tf: tf.random.stateless_parameterized_truncated_normal([2], [1, 2], 1, 1, 0, 3),
    lambda tf: tf.random.stateless_parameterized_truncated_normal([2], [1, 2], means=tf.constant(1.0, tf.float64)),
    lambda tf: tf.random.stateless_parameterized_truncated_normal([4, 3], [1, 2], means=np.zeros((4, 1), np.float32)),
    lambda tf: tf.random.stateless_parameterized_truncated_normal([2], [1, 2], means=np.nan),
    lambda tf: tf.random.fold_in([1, 2], [3, 4]),
    lambda tf: tf.random.split([1, 2, 3]),
]


@pytest.mark.parametrize("case", ERRORS, ids=range(len(ERRORS)))
def test_errors(case):
    check(case)


def test_gradients_of_parameters():
    check_grad(lambda tf, m, s: tf.random.stateless_normal([3, 2], [1, 2], mean=m, stddev=s),
               np.array([0.5, -1.0], np.float32), np.array(2.0, np.float32))
    check_grad(lambda tf, m, s: tf.random.stateless_truncated_normal([4], [1, 2], mean=m, stddev=s, dtype=tf.float64),
               np.array(0.5, np.float64), np.array([1.0, 2.0, 3.0, 4.0], np.float64))
    check_grad(lambda tf, lo, hi: tf.random.stateless_uniform([2, 2], [1, 2], minval=lo, maxval=hi),
               np.array([0.0, -1.0], np.float32), np.array(3.0, np.float32))


def test_namespaces():
    names = ["stateless_uniform", "stateless_normal", "stateless_truncated_normal", "stateless_categorical",
             "stateless_gamma", "stateless_poisson", "stateless_binomial", "stateless_parameterized_truncated_normal",
             "split", "fold_in", "Generator",
             "Algorithm", "create_rng_state", "get_global_generator", "set_global_generator", "set_seed", "uniform",
             "normal", "truncated_normal", "categorical", "shuffle", "gamma", "poisson"]
    for name in names:
        assert hasattr(real.random, name) and hasattr(vtf.random, name), name
    for name in ["stateless_split", "stateless_fold_in", "stateless_shuffle", "Generator", "Algorithm",
                 "create_rng_state", "get_global_generator", "set_global_generator"]:
        assert hasattr(vtf.random.experimental, name), name
    assert vtf.random.experimental.Generator is vtf.random.Generator
    assert [a.value for a in vtf.random.Algorithm] == [a.value for a in real.random.Algorithm]
    assert [a.name for a in vtf.random.Algorithm] == [a.name for a in real.random.Algorithm]
