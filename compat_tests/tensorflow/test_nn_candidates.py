"""tf.random / tf.nn candidate samplers and compute_accidental_hits against real TF 2.21 (values to the bit)."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, real, vtf
from compat_tests.tensorflow.random_harness import same

TRUE = np.array([[1, 2], [3, 4], [0, 7]], np.int64)
SAMPLERS = ["uniform_candidate_sampler", "log_uniform_candidate_sampler", "learned_unigram_candidate_sampler"]


def _seeded(fn, global_seed=None):
    """``fn`` run after resetting the global seed (so both libraries start their kernels afresh)."""
    def case(tf, *args):
        tf.random.set_seed(global_seed)
        return fn(tf, *args)
    return case


@pytest.mark.parametrize("sampler", SAMPLERS)
@pytest.mark.parametrize("unique", [True, False])
@pytest.mark.parametrize("num_sampled,range_max", [(5, 10), (10, 10), (7, 1000), (40, 64)])
def test_samplers_to_the_bit_over_successive_calls(sampler, unique, num_sampled, range_max):
    def case(tf, true):
        draw = getattr(tf.random, sampler)
        return [draw(true, 2, num_sampled, unique, range_max, seed=17) for _ in range(3)]
    same(_seeded(case, 5), TRUE)


@pytest.mark.parametrize("sampler", SAMPLERS)
def test_samplers_with_global_seed_only(sampler):
    same(_seeded(lambda tf, true: [getattr(tf.random, sampler)(true, 2, 4, True, 30) for _ in range(2)], 123), TRUE)


@pytest.mark.parametrize("unique", [True, False])
@pytest.mark.parametrize("options", [dict(), dict(distortion=0.75), dict(num_reserved_ids=3),
                                     dict(num_shards=3, shard=1, num_reserved_ids=2)])
def test_fixed_unigram(unique, options):
    unigrams = [5.0, 1.0, 0.5, 9.0, 3.0, 2.0, 7.0, 0.25, 4.0, 1.5, 6.0, 8.0]
    ids = np.arange(options.get("num_reserved_ids", 0) + len(unigrams))
    range_max = int(np.count_nonzero(ids % options.get("num_shards", 1) == options.get("shard", 0)))

    def case(tf, true):
        return [tf.random.fixed_unigram_candidate_sampler(true, 2, min(4, range_max), unique, range_max,
                                                          unigrams=unigrams, seed=3, **options) for _ in range(3)]
    same(_seeded(case), TRUE % range_max)


def test_fixed_unigram_large_vocabulary():
    unigrams = list(np.random.default_rng(0).uniform(0, 10, 500).astype(np.float32).astype(float))
    same(_seeded(lambda tf, true: tf.nn.fixed_unigram_candidate_sampler(true, 2, 50, True, 500, unigrams=unigrams,
                                                                         seed=9, distortion=0.5)), TRUE)


def test_all_candidate_sampler():
    same(_seeded(lambda tf, true: [tf.nn.all_candidate_sampler(true, 2, 8, u, seed=1) for u in (True, False)]), TRUE)


def test_result_is_named_tuple():
    result = vtf.random.uniform_candidate_sampler(TRUE, 2, 3, True, 10, seed=1)
    want = real.random.uniform_candidate_sampler(TRUE, 2, 3, True, 10, seed=1)
    assert type(result).__name__ == type(want).__name__ and result._fields == want._fields
    assert vtf.nn.learned_unigram_candidate_sampler is vtf.random.learned_unigram_candidate_sampler
    assert not hasattr(vtf.nn, "uniform_candidate_sampler") and not hasattr(real.nn, "uniform_candidate_sampler")


def test_sampler_in_tf_function_draws_anew():
    def case(tf, true):
        tf.random.set_seed(4)
        f = tf.function(lambda t: tf.random.log_uniform_candidate_sampler(t, 2, 4, True, 20, seed=2))
        return [f(true), f(true)]
    same(case, TRUE)


@pytest.mark.parametrize("args", [
    (np.array([[1, 2]], np.int32), 2, 5, True, 10),   # int32 true classes
    ([1, 2], 2, 5, True, 10),                          # not a matrix
    ([[1, 2]], 3, 5, True, 10),                        # wrong num_true
    ([[1, 2]], 2, 11, True, 10),                       # unique with range too small
    ([[1, 2]], 2, 0, False, 10),
    ([[1, 2]], 2, 3, False, 0),
    ([[1, 2]], 0, 3, False, 5),
    ([[1.0, 2]], 2, 3, False, 5),
    ([[1, 12]], 2, 3, False, 10),                      # true class out of range
    ([[-1, 2]], 2, 3, True, 10),
])
def test_sampler_errors(args):
    check(lambda tf: tf.random.uniform_candidate_sampler(*args, seed=3))


@pytest.mark.parametrize("options", [dict(range_max=5, unigrams=[1.0, 2, 3, 4]), dict(range_max=4),
                                     dict(range_max=4, unigrams=[1.0, 2, 3, 4], vocab_file="x")])
def test_fixed_unigram_errors(options):
    check(lambda tf: tf.random.fixed_unigram_candidate_sampler([[1, 2]], 2, 3, True, seed=3, **options))


@pytest.mark.parametrize("sampler", ["fixed_unigram_candidate_sampler", "all_candidate_sampler"])
def test_true_class_out_of_range(sampler):
    options = dict(range_max=4, unigrams=[1.0, 2, 3, 4]) if sampler.startswith("fixed") else {}
    check(lambda tf: getattr(tf.random, sampler)([[1, 4]], 2, 4, True, seed=3, **options))


@pytest.mark.parametrize("true,sampled,num_true", [
    ([[1, 2], [3, 3]], [3, 1, 1, 5], 2),
    ([[0, 1, 9], [4, 5, 6]], [9, 8, 7], 3),
    ([[1], [2]], [3, 4], 1),
    ([[1, 2], [3, 3]], [3, 1, 1, 5], 3),
    ([[1, 2], [3, 3]], [[3, 1, 1, 5]], 2),
    (np.array([[1, 2]], np.int32), [1], 2),
])
def test_compute_accidental_hits(true, sampled, num_true):
    check(lambda tf: tuple(tf.nn.compute_accidental_hits(true, sampled, num_true)))
