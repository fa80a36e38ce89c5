"""tf.random's stateful ops after tf.random.set_seed, and tf.nn.dropout, against real TF 2.21: the same
numbers call after call (op seeds from the global seed, kernels continuing their streams)."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, check_grad, vtf
from compat_tests.tensorflow.random_harness import close, same

GLOBAL_SEEDS = [0, 7, 2 ** 40 + 3, 87654321]


def _seeded(global_seed, *draws):
    """A case: set the global seed, then make each draw in turn (``draw(tf)``), returning all results."""
    def case(tf):
        tf.random.set_seed(global_seed)
        return [draw(tf) for draw in draws]
    return case


@pytest.mark.parametrize("global_seed", GLOBAL_SEEDS)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_uniform_sequences(global_seed, dtype):
    same(_seeded(global_seed,
                 lambda tf: tf.random.uniform([5], dtype=dtype),
                 lambda tf: tf.random.uniform([2, 3], dtype=dtype),  # a new op seed from the global seed
                 lambda tf: tf.random.uniform([4], seed=3, dtype=dtype),
                 lambda tf: tf.random.uniform([6], seed=3, dtype=dtype),  # the same kernel continues its stream
                 lambda tf: tf.random.uniform([3], seed=0, dtype=dtype),
                 lambda tf: tf.random.uniform([], seed=2 ** 33, dtype=dtype)))


def test_uniform_ranges():
    same(_seeded(5,
                 lambda tf: tf.random.uniform([7], minval=-3, maxval=4),
                 lambda tf: tf.random.uniform([7], maxval=10.0, seed=1),
                 lambda tf: tf.random.uniform([2, 2], minval=tf.constant([0.0, 1.0]), maxval=2.0, seed=1),
                 lambda tf: tf.random.uniform([9], minval=-5, maxval=17, dtype=tf.int32),
                 lambda tf: tf.random.uniform([9], minval=-(2 ** 40), maxval=2 ** 41, dtype=tf.int64, seed=4),
                 lambda tf: tf.random.uniform([9], minval=0, maxval=3, dtype=tf.int64, seed=4)))


def test_kernels_are_shared_by_op_and_type_attributes():
    same(_seeded(11,
                 lambda tf: tf.random.uniform([3], seed=5),
                 lambda tf: tf.random.uniform([3], seed=5, dtype=tf.float64),  # another dtype: another kernel
                 lambda tf: tf.random.normal([3], seed=5),  # another op: another kernel
                 lambda tf: tf.random.uniform(tf.constant([3], tf.int64), seed=5),  # int64 shape: another kernel
                 lambda tf: tf.random.uniform([2], seed=5),
                 lambda tf: tf.random.uniform([3], seed=5, maxval=2.0)))


def test_set_seed_restarts_streams():
    def case(tf):
        tf.random.set_seed(3)
        first = [tf.random.uniform([4], seed=1), tf.random.uniform([4])]
        tf.random.set_seed(3)
        return first + [tf.random.uniform([4], seed=1), tf.random.uniform([4])]
    want, _ = same(case)
    np.testing.assert_array_equal(want[0].numpy(), want[2].numpy())
    np.testing.assert_array_equal(want[1].numpy(), want[3].numpy())


def test_op_seed_without_global_seed():
    same(_seeded(None, lambda tf: tf.random.uniform([4], seed=9), lambda tf: tf.random.uniform([4], seed=9),
                 lambda tf: tf.random.normal([4], seed=9)))


def test_unseeded_draws_differ():
    vtf.random.set_seed(None)
    a, b = vtf.random.uniform([1000]), vtf.random.uniform([1000])
    assert a.dtype == vtf.float32 and not np.array_equal(a.numpy(), b.numpy())
    assert 0 <= a.numpy().min() and a.numpy().max() < 1 and abs(a.numpy().mean() - 0.5) < 0.05


@pytest.mark.parametrize("global_seed", GLOBAL_SEEDS[:2])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_normal_and_truncated_normal(global_seed, dtype):
    close(_seeded(global_seed,
                  lambda tf: tf.random.normal([33], dtype=dtype),
                  lambda tf: tf.random.normal([5], seed=2, dtype=dtype),
                  lambda tf: tf.random.normal([7], seed=2, dtype=dtype),
                  lambda tf: tf.random.truncated_normal([41], dtype=dtype),
                  lambda tf: tf.random.truncated_normal([6], seed=2, dtype=dtype),
                  lambda tf: tf.random.truncated_normal([3, 3], seed=2, dtype=dtype)))
    check(_seeded(global_seed, lambda tf: tf.random.normal([2, 2], mean=[1.0, -1.0], stddev=3.0, dtype=dtype),
                  lambda tf: tf.random.truncated_normal([3], mean=5.0, stddev=tf.constant(0.5, dtype), dtype=dtype)))


@pytest.mark.parametrize("count", [1, 7, 9])
def test_categorical(count):
    logits = np.log(np.array([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1], [0.25] * 4], np.float32))
    same(_seeded(11, lambda tf: tf.random.categorical(logits, count, seed=5),
                 lambda tf: tf.random.categorical(logits, count, seed=5),
                 lambda tf: tf.random.categorical(logits, count),
                 lambda tf: tf.random.categorical(logits.astype(np.float64), count, dtype=tf.int32, seed=5)))


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6, 10, 33])
def test_shuffle(n):
    same(_seeded(11, lambda tf: tf.random.shuffle(tf.range(n), seed=5),
                 lambda tf: tf.random.shuffle(tf.range(n), seed=5),
                 lambda tf: tf.random.shuffle(tf.range(n), seed=5),
                 lambda tf: tf.random.shuffle(tf.range(n))))


def test_shuffle_values():
    same(_seeded(2, lambda tf: tf.random.shuffle(np.arange(24.0).reshape(6, 4)),
                 lambda tf: tf.random.shuffle(["a", "b", "c"], seed=1), lambda tf: tf.random.shuffle(3)))


def test_gamma():
    close(_seeded(5, lambda tf: tf.random.gamma([6], [0.3, 1.0, 2.5, 7.0], seed=9),
                  lambda tf: tf.random.gamma([6], [0.3, 1.0, 2.5, 7.0], seed=9),
                  lambda tf: tf.random.gamma([2, 3], 0.5, beta=[[1.0], [2.0]], dtype=tf.float64),
                  lambda tf: tf.random.gamma([4], [0.0, -1.0, 1e-30, 3.0], dtype=tf.float16)))
    check_grad(lambda tf, beta: _seeded(1, lambda t: t.random.gamma([3], [1.0, 4.0], beta=beta))(tf),
               np.array([2.0, 0.5], np.float32))
    check_grad(lambda tf, alpha: _seeded(1, lambda t: t.random.gamma([20, 1], alpha, dtype=t.float64))(tf),
               np.array([0.2, 1.0, 9.0]))


def test_poisson():
    same(_seeded(5, lambda tf: tf.random.poisson([6], [0.3, 1.0, 9.9, 10.0, 11.0, 50.0, 1e4], seed=9),
                 lambda tf: tf.random.poisson([6], [0.3, 1.0, 9.9, 10.0, 11.0, 50.0, 1e4], seed=9),
                 lambda tf: tf.random.poisson([3, 2], 4.0, dtype=tf.int64),
                 lambda tf: tf.random.poisson([3], tf.constant([0.0, -1.0, np.inf]), dtype=tf.int32),
                 lambda tf: tf.random.poisson([3], tf.constant([2, 20], tf.int64), dtype=tf.float16)))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_dropout_values(dtype):
    x = np.arange(1.0, 25.0, dtype=dtype).reshape(4, 6)
    same(_seeded(3, lambda tf: tf.nn.dropout(tf.constant(x), 0.5),
                 lambda tf: tf.nn.dropout(tf.constant(x), 0.2, seed=4),
                 lambda tf: tf.nn.dropout(tf.constant(x), 0.2, seed=4),
                 lambda tf: tf.nn.dropout(tf.constant(x), 0.7, noise_shape=[4, 1]),
                 lambda tf: tf.nn.dropout(tf.constant(x), 0.7, noise_shape=[None, 1], seed=1),
                 lambda tf: tf.nn.dropout(tf.constant(x), 0.7, noise_shape=[6]),
                 lambda tf: tf.nn.dropout(tf.constant(x), tf.constant(0.25, dtype)),
                 lambda tf: tf.nn.dropout(x, 0.0),  # no draw, but an op seed is taken
                 lambda tf: tf.nn.dropout(tf.constant(x), 0.5)))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_stateless_and_general_dropout(dtype):
    x = np.arange(1.0, 25.0, dtype=dtype).reshape(4, 6)
    same(lambda tf: [tf.nn.experimental.stateless_dropout(x, 0.5, seed=[1, 2]),
                     tf.nn.experimental.stateless_dropout(x, 0.3, seed=tf.constant([7, -3], tf.int64),
                                                          noise_shape=[1, 6]),
                     tf.nn.experimental.stateless_dropout(x, tf.constant(0.6, dtype), seed=[4, 4], rng_alg="philox"),
                     tf.nn.experimental.stateless_dropout(x, 0.0, seed=[4, 4]),
                     tf.nn.experimental.general_dropout(
                         x, 0.5, lambda shape, dtype: tf.random.stateless_uniform(shape, [5, 6], dtype=dtype))])
    check_grad(lambda tf, v: tf.nn.experimental.stateless_dropout(v, 0.4, seed=[2, 3]), x.astype(np.float32))


def test_dropout_gradient():
    x = np.arange(1.0, 13.0, dtype=np.float32).reshape(3, 4)
    check_grad(lambda tf, v: _seeded(3, lambda t: t.nn.dropout(v, 0.4))(tf), x)
    check_grad(lambda tf, v: _seeded(3, lambda t: t.nn.dropout(v, 0.4, noise_shape=[1, 4], seed=2))(tf), x)
    check_grad(lambda tf, v, r: _seeded(3, lambda t: t.nn.dropout(v, r))(tf), x, np.array(0.3, np.float32))


def test_gradients_of_parameters():
    check_grad(lambda tf, m, s: _seeded(1, lambda t: t.random.normal([3, 2], mean=m, stddev=s))(tf),
               np.array([0.5, -1.0], np.float32), np.array(2.0, np.float32))
    check_grad(lambda tf, lo, hi: _seeded(1, lambda t: t.random.uniform([2, 2], minval=lo, maxval=hi))(tf),
               np.array([0.0, -1.0], np.float32), np.array(3.0, np.float32))
    check_grad(lambda tf, hi: _seeded(1, lambda t: t.random.uniform([2, 2], maxval=hi, seed=3))(tf),
               np.array(3.0, np.float32))


ERRORS = [
    lambda tf: tf.random.uniform([-1, 2]),
    lambda tf: tf.random.uniform([1.5]),
    lambda tf: tf.random.uniform([[2]]),
    lambda tf: tf.random.uniform(3),
    lambda tf: tf.random.uniform(tf.TensorShape([None, 2])),
    lambda tf: tf.random.uniform([2], dtype=tf.int32),
    lambda tf: tf.random.uniform([2], dtype=tf.int8, maxval=3),
    lambda tf: tf.random.uniform([2], dtype=tf.bool),
    lambda tf: tf.random.uniform([2], minval=5, maxval=1, dtype=tf.int32),
    lambda tf: tf.random.uniform([2], minval=[1, 2], maxval=5, dtype=tf.int32),
    lambda tf: tf.random.normal([2], dtype=tf.int32),
    lambda tf: tf.random.normal([2], mean=0, stddev=1, dtype=tf.int32),
    lambda tf: tf.random.normal([2], stddev=tf.constant([1.0, 2.0, 3.0])),
    lambda tf: tf.random.normal([2], mean=tf.constant(1.0, tf.float64)),
    lambda tf: tf.random.truncated_normal([2], dtype=tf.int32),
    lambda tf: tf.random.gamma([2], 1, dtype=tf.int32),
    lambda tf: tf.random.gamma([2], 1.0, dtype=tf.bfloat16),
    lambda tf: tf.random.gamma([2], [1.0, 2.0], beta=[1.0, 2.0, 3.0]),
    lambda tf: tf.random.poisson([2], 1.0, dtype=tf.bool),
    lambda tf: tf.random.poisson([2], 1.0, dtype=tf.uint8),
    lambda tf: tf.random.poisson([2], tf.constant(1.0, tf.bfloat16)),
    lambda tf: tf.random.categorical([1.0, 2.0], 3),
    lambda tf: tf.random.categorical([[1, 2]], 3),
    lambda tf: tf.random.categorical([[1.0, 2.0]], -1),
    lambda tf: tf.random.categorical(tf.zeros([2, 0]), 2),
    lambda tf: tf.random.categorical([[1.0, 2.0]], 2, dtype=tf.int16),
    lambda tf: tf.random.categorical([[1.0, 2.0]], 2.5),
    lambda tf: tf.nn.dropout(tf.ones([3]), 1.0),
    lambda tf: tf.nn.dropout(tf.ones([3]), -0.1),
    lambda tf: tf.nn.dropout(tf.ones([3], tf.int32), 0.5),
    lambda tf: tf.nn.dropout(tf.ones([3]), tf.constant(0.5, tf.float64)),
    lambda tf: tf.nn.dropout(tf.ones([3]), tf.constant([0.5])),
    lambda tf: tf.nn.dropout(tf.ones([3]), "a"),
    lambda tf: tf.nn.dropout(tf.ones([3, 2]), 0.5, noise_shape=[2, 2]),
]


@pytest.mark.parametrize("case", ERRORS, ids=range(len(ERRORS)))
def test_errors(case):
    check(case)
