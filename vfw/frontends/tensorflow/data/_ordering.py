"""Transformations of order and amount: take, skip, repeat, shuffle, shard, cache, prefetch, unique,
ignore_errors, with_options, assert_cardinality.

Those that keep elements as they are also keep the table fast path (``_tables``): over a table
dataset they transform index chunks instead of elements.
"""

import itertools
import sys

import numpy as np

from vfw.frontends.tensorflow import _dispatch, _dtypes, errors
from vfw.frontends.tensorflow.data import _seeds, _tables
from vfw.frontends.tensorflow.data._dataset import INFINITE, UNKNOWN, Dataset, int64_argument

IGNORING_ERRORS = [0]  # > 0 while an ignore_errors dataset pulls an element: functions drop failing elements


class _Transformation(Dataset):
    """A dataset of the same elements as its input (in some order or amount): same spec and table."""

    def __init__(self, input_dataset, cardinality):
        self._input = input_dataset
        super().__init__(input_dataset._structure, cardinality, input_dataset._table, inputs=[input_dataset])


class _PassThrough(_Transformation):
    """The input's elements unchanged."""

    def __init__(self, input_dataset):
        super().__init__(input_dataset, input_dataset._cardinality)

    def _indices(self):
        return self._input._indices()

    def _iterate(self):
        return self._input._iterate()


class TakeDataset(_Transformation):
    _tf_name = "_TakeDataset"

    def __init__(self, input_dataset, count):
        self._count = int64_argument(count, "count")
        n = input_dataset._cardinality
        if self._count < 0 or n == UNKNOWN:
            cardinality = n
        else:
            cardinality = self._count if n == INFINITE else min(n, self._count)
        super().__init__(input_dataset, cardinality)

    def _indices(self):
        chunks = self._input._indices()
        return chunks if self._count < 0 else _tables.take(chunks, self._count)

    def _iterate(self):
        elements = self._input._elements()
        return elements if self._count < 0 else itertools.islice(elements, self._count)


class SkipDataset(_Transformation):
    _tf_name = "_SkipDataset"

    def __init__(self, input_dataset, count):
        self._count = int64_argument(count, "count")
        n = input_dataset._cardinality
        if n in (INFINITE, UNKNOWN):
            cardinality = n
        else:
            cardinality = 0 if self._count < 0 else max(0, n - self._count)
        super().__init__(input_dataset, cardinality)

    def _indices(self):
        chunks = self._input._indices()
        if self._count < 0:
            for _ in chunks:
                pass
            return iter(())
        return _tables.skip(chunks, self._count)

    def _iterate(self):
        elements = self._input._elements()
        if self._count < 0:
            for _ in elements:
                pass
        else:
            for _ in itertools.islice(elements, self._count):
                pass
        return elements


class RepeatDataset(_Transformation):
    """``repeat(count)``: ``count`` epochs, each a new iteration of the input (an empty epoch ends an endless
    repeat, as in TF)."""

    _tf_name = "_RepeatDataset"

    def __init__(self, input_dataset, count):
        self._count = -1 if count is None else int64_argument(count, "count")
        n = input_dataset._cardinality
        if self._count == 0 or n == 0:
            cardinality = 0
        elif self._count < 0:
            cardinality = INFINITE
        elif n in (INFINITE, UNKNOWN):
            cardinality = n
        else:
            cardinality = n * self._count
        super().__init__(input_dataset, cardinality)

    def _epochs(self, produce):
        epoch = 0
        while self._count < 0 or epoch < self._count:
            produced = False
            for item in produce():
                produced = True
                yield item
            epoch += 1
            if not produced and self._count < 0:
                return

    def _indices(self):
        return self._epochs(self._input._indices)

    def _iterate(self):
        return self._epochs(self._input._elements)


def _shuffled(items, buffer_size, words):
    """``items`` in the order TF's ShuffleDataset gives them with the random words ``words``.

    TF keeps a ring buffer of ``buffer_size`` slots, filled from the input before each output;
    it draws a word, outputs the item ``word % filled`` slots after the oldest one, and moves the
    oldest item into the freed slot.
    """
    buffer = []
    start = end = 0
    done = object()
    exhausted = False
    while True:
        while not exhausted and end - start < buffer_size:
            item = next(items, done)
            if item is done:
                exhausted = True
                break
            if len(buffer) < buffer_size:
                buffer.append(item)
            else:
                buffer[end % buffer_size] = item
            end += 1
        if start == end:
            return
        index = (start + next(words) % (end - start)) % buffer_size
        yield buffer[index]
        buffer[index] = buffer[start % buffer_size]
        start += 1


