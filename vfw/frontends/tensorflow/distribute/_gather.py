"""``strategy.gather``/``all_gather`` of values whose sizes along the gathered axis differ between processes."""

import numpy as np

__all__ = ["gather_uneven"]


def gather_uneven(group, array, axis, sizes=None):
    """Every process's ``array`` (numpy) concatenated along ``axis`` in rank order; ``sizes``: each process's size
    along ``axis`` (gathered when not given).  Each array is padded to the largest size for one all-gather, then
    cut back."""
    array = np.asarray(array)
    axis = axis % max(array.ndim, 1)
    if sizes is None:
        sizes = group.all_gather(np.array([array.shape[axis]], np.int64))
    sizes = np.asarray(sizes).reshape(-1)
    padding = [(0, 0)] * array.ndim
    padding[axis] = (0, int(sizes.max()) - array.shape[axis])
    stacked = group.all_gather(np.pad(array, padding))
    parts = [np.take(part, np.arange(size), axis=axis) for part, size in zip(stacked, sizes)]
    return np.concatenate(parts, axis=axis)
