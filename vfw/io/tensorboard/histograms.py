"""Histogram bucketings: TF2's ``tf.summary.histogram`` tensor and torch's ``HistogramProto``."""

import numpy as np

from vfw.io.tensorboard.protos import HistogramProto


def tensorflow_buckets(values, bucket_count=30):
    """TF2's histogram tensor of ``values`` (any shape, cast to float64): ``[bucket_count, 3]`` rows
    ``[left edge, right edge, count]`` of equal-width buckets from the minimum to the maximum.

    The last bucket is closed (holds the maximum).  All values equal: every edge is that value and the last
    bucket holds them all.  No values: zeros.  A count <= 0 gives shape ``[0, 3]``.
    """
    bucket_count = max(0, int(bucket_count))
    data = np.asarray(values, dtype=np.float64).reshape(-1)
    if data.size == 0 or bucket_count == 0:
        return np.zeros((bucket_count, 3), np.float64)
    low, high = data.min(), data.max()
    span = high - low
    if span == 0:
        counts = np.zeros(bucket_count, np.float64)
        counts[-1] = data.size
        edges = np.full(bucket_count, high)
        return np.stack([edges, edges, counts], axis=1)
    width = span / bucket_count
    # TF casts floor(offset / width) to int32 then clamps to the last bucket (the maximum lands past it).
    indices = np.minimum(np.floor((data - low) / width).astype(np.int64), bucket_count - 1)
    counts = np.bincount(indices, minlength=bucket_count).astype(np.float64)
    step = span / bucket_count
    edges = low + np.arange(bucket_count + 1, dtype=np.float64) * step
    edges[-1] = high
    return np.stack([edges[:-1], edges[1:], counts], axis=1)


def _tensorflow_legacy_edges():
    # TF1's default histogram bucket limits (torch's bins="tensorflow"): 1e-12 growing by 10% up to 1e20,
    # mirrored for negative values around 0.
    positive = []
    limit = 1e-12
    while limit < 1e20:
        positive.append(limit)
        limit *= 1.1
    return np.array([-v for v in reversed(positive)] + [0.0] + positive, np.float64)


_LEGACY_EDGES = _tensorflow_legacy_edges()


def torch_histogram(values, bins="tensorflow", max_bins=None):
    """torch's ``HistogramProto`` of ``values``: ``np.histogram`` over ``bins`` ("tensorflow" is TF1's
    exponential limits; other values go to ``np.histogram``), trimmed to the buckets from the first to the last
    non-empty one (one empty bucket kept before, as torch does), ``max_bins`` merging neighbours.

    Raises
    ------
    ValueError
        For no values (the histogram would be empty).
    """
    data = np.asarray(values, dtype=np.float64).reshape(-1)
    if data.size == 0:
        raise ValueError("The input has no element.")
    counts, limits = np.histogram(data, bins=_LEGACY_EDGES if isinstance(bins, str) and bins == "tensorflow"
                                  else bins)
    if max_bins is not None and len(counts) > max_bins:
        merge = len(counts) // max_bins
        extra = len(counts) % merge
        if extra:
            counts = np.pad(counts, (0, merge - extra))
        counts = counts.reshape(-1, merge).sum(axis=-1)
        limits = np.concatenate([limits[:-1:merge], limits[-1:]])
    nonempty = np.flatnonzero(counts > 0)
    first, last = nonempty[0], nonempty[-1]
    if first > 0:
        kept_counts, kept_limits = counts[first - 1:last + 1], limits[first:last + 2]
    else:
        kept_counts, kept_limits = np.concatenate([[0], counts[:last + 1]]), limits[:last + 2]
    return HistogramProto(min=data.min(), max=data.max(), num=data.size, sum=data.sum(),
                          sum_squares=float(data.dot(data)), bucket_limit=kept_limits.tolist(),
                          bucket=kept_counts.astype(np.float64).tolist())
