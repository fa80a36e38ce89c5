"""tf.data order and amount against real TF 2.21: take, skip, repeat, shard, cache, prefetch, options,
cardinalities, and shuffle's exact seeded orders (op seeds, global seeds, reshuffling, buffers, repeats)."""

import numpy as np
import pytest

from compat_tests.tensorflow.data_harness import check_dataset, check_value, no_global_seed  # noqa: F401
from compat_tests.tensorflow.harness import real, vtf


def _range(tf, *args):
    return tf.data.Dataset.range(*args)


def _unknown(tf, n):
    return _range(tf, n).filter(lambda x: x >= 0)


AMOUNTS = [
    ("take", lambda tf: _range(tf, 10).take(3)),
    ("take more", lambda tf: _range(tf, 10).take(30)),
    ("take -1", lambda tf: _range(tf, 10).take(-1)),
    ("take 0", lambda tf: _range(tf, 10).take(0)),
    ("take float", lambda tf: _range(tf, 10).take(1.5)),
    ("skip", lambda tf: _range(tf, 10).skip(3)),
    ("skip more", lambda tf: _range(tf, 10).skip(30)),
    ("skip -1", lambda tf: _range(tf, 10).skip(-1)),
    ("repeat", lambda tf: _range(tf, 3).repeat(2)),
    ("repeat forever", lambda tf: _range(tf, 3).repeat()),
    ("repeat -1", lambda tf: _range(tf, 3).repeat(-1)),
    ("repeat 0", lambda tf: _range(tf, 3).repeat(0)),
    ("repeat empty forever", lambda tf: _range(tf, 0).repeat()),
    ("repeat unknown", lambda tf: _unknown(tf, 3).repeat(2)),
    ("repeat unknown forever", lambda tf: _unknown(tf, 3).repeat()),
    ("infinite take", lambda tf: _range(tf, 3).repeat().take(7)),
    ("infinite skip", lambda tf: _range(tf, 3).repeat().skip(5)),
    ("unknown take", lambda tf: _unknown(tf, 5).take(3)),
    ("unknown skip", lambda tf: _unknown(tf, 5).skip(3)),
    ("shard", lambda tf: _range(tf, 10).shard(3, 1)),
    ("shard first", lambda tf: _range(tf, 10).shard(3, 0)),
    ("shard unknown", lambda tf: _unknown(tf, 10).shard(4, 3)),
    ("shard infinite", lambda tf: _range(tf, 4).repeat().shard(3, 2)),
    ("shard bad index", lambda tf: _range(tf, 10).shard(3, 3)),
    ("shard bad count", lambda tf: _range(tf, 10).shard(0, 0)),
    ("prefetch", lambda tf: _range(tf, 4).prefetch(2)),
    ("prefetch autotune", lambda tf: _range(tf, 4).prefetch(tf.data.AUTOTUNE)),
    ("prefetch bad", lambda tf: _range(tf, 4).prefetch(-2)),
    ("cache", lambda tf: _range(tf, 4).cache()),
    ("cache repeat", lambda tf: _range(tf, 4).map(lambda x: x * 3).cache().repeat(2)),
    ("skip take of slices", lambda tf: tf.data.Dataset.from_tensor_slices(np.arange(20).reshape(10, 2)).skip(2)
     .take(5)),
    ("take of repeated slices", lambda tf: tf.data.Dataset.from_tensor_slices([1, 2, 3]).repeat().skip(2).take(7)),
]


@pytest.mark.parametrize("build", [b for _, b in AMOUNTS], ids=[n for n, _ in AMOUNTS])
def test_take_skip_repeat_shard_cache(build):
    check_dataset(build, limit=12)


def test_cache_keeps_the_first_complete_iteration():
    # A cached shuffle: the first full iteration is recorded, and replayed afterwards.
    check_value(lambda tf: (lambda d: [list(d), list(d)])(_range(tf, 6).shuffle(6, seed=2).cache()))
    check_value(lambda tf: (lambda d: [list(d.take(3)), list(d), list(d)])(_range(tf, 6).shuffle(6, seed=2).cache()))
    check_value(lambda tf: list(_range(tf, 6).shuffle(6, seed=2).cache().repeat(3)))
    check_value(lambda tf: list(_range(tf, 6).shuffle(6, seed=2).cache().batch(4).repeat(2)))


def test_cache_reads_a_generator_once():
    calls = {}
    for tf in (real, vtf):
        count = []

        def generator(count=count):
            count.append(1)
            yield from range(3)

        dataset = tf.data.Dataset.from_generator(generator, output_signature=tf.TensorSpec([], tf.int64)).cache()
        list(dataset)
        list(dataset)
        calls[tf] = len(count)
    assert calls[vtf] == calls[real]


def test_options():
    def options(tf):
        opts = tf.data.Options()
        opts.deterministic = False
        opts.threading.private_threadpool_size = 4
        opts.experimental_optimization.map_parallelization = True
        return opts

    check_value(lambda tf: _range(tf, 3).with_options(options(tf)).options().deterministic)
    check_value(lambda tf: _range(tf, 3).with_options(options(tf)).map(lambda x: x).options().threading
                .private_threadpool_size)
    check_value(lambda tf: _range(tf, 3).options().deterministic)
    check_value(lambda tf: _range(tf, 3).with_options(options(tf)))
    check_value(lambda tf: options(tf).experimental_deterministic)
    check_value(lambda tf: setattr(tf.data.Options(), "foo", 1))
    check_value(lambda tf: _range(tf, 3).with_options(1))

    def merged(tf):
        first, second = tf.data.Options(), tf.data.Options()
        first.deterministic = True
        first.experimental_slack = True
        second.deterministic = False
        return [first.merge(second).deterministic, first.merge(second).experimental_slack]

    check_value(merged)


