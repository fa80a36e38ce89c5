"""What several Keras data set loaders share: the download folder URL, the seeded train/test split and the
integer-sequence post-processing of IMDB and Reuters."""

import json

import numpy as np

from vfw.frontends.tensorflow.keras.src.utils.file_utils import get_file

ORIGIN_FOLDER = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"


def fetch(fname, file_hash=None, origin_name=None):
    """The cached path of ``fname`` downloaded from Keras' data set bucket (``origin_name`` there)."""
    return get_file(fname=fname, origin=f"{ORIGIN_FOLDER}{origin_name or fname}", file_hash=file_hash)


def check_test_split(test_split):
    """ValueError unless ``0 <= test_split < 1``."""
    if not 0 <= test_split < 1:
        raise ValueError(f"Invalid `test_split` argument: {test_split}. It must be between 0 and 1 (exclusive of 1).")


def shuffled(seed, *arrays):
    """``arrays`` reordered by one permutation drawn from ``np.random.RandomState(seed)``."""
    return shuffle_with(np.random.RandomState(seed), *arrays)


def shuffle_with(rng, *arrays):
    """``arrays`` reordered by one permutation drawn from ``rng`` (``RandomState.shuffle`` of an arange)."""
    order = np.arange(len(arrays[0]))
    rng.shuffle(order)
    return tuple(array[order] for array in arrays)


def split_regression(x, y, test_split, seed):
    """Keras' housing split: shuffle with ``seed``, the first ``int(n * (1 - test_split))`` rows train."""
    x, y = shuffled(seed, x, y)
    cut = int(len(x) * (1 - test_split))
    return (np.array(x[:cut]), np.array(y[:cut])), (np.array(x[cut:]), np.array(y[cut:]))


def offset_words(sequences, start_char, index_from):
    """Lists of word ids shifted by ``index_from``, each led by ``start_char`` when it is not None."""
    lead = [] if start_char is None else [start_char]
    return [lead + [word + index_from for word in sequence] for sequence in sequences]


def drop_long(maxlen, sequences, labels):
    """The sequences shorter than ``maxlen`` and their labels."""
    kept = [(sequence, label) for sequence, label in zip(sequences, labels) if len(sequence) < maxlen]
    return [sequence for sequence, _ in kept], [label for _, label in kept]


def limit_vocabulary(sequences, num_words, skip_top, oov_char):
    """Ids outside ``[skip_top, num_words)`` become ``oov_char`` (dropped when it is None)."""
    if not num_words:
        num_words = max(max(sequence) for sequence in sequences)
    if oov_char is not None:
        return [[w if skip_top <= w < num_words else oov_char for w in sequence] for sequence in sequences]
    return [[w for w in sequence if skip_top <= w < num_words] for sequence in sequences]


def read_json(path):
    """The JSON document in the file at ``path``."""
    with open(path) as stream:
        return json.load(stream)