class ShuffleDataset(_Transformation):
    """``shuffle``: TF's buffer algorithm and random stream (see ``_shuffled`` and ``_seeds``), so that a seeded
    shuffle gives TF's order."""

    _tf_name = "_ShuffleDataset"

    def __init__(self, input_dataset, buffer_size, seed, reshuffle_each_iteration):
        size = int64_argument(buffer_size, "buffer_size")
        if size <= 0 and size != UNKNOWN:
            raise _dispatch.op_error("buffer_size must be greater than zero or UNKNOWN_CARDINALITY",
                                     "ShuffleDatasetV3")
        self._buffer_size = sys.maxsize if size == UNKNOWN else size
        reshuffle = True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration)
        self._seeds = _seeds.SeedGenerator(seed, reshuffle)
        super().__init__(input_dataset, input_dataset._cardinality)

    def _inputs_opened_with_iterator(self):
        return ()  # TF opens shuffle's input when the first element is asked for

    def _order(self, items):
        return _shuffled(items, self._buffer_size, _seeds.words(*self._seeds.iteration_seeds()))

    def _indices(self):
        rows = itertools.chain.from_iterable(_tables.items(c) for c in _opened_when_read(self._input._indices))
        return _tables.grouped(self._order(rows))

    def _iterate(self):
        return self._order(_opened_when_read(self._input._elements))


def _opened_when_read(produce):
    """The items of ``produce()``, called when the first one is asked for (see ``_inputs_opened_with_iterator``)."""
    yield from produce()


class ShuffleAndRepeatDataset(RepeatDataset):
    """``tf.data.experimental.shuffle_and_repeat``: TF's fused op, the order of ``shuffle(...).repeat(count)``."""

    _tf_name = "_ShuffleAndRepeatDataset"

    def __init__(self, input_dataset, buffer_size, count, seed):
        super().__init__(ShuffleDataset(input_dataset, buffer_size, seed, True), count)


class ShardDataset(_Transformation):
    _tf_name = "_ShardDataset"

    def __init__(self, input_dataset, num_shards, index):
        self._num_shards = int64_argument(num_shards, "num_shards")
        self._index = int64_argument(index, "index")
        if self._num_shards <= 0:
            raise _dispatch.op_error(f"Number of shards must be greater than zero (currently num_shards = "
                                     f"{self._num_shards}).", "ShardDataset")
        if not 0 <= self._index < self._num_shards:
            raise _dispatch.op_error(f"Index must be between 0 and {self._num_shards - 1} (currently index = "
                                     f"{self._index}).", "ShardDataset")
        n = input_dataset._cardinality
        if n in (INFINITE, UNKNOWN):
            cardinality = n
        else:
            cardinality = n // self._num_shards + (1 if self._index < n % self._num_shards else 0)
        super().__init__(input_dataset, cardinality)

    def _indices(self):
        return _tables.shard(self._input._indices(), self._num_shards, self._index)

    def _iterate(self):
        return itertools.islice(self._input._elements(), self._index, None, self._num_shards)


_END = object()  # the end of an iteration, for CacheDataset's read-ahead


class CacheDataset(_Transformation):
    """``cache``: the first complete iteration is recorded (index chunks over a table, else elements) and later
    iterations replay it; an iteration left unfinished records nothing, as TF discards partial caches.

    An iteration is complete once its last element is handed out: TF's iterators read ahead, so a consumer that
    takes exactly every element (Keras' ``fit`` takes ``cardinality`` batches per epoch) completes the cache
    without asking for the end of the sequence.
    """

    _tf_name = "CacheDataset"

    def __init__(self, input_dataset, filename):
        self._filename = filename
        self._recorded = None
        super().__init__(input_dataset, input_dataset._cardinality)

    def _replay_or_record(self, produce, chunks):
        if self._recorded is not None:
            yield from self._recorded
            return
        recorded = []
        items = iter(produce())
        upcoming = next(items, _END)
        while upcoming is not _END:
            recorded.append(upcoming)
            current, upcoming = upcoming, next(items, _END)  # read one ahead to see the end before handing out
            if upcoming is _END:
                if chunks and len(current) > 1:  # the cache is complete when the last row is taken
                    yield current[:-1]
                    current = current[-1:]
                self._recorded = recorded
            yield current

    def _inputs_opened_with_iterator(self):
        return () if self._recorded is not None else (self._input,)  # a complete cache does not read its input

    def _indices(self):
        return self._replay_or_record(self._input._indices, chunks=True)

    def _iterate(self):
        return self._replay_or_record(self._input._elements, chunks=False)


