"""tf.keras.preprocessing.sequence.skipgrams against real TF 2.21's tf.keras: the same pairs and labels from the
same Python ``random`` state (window, sampling table, negatives, seeded and unseeded shuffles, categorical labels)."""

import random

import pytest

from compat_tests.keras.building_blocks_harness import same

SEQUENCE = [3, 0, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 0, 8]


@pytest.mark.parametrize("kwargs", [
    {},
    {"window_size": 1, "negative_samples": 0.0, "shuffle": False},
    {"window_size": 2, "negative_samples": 2.5, "seed": 11},
    {"categorical": True, "negative_samples": 0.5, "seed": 3},
    {"sampling_table": "table", "window_size": 3},
])
def test_skipgrams(kwargs):
    def fn(lib):
        sequence = lib.tf.keras.preprocessing.sequence
        args = dict(kwargs)
        if args.get("sampling_table") == "table":
            args["sampling_table"] = sequence.make_sampling_table(10, sampling_factor=0.05)
        random.seed(5)  # skipgrams draws from Python's global generator
        couples, labels = sequence.skipgrams(SEQUENCE, 10, **args)
        return couples, labels, random.random()

    same(fn)


def test_skipgrams_of_empty_and_non_word_sequences():
    same(lambda lib: [lib.tf.keras.preprocessing.sequence.skipgrams(s, 5, seed=1) for s in ([], [0, 0], [2])])
