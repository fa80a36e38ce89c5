"""Which elements of two numpy arrays are the same memory: what tracing needs to follow in-place writes.

A trace names values, but frontends write into memory: an in-place write through a view
changes its base and every other view of that memory.  Arrays are compared element by
element through their byte addresses, so any pair of strided views of one buffer (slices,
transposes, reshapes, diagonals, expansions) is understood without knowing how either was
made.  Arrays of different dtypes sharing memory (``view(dtype)``) cannot be related
element-wise: callers refuse them.
"""

import numpy as np


def owner(array):
    """The array owning ``array``'s memory (``None`` when another kind of object owns it)."""
    while array.base is not None:
        base = array.base
        if not isinstance(base, np.ndarray):
            # numpy's as_strided (sliding windows, unfold) keeps its source as the ``base`` of a stand-in object.
            base = getattr(base, "base", None)
            if not isinstance(base, np.ndarray):
                return None
        array = base
    return array


def addresses(array):
    """The byte address of each element of ``array``, in C order (a flat int64 array)."""
    addr = np.asarray(array.__array_interface__["data"][0], np.int64)
    for n, stride in zip(array.shape, array.strides):
        addr = np.add.outer(addr, np.arange(n, dtype=np.int64) * stride)
    return addr.reshape(-1)


def common_elements(part, whole):
    """Elements of ``part`` that are elements of ``whole`` (two arrays of one dtype).

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Int64 flat C-order positions: the elements of ``part`` found in ``whole``, and where each
        of them is in ``whole``.  Elements repeated in ``part`` (a broadcast view) are each found.
    """
    whole_addr = addresses(whole)
    if not whole_addr.size or not part.size:
        empty = np.zeros(0, np.int64)
        return empty, empty
    order = np.argsort(whole_addr, kind="stable")
    ordered = whole_addr[order]
    part_addr = addresses(part)
    k = np.minimum(np.searchsorted(ordered, part_addr), ordered.size - 1)
    found = ordered[k] == part_addr
    return np.flatnonzero(found), order[k[found]]


def same_elements(a, b):
    """Whether ``a`` and ``b`` are the same elements of memory in the same C order."""
    return (a.dtype == b.dtype and a.size == b.size
            and (a.shape == b.shape and a.strides == b.strides or a.flags.c_contiguous and b.flags.c_contiguous)
            and a.__array_interface__["data"][0] == b.__array_interface__["data"][0])