class PrefetchDataset(_PassThrough):
    _tf_name = "_PrefetchDataset"

    def __init__(self, input_dataset, buffer_size):
        size = int64_argument(buffer_size, "buffer_size")
        if size < -1:
            raise _dispatch.op_error("buffer_size must be >= 0 or set buffer_size to be -1 for auto-tuning",
                                     "PrefetchDataset")
        super().__init__(input_dataset)


class OptionsDataset(_PassThrough):
    _tf_name = "_OptionsDataset"

    def __init__(self, input_dataset, options):
        from vfw.frontends.tensorflow.data._options import Options

        if not isinstance(options, Options):  # TF fails reading an Options attribute of it: an AttributeError
            raise AttributeError(f"`options` must be a `tf.data.Options` object, got {type(options)}.")
        super().__init__(input_dataset)
        self._options = options if self._options is None else self._options.merge(options)


class AssertCardinalityDataset(_Transformation):
    _tf_name = "_AssertCardinalityDataset"

    def __init__(self, input_dataset, expected):
        self._expected = int64_argument(expected, "expected_cardinality")
        super().__init__(input_dataset, self._expected)
        self._table = None  # the check counts elements

    def _iterate(self):
        count = 0
        for element in self._input._elements():
            count += 1
            if self._expected != INFINITE and count > self._expected:
                raise _dispatch.op_error(f"Input dataset was expected to contain {self._expected} elements but "
                                         f"contained at least {count} elements.", "IteratorGetNext",
                                         errors.FailedPreconditionError)
            yield element
        if count != self._expected:
            word = "infinite" if self._expected == INFINITE else str(self._expected)
            raise _dispatch.op_error(f"Input dataset was expected to contain {word} elements but contained only "
                                     f"{count} elements.", "IteratorGetNext", errors.FailedPreconditionError)


class IgnoreErrorsDataset(_Transformation):
    """``ignore_errors``: elements whose production raised a ``tf.errors`` error are left out.

    Functions (``map``, ``filter``...) drop an element that fails while this dataset pulls; TF
    drops the failing element of the transformation that failed (a failing ``batch`` loses the
    batch, where vfw leaves out the failing element of the batch's input).
    """

    _tf_name = "_IgnoreErrorsDataset"

    def __init__(self, input_dataset):
        super().__init__(input_dataset, UNKNOWN)
        self._table = None

    def _iterate(self):
        elements = self._input._elements()
        while True:
            IGNORING_ERRORS[0] += 1
            try:
                element = next(elements, None)
            except errors.OpError:
                continue
            finally:
                IGNORING_ERRORS[0] -= 1
            if element is None:
                return
            yield element


_UNIQUE_DTYPES = (_dtypes.int32, _dtypes.int64, _dtypes.string)


class UniqueDataset(_Transformation):
    _tf_name = "_UniqueDataset"

    def __init__(self, input_dataset):
        spec = input_dataset._structure
        if len(input_dataset._flat_specs) != 1:
            raise _dispatch.op_error("UniqueDataset only supports inputs with a single component.", "UniqueDataset")
        spec = input_dataset._flat_specs[0]
        if getattr(spec, "dtype", None) not in _UNIQUE_DTYPES or spec.shape.rank not in (0, 1):
            raise TypeError("`tf.data.Dataset.unique` does not support type specification of the dataset "
                            f"element: {spec}. Only scalar or vector elements of `tf.int32`, `tf.int64` or "
                            "`tf.string` are supported.")
        super().__init__(input_dataset, UNKNOWN if input_dataset._cardinality >= 0 else input_dataset._cardinality)
        self._table = None

    def _iterate(self):
        seen = set()
        for element in self._input._elements():
            array = element[0]
            key = (array.shape, tuple(array.reshape(-1).tolist())) if array.dtype == object else (
                array.shape, np.ascontiguousarray(array).tobytes())
            if key not in seen:
                seen.add(key)
                yield element
