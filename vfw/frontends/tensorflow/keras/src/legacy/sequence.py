"""``tf.keras.preprocessing.sequence``: ``pad_sequences`` (keras.utils') and ``make_sampling_table``."""

import numpy as np

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
