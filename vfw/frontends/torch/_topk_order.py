"""The order torch's CPU ``sort``, ``topk`` and ``kthvalue`` give their results, equal values included.

torch sorts a row (``sort(stable=False)``, ``mode``) with ``std::sort`` and selects the k best of a row
(``topk``) with the C++ standard library, comparing values only (NaN above every number for the largest,
below for the smallest): for ``topk`` a partial sort (a heap of the k best, then a heap sort) when
``64 * k <= n``, else ``nth_element`` at ``k - 1`` followed, for sorted results, by a sort of the first
``k - 1``.  Distinct values sorted need none of this (any exact sort agrees, and numpy's stable one is
used); rows with ties, and unsorted selections, are replayed with the GNU implementations of those
algorithms (introselect and introsort: ``_sort_order``, vectorized over rows; heap select and heap
sort), written from their published behaviour.  Rows of 16 or fewer elements need no replay for a sort
(an insertion sort is stable).  ``kthvalue`` runs ATen's own quickselect (median-of-three pivot, Hoare
partition) on a copy of each row: rows where the k-th value has an equal neighbour replay it.
"""

import numpy as np

from vfw.frontends.torch._sort_order import (
    Heap,
    depth_limit,
    flat_rows,
    introsort_order,
    partition,
    ranks,
    sort_range,
    stable_sort_segments,
)

_I64 = np.dtype(np.int64)
_SORTED_BY_INSERTION = 16


def stable_order(rows, descending):
    """Per row of ``rows`` (a float or integer array ``(n, m)``), the stable sort's permutation (int64): ascending
    with NaN last, or descending with NaN first."""
    if not descending:
        return np.argsort(rows, axis=1, kind="stable")
    m = rows.shape[1]
    flipped = np.argsort(rows[:, ::-1], axis=1, kind="stable")[:, ::-1]  # ties by lower index, NaN first
    return np.ascontiguousarray((m - 1) - flipped)


def _tied(ranked):
    """Per row of values in sorted order, whether two of them are equal (NaNs are equal to each other)."""
    if ranked.shape[1] < 2:
        return np.zeros(len(ranked), bool)
    same = ranked[:, 1:] == ranked[:, :-1]
    if ranked.dtype.kind == "f":
        same |= np.isnan(ranked[:, 1:]) & np.isnan(ranked[:, :-1])
    return same.any(axis=1)


def sort_indices(rows, descending, limit=None):
    """``std::sort``'s permutation of each row of ``rows`` (int64, ``(n, m)``).

    ``limit``: the most elements (rows times length) replayed; beyond it rows with ties keep the stable order.
    """
    order = stable_order(rows, descending)
    m = rows.shape[1]
    if m > _SORTED_BY_INSERTION:
        replay = np.flatnonzero(_tied(np.take_along_axis(rows, order, axis=1)))
        if replay.size and (limit is None or replay.size * m <= limit):
            order[replay] = introsort_order(ranks(rows[replay], descending))
    return order


def topk_indices(rows, k, largest=True, sorted=True, limit=None):  # noqa: A002  (torch's name)
    """Indices (int64, ``(n, k)``) of the ``k`` largest (smallest) values of each row of ``rows``, best first when
    ``sorted``, in the order torch's CPU ``topk`` gives them.

    ``limit``: the most elements (rows times length) replayed; beyond it the rows keep the stable order.
    """
    m = rows.shape[1]
    ordered = stable_order(rows, largest)
    order = ordered[:, :k].copy()
    heap = 64 * k <= m
    if sorted or heap:
        # a row needs the replay when one of its k best equals the next one (the first one left out included)
        replay = np.flatnonzero(_tied(np.take_along_axis(rows, ordered[:, :k + 1], axis=1)))
    else:  # nth_element leaves the k best in its own order
        replay = np.arange(len(rows))
    if not replay.size or (limit is not None and replay.size * m > limit):
        return order
    keys = ranks(rows[replay], largest)
    if heap:  # heap select and heap sort: sorted either way
        for r, row in zip(replay.tolist(), keys):
            heap_row = Heap(row, np.arange(m, dtype=_I64), 0, m)
            heap_row.select(k)
            heap_row.sort(k)
            order[r] = heap_row.i[:k]
    else:
        order[replay] = _selected(keys, k, sorted)
    return order


def _selected(keys, k, sort_first):
    """``nth_element`` at ``k - 1`` on each row of ``keys`` (ranks), then (``sort_first``) ``std::sort`` of the first
    ``k - 1``: the first ``k`` positions of each row."""
    rows, n = keys.shape
    values, index, starts = flat_rows(keys)
    first, last, nth = starts.copy(), starts + n, starts + k - 1
    depth = np.full(rows, depth_limit(n), _I64)
    done = np.zeros(rows, bool)
    while True:
        active = ~done & (last - first > 3)
        spent = active & (depth == 0)
        for r in np.flatnonzero(spent).tolist():  # worst cases only: heap select, the nth to the front
            f, at = int(first[r]), int(nth[r] - first[r])
            heap = Heap(values, index, f, int(last[r]))
            heap.select(at + 1)
            heap.v[0], heap.v[at] = heap.v[at], heap.v[0]
            heap.i[0], heap.i[at] = heap.i[at], heap.i[0]
            heap.store()
        done |= spent
        active &= ~spent
        if not active.any():
            break
        depth[active] -= 1
        cut = partition(values, index, first[active], last[active])
        right = cut <= nth[active]
        first[active] = np.where(right, cut, first[active])
        last[active] = np.where(right, last[active], cut)
    small = ~done  # ranges of 3 or fewer around the nth: an insertion sort
    stable_sort_segments(values, index, first[small], last[small])
    if sort_first and k > 1:
        sort_range(values, index, starts, starts + k - 1)
    return index.reshape(rows, n)[:, :k]