SHUFFLES = [
    ("seed", lambda tf: _range(tf, 10).shuffle(10, seed=1)),
    ("small buffer", lambda tf: _range(tf, 10).shuffle(3, seed=1)),
    ("buffer 1", lambda tf: _range(tf, 10).shuffle(1, seed=5)),
    ("big buffer", lambda tf: _range(tf, 10).shuffle(1000, seed=9)),
    ("unknown buffer", lambda tf: _range(tf, 10).shuffle(tf.data.UNKNOWN_CARDINALITY, seed=9)),
    ("no reshuffle", lambda tf: _range(tf, 7).shuffle(5, seed=3, reshuffle_each_iteration=False).repeat(3)),
    ("reshuffle repeat", lambda tf: _range(tf, 7).shuffle(5, seed=3).repeat(3)),
    ("take then repeat", lambda tf: _range(tf, 7).shuffle(3, seed=3).take(4).repeat(2)),
    ("repeat then shuffle", lambda tf: _range(tf, 4).repeat(3).shuffle(5, seed=3)),
    ("shuffle twice", lambda tf: _range(tf, 4).shuffle(5, seed=3).repeat(3).shuffle(2, seed=1)),
    ("seed 0", lambda tf: _range(tf, 8).shuffle(8, seed=0)),
    ("large seed", lambda tf: _range(tf, 8).shuffle(8, seed=2 ** 40 + 3)),
    ("of map", lambda tf: _range(tf, 12).map(lambda x: x * x).shuffle(6, seed=11)),
    ("of tuples", lambda tf: tf.data.Dataset.from_tensor_slices((np.arange(9), np.arange(9.0))).shuffle(4, seed=2)),
    ("infinite", lambda tf: _range(tf, 5).repeat().shuffle(3, seed=2)),
    ("batched", lambda tf: tf.data.Dataset.from_tensor_slices(np.arange(50)).shuffle(50, seed=7).batch(8)),
    ("batched small buffer", lambda tf: tf.data.Dataset.from_tensor_slices(np.arange(50)).shuffle(7, seed=7).batch(8)),
    ("batched repeated", lambda tf: tf.data.Dataset.from_tensor_slices(np.arange(10)).shuffle(10, seed=7).repeat(
        2).batch(3)),
    ("buffer 0", lambda tf: _range(tf, 4).shuffle(0)),
    ("buffer -3", lambda tf: _range(tf, 4).shuffle(-3)),
]


@pytest.mark.parametrize("build", [b for _, b in SHUFFLES], ids=[n for n, _ in SHUFFLES])
def test_shuffle_order_matches_tf(build):
    check_dataset(build, limit=40)


def test_shuffle_iterations_continue_the_seed_stream():
    check_value(lambda tf: (lambda d: [list(d), list(d), list(d)])(_range(tf, 7).shuffle(7, seed=3)))
    check_value(lambda tf: (lambda d: [list(d), list(d)])(_range(tf, 7).shuffle(7, seed=3).batch(3)))
    check_value(lambda tf: (lambda d: [list(d), list(d)])(_range(tf, 7).shuffle(
        7, seed=3, reshuffle_each_iteration=False)))


@pytest.mark.parametrize("global_seed", [5, 1234])
def test_shuffle_with_the_global_seed(global_seed):
    def build(tf):
        tf.random.set_seed(global_seed)
        first = _range(tf, 10).shuffle(4)
        tf.random.uniform([])  # draws an op seed from the global seed's generator, as shuffle does
        second = _range(tf, 10).shuffle(100)
        third = _range(tf, 6).shuffle(6, seed=3, reshuffle_each_iteration=False)
        return [list(first), list(second), list(third), list(third)]

    check_value(build)


def test_unseeded_shuffle_is_a_permutation():
    dataset = vtf.data.Dataset.range(50).shuffle(20)
    orders = [[int(x) for x in dataset] for _ in range(2)]
    for order in orders:
        assert sorted(order) == list(range(50))
    assert orders[0] != orders[1]


def test_experimental_shuffle_and_repeat():
    check_dataset(lambda tf: _range(tf, 5).apply(tf.data.experimental.shuffle_and_repeat(3, count=2, seed=4)))


def test_assert_cardinality():
    check_dataset(lambda tf: _unknown(tf, 4).apply(tf.data.experimental.assert_cardinality(4)))
    check_dataset(lambda tf: _unknown(tf, 4).apply(tf.data.experimental.assert_cardinality(3)))
    check_dataset(lambda tf: _unknown(tf, 4).apply(tf.data.experimental.assert_cardinality(6)))


def test_training_over_a_shuffled_dataset_follows_tf():
    """Batches come in TF's seeded order, so a training loop over them ends with TF's weights."""
    rng = np.random.default_rng(0)
    x = rng.random((96, 4), dtype=np.float32)
    y = (x.sum(1) > 2).astype(np.float32)
    results = []
    for tf in (real, vtf):
        dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(40, seed=1).batch(16).repeat(2)
        w = tf.Variable(np.zeros((4, 1), np.float32))
        for a, b in dataset:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((tf.squeeze(tf.matmul(a, w), 1) - b) ** 2)
            w.assign_sub(0.5 * tape.gradient(loss, w))
        results.append(w.numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-5, atol=1e-6)
