"""Tables and index chunks: the fast path of datasets whose elements are rows of arrays.

A *table* holds the rows some datasets' elements are (the slices of ``from_tensor_slices``, the
values of ``range``).  Such a dataset produces its elements as *index chunks*: Python ``range``
objects (ascending, positive step) or int64 arrays of row numbers.  ``take``, ``skip``,
``shard``, ``repeat``, ``shuffle`` and ``cache`` transform chunk streams; ``batch`` regroups
them and gathers each batch with one slice (a view, for a contiguous range) or one fancy index
per component.
"""

import itertools

import numpy as np

_INT64 = np.int64


class SliceTable:
    """Rows of equally long arrays (one per component): row ``i`` is ``(c[i] for c in components)``."""

    __slots__ = ("components",)

    def __init__(self, components):
        self.components = tuple(components)

    def rows(self, chunk):
        """The components of the rows ``chunk``, stacked (views for a range)."""
        index = slice(chunk.start, chunk.stop, chunk.step) if type(chunk) is range else chunk
        return tuple([c[index] for c in self.components])

    def iterate(self, chunks):
        """The rows of ``chunks``, one flat element at a time."""
        components = self.components
        if len(components) == 1:
            only = components[0]
            for chunk in chunks:
                for i in items(chunk):
                    yield (only[i, ...],)
        else:
            for chunk in chunks:
                for i in items(chunk):
                    yield tuple([c[i, ...] for c in components])


class RangeTable:
    """The rows ``start + i * step`` of ``range``/``counter`` datasets, computed (never materialized)."""

    __slots__ = ("start", "step", "dtype")

    def __init__(self, start, step, dtype):
        self.start, self.step, self.dtype = start, step, dtype

    def rows(self, chunk):
        index = np.arange(chunk.start, chunk.stop, chunk.step, dtype=_INT64) if type(chunk) is range else chunk
        return ((self.start + self.step * index).astype(self.dtype),)

    def iterate(self, chunks):
        start, step, array, dtype = self.start, self.step, np.array, self.dtype
        for chunk in chunks:
            for i in items(chunk):
                yield (array(start + step * i, dtype),)


def items(chunk):
    """The row numbers of a chunk as Python ints."""
    return chunk if type(chunk) is range else chunk.tolist()


def count_chunks(size=4096):
    """The endless chunk stream ``range(0, size), range(size, 2 * size)...``."""
    for k in itertools.count():
        yield range(k * size, (k + 1) * size)


def take(chunks, count):
    """The first ``count`` indices of a chunk stream."""
    if count <= 0:
        return
    for chunk in chunks:
        if len(chunk) >= count:
            yield chunk[:count]
            return
        count -= len(chunk)
        yield chunk


def skip(chunks, count):
    """A chunk stream without its first ``count`` indices."""
    for chunk in chunks:
        if count >= len(chunk):
            count -= len(chunk)
            continue
        yield chunk[count:] if count else chunk
        count = 0


def shard(chunks, num_shards, index):
    """The indices at positions ``index``, ``index + num_shards``... of a chunk stream."""
    position = 0
    for chunk in chunks:
        first = (index - position) % num_shards
        position += len(chunk)
        if first < len(chunk):
            yield chunk[first::num_shards]


def join(pieces):
    """One chunk of several (a range when they are adjacent ranges with step 1)."""
    if len(pieces) == 1:
        return pieces[0]
    if all(type(p) is range and p.step == 1 for p in pieces) and all(
            a.stop == b.start for a, b in zip(pieces, pieces[1:])):
        return range(pieces[0].start, pieces[-1].stop)
    return np.concatenate([np.arange(p.start, p.stop, p.step, dtype=_INT64) if type(p) is range else p
                           for p in pieces])


def regroup(chunks, sizes, drop_remainder):
    """Chunks of the sizes ``sizes`` yields in turn (an iterator, e.g. ``itertools.repeat(n)``), the last one
    shorter unless ``drop_remainder``."""
    sizes = iter(sizes)
    wanted = next(sizes)
    pending, count = [], 0
    for chunk in chunks:
        position, length = 0, len(chunk)
        while position < length:
            n = min(wanted - count, length - position)
            pending.append(chunk[position:position + n] if (position or n < length) else chunk)
            count += n
            position += n
            if count == wanted:
                yield join(pending)
                pending, count = [], 0
                wanted = next(sizes)
    if count and not drop_remainder:
        yield join(pending)


def grouped(indices, size=4096):
    """Chunks (int64 arrays) of up to ``size`` of the ints ``indices`` yields."""
    while True:
        block = list(itertools.islice(indices, size))
        if not block:
            return
        yield np.array(block, _INT64)
