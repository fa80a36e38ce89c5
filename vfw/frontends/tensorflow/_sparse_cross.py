"""Feature crosses: ``tf.sparse.cross`` / ``cross_hashed`` (TF's SparseCrossV2 / SparseCrossHashed).

Every input is a batch of feature lists (a 2-D dense Tensor: a row's columns; a SparseTensor: a row's stored values
in order). Row ``r`` of the result holds every combination of one feature per input, the last input varying fastest,
the SparseTensors taken first, then the dense ones (TF's op inputs). Non-string features are cast to int64 first.

``cross`` joins the combination's features (int64 as decimal text) with ``separator``; ``cross_hashed`` folds
``FingerprintCat64`` over the features' hashes (FarmHash Fingerprint64 of a string, the two's complement bits of an
int64), starting from ``hash_key``, and takes the result modulo ``num_buckets`` (or ``2^63 - 1`` without buckets).
The index arithmetic is vectorised numpy; results are eager only (no gradient: TF has none).
"""

import numpy as np

from vfw.frontends.tensorflow._dispatch import convert_to_tensor, op_error, wrap
from vfw.frontends.tensorflow._farmhash import fingerprint64
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor, refuse_in_graph

_DEFAULT_HASH_KEY = 0xDECAFCAFFE
_CAT_MULTIPLIER = np.uint64(0xC6A4A7935BD1E995)
_INT64_MAX = np.uint64(2**63 - 1)


class _Features:
    """One input's features: ``starts``/``counts`` per row into the flat ``items`` (bytes objects or int64)."""

    def __init__(self, value):
        if isinstance(value, SparseTensor):
            rows = np.asarray(value.indices.array[:, 0], np.int64)
            self.batch = int(value.dense_shape.array[0])
            self.counts = np.bincount(rows, minlength=self.batch)
            items = value.values.array
        else:
            array = value.array
            self.batch = array.shape[0]
            self.counts = np.full(self.batch, array.shape[1] if array.ndim > 1 else 1, np.int64)
            items = array.reshape(-1)
        self.starts = (np.cumsum(self.counts) - self.counts).astype(np.int64)
        self.items = items if items.dtype == object else items.astype(np.int64)

    def hashes(self):
        """uint64 hash of every item: Fingerprint64 of strings, the bits of int64s."""
        if self.items.dtype == object:
            return fingerprint64(self.items.tolist())
        return self.items.view(np.uint64)

    def texts(self):
        """Every item as bytes (int64 in decimal)."""
        if self.items.dtype == object:
            return self.items
        return np.array([str(v).encode() for v in self.items.tolist()], object)


def _combinations(features):
    """``(row of each combination, [item index of each input per combination])``, last input fastest."""
    totals = np.ones(features[0].batch, np.int64) if features else np.zeros(0, np.int64)
    for f in features:
        totals = totals * f.counts
    rows = np.repeat(np.arange(len(totals)), totals)
    within = np.arange(len(rows)) - np.repeat(np.cumsum(totals) - totals, totals)
    picks = [None] * len(features)
    stride = np.ones(len(totals), np.int64)
    for k in range(len(features) - 1, -1, -1):
        f = features[k]
        picks[k] = f.starts[rows] + (within // stride[rows]) % np.maximum(f.counts[rows], 1)
        stride = stride * f.counts
    return rows, totals, picks


def _fingerprint_cat(first, second):
    """TF's FingerprintCat64 of uint64 arrays (wrapping arithmetic)."""
    def shift_mix(v):
        return v ^ (v >> np.uint64(47))

    result = first ^ _CAT_MULTIPLIER
    result = result ^ (shift_mix(second * _CAT_MULTIPLIER) * _CAT_MULTIPLIER)
    result = result * _CAT_MULTIPLIER
    return shift_mix(shift_mix(result) * _CAT_MULTIPLIER)


def _feature_inputs(inputs, tf_op):
    """The inputs as tensors (non-string ones cast to int64) and their feature lists; batch sizes must agree."""
    values = []
    for value in inputs:
        if not isinstance(value, SparseTensor):
            value = convert_to_tensor(value)
        values.append(value)
    features = [_Features(v) for v in values]
    for i, f in enumerate(features[1:], 1):
        if f.batch != features[0].batch:
            kind = "sparse" if isinstance(values[i], SparseTensor) else "dense"
            raise op_error(f"Expected batch size {features[0].batch} got {f.batch} at {kind} tensor {i}", tf_op)
    return features


def _crossed(inputs, tf_op, hashed, separator, num_buckets, hash_key):
    """``(rows, per-row totals, values)`` of the crosses of ``inputs`` (in the order given)."""
    refuse_in_graph(f"tf {tf_op}")
    features = _feature_inputs(inputs, tf_op)
    rows, totals, picks = _combinations(features)
    if hashed:
        key = np.uint64(_DEFAULT_HASH_KEY if hash_key is None else hash_key)
        values = np.full(len(rows), key, np.uint64)
        with np.errstate(over="ignore"):
            for f, pick in zip(features, picks):
                values = _fingerprint_cat(values, f.hashes()[pick])
        values = (values % (np.uint64(num_buckets) if num_buckets else _INT64_MAX)).astype(np.int64)
    else:
        texts = [f.texts()[pick] for f, pick in zip(features, picks)]
        values = np.array([separator.join(parts) for parts in zip(*texts)], object).reshape(-1)
    return rows, totals, values


def _sparse_crossed(inputs, hashed, separator=b"_X_", num_buckets=0, hash_key=None):
    if not isinstance(inputs, (list, tuple)):
        raise TypeError("Inputs must be a list")
    sparse = [v for v in inputs if isinstance(v, SparseTensor)]
    ordered = sparse + [v for v in inputs if not isinstance(v, SparseTensor)]
    tf_op = "SparseCrossHashed" if hashed else "SparseCrossV2"
    rows, totals, values = _crossed(ordered, tf_op, hashed, separator, num_buckets, hash_key)
    columns = np.arange(len(rows)) - np.repeat(np.cumsum(totals) - totals, totals)
    indices = np.stack([rows, columns], axis=1).astype(np.int64)
    dense_shape = np.asarray([len(totals), int(totals.max()) if len(totals) else 0], np.int64)
    return SparseTensor._from_parts(wrap(indices), wrap(values), wrap(dense_shape))


def _separator(separator):
    if separator is None:
        return b"_X_"
    return separator.encode() if isinstance(separator, str) else bytes(separator)


def cross(inputs, name=None, separator=None):
    """The string feature crosses of ``inputs`` (a list of 2-D Tensors and SparseTensors, string or integer) as a
    SparseTensor ``[batch, max crosses]`` of the features joined by ``separator`` (``"_X_"``)."""
    return _sparse_crossed(inputs, False, separator=_separator(separator))


def cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    """The hashed feature crosses of ``inputs`` (see ``cross``) as an int64 SparseTensor: each cross's fingerprint
    modulo ``num_buckets`` (when > 0)."""
    return _sparse_crossed(inputs, True, num_buckets=num_buckets, hash_key=hash_key)


NAMESPACES = {"sparse": ["cross", "cross_hashed"]}
