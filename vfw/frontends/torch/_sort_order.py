"""The order torch's CPU sorts leave equal values in: libstdc++'s introsort, replayed on many rows at once.

torch sorts a row (``sort(stable=False)``, the order ``mode`` scans, the first ``k - 1`` of ``topk``) with
``std::sort`` on (value, index) pairs compared by value only, so equal values come out in whatever order
the algorithm leaves them.  Distinct values need none of this: any exact sort agrees.  Rows with ties are
replayed here with numpy, every segment of one recursion level at a time:

* ``std::sort`` partitions a range of more than 16 elements around the median of its second, middle and
  last elements (moved to the front first) with Hoare's unguarded scheme, then does the same to both
  parts (at most ``2 * floor(log2(n))`` levels deep, after which a range is heap-sorted), and finishes
  with an insertion sort of the whole row, which is stable: the result is a stable sort of the order the
  partitioning left.
* Hoare's scheme swaps the k-th element from the left that may not stay left of the pivot with the k-th
  element from the right that may not stay right of it, for as long as the first lies left of the second;
  both scans read values no swap has moved yet, so each partition is a few vectorized passes.

Values are first replaced by their ranks (int64, equal values equal, NaN above every number for an
ascending sort and below for a descending one, as torch's comparators order them).
"""

import numpy as np

_THRESHOLD = 16  # introsort hands ranges this short to the final insertion sort
_I64 = np.dtype(np.int64)


def ranks(rows, descending):
    """Dense int64 ranks of the values of ``rows`` in the comparator's order (ties share a rank)."""
    if rows.dtype == np.bool_:
        rows = rows.view(np.uint8)
    values, inverse = np.unique(rows, return_inverse=True)  # NaN last (one value), -0.0 equal to 0.0
    inverse = inverse.reshape(rows.shape).astype(_I64, copy=False)
    return (len(values) - 1) - inverse if descending else inverse


def depth_limit(n):
    """libstdc++'s recursion budget for a range of ``n`` elements: ``2 * floor(log2(n))``."""
    return 2 * (int(n).bit_length() - 1) if n > 0 else 0


def introsort_order(keys):
    """The permutation (int64, per row) ``std::sort`` applies to each row of ``keys`` (ranks, ``(rows, n)``)."""
    rows, n = keys.shape
    values, index, starts = flat_rows(keys)
    sort_range(values, index, starts, starts + n)
    return index.reshape(rows, n)


def flat_rows(keys):
    """``(values, index, starts)``: the rows of ``keys`` end to end, each element's position in its row, and
    where each row starts."""
    rows, n = keys.shape
    return (keys.reshape(-1).copy(), np.tile(np.arange(n, dtype=_I64), rows),
            np.arange(rows, dtype=_I64) * n)


def sort_range(values, index, first, last):
    """``std::sort`` of each segment ``[first, last)`` of the flat ``values`` (with ``index``), in place."""
    sort_segments(values, index, first, last, np.array([depth_limit(n) for n in (last - first).tolist()], _I64))
    stable_sort_segments(values, index, first, last)


def stable_sort_segments(values, index, first, last):
    """An insertion sort (stable) of each segment ``[first, last)``, in place."""
    size = last - first
    segment = np.repeat(np.arange(first.size, dtype=_I64), size)
    position = first[segment] + np.arange(segment.size, dtype=_I64) - np.repeat(np.cumsum(size) - size, size)
    ordered = position[np.lexsort((values[position], segment))]
    values[position], index[position] = values[ordered], index[ordered]


def sort_segments(values, index, first, last, depth):
    """Run introsort's partitioning loop on the segments ``[first, last)`` of the flat ``values`` and ``index``
    (moved together, in place), each with its depth budget; ranges of 16 or fewer are left for the final
    insertion sort."""
    while True:
        big = last - first > _THRESHOLD
        first, last, depth = first[big], last[big], depth[big]
        if not first.size:
            return
        spent = depth == 0
        for f, e in zip(first[spent].tolist(), last[spent].tolist()):  # worst cases only: heap sort
            heap = Heap(values, index, f, e)
            heap.select(e - f)
            heap.sort()
            heap.store()
        first, last, depth = first[~spent], last[~spent], depth[~spent] - 1
        cut = partition(values, index, first, last)
        first, last, depth = np.concatenate([cut, first]), np.concatenate([last, cut]), np.concatenate([depth, depth])


