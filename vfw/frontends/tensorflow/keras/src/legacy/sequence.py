"""``tf.keras.preprocessing.sequence``: ``pad_sequences`` (keras.utils'), ``make_sampling_table``,
``skipgrams`` and ``TimeseriesGenerator``."""

import random

import numpy as np

from vfw.frontends.tensorflow.keras.src.utils.data import PyDataset
from vfw.frontends.tensorflow.keras.src.utils.numerical import pad_sequences  # noqa: F401  (re-exported)

_EULER_GAMMA = 0.577


def make_sampling_table(size, sampling_factor=1e-05):
    """Probabilities of keeping the word of each frequency rank ``0..size-1`` in skip-gram sampling, for
    Zipf-distributed words: ``min(1, sqrt(sampling_factor / frequency))`` with the frequency of rank ``r``
    approximated by ``1 / (r (ln r + gamma) + 1/2 - 1/(12 r))`` (rank 0 counts as rank 1)."""
    rank = np.arange(size)
    rank[0] = 1
    inverse_frequency = rank * (np.log(rank) + _EULER_GAMMA) + 0.5 - 1.0 / (12.0 * rank)
    scaled = sampling_factor * inverse_frequency
    return np.minimum(1.0, scaled / np.sqrt(scaled))


def skipgrams(sequence, vocabulary_size, window_size=4, negative_samples=1.0, shuffle=True, categorical=False,
              sampling_table=None, seed=None):
    """Skip-gram training pairs of a sequence of word ids, as tf.keras' legacy ``skipgrams``.

    Parameters
    ----------
    sequence : list of int
        Word ids; id 0 is a non-word and is skipped.
    vocabulary_size : int
        Largest word id + 1 (negative contexts are drawn from ``1..vocabulary_size-1``).
    window_size : int
        Half-width of the context window.
    negative_samples : float
        Number of negative pairs per positive pair (0: none).
    shuffle : bool
        Shuffle the pairs and their labels with the same permutation.
    categorical : bool
        Labels ``[0, 1]`` / ``[1, 0]`` instead of ``1`` / ``0``.
    sampling_table : array of float, optional
        Probability of keeping each word as a target (see ``make_sampling_table``).
    seed : int, optional
        Seed of the final shuffle.

    Returns
    -------
    (couples, labels)
        ``couples``: list of ``[target, context]``; ``labels``: 1 for a context word of the window, 0 for a random
        one.

    Notes
    -----
    Draws from Python's global ``random`` generator, in Keras' order (one ``random()`` per kept-or-dropped target,
    a shuffle of the targets for the negatives, one ``randint`` per negative, a reseeded shuffle of couples and of
    labels), so ``keras.utils.set_random_seed`` reproduces Keras' pairs.
    """
    positive, negative = ([0, 1], [1, 0]) if categorical else (1, 0)
    couples = []
    for position, target in enumerate(sequence):
        if not target:
            continue
        if sampling_table is not None and sampling_table[target] < random.random():
            continue
        window = range(max(0, position - window_size), min(len(sequence), position + window_size + 1))
        couples += [[target, sequence[other]] for other in window if other != position and sequence[other]]
    labels = [positive] * len(couples)
    if negative_samples > 0:
        count = int(len(labels) * negative_samples)
        targets = [couple[0] for couple in couples]
        random.shuffle(targets)
        couples += [[targets[i % len(targets)], random.randint(1, vocabulary_size - 1)] for i in range(count)]
        labels += [negative] * count
    if shuffle:
        if seed is None:
            seed = random.randint(0, 10_000_000)
        for pairs in (couples, labels):  # the same permutation for both: reseed before each shuffle
            random.seed(seed)
            random.shuffle(pairs)
    return couples, labels


class TimeseriesGenerator(PyDataset):
    """Batches of windows of a time series and the target following each window (tf.keras' legacy API).

    The sample ending at row ``i`` (exclusive) is ``data[i - length:i:sampling_rate]`` with target ``targets[i]``;
    rows run from ``start_index + length`` to ``end_index`` (inclusive) every ``stride`` steps.

    Parameters
    ----------
    data : indexable
        Time steps along the first axis.
    targets : indexable
        Same length as ``data``.
    length : int
        Window length in time steps (before sampling).
    sampling_rate : int
    stride : int
    start_index, end_index : int
        First and last usable rows (``end_index`` defaults to the last row).
    shuffle : bool
        Each batch draws ``batch_size`` rows at random (``np.random.randint``) instead of the next rows in order.
    reverse : bool
        Time steps of each sample in reverse order.
    batch_size : int
    **kwargs
        ``PyDataset``'s ``workers``, ``use_multiprocessing``, ``max_queue_size``.
    """

    def __init__(self, data, targets, length, sampling_rate=1, stride=1, start_index=0, end_index=None,
                 shuffle=False, reverse=False, batch_size=128, **kwargs):
        super().__init__(**kwargs)
        if len(data) != len(targets):
            raise ValueError(f"Data and targets have to be of same length. Data length is {len(data)} while target "
                             f"length is {len(targets)}")
        self.data = data
        self.targets = targets
        self.length = length
        self.sampling_rate = sampling_rate
        self.stride = stride
        self.start_index = start_index + length
        self.end_index = len(data) - 1 if end_index is None else end_index
        self.shuffle = shuffle
        self.reverse = reverse
        self.batch_size = batch_size
        if self.start_index > self.end_index:
            raise ValueError(f"`start_index+length={self.start_index} > end_index={self.end_index}` is disallowed, as "
                             "no part of the sequence would be left to be used as current step.")

    def __len__(self):
        rows_per_batch = self.batch_size * self.stride
        return (self.end_index - self.start_index + rows_per_batch) // rows_per_batch

    def __getitem__(self, index):
        if self.shuffle:
            rows = np.random.randint(self.start_index, self.end_index + 1, size=self.batch_size)
        else:
            first = self.start_index + self.batch_size * self.stride * index
            rows = np.arange(first, min(first + self.batch_size * self.stride, self.end_index + 1), self.stride)
        samples = np.array([self.data[row - self.length:row:self.sampling_rate] for row in rows])
        targets = np.array([self.targets[row] for row in rows])
        return (samples[:, ::-1, ...] if self.reverse else samples), targets
