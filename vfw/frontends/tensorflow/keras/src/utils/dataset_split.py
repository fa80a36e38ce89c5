"""``keras.utils.split_dataset``: a dataset cut into a left and a right ``tf.data.Dataset``, as Keras 3 splits it.

The samples are listed first (a batched ``tf.data.Dataset`` is unbatched, and both parts are batched again with
its batch size); ``shuffle`` shuffles the list with Python's ``random`` seeded with ``seed`` (Keras' order); the
left part is the first ``left_size`` samples and the right part the last ``right_size``.  Fractions are rounded
to counts with Python's ``round``.
"""

import random

import numpy as np

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.data._batching import BatchDataset


def _samples(dataset):
    """``(list of samples, batch size or None)`` of a dataset, an array, or a tuple/list of arrays."""
    if isinstance(dataset, tf.data.Dataset):
        batched = isinstance(dataset, BatchDataset)
        size = dataset._size if batched else None
        return list(dataset.unbatch() if batched else dataset), size
    if isinstance(dataset, np.ndarray) or tf.is_tensor(dataset):
        return list(np.asarray(dataset)), None
    if isinstance(dataset, (list, tuple)):
        for index, item in enumerate(dataset):
            if not isinstance(item, np.ndarray) and not tf.is_tensor(item):
                raise ValueError(f"Expected a list of `numpy.ndarray` objects,Received: {type(item)} at index "
                                 f"{index}.")
        arrays = [np.asarray(item) for item in dataset]
        return list(zip(*arrays)), None
    raise TypeError(f"Unsupported dataset type: {type(dataset)}")


def _check_size(name, value, total):
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"Invalid `{name}` Type. Expected: int or float or None, Received: type({name})="
                        f"{type(value)}.  ")
    if (isinstance(value, int) and not 0 < value < total) or (isinstance(value, float) and not 0 < value < 1):
        raise ValueError(f"`{name}` should be either a positive integer smaller than {total}, or a float within "
                         f"the range `[0, 1]`. Received: {name}={value}")


def _split_sizes(total, left_size, right_size):
    """The sample counts of the two parts, with Keras' checks and errors."""
    _check_size("left_size", left_size, total)
    _check_size("right_size", right_size, total)
    if left_size is None and right_size is None:
        raise ValueError("At least one of the `left_size` or `right_size` must be specified. Received: "
                         "left_size=None and right_size=None")

    def count(value):
        return round(value * total) if isinstance(value, float) else value

    left = count(left_size) if left_size is not None else total - count(right_size)
    right = count(right_size) if right_size is not None else total - left
    if left + right > total:
        raise ValueError(f"The sum of `left_size` and `right_size` should be smaller than the {total}. Received: "
                         f"left_size + right_size = {float(left + right)}and total_length = {total}")
    for side, size in (("left", left), ("right", right)):
        if size == 0:
            raise ValueError(f"With `dataset` of length={total}, `left_size`={left} and `right_size`={right}."
                             f"Resulting {side} side dataset split will be empty. Adjust any of the aforementioned "
                             f"parameters")
    return left, right


def _restored(samples, batch_size):
    """A ``tf.data.Dataset`` of ``samples`` (tuples and dicts stacked per component), batched again if needed."""
    first = samples[0]
    if isinstance(first, tuple):
        dataset = tf.data.Dataset.from_tensor_slices(tuple(np.stack([np.asarray(s[i]) for s in samples])
                                                           for i in range(len(first))))
    elif isinstance(first, dict):
        dataset = tf.data.Dataset.from_tensor_slices({k: np.stack([np.asarray(s[k]) for s in samples])
                                                      for k in first})
    else:
        dataset = tf.data.Dataset.from_tensor_slices(samples)
    if batch_size is not None:
        dataset = dataset.batch(batch_size)
    return dataset.prefetch(tf.data.AUTOTUNE)


def split_dataset(dataset, left_size=None, right_size=None, shuffle=False, seed=None, preferred_backend=None):
    """Split a dataset into two.

    Parameters
    ----------
    dataset : tf.data.Dataset, numpy array, tensor, or a list/tuple of arrays (split along their first axis)
    left_size, right_size : int or float, optional
        Sample count (``0 < n < len``) or fraction (``0 < f < 1``) of each part; a missing one takes the rest.
    shuffle : bool
        Shuffle the samples first (Python's ``random`` seeded with ``seed``; a random seed when None).
    seed : int, optional
    preferred_backend : str, optional
        Accepted; both parts are ``tf.data.Dataset``s.

    Returns
    -------
    (tf.data.Dataset, tf.data.Dataset)
    """
    samples, batch_size = _samples(dataset)
    left, right = _split_sizes(len(samples), left_size, right_size)
    if shuffle:
        random.seed(random.randint(0, int(1e6)) if seed is None else seed)
        random.shuffle(samples)
    return _restored(samples[:left], batch_size), _restored(samples[len(samples) - right:], batch_size)


API = {"utils": ["split_dataset"]}
