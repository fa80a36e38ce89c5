"""tf.nn.embedding_lookup_sparse and safe_embedding_lookup_sparse against real TensorFlow (values and the
IndexedSlices gradient of the embedding table)."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, real, vtf

IDS_INDICES = [[0, 0], [0, 1], [0, 2], [2, 0], [3, 0], [3, 1]]
IDS = np.array([1, 3, 1, 0, 4, 2], np.int64)
WEIGHTS = np.array([2.0, 1.0, 0.5, 1.5, 3.0, 0.25], np.float32)
TABLE = arrays((5, 3), seed=7)


def lookup(tf, table, ids, weights, safe=False, shape=(4, 3), indices=IDS_INDICES, **kwargs):
    sp_ids = tf.SparseTensor(indices, ids, shape)
    sp_weights = None if weights is None else tf.SparseTensor(indices, weights, shape)
    if safe:
        return tf.nn.safe_embedding_lookup_sparse(table, sp_ids, sp_weights, **kwargs)
    return tf.nn.embedding_lookup_sparse(table, sp_ids, sp_weights, **kwargs)


def compare_with_gradient(weights, **kwargs):
    """Results and the table's gradient (type and dense value) in both libraries."""
    results = []
    for lib in (real, vtf):
        table = lib.constant(TABLE)
        with lib.GradientTape() as tape:
            tape.watch(table)
            out = lookup(lib, table, lib.constant(IDS),
                         None if weights is None else lib.constant(weights), **kwargs)
            w = np.random.default_rng(1).standard_normal(out.shape.as_list()).astype(np.float32)
            grad = tape.gradient(lib.reduce_sum(out * w), table)
        results.append((out.numpy(), type(grad).__name__, lib.convert_to_tensor(grad).numpy()))
    (want, want_type, want_grad), (got, got_type, got_grad) = results
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert got_type == want_type
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("combiner", [None, "sum", "mean", "sqrtn"])
@pytest.mark.parametrize("weights", [None, WEIGHTS])
@pytest.mark.parametrize("safe", [False, True])
def test_lookup_and_gradient(combiner, weights, safe):
    kwargs = {} if combiner is None else {"combiner": combiner}
    compare_with_gradient(weights, safe=safe, **kwargs)


@pytest.mark.parametrize("safe", [False, True])
def test_max_norm(safe):
    compare_with_gradient(WEIGHTS, safe=safe, max_norm=1.0)


def test_safe_drops_invalid_ids_and_weights():
    ids = np.array([1, -1, 1, 0, -3, 2], np.int64)
    weights = np.array([2.0, 1.0, -0.5, 1.5, 3.0, 0.0], np.float32)
    check(lambda tf, t, i: lookup(tf, t, i, None, safe=True), TABLE, ids)
    check(lambda tf, t, i, w: lookup(tf, t, i, w, safe=True), TABLE, ids, weights)
    check(lambda tf, t, i, w: lookup(tf, t, i, w, safe=True, default_id=4), TABLE, ids, weights)


def test_safe_rank3_ids():
    indices = [[0, 0, 0], [0, 1, 0], [0, 1, 1], [1, 0, 0]]
    ids = np.array([1, 3, 2, 4], np.int64)
    check(lambda tf, t, i: lookup(tf, t, i, None, safe=True, shape=(2, 2, 2), indices=indices), TABLE, ids)


def test_bad_combiner_and_int32_ids():
    check(lambda tf, t, i: lookup(tf, t, i, None, combiner="max"), TABLE, IDS)
    check(lambda tf, t, i: lookup(tf, t, i, None), TABLE, IDS.astype(np.int32))