def partition(values, index, first, last):
    """libstdc++'s ``__unguarded_partition_pivot`` on each segment ``[first, last)`` (more than 3 elements):
    returns the cuts."""
    _median_to_first(values, index, first, last)
    count = first.size
    size = last - first
    grid_start = np.cumsum(size) - size  # where each segment starts in the grid of all their positions
    position = np.arange(int(size.sum()), dtype=_I64) + np.repeat(first - grid_start, size)
    v, p = values[position], np.repeat(values[first], size)
    # Left scan stops: elements after the pivot not below it.  Right scan stops: elements not above it, the
    # pivot included; the scan meets them from the segment's end.
    stops_left, stops_right = v >= p, v <= p
    stops_left[grid_start] = False
    left, right = position[stops_left], position[stops_right]
    left_count = np.add.reduceat(stops_left, grid_start, dtype=_I64)
    right_count = np.add.reduceat(stops_right, grid_start, dtype=_I64)
    left_start, right_end = np.cumsum(left_count) - left_count, np.cumsum(right_count)
    # Pair the k-th stops of both scans: the k-th from the left swaps with the k-th from the right while left
    # of it (a prefix of each segment's pairs).
    pairs = np.minimum(left_count, right_count)
    pair_start = np.cumsum(pairs) - pairs
    k = np.arange(int(pairs.sum()), dtype=_I64) - np.repeat(pair_start, pairs)
    a = left[np.repeat(left_start, pairs) + k]
    b = right[np.repeat(right_end - 1, pairs) - k]
    swapping = a < b
    swaps = np.add.reduceat(swapping, pair_start, dtype=_I64) if swapping.size else np.zeros(count, _I64)
    swaps[pairs == 0] = 0  # reduceat reads the next segment's first pair for an empty one
    sa, sb = a[swapping], b[swapping]
    values[sa], values[sb] = values[sb], values[sa]
    index[sa], index[sb] = index[sb], index[sa]
    # The cut: the next left stop, unless the last swap's right position (the left scan stops there too,
    # at the value swapped in) comes first.
    cut = np.full(count, np.iinfo(_I64).max, _I64)
    more = swaps < left_count
    cut[more] = left[left_start[more] + swaps[more]]
    swapped = swaps > 0
    cut[swapped] = np.minimum(cut[swapped], right[right_end[swapped] - swaps[swapped]])
    return cut


def _rank_in_segment(segment, count):
    """For elements grouped by (sorted) ``segment`` numbers, each one's position within its group."""
    sizes = np.bincount(segment, minlength=count)
    return np.arange(segment.size, dtype=_I64) - np.repeat(np.cumsum(sizes) - sizes, sizes)


def _median_to_first(values, index, first, last):
    """``__move_median_to_first``: the median of the second, middle and last elements swapped to the front."""
    a, b, c = first + 1, first + (last - first) // 2, last - 1
    va, vb, vc = values[a], values[b], values[c]
    ab, bc, ac = va < vb, vb < vc, va < vc
    chosen = np.where(ab, np.where(bc, b, np.where(ac, c, a)), np.where(ac, a, np.where(bc, c, b)))
    values[first], values[chosen] = values[chosen], values[first]
    index[first], index[chosen] = index[chosen], index[first]


class Heap:
    """libstdc++'s heap algorithms on one segment ``[first, last)`` of the flat ``values`` (with ``index``), as
    Python lists (element by element); :meth:`store` writes them back.  The heap is a max-heap of the ranks:
    its top is the worst of the elements it keeps."""

    def __init__(self, values, index, first, last):
        self.arrays, self.first = (values, index), first
        self.v, self.i = values[first:last].tolist(), index[first:last].tolist()

    def store(self):
        values, index = self.arrays
        values[self.first:self.first + len(self.v)] = self.v
        index[self.first:self.first + len(self.i)] = self.i

    def _move(self, dst, src):
        self.v[dst], self.i[dst] = self.v[src], self.i[src]

    def _adjust(self, hole, length, value, index):
        """``__adjust_heap``: sift the hole down to a leaf, then ``value`` up from there."""
        v = self.v
        top = child = hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if v[child] < v[child - 1]:
                child -= 1
            self._move(hole, child)
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            self._move(hole, child - 1)
            hole = child - 1
        parent = (hole - 1) // 2
        while hole > top and v[parent] < value:
            self._move(hole, parent)
            hole = parent
            parent = (hole - 1) // 2
        v[hole], self.i[hole] = value, index

    def _pop(self, length, result):
        """``__pop_heap``: the top goes to ``result``, whose element enters the heap of ``length``."""
        value, index = self.v[result], self.i[result]
        self._move(result, 0)
        self._adjust(0, length, value, index)

    def select(self, middle):
        """``__heap_select``: the best ``middle`` elements of the segment in a heap at its front.

        Elements are compared with the heap's top as it is when they are met; the many that cannot enter
        are skipped in vectorized chunks (the top only gets better, so a rejected element stays rejected).
        """
        for parent in range((middle - 2) // 2, -1, -1):
            self._adjust(parent, middle, self.v[parent], self.i[parent])
        rest = np.asarray(self.v[middle:])
        for chunk in range(0, rest.size, 256):
            for k in np.flatnonzero(rest[chunk:chunk + 256] < self.v[0]).tolist():
                k += middle + chunk
                if self.v[k] < self.v[0]:
                    self._pop(middle, k)

    def sort(self, length=None):
        """``__sort_heap`` of the heap at the front (``length`` elements, the whole segment by default)."""
        length = len(self.v) if length is None else length
        while length > 1:
            length -= 1
            self._pop(length, length)
