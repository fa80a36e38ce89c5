"""keras.datasets tabular and text loaders: boston_housing, california_housing, imdb, reuters."""

import numpy as np

from vfw.frontends.tensorflow.keras.src.datasets._common import (
    check_test_split,
    drop_long,
    fetch,
    limit_vocabulary,
    offset_words,
    read_json,
    shuffle_with,
    split_regression,
)
from vfw.frontends.tensorflow.keras.src.datasets._safe_pickle import load_npz


def load_boston_housing(path="boston_housing.npz", test_split=0.2, seed=113):
    """Boston housing: ``(x_train, y_train), (x_test, y_test)`` split after a ``seed``-ed shuffle."""
    check_test_split(test_split)
    arrays = load_npz(fetch(path, "f553886a1f8d56431e820c5b82552d9d95cfcb96d1e678153f8839538947dff5",
                            "boston_housing.npz"))
    return split_regression(arrays["x"], arrays["y"], test_split, seed)


def load_california_housing(version="large", path="california_housing.npz", test_split=0.2, seed=113):
    """California housing (``version`` "large": all rows, "small": the first 600), split as boston_housing."""
    check_test_split(test_split)
    arrays = load_npz(fetch(path, "1a2e3a52e0398de6463aebe6f4a8da34fb21fbb6b934cf88c3425e766f2a1a6f",
                            "california_housing.npz"))
    x, y = arrays["x"], arrays["y"]
    if version == "small":
        x, y = x[:600], y[:600]
    elif version != "large":
        raise ValueError(f"Argument `version` must be one of 'small', 'large'. Received: version={version}")
    return split_regression(x, y, test_split, seed)


def load_imdb(path="imdb.npz", num_words=None, skip_top=0, maxlen=None, seed=113, start_char=1, oov_char=2,
              index_from=3, **kwargs):
    """IMDB reviews as word-id lists (object arrays) with 0/1 labels: ``(x_train, y_train), (x_test, y_test)``.

    Both splits are shuffled with one ``RandomState(seed)``; ids are shifted by ``index_from`` after
    ``start_char``; reviews of ``maxlen`` words or more are dropped; ids outside
    ``[skip_top, num_words)`` become ``oov_char`` (or are removed when it is None).
    """
    arrays = load_npz(fetch(path, "69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f", "imdb.npz"))
    rng = np.random.RandomState(seed)
    x_train, labels_train = shuffle_with(rng, arrays["x_train"], arrays["y_train"])
    x_test, labels_test = shuffle_with(rng, arrays["x_test"], arrays["y_test"])
    x_train = offset_words(x_train, start_char, index_from)
    x_test = offset_words(x_test, start_char, index_from)
    if maxlen:
        x_train, labels_train = drop_long(maxlen, x_train, labels_train)
        x_test, labels_test = drop_long(maxlen, x_test, labels_test)
        if not x_train or not x_test:
            raise ValueError(f"After filtering for sequences shorter than maxlen={maxlen}, no sequence was kept. "
                             "Increase maxlen.")
    sequences = limit_vocabulary(x_train + x_test, num_words, skip_top, oov_char)
    labels = np.concatenate([labels_train, labels_test])
    cut = len(x_train)
    return ((np.array(sequences[:cut], dtype="object"), labels[:cut]),
            (np.array(sequences[cut:], dtype="object"), labels[cut:]))


def imdb_word_index(path="imdb_word_index.json"):
    """``{word: id}`` of the IMDB data set (ids before the ``index_from`` shift)."""
    return read_json(fetch(path, "bfafd718b763782e994055a2d397834f", "imdb_word_index.json"))


def load_reuters(path="reuters.npz", num_words=None, skip_top=0, maxlen=None, test_split=0.2, seed=113,
                 start_char=1, oov_char=2, index_from=3):
    """Reuters newswires as word-id lists with 46 topic labels, shuffled with ``seed`` then split at
    ``int(n * (1 - test_split))``; the id options are imdb's."""
    arrays = load_npz(fetch(path, "d6586e694ee56d7a4e65172e12b3e987c03096cb01eab99753921ef915959916", "reuters.npz"))
    sequences, labels = shuffle_with(np.random.RandomState(seed), arrays["x"], arrays["y"])
    sequences = offset_words(sequences, start_char, index_from)
    if maxlen:
        sequences, labels = drop_long(maxlen, sequences, labels)
    sequences = limit_vocabulary(sequences, num_words, skip_top, oov_char)
    cut = int(len(sequences) * (1 - test_split))
    return ((np.array(sequences[:cut], dtype="object"), np.array(labels[:cut])),
            (np.array(sequences[cut:], dtype="object"), np.array(labels[cut:])))


def reuters_word_index(path="reuters_word_index.json"):
    """``{word: id}`` of the Reuters data set."""
    return read_json(fetch(path, "4d44cc38712099c9e383dc6e5f11a921", "reuters_word_index.json"))


REUTERS_LABELS = ("cocoa", "grain", "veg-oil", "earn", "acq", "wheat", "copper", "housing", "money-supply", "coffee",
                  "sugar", "trade", "reserves", "ship", "cotton", "carcass", "crude", "nat-gas", "cpi", "money-fx",
                  "interest", "gnp", "meal-feed", "alum", "oilseed", "gold", "tin", "strategic-metal", "livestock",
                  "retail", "ipi", "iron-steel", "rubber", "heat", "jobs", "lei", "bop", "zinc", "orange", "pet-chem",
                  "dlr", "gas", "silver", "wpi", "hog", "lead")


def reuters_label_names():
    """The 46 Reuters topic names, indexed by label."""
    return REUTERS_LABELS
