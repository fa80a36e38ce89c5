"""Reduce-scatter (``ufunc.at``) by layers of distinct positions: what ScatterND / ScatterElements with a
reduction run on many updates (an embedding's gradient, scatter_add)."""

import math

import numpy as np

# ufunc.at costs about 6 ns per element even on numpy 2; from this many updated elements a sort and a
# few fancy-indexed passes are several times faster.
LAYERS_FROM = 4096
_MAX_LAYERS = 8


def reduce_by_layers(ufunc, out, index, updates):
    """``ufunc.at(out, index, updates)``: the same results in the same order, faster for many updates.

    ``index`` addresses the leading dims of ``out`` (C-contiguous) with broadcast integer arrays, negative
    entries counted from the end; ``updates`` has their broadcast shape followed by the remaining dims.
    The updates are ranked by how many earlier ones hit the same position: each rank is a layer of
    distinct positions, applied with one fancy-indexed pass, layer by layer (so repeated positions still
    reduce in their order of appearance).  Deeply repeated positions fall back to ``ufunc.at`` on flat
    element positions (far faster than on rows).
    """
    lead = out.shape[:len(index)]
    coords = [i + n * (i < 0) for i, n in zip(index, lead)]
    try:
        position = np.ravel_multi_index(coords, lead).reshape(-1)
    except ValueError:  # out of range
        raise IndexError from None
    rows = out.reshape(math.prod(lead), -1)
    values = updates.reshape(position.size, -1)
    order = np.argsort(position, kind="stable")
    ranked = position[order]
    starts_run = np.ones(position.size, np.bool_)
    np.not_equal(ranked[1:], ranked[:-1], out=starts_run[1:])
    run_starts = np.flatnonzero(starts_run)
    rank = np.arange(position.size) - np.repeat(run_starts, np.diff(np.append(run_starts, position.size)))
    depth = int(rank.max()) + 1
    if depth > _MAX_LAYERS:
        width = rows.shape[1]
        flat = (position[:, None] * width + np.arange(width)).reshape(-1)
        ufunc.at(rows.reshape(-1), flat, values.reshape(-1))
        return
    for layer in range(depth):
        picked = order[rank == layer] if depth > 1 else order
        at = position[picked]
        rows[at] = ufunc(rows[at], values[picked])
