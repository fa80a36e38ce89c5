"""The order torch's CPU ``topk`` (largest, sorted) gives equal values, for draws that must match torch.

torch selects the k largest (value, index) pairs of a row with the C++ standard library: a partial
sort when ``64 * k <= n``, else ``nth_element`` at ``k - 1`` followed by a sort of the first
``k - 1``; pairs compare by value only (NaN above everything), so among equal values the result is
whatever order those algorithms leave.  Distinct values need none of this (any exact selection
agrees); rows with ties are replayed here with the GNU implementations of the three algorithms
(introselect, introsort with a final insertion sort, heap select and heap sort), written from their
published behaviour.
"""

import numpy as np

_THRESHOLD = 16  # introsort hands ranges this short to insertion sort


def _before(a, b):
    """torch's comparator for ``largest=True``: NaN first, then larger values."""
    return (a != a and b == b) or a > b


class _Row:
    """A row of (value, index) pairs being reordered in place, with libstdc++'s helpers."""

    def __init__(self, values):
        self.v = [float(x) for x in values]
        self.i = list(range(len(self.v)))

    def less(self, a, b):
        return _before(self.v[a], self.v[b])

    def swap(self, a, b):
        v, i = self.v, self.i
        v[a], v[b] = v[b], v[a]
        i[a], i[b] = i[b], i[a]

    def move(self, dst, src):
        self.v[dst], self.i[dst] = self.v[src], self.i[src]

    # -- insertion sorts --------------------------------------------------------------
    def linear_insert(self, last, value, index):
        """Shift ``value`` down from ``last`` while it comes before its left neighbour (unguarded)."""
        nxt = last - 1
        while _before(value, self.v[nxt]):
            self.move(last, nxt)
            last, nxt = nxt, nxt - 1
        self.v[last], self.i[last] = value, index

    def insertion_sort(self, first, last):
        for k in range(first + 1, last):
            value, index = self.v[k], self.i[k]
            if _before(value, self.v[first]):
                for m in range(k, first, -1):
                    self.move(m, m - 1)
                self.v[first], self.i[first] = value, index
            else:
                self.linear_insert(k, value, index)

    def final_insertion_sort(self, first, last):
        if last - first > _THRESHOLD:
            self.insertion_sort(first, first + _THRESHOLD)
            for k in range(first + _THRESHOLD, last):
                self.linear_insert(k, self.v[k], self.i[k])
        else:
            self.insertion_sort(first, last)

    # -- partitioning -----------------------------------------------------------------
    def median_to_first(self, result, a, b, c):
        if self.less(a, b):
            if self.less(b, c):
                self.swap(result, b)
            elif self.less(a, c):
                self.swap(result, c)
            else:
                self.swap(result, a)
        elif self.less(a, c):
            self.swap(result, a)
        elif self.less(b, c):
            self.swap(result, c)
        else:
            self.swap(result, b)

    def partition_pivot(self, first, last):
        """Median of three moved to ``first``, then Hoare's unguarded partition of the rest."""
        self.median_to_first(first, first + 1, first + (last - first) // 2, last - 1)
        lo, hi, pivot = first + 1, last, first
        while True:
            while self.less(lo, pivot):
                lo += 1
            hi -= 1
            while self.less(pivot, hi):
                hi -= 1
            if not lo < hi:
                return lo
            self.swap(lo, hi)
            lo += 1

    # -- heaps --------------------------------------------------------------------------
    def adjust_heap(self, first, hole, length, value, index):
        top = hole
        child = hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if self.less(first + child, first + child - 1):
                child -= 1
            self.move(first + hole, first + child)
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            self.move(first + hole, first + child - 1)
            hole = child - 1
        parent = (hole - 1) // 2
        while hole > top and _before(self.v[first + parent], value):
            self.move(first + hole, first + parent)
            hole = parent
            parent = (hole - 1) // 2
        self.v[first + hole], self.i[first + hole] = value, index

    def make_heap(self, first, last):
        length = last - first
        if length < 2:
            return
        for parent in range((length - 2) // 2, -1, -1):
            self.adjust_heap(first, parent, length, self.v[first + parent], self.i[first + parent])

    def pop_heap(self, first, last, result):
        value, index = self.v[result], self.i[result]
        self.move(result, first)
        self.adjust_heap(first, 0, last - first, value, index)

    def heap_select(self, first, middle, last):
        self.make_heap(first, middle)
        for k in range(middle, last):
            if self.less(k, first):
                self.pop_heap(first, middle, k)

    def sort_heap(self, first, last):
        while last - first > 1:
            last -= 1
            self.pop_heap(first, last, last)

    # -- the three algorithms -----------------------------------------------------------
    def nth_element(self, first, nth, last):
        if first == last or nth == last:
            return
        depth = 2 * ((last - first).bit_length() - 1)
        while last - first > 3:
            if depth == 0:
                self.heap_select(first, nth + 1, last)
                self.swap(first, nth)
                return
            depth -= 1
            cut = self.partition_pivot(first, last)
            if cut <= nth:
                first = cut
            else:
                last = cut
        self.insertion_sort(first, last)

    def sort(self, first, last):
        if first == last:
            return
        self.introsort_loop(first, last, 2 * ((last - first).bit_length() - 1))
        self.final_insertion_sort(first, last)

    def introsort_loop(self, first, last, depth):
        while last - first > _THRESHOLD:
            if depth == 0:
                self.heap_select(first, last, last)
                self.sort_heap(first, last)
                return
            depth -= 1
            cut = self.partition_pivot(first, last)
            self.introsort_loop(cut, last, depth)
            last = cut

    def partial_sort(self, first, middle, last):
        self.heap_select(first, middle, last)
        self.sort_heap(first, middle)


def _torch_topk_row(values, k):
    """Indices of torch's ``topk(values, k)`` (largest, sorted) for one row, ties in torch's order."""
    row = _Row(values)
    n = len(row.v)
    if 64 * k <= n:
        row.partial_sort(0, k, n)
    else:
        row.nth_element(0, k - 1, n)
        row.sort(0, k - 1)
    return row.i[:k]


def topk_indices(rows, k):
    """Indices (int64, ``(n, k)``) of the ``k`` largest values of each row of ``rows`` in descending order,
    equal values ordered as torch's CPU ``topk`` orders them (NaN counts as the largest)."""
    keys = np.where(np.isnan(rows), np.inf, rows)  # NaN above everything (and tied with inf: replayed)
    ranked = np.argsort(-keys, axis=1, kind="stable")
    order = ranked[:, :k].copy()
    # a row needs the replay when one of its k largest equals the next one (the first one left out included)
    top = np.take_along_axis(keys, ranked[:, :k + 1], axis=1)
    for r in np.flatnonzero((top[:, 1:] == top[:, :-1]).any(axis=1)):
        order[r] = _torch_topk_row(rows[r], k)
    return order.astype(np.int64, copy=False)
