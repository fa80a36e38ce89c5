"""When a shuffled pipeline draws its seeds, against real TF 2.21: creating an iterator draws the seeds of the
shuffles TF opens with it (inputs of most transformations) even if it is never read, but not those behind a
``shuffle`` or in the second part of a ``concatenate`` (opened when read); Keras' ``fit`` opens the next epoch's
iterator at the end of every epoch, so each epoch of a known-length dataset skips one shuffle order."""

import numpy as np
import pytest

from compat_tests.tensorflow.data_harness import check_value
from compat_tests.tensorflow.harness import real, vtf


def _inner(tf):
    return tf.data.Dataset.range(6).shuffle(10, seed=1)


PIPELINES = [
    ("plain", lambda tf, d: d),
    ("batch", lambda tf, d: d.batch(2)),
    ("map", lambda tf, d: d.map(lambda x: x * 2)),
    ("zip", lambda tf, d: tf.data.Dataset.zip(tf.data.Dataset.range(3), d)),
    ("repeat take", lambda tf, d: d.repeat(2).take(3)),
    ("prefetch cache", lambda tf, d: d.prefetch(2).cache()),
    ("filter", lambda tf, d: d.filter(lambda x: x > 0)),
    ("flat_map", lambda tf, d: d.flat_map(lambda x: tf.data.Dataset.from_tensors(x))),
    ("sample_from_datasets", lambda tf, d: tf.data.Dataset.sample_from_datasets([d, tf.data.Dataset.range(3)],
                                                                               seed=3)),
    ("concatenate first", lambda tf, d: d.concatenate(tf.data.Dataset.range(3))),
    ("concatenate second", lambda tf, d: tf.data.Dataset.range(3).concatenate(d)),
    ("shuffle of shuffle", lambda tf, d: d.shuffle(10, seed=2, reshuffle_each_iteration=False)),
    ("batch of shuffle of shuffle", lambda tf, d: d.shuffle(4, seed=2).batch(2)),
]


@pytest.mark.parametrize("name, wrap", PIPELINES, ids=[p[0] for p in PIPELINES])
def test_an_unread_iterator_draws_the_seeds_tf_draws(name, wrap):
    def build(tf):
        inner = _inner(tf)
        unread = iter(wrap(tf, inner))  # noqa: F841  (created, never read)
        return [list(inner), list(inner), list(wrap(tf, inner))]

    check_value(build)


def test_an_iterator_read_later_keeps_the_seeds_of_its_creation():
    def build(tf):
        dataset = tf.data.Dataset.range(8).shuffle(8, seed=4).batch(3)
        first, second = iter(dataset), iter(dataset)
        return [list(second), list(first), list(dataset)]

    check_value(build)


@pytest.mark.parametrize("cardinality", ["known", "unknown"])
def test_fit_epochs_over_a_shuffled_dataset_see_keras_orders(cardinality):
    """Each epoch's first labels and the order a later plain iteration gives, after ``fit``."""
    def run(tf):
        tf.keras.utils.set_random_seed(5)
        dataset = tf.data.Dataset.range(16).shuffle(100, seed=5)
        if cardinality == "unknown":
            dataset = dataset.filter(lambda x: x >= 0)
        dataset = dataset.batch(4, drop_remainder=True)
        seen = []

        class Recorder(tf.keras.Model):
            def train_step(self, data):
                seen.append(int(data[1][0, 0]))
                return {"zero": tf.constant(0.0)}

        model = Recorder()
        model.compile(run_eagerly=True)
        as_pairs = dataset.map(lambda x: (tf.cast(x, "float32")[:, None], tf.cast(x, "float32")[:, None]))
        model.fit(as_pairs, epochs=3, verbose=0)
        return seen, [int(batch[0]) for batch in dataset]

    want, got = run(real), run(vtf)
    assert got == want
    np.testing.assert_equal(len(want[0]), 12)