def kth_indices(rows, k, limit=None):
    """Index (int64, ``(n, 1)``) of the ``k``-th smallest value (1-based) of each row of ``rows``, among equal
    values the one torch's CPU ``kthvalue`` picks: its quickselect (median-of-three pivot, NaN above every
    number) on a copy of the row, replayed on the rows where the k-th value has an equal neighbour.

    ``limit``: the most elements (rows times length) replayed; beyond it the rows keep the stable order.
    """
    m = rows.shape[1]
    ordered = stable_order(rows, False)
    order = ordered[:, k - 1:k].copy()
    window = ordered[:, max(k - 2, 0):k + 1]
    replay = np.flatnonzero(_tied(np.take_along_axis(rows, window, axis=1)))
    if replay.size and (limit is None or replay.size * m <= limit):
        order[replay, 0] = _quickselect(ranks(rows[replay], False), k - 1)
    return order


def _quickselect(keys, k):
    """The original positions that torch's quickselect leaves at ``k`` in each row of ``keys`` (ranks): vectorized
    over rows, a few numpy passes per partition step."""
    n_rows, n = keys.shape
    a = keys.copy()
    pos = np.tile(np.arange(n, dtype=_I64), (n_rows, 1))

    def swap(r, i, j):
        a[r, i], a[r, j] = a[r, j], a[r, i]
        pos[r, i], pos[r, j] = pos[r, j], pos[r, i]

    def swap_if_greater(r, i, j):  # swap where a[i] > a[j]
        s = a[r, i] > a[r, j]
        swap(r[s], i[s], j[s])

    low, high = np.zeros(n_rows, _I64), np.full(n_rows, n - 1, _I64)
    left = np.arange(n_rows)
    while left.size:
        pair = high[left] == low[left] + 1
        swap_if_greater(left[pair], low[left[pair]], high[left[pair]])
        left = left[high[left] > low[left] + 1]
        if not left.size:
            break
        lo, hi = low[left], high[left]
        swap(left, lo + (hi - lo) // 2, lo + 1)
        swap_if_greater(left, lo + 1, hi)
        swap_if_greater(left, lo, hi)
        swap_if_greater(left, lo + 1, lo)
        (r, first, second), i, j = _partition_ends(a, left, lo, hi)
        swap(left[r], first, second)
        swap(left, lo, j)
        low[left] = np.where(j <= k, i, lo)
        high[left] = np.where(j >= k, j - 1, hi)
        left = left[low[left] < high[left]]
    return pos[:, k]


def _partition_ends(a, rows, lo, hi):
    """One Hoare partition of ``a[r, lo:hi + 1]`` around ``a[r, lo]`` for each row ``r`` of ``rows``: the swaps it
    makes (``(row positions in rows, first, second)``) and where the scans ``i`` (up, stopping at values >= the
    pivot) and ``j`` (down, at values <= it) end.

    The m-th swap exchanges the m-th stop of ``i`` and the m-th stop of ``j`` in the values the partition started
    from, as long as the one of ``j`` is not left of the one of ``i`` (the values between the scans are untouched
    until they meet); all those swaps are made at once.
    """
    n = a.shape[1]
    cols = np.arange(n)
    block = a[rows]
    pivot = block[np.arange(len(rows)), lo][:, None]
    up = (block >= pivot) & (cols > (lo + 1)[:, None]) & (cols <= hi[:, None])
    down = (block <= pivot) & (cols >= lo[:, None]) & (cols < hi[:, None])
    # each row's stops in scan order, padded past the last one (n for i, -1 for j)
    stops_i = _stops(up, np.argsort(~up, axis=1, kind="stable"), n)
    stops_j = _stops(down, (n - 1) - np.argsort(~down[:, ::-1], axis=1, kind="stable"), -1)
    swapped = stops_j >= stops_i  # a prefix of each row
    count = swapped.sum(axis=1)
    r, m = np.nonzero(swapped)
    take = np.arange(len(rows))
    # After the swaps i runs to its next stop or to the nearest position j swapped a value >= the pivot into,
    # j likewise; a last swap of a position with itself (a value equal to the pivot) moved nothing.
    last = count - 1
    idle_last = (count > 0) & (stops_i[take, np.maximum(last, 0)] == stops_j[take, np.maximum(last, 0)])
    last -= idle_last
    moved = last >= 0
    i = np.minimum(stops_i[take, count], np.where(moved, stops_j[take, np.maximum(last, 0)], n))
    j = np.maximum(stops_j[take, count], np.where(moved, stops_i[take, np.maximum(last, 0)], -1))
    return (r, stops_i[r, m], stops_j[r, m]), i, j


def _stops(is_stop, order, padding):
    """``order`` (positions, the stops first) with the non-stops and one more column set to ``padding``."""
    stops = np.concatenate([order, np.full((len(order), 1), padding, _I64)], axis=1)
    stops[:, :-1][~np.take_along_axis(is_stop, order, axis=1)] = padding
    return stops
