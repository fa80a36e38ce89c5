"""Bucketed collectives over many arrays: one MPI call per bucket of ~25 MB instead of one per parameter.

Each bucket is a contiguous buffer holding consecutive arrays of one dtype, flattened; its collective
moves the whole buffer at once, so a model with hundreds of small parameters pays a few latencies
rather than hundreds.
"""

import numpy as np

DEFAULT_BUCKET_BYTES = 25 * 2 ** 20
"""Bytes per bucket (torch's DistributedDataParallel default, ``bucket_cap_mb=25``)."""

SOLO_BYTES = 2 ** 20
"""Arrays of at least this many bytes are worth a bucket of their own (see :class:`Buckets`): a collective's
latency (~10 us between processes of one machine) is far less than copying a MB into a shared buffer and
back (~70 us per MB each way), which a bucket of one array that is reduced in place avoids."""


class _Bucket:
    __slots__ = ("indices", "offsets", "buffer")

    def __init__(self, indices, offsets, buffer):
        self.indices, self.offsets, self.buffer = indices, offsets, buffer


class Buckets:
    """A fixed layout of arrays (shapes and dtypes, in order) into contiguous buckets.

    Parameters
    ----------
    specs : sequence of (shape, dtype)
        The arrays the collectives will move, in order.
    bucket_bytes : int
        A bucket is closed once it holds at least this many bytes (an array larger than it gets a bucket
        of its own); arrays of different dtypes never share a bucket.
    solo_bytes : int, optional
        Arrays of at least this many bytes get a bucket of their own (the others keep their order), so a
        caller can reduce them in place, without packing (e.g. :data:`SOLO_BYTES`).  ``None``: only
        arrays larger than ``bucket_bytes`` do.
    """

    def __init__(self, specs, bucket_bytes=DEFAULT_BUCKET_BYTES, solo_bytes=None):
        if bucket_bytes <= 0:
            raise ValueError(f"Buckets: bucket_bytes must be positive, got {bucket_bytes}")
        self.specs = [(tuple(shape), np.dtype(dtype)) for shape, dtype in specs]
        open_buckets = {}  # dtype -> (indices, sizes) of the bucket being filled
        layout = []
        for i, (shape, dtype) in enumerate(self.specs):
            size = int(np.prod(shape, dtype=np.int64))
            if solo_bytes is not None and size * dtype.itemsize >= solo_bytes:
                layout.append((dtype, ([i], [size])))
                continue
            indices, sizes = open_buckets.setdefault(dtype, ([], []))
            indices.append(i)
            sizes.append(size)
            if sum(sizes) * dtype.itemsize >= bucket_bytes:
                layout.append((dtype, open_buckets.pop(dtype)))
        layout.extend((dtype, bucket) for dtype, bucket in open_buckets.items())
        self.buckets = []
        for dtype, (indices, sizes) in layout:
            offsets = np.concatenate([[0], np.cumsum(sizes)]).tolist()
            self.buckets.append(_Bucket(indices, offsets, np.empty(offsets[-1], dtype)))

    def __len__(self):
        return len(self.buckets)

    def _run(self, arrays, collective):
        """Pack each bucket (``None`` arrays as zeros), run ``collective(buffer)`` on it, and unpack.

        Returns the result for every array: written into the array itself where one was given, else a
        new array.
        """
        if len(arrays) != len(self.specs):
            raise ValueError(f"Buckets: expected {len(self.specs)} arrays, got {len(arrays)}")
        results = list(arrays)
        for bucket in self.buckets:
            buffer = bucket.buffer
            for i, start, stop in zip(bucket.indices, bucket.offsets, bucket.offsets[1:]):
                if arrays[i] is None:
                    buffer[start:stop] = 0
                else:
                    buffer[start:stop].reshape(self.specs[i][0])[...] = arrays[i]
            collective(buffer)
            for i, start, stop in zip(bucket.indices, bucket.offsets, bucket.offsets[1:]):
                part = buffer[start:stop].reshape(self.specs[i][0])
                if arrays[i] is None:
                    results[i] = part.copy()
                else:
                    arrays[i][...] = part
        return results

    def all_reduce(self, group, arrays, op="avg"):
        """All-reduce every array (in place; ``None`` counts as zeros and gets a new array) in one call per bucket."""
        return self._run(arrays, lambda buffer: group.all_reduce(buffer, op, out=buffer))

    def broadcast(self, group, arrays, root=0):
        """Overwrite every array with process ``root``'s, in one broadcast per bucket."""
        return self._run(arrays, lambda buffer: group.broadcast(buffer, root))
