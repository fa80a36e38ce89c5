"""tf.random.Generator (and the global generator, create_rng_state) against real TF 2.21: the same states and
the same numbers draw after draw.  Also: random ops inside traced graphs draw anew on every run."""

import numpy as np
import pytest

import vfw
from compat_tests.tensorflow.harness import check, check_grad, vtf
from compat_tests.tensorflow.random_harness import close, same

SEEDS = [0, 1234, -5, 2 ** 64 + 7, 2 ** 63 + 7, 2 ** 130 + 2 ** 64 * 3 + 1, [1, 2], [1, 2, 3, 4], [7], [[1, 2]],
         [[1, 2], [3, 4]], 1.5, [1.5, -2.0], np.array([2 ** 64 - 1], np.uint64)]


def _state(g):
    return g.state.numpy()


@pytest.mark.parametrize("seed", SEEDS, ids=str)
def test_from_seed_state_and_draws(seed):
    def case(tf):
        g = tf.random.Generator.from_seed(seed)
        return [_state(g), g.uniform([5]), _state(g), g.uniform([2, 3], dtype=tf.float64),
                g.uniform([3], dtype=tf.float16), g.uniform([4], dtype=tf.bfloat16),
                g.uniform([6], minval=-5, maxval=9, dtype=tf.int32),
                g.uniform([6], minval=0, maxval=2 ** 40, dtype=tf.int64), g.uniform_full_int([3]),
                g.uniform_full_int([3], tf.int32), g.uniform([2], minval=None, maxval=None, dtype=tf.int64),
                _state(g), g.algorithm, g.key]
    same(case)


def test_normal_and_truncated_normal():
    def case(tf):
        g = tf.random.Generator.from_seed(77)
        return [g.normal([33]), g.truncated_normal([17]), g.normal([5], dtype=tf.float64),
                g.truncated_normal([6], dtype=tf.float64), g.normal([4], dtype=tf.float16), _state(g)]
    close(case)
    check(lambda tf: [tf.random.Generator.from_seed(3).normal([2, 2], mean=[1.0, 2.0], stddev=0.5),
                      tf.random.Generator.from_seed(3).truncated_normal([3], mean=-1.0, stddev=2.0)])


def test_counter_carries_into_high_word_and_wraps():
    same(lambda tf: [(g := tf.random.Generator.from_state([-3, 5, 9], "philox")).uniform([40]), _state(g)])
    same(lambda tf: [(g := tf.random.Generator.from_state([-1, -1, 9], "philox")).uniform([5]), _state(g)])


def test_constructors_and_resets():
    def case(tf):
        g = tf.random.Generator.from_state([1, 2, 3], "philox")
        h = tf.random.Generator.from_key_counter(5, [6, 7], tf.random.Algorithm.PHILOX)
        copy = tf.random.Generator(g)
        out = [_state(g), _state(h), _state(copy), copy.algorithm, g.uniform([3]), copy.uniform([3])]
        g.reset([9, 8, 7])
        out.append(_state(g))
        g.reset_from_seed(11)
        out.append(_state(g))
        g.reset_from_key_counter(4, [3, 2])
        out += [_state(g), g.uniform([2])]
        out += [tf.random.create_rng_state(s, "philox") for s in SEEDS]
        out += [tf.random.create_rng_state(5, "threefry"), tf.random.create_rng_state(5, 3),
                tf.random.experimental.create_rng_state([], 1)]
        out.append(_state(tf.random.Generator.from_seed(1, alg="auto_select")))
        out.append(_state(tf.random.Generator.from_seed(1, alg="threefry")))
        return out
    same(case)


def test_skip_make_seeds_split():
    def case(tf):
        g = tf.random.Generator.from_seed(1234)
        out = [g.skip(10), _state(g), g.skip(-1), _state(g), g.make_seeds(), g.make_seeds(3), _state(g)]
        parts = g.split(3)
        out += [_state(g)] + [_state(p) for p in parts] + [p.uniform([2]) for p in parts]
        out += [g.split(0), g.normal([2])]
        seeds = g.make_seeds(2)
        out.append(tf.random.stateless_uniform([3], seeds[:, 0]))
        return out
    close(case)


@pytest.mark.parametrize("shape,counts", [([7], 10.0), ([9], 1000.0), ([2, 3], [10.0, 1000.0, 20.0]),
                                          ([4, 2], [5.0, 50.0]), ([3, 1, 2], [[3.0, 300.0]])])
def test_binomial(shape, counts):
    def case(tf):
        g = tf.random.Generator.from_seed(1)
        return [g.binomial(shape, counts=counts, probs=0.3), _state(g),
                g.binomial(shape, counts=counts, probs=0.8, dtype=tf.float32), _state(g),
                g.binomial(shape, counts=tf.constant(counts, tf.float64), probs=tf.constant(0.5, tf.float64),
                           dtype=tf.int64), _state(g)]
    same(case)


def test_gradient_of_parameters():
    check_grad(lambda tf, m, s: tf.random.Generator.from_seed(2).normal([3, 2], mean=m, stddev=s),
               np.array([0.5, -1.0], np.float32), np.array(2.0, np.float32))
    check_grad(lambda tf, lo, hi: tf.random.Generator.from_seed(2).uniform([3], minval=lo, maxval=hi),
               np.array(-1.0, np.float32), np.array(3.0, np.float32))


