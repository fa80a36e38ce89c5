"""``Dataset.rejection_resample``: a dataset resampled towards a target class distribution.

As TF 2.21 does it, with other datasets: elements are kept with a per-class acceptance probability worked out from
the initial distribution (given, or estimated from the classes seen so far, in batches of 32 with 10 pseudo-counts
per class), and mixed with the unfiltered dataset, chosen with probability ``min(target / initial)``, which keeps
as many elements as possible.  Outputs are ``(class, element)`` pairs.  The random draws are vfw's, so the kept
elements are TF's in distribution, not one by one (a target equal to the initial distribution keeps every element;
one that needs no original draw only filters).
"""

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.data._dataset import Dataset

_ESTIMATION_BATCH = 32
_PSEUDO_COUNTS = 10


def _acceptance(initial, target):
    """Per-class acceptance probabilities and the probability of drawing from the unfiltered dataset."""
    ratios = target / (initial + np.finfo(np.float32).tiny)  # a tiny term keeps empty classes finite
    lowest, highest = tf.reduce_min(ratios), tf.reduce_max(ratios)
    return (ratios - lowest) / (highest - lowest), lowest


def _estimated_initial(target, classes):
    """A dataset of the running class-frequency estimate, updated every ``_ESTIMATION_BATCH`` classes."""
    num_classes = target.shape[0]

    def update(counts, batch_classes):
        counts = counts + tf.reduce_sum(tf.one_hot(batch_classes, num_classes, dtype=tf.int64), 0)
        estimate = tf.cast(counts / tf.reduce_sum(counts), tf.float32)
        return counts, tf.tile(estimate[None], [_ESTIMATION_BATCH, 1])

    start = tf.fill([num_classes], np.int64(_PSEUDO_COUNTS))
    return classes.batch(_ESTIMATION_BATCH).scan(start, update).unbatch()


def _class_of(class_func, element):
    return class_func(*element) if isinstance(element, tuple) else class_func(element)


def rejection_resample(dataset, class_func, target_dist, initial_dist=None, seed=None):
    """``(class_func(element), element)`` pairs of ``dataset`` resampled towards ``target_dist``.

    Parameters
    ----------
    dataset : Dataset
    class_func : callable
        element -> scalar int32 class in ``[0, num_classes)``.
    target_dist : array-like
        ``[num_classes]`` target probabilities.
    initial_dist : array-like, optional
        The dataset's class probabilities; estimated on the fly when None.
    seed : int, optional

    Returns
    -------
    Dataset
    """
    target = tf.cast(tf.convert_to_tensor(target_dist), tf.float32)
    if initial_dist is not None:
        initial = tf.cast(tf.convert_to_tensor(initial_dist), tf.float32)
        accept, original = _acceptance(initial, target)
        accept_ds = Dataset.from_tensors(accept).repeat()
        original_ds = Dataset.from_tensors(original).repeat()
        # fixed distributions: TF skips a side whose draw probability is exactly 1 or 0
        original_static = float(np.min(target.numpy() / initial.numpy()))
    else:
        estimates = _estimated_initial(target, dataset.map(class_func))
        mixing_ds = estimates.map(lambda initial: _acceptance(initial, target))
        accept_ds = mixing_ds.map(lambda accept, _: accept)
        original_ds = mixing_ds.map(lambda _, original: original)
        original_static = None

    def with_acceptance(accept, element):
        class_value = _class_of(class_func, element)
        return class_value, tf.gather(accept, class_value), element

    def kept(class_value, probability, element):
        return tf.random.uniform([], seed=seed, dtype=probability.dtype) < probability

    filtered = (Dataset.zip((accept_ds, dataset)).map(with_acceptance).filter(kept)
                .map(lambda class_value, _, element: (class_value, element)).prefetch(3))

    def with_class(*element):
        element = element if len(element) > 1 else element[0]
        return _class_of(class_func, element), element

    if original_static == 1:
        return dataset.map(with_class)
    if original_static == 0:
        return filtered
    # each element from the unfiltered dataset with probability ``original`` (TF samples the two datasets
    # with weights ``(original, 1 - original)``), stopping when either runs out
    choices = original_ds.map(lambda p: tf.cast(tf.random.uniform([], seed=seed) >= p, tf.int64))
    return Dataset.choose_from_datasets([dataset.map(with_class), filtered], choices, stop_on_empty_dataset=True)
