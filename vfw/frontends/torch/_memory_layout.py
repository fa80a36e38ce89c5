"""Memory layouts of copies: the strides torch gives ``clone()`` (``memory_format``) and what they need.

torch's default, ``preserve_format``, keeps the strides of a tensor whose elements fill their memory
without gaps or overlaps (dims of size 1 aside) in any dim order (a transposed or permuted tensor);
for any other (a strided slice, an expanded tensor) it lays the copy out densely with the dims in the
order of the source's strides.  Plain numpy, no tensors: ``_dispatch`` uses these too.
"""

import numpy as np

_LAST_DIM_INNER = {4: (1, 3, 2, 0), 5: (1, 4, 3, 2, 0)}  # channels_last(_3d): dims from innermost to outermost


def element_strides(a):
    """``a``'s strides counted in elements."""
    return tuple(s // a.itemsize for s in a.strides)


def is_dense(shape, strides):
    """Whether an array of ``shape`` and element ``strides`` covers its memory exactly once, in some dim order.

    Dims of size 1 have no stride that matters; an empty array counts as dense when its other dims do.
    """
    step = 1
    for d in sorted((d for d in range(len(shape)) if shape[d] != 1), key=lambda d: strides[d]):
        if strides[d] != step:
            return False
        step *= shape[d]
    return True


def dims_by_stride(shape, strides):
    """The dims from innermost to outermost, as torch orders a non-dense tensor's copy.

    An insertion sort from the last dim outward: a dim moves inside a dim of larger stride (of equal
    stride and smaller size); a dim of stride 0 (broadcast) compares with none, so it keeps its place
    relative to the dims around it unless a later comparison moves a dim past it.
    """
    def outer_first(a, b):  # 1: a belongs outside b; -1: inside; 0: no order
        if strides[a] == 0 or strides[b] == 0:
            return 0
        if strides[a] != strides[b]:
            return 1 if strides[a] > strides[b] else -1
        return 1 if shape[a] > shape[b] else 0

    order = list(range(len(shape) - 1, -1, -1))
    for i in range(1, len(order)):
        moving = i
        for k in range(i - 1, -1, -1):
            verdict = outer_first(order[k], order[moving])
            if verdict > 0:
                order[k], order[moving] = order[moving], order[k]
                moving = k
            elif verdict < 0:
                break
    return order


def strides_for_order(shape, inner_to_outer):
    """Dense element strides for ``shape`` with the dims laid out from ``inner_to_outer``."""
    strides = [0] * len(shape)
    step = 1
    for d in inner_to_outer:
        strides[d] = step
        step *= shape[d]
    return tuple(strides)


def clone_strides(a, memory_format):
    """The element strides torch gives a copy of ``a`` for ``memory_format`` (its name), or None for C order."""
    if memory_format == "contiguous_format":
        return None
    if memory_format in ("channels_last", "channels_last_3d"):
        rank = 4 if memory_format == "channels_last" else 5
        if a.ndim != rank:
            raise RuntimeError(f"required rank {rank} tensor to use {memory_format} format")
        return strides_for_order(a.shape, _LAST_DIM_INNER[rank])
    strides = element_strides(a)
    if is_dense(a.shape, strides):
        return strides
    return strides_for_order(a.shape, dims_by_stride(a.shape, strides))


def strided_empty(shape, dtype, strides):
    """A new array of ``shape`` whose elements lie at the (dense) element ``strides``."""
    size = int(np.prod(shape, dtype=np.int64))
    buffer = np.empty(size, dtype)
    return np.ndarray(shape, dtype, buffer=buffer, strides=tuple(s * buffer.itemsize for s in strides))


def is_laid_out_as(a, memory_format):
    """torch's ``is_contiguous(memory_format)``: whether ``a`` is dense in that format's dim order (the strides of
    dims of size 1 do not matter); False for a channels-last format of another rank."""
    if memory_format == "contiguous_format":
        return a.flags.c_contiguous
    rank = 4 if memory_format == "channels_last" else 5
    if a.ndim != rank:
        return False
    wanted = strides_for_order(a.shape, _LAST_DIM_INNER[rank])
    return all(n == 1 or s == w for n, s, w in zip(a.shape, element_strides(a), wanted))


def suggested_format(a):
    """The memory format torch infers from ``a``'s strides (``suggest_memory_format``): a 4-d (5-d) array whose
    strides grow from the channel dim through the spatial dims to the batch dim is channels-last; ambiguous
    layouts (dims of size 1 with equal strides) count as row-major."""
    if a.ndim not in _LAST_DIM_INNER:
        return "contiguous_format"
    shape, strides = a.shape, element_strides(a)
    if strides[1] == 0:
        return "contiguous_format"
    floor = 0
    for d in _LAST_DIM_INNER[a.ndim]:
        if shape[d] == 0 or strides[d] < floor or (d == 0 and floor == strides[1]):
            return "contiguous_format"
        floor = strides[d] * max(shape[d], 1)
    return "channels_last" if a.ndim == 4 else "channels_last_3d"


def empty_like(a, dtype):
    """An uninitialized array shaped like ``a``, laid out as torch's ``*_like`` factories (``empty_like``,
    ``rand_like``...) lay out a new tensor by default (``preserve_format``): with the strides of ``clone()``."""
    if a.flags.c_contiguous:
        return np.empty(a.shape, dtype)
    return strided_empty(a.shape, dtype, clone_strides(a, "preserve_format"))


def cloned(a, memory_format="preserve_format"):
    """A copy of ``a`` laid out as torch's ``clone(memory_format=...)`` lays it out."""
    if a.flags.c_contiguous and memory_format in ("preserve_format", "contiguous_format"):
        copy = a.copy()
        if memory_format == "contiguous_format" or copy.strides == a.strides:
            return copy
        # Dense in C order but with other strides on dims of size 1 (or of an empty array): torch keeps them.
        return np.ndarray(a.shape, a.dtype, buffer=copy, strides=a.strides) if a.size else \
            strided_empty(a.shape, a.dtype, element_strides(a))
    strides = clone_strides(a, memory_format)
    if strides is None:
        return np.ascontiguousarray(a)
    out = strided_empty(a.shape, a.dtype, strides)
    np.copyto(out, a)
    return out


def memory_positions(a):
    """For a dense array ``a`` (see :func:`is_dense`), the C-order index of the element at each memory
    offset from its first element (a flat int64 array)."""
    positions = np.empty(a.size, np.int64)
    laid_out = np.ndarray(a.shape, np.int64, buffer=positions,
                          strides=tuple(s * positions.itemsize for s in element_strides(a)))
    laid_out[...] = np.arange(a.size, dtype=np.int64).reshape(a.shape)
    return positions


def grad_layout(grad, leaf):
    """``grad`` (of ``leaf``'s shape, or broadcastable to it) in memory of its own laid out as torch lays out a
    leaf's ``.grad``: with the leaf's strides when the leaf is dense (a channels-last weight gets a channels-last
    gradient), else in C order.  ``grad`` itself when it already is so and owns writable memory."""
    if leaf.flags.c_contiguous:  # the common case: no strides to compare
        if grad.flags.c_contiguous and grad.flags.writeable and grad.base is None and grad.shape == leaf.shape:
            return grad
        return np.array(np.broadcast_to(grad, leaf.shape), order="C")
    strides = element_strides(leaf)
    dense = is_dense(leaf.shape, strides)
    if grad.flags.writeable and grad.base is None and grad.shape == leaf.shape and (
            all(n == 1 or a == b for n, a, b in zip(leaf.shape, element_strides(grad), strides)) if dense
            else grad.flags.c_contiguous):
        return grad
    if not dense:
        return np.array(np.broadcast_to(grad, leaf.shape), order="C")
    out = strided_empty(leaf.shape, grad.dtype, strides)
    np.copyto(out, grad)
    return out