def test_global_generator():
    def case(tf):
        first = tf.random.get_global_generator()
        same_object = first is tf.random.get_global_generator()
        tf.random.set_global_generator(tf.random.Generator.from_seed(3))
        g = tf.random.experimental.get_global_generator()
        return [same_object, _state(g), g.normal([3]), _state(tf.random.get_global_generator())]
    close(case)


def test_non_deterministic_state():
    a, b = vtf.random.Generator.from_non_deterministic_state(), vtf.random.Generator.from_non_deterministic_state()
    assert a.state.dtype == vtf.int64 and a.state.shape == [3]
    assert not np.array_equal(a.state.numpy(), b.state.numpy())
    assert not np.array_equal(a.normal([5]).numpy(), b.normal([5]).numpy())


ERRORS = [
    lambda tf: tf.random.Generator(state=[1, 2], alg="philox"),
    lambda tf: tf.random.Generator(state=[1, 2, 3, 4], alg="philox"),
    lambda tf: tf.random.Generator(state=[1, 2, 3]),
    lambda tf: tf.random.Generator(),
    lambda tf: tf.random.Generator.from_seed(1, alg="foo"),
    lambda tf: tf.random.Generator.from_seed(1, alg="threefry").normal([2]),
    lambda tf: tf.random.Generator.from_seed(1, alg="threefry").uniform([2], maxval=3, dtype=tf.int32),
    lambda tf: tf.random.Generator.from_key_counter(5, [1, 2, 3], 1),
    lambda tf: tf.random.Generator.from_key_counter([5], [1, 2], 1),
    lambda tf: tf.random.Generator.from_seed(1).uniform([2], maxval=3, dtype=tf.uint32),
    lambda tf: tf.random.Generator.from_seed(1).uniform([2], dtype=tf.int8, maxval=3),
    lambda tf: tf.random.Generator.from_seed(1).uniform([2], dtype=tf.int32),
    lambda tf: tf.random.Generator.from_seed(1).uniform([2], dtype=tf.bool),
    lambda tf: tf.random.Generator.from_seed(1).uniform([2], minval=3, maxval=3, dtype=tf.int32),
    lambda tf: tf.random.Generator.from_seed(1).uniform_full_int([2], dtype=tf.int8),
    lambda tf: tf.random.Generator.from_seed(1).uniform_full_int([2], dtype=tf.float32),
    lambda tf: tf.random.Generator.from_seed(1).normal([2], dtype=tf.int32),
    lambda tf: tf.random.Generator.from_seed(1).normal([-2]),
    lambda tf: tf.random.Generator.from_seed(1).binomial([5], counts=10, probs=0.5),
    lambda tf: tf.random.Generator.from_seed(1).binomial([5], counts=10.0, probs=tf.constant(0.5, tf.float64)),
    lambda tf: tf.random.Generator.from_seed(1).binomial([5], counts=[10.0, 20.0], probs=0.5),
]


@pytest.mark.parametrize("case", ERRORS, ids=range(len(ERRORS)))
def test_errors(case):
    check(case)


# -- random draws in traced graphs ---------------------------------------------------------------------------------
def test_traced_stateful_ops_draw_on_every_run():
    def step(x):
        return x + vtf.random.uniform([3], seed=4), vtf.nn.dropout(x, 0.5, seed=2)

    fn = vfw.function(step)
    x = vtf.constant([1.0, 2.0, 3.0])
    runs = [fn(x) for _ in range(4)]
    assert fn.tracing_count == 1
    firsts = [r[0].numpy() for r in runs]
    assert all(not np.array_equal(a, b) for a, b in zip(firsts, firsts[1:]))
    # the graph's own kernel continues the stream its tracing run started, as a TF graph op does
    vtf.random.set_seed(5)
    stream = np.concatenate([vtf.random.uniform([3], seed=4).numpy() for _ in range(4)])
    vtf.random.set_seed(5)
    fn = vfw.function(lambda x: x + vtf.random.uniform([3], seed=4))
    traced = np.concatenate([fn(x).numpy() - x.numpy() for _ in range(4)])
    np.testing.assert_allclose(traced, stream, rtol=1e-6)


def test_traced_stateless_ops_read_their_seed_input():
    fn = vfw.function(lambda seed: vtf.random.stateless_normal([4], seed) * 2.0)
    for seed in ([1, 2], [3, 4], [1, 2]):
        want = vtf.random.stateless_normal([4], seed).numpy() * 2.0
        np.testing.assert_array_equal(fn(vtf.constant(seed)).numpy(), want)
    assert fn.tracing_count == 1


def test_traced_generator_moves_its_state():
    g = vtf.random.Generator.from_seed(9)
    reference = vtf.random.Generator.from_seed(9)
    fn = vfw.function(lambda: g.normal([3]))
    for _ in range(3):
        np.testing.assert_array_equal(fn().numpy(), reference.normal([3]).numpy())
        np.testing.assert_array_equal(g.state.numpy(), reference.state.numpy())
