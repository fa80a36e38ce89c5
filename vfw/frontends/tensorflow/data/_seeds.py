"""The random streams of tf.data's random datasets (``shuffle``, ``random``), drawn as TF draws them.

Observed against TF 2.21 (and matching its kernels' structure): a random dataset gets the op
seeds ``(seed, seed2)`` of ``tf.random``'s rules when it is created (``get_seed``: the global
seed and an op seed, or a seed drawn from the global seed's Python generator; no seed at all
gives random 64-bit seeds).  Each *iteration* (a new iterator, or a new epoch under ``repeat``)
runs a generator ``Philox(key=s1, counter=s2 << 64)`` read one 32-bit word at a time (the four
words of a block in order).  ``(s1, s2)`` are the op seeds themselves when the order is fixed
across iterations (``reshuffle_each_iteration=False``), else the next two words of the dataset's
own seed generator, ``Philox(key=seed, counter=seed2 << 64)``, which lives as long as the
dataset (so each iteration continues it).
"""

import secrets

import numpy as np

from vfw.frontends.tensorflow import _philox, _random_ops
from vfw.frontends.tensorflow.data import _randomness

_BLOCKS_PER_DRAW = 1024
_MASK64 = (1 << 64) - 1


def words(key, counter_high):
    """The endless stream of 32-bit words (Python ints) of ``Philox(key, counter = counter_high << 64)``."""
    key &= _MASK64
    counter = (counter_high & _MASK64) << 64
    start = 0
    while True:
        block = _philox.blocks(key, counter, np.arange(start, start + _BLOCKS_PER_DRAW, dtype=np.uint64))
        yield from block.reshape(-1).tolist()
        start += _BLOCKS_PER_DRAW


class SeedGenerator:
    """The seeds of a random dataset's iterations.

    Parameters
    ----------
    seed : int or None
        The op seed (``shuffle(seed=...)``).
    reshuffle : bool
        Whether every iteration gets new seeds.
    """

    def __init__(self, seed, reshuffle):
        seeds = _random_ops.get_seed(None if seed is None else int(seed))
        if seeds == (0, 0):  # no seed anywhere: TF seeds the dataset at random
            seeds = (secrets.randbits(64), secrets.randbits(64))
        self._seeds = seeds
        self._generator = words(*seeds) if reshuffle else None

    def iteration_seeds(self):
        """The ``(key, counter_high)`` of the next iteration's word stream: those the iterator being pulled drew
        when it was created (see ``draw_at_creation``), else the next ones."""
        iteration = _randomness.current_iteration()  # {SeedGenerator: [seeds of each opening]} among its state
        if iteration is not None and iteration.get(self):
            return iteration[self].pop(0)
        if self._generator is None:
            return self._seeds
        return next(self._generator), next(self._generator)


def draw_at_creation(dataset, iteration):
    """Draw into ``iteration`` (the new iterator's state) the seeds of the random datasets TF opens along with an
    iterator of ``dataset``.

    TF creates the iterators of a pipeline's inputs when its iterator is created (except the input of ``shuffle``
    and the second part of ``concatenate``, opened when first read), and a random dataset draws its iteration's
    seeds then: an iterator that is created and never read still moves the seeds (Keras' ``fit`` opens the next
    epoch's iterator at the end of each epoch).  vfw's pipelines start when first read, so the seeds are drawn
    here and taken by ``iteration_seeds`` when the pipeline starts.
    """
    pending = [dataset]
    while pending:
        current = pending.pop()
        generator = getattr(current, "_seeds", None)
        if isinstance(generator, SeedGenerator):
            iteration.setdefault(generator, []).append(generator.iteration_seeds())
        pending += current._inputs_opened_with_iterator()
