"""All-reduce of many tensors in buckets, as graph-traceable ops (the optimizer's gradient reduction).

Tensors of one dtype are flattened and concatenated into buckets of up to ``bucket_bytes``; each bucket
is one AllReduce engine op (one MPI collective), then split back.  Under ``tf.function`` the whole
reduction is part of the traced training step.
"""

import math

import numpy as np

from vfw.core.distributed import DEFAULT_BUCKET_BYTES
from vfw.frontends.tensorflow import _dispatch
from vfw.frontends.tensorflow._array_ops import concat, reshape, split


def _buckets(tensors, bucket_bytes):
    """Lists of indices of ``tensors``: same dtype, consecutive, up to ``bucket_bytes`` each."""
    open_buckets, closed = {}, []
    for i, t in enumerate(tensors):
        array = t.array
        indices, used = open_buckets.get(array.dtype, ([], 0))
        indices.append(i)
        used += array.nbytes
        if used >= bucket_bytes:
            closed.append(indices)
            open_buckets.pop(array.dtype, None)
        else:
            open_buckets[array.dtype] = (indices, used)
    return closed + [indices for indices, _ in open_buckets.values()]


def all_reduce_tensors(tensors, reduction, group, bucket_bytes=DEFAULT_BUCKET_BYTES):
    """``tensors`` (tf tensors) each reduced over ``group`` with ``reduction`` ("sum"/"avg"), in buckets."""
    results = list(tensors)
    for indices in _buckets(tensors, bucket_bytes):
        shapes = [tensors[i].array.shape for i in indices]
        if len(indices) == 1:
            results[indices[0]] = _dispatch.call("AllReduce", tensors[indices[0]], reduction=reduction,
                                                 group=group.group_id)
            continue
        flat = concat([reshape(tensors[i], [-1]) for i in indices], axis=0)
        reduced = _dispatch.call("AllReduce", flat, reduction=reduction, group=group.group_id)
        parts = split(reduced, [math.prod(s) for s in shapes], axis=0)
        for i, shape, part in zip(indices, shapes, parts):
            results[i] = reshape(part, np.array(shape, np.int64))
    return results
