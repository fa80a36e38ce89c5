"""When ``Dataset.cache()`` keeps an iteration, against real TF 2.21: an iterator that takes every element (without
asking for the end, as Keras' ``fit`` takes ``cardinality`` batches per epoch) completes the cache, one left well
short of the end is discarded, so a cached shuffle replays its first order or reshuffles as in TF."""

import gc

import numpy as np
import pytest

from compat_tests.tensorflow.data_harness import check_value, no_global_seed  # noqa: F401
from compat_tests.tensorflow.harness import real, vtf

PIPELINES = {
    "shuffled range": lambda tf: tf.data.Dataset.range(10).shuffle(10, seed=16).cache(),
    "shuffled slices, batched": lambda tf: tf.data.Dataset.from_tensor_slices(np.arange(10)).shuffle(10, seed=16)
    .batch(3).cache(),
    "batched, mapped": lambda tf: tf.data.Dataset.from_tensor_slices(np.arange(10)).shuffle(10, seed=16).batch(3)
    .map(lambda v: v * 2).cache().prefetch(tf.data.AUTOTUNE),
    "unknown cardinality": lambda tf: tf.data.Dataset.range(10).shuffle(10, seed=16).filter(lambda v: v < 8).cache(),
}
SIZES = {"shuffled range": 10, "shuffled slices, batched": 4, "batched, mapped": 4, "unknown cardinality": 8}


def _reads(build, taken):
    def run(tf):
        dataset = build(tf)
        iterator = iter(dataset)
        first = [next(iterator).numpy().tolist() for _ in range(taken)]
        del iterator
        gc.collect()  # TF's iterators sit in reference cycles: end the first one before the next iteration starts
        return first, [v.numpy().tolist() for v in dataset], [v.numpy().tolist() for v in dataset]
    return run


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_taking_every_element_completes_the_cache(name):
    check_value(_reads(PIPELINES[name], SIZES[name]))


@pytest.mark.parametrize("name", ["shuffled range", "unknown cardinality"])
def test_an_iteration_left_short_is_discarded(name):
    # Real TF is not deterministic here: about one run in 20 its next iteration replays the first shuffle order
    # instead of reshuffling (measured with TF 2.21, with and without a pause after the first iterator ends).
    # vfw must give one of the outcomes TF gives; its usual one shows up in practically every 5 TF runs.
    reads = _reads(PIPELINES[name], SIZES[name] - 4)
    outcomes = [reads(real) for _ in range(5)]
    assert reads(vtf) in outcomes, f"vfw: {reads(vtf)}; tf: {outcomes}"


def test_a_global_seed_and_keras_fit_style_epochs():
    def run(tf):
        tf.random.set_seed(3)
        dataset = tf.data.Dataset.from_tensor_slices(np.arange(12)).shuffle(12, seed=1).batch(5).cache()
        epochs = []
        for _ in range(3):
            iterator = iter(dataset)
            epochs.append([next(iterator).numpy().tolist() for _ in range(int(dataset.cardinality()))])
        return epochs
    check_value(run)
