"""tf.nn CTC decoders (greedy, beam search), collapse_repeated and ctc_unique_labels against real TF 2.21."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check

RNG = np.random.default_rng(0)
LOGITS = RNG.standard_normal((6, 3, 5)).astype(np.float32)
LENGTHS = np.array([6, 4, 0], np.int32)


def _sparse_parts(decoded):
    """A decoder's sparse outputs (SparseTensors in both libraries) as (type name, indices, values, dense_shape,
    static shape, dtype) tuples, comparable by the harness."""
    return [(type(d).__name__, d.indices, d.values, d.dense_shape, d.shape, d.dtype) for d in decoded]


def _greedy(tf, logits, lengths, **options):
    decoded, log_probs = tf.nn.ctc_greedy_decoder(logits, lengths, **options)
    return _sparse_parts(decoded), log_probs


def _beam(tf, logits, lengths, **options):
    decoded, log_probs = tf.nn.ctc_beam_search_decoder(logits, lengths, **options)
    return _sparse_parts(decoded), log_probs


@pytest.mark.parametrize("merge_repeated", [True, False])
@pytest.mark.parametrize("blank_index", [None, 0, 2, -1, -2])
def test_greedy_decoder(merge_repeated, blank_index):
    logits = np.repeat(LOGITS, 2, axis=0)  # repeated frames, so that merging matters
    check(_greedy, logits, np.array([12, 7, 1], np.int32), merge_repeated=merge_repeated, blank_index=blank_index)


@pytest.mark.parametrize("dtype", ["float64", "float16"])  # float16: TF refuses it
def test_greedy_decoder_dtypes(dtype):
    check(_greedy, LOGITS.astype(dtype), LENGTHS, rtol=1e-6 if dtype == "float64" else 1e-5)


@pytest.mark.parametrize("args", [
    (LOGITS[0], LENGTHS),                       # not 3-D
    (LOGITS, np.array([7, 1, 1], np.int32)),    # longer than max_time
    (LOGITS, np.array([6, 1], np.int32)),       # wrong batch
    (LOGITS, np.array([[6, 1, 1]], np.int32)),  # not a vector
    (LOGITS.astype(np.int32), LENGTHS),
])
def test_greedy_decoder_errors(args):
    check(_greedy, *args)


def test_greedy_decoder_blank_index_out_of_range():
    check(_greedy, LOGITS, LENGTHS, blank_index=5)


@pytest.mark.parametrize("beam_width,top_paths", [(1, 1), (3, 1), (3, 3), (10, 4), (100, 2)])
def test_beam_search_decoder(beam_width, top_paths):
    check(_beam, LOGITS, np.array([6, 4, 2], np.int32), beam_width=beam_width, top_paths=top_paths)


def test_beam_search_decoder_long_sequences_and_float64():
    logits = np.random.default_rng(1).standard_normal((20, 2, 4)) * 2
    check(_beam, logits, np.array([20, 13], np.int32), beam_width=5, top_paths=3, rtol=1e-6)
    check(_beam, logits.astype(np.float32), np.array([20, 13], np.int32), beam_width=5, top_paths=3)


@pytest.mark.parametrize("options", [dict(top_paths=4, beam_width=3), dict(beam_width=0), dict(top_paths=0),
                                     dict(top_paths=2)])
def test_beam_search_decoder_errors(options):
    check(_beam, LOGITS, LENGTHS, **options)  # LENGTHS has an empty entry: one leaf only


@pytest.mark.parametrize("labels,lengths", [
    ([[1, 1, 2, 2, 3], [4, 4, 4, 0, 0]], [5, 3]),
    ([[1, 1, 2], [3, 3, 3]], [0, 0]),
    ([[1.0, 1, 2]], [3]),
    ([[1, 1, 2]], np.array([2], np.int64)),
    ([[7, 7, 7, 7], [1, 2, 1, 2]], [4, 4]),
])
def test_collapse_repeated(labels, lengths):
    check(lambda tf: tf.nn.collapse_repeated(labels, lengths))


@pytest.mark.parametrize("labels", [
    [[3, 1, 3, 0], [2, 2, 2, 2]],
    [[3.0, 1, 3, 0]],
    np.array([[5, -1, 5, 7, -1, 2]], np.int64),
    np.random.default_rng(2).integers(0, 4, (5, 9)).astype(np.int32),
    [3, 1, 3, 0],
])
def test_ctc_unique_labels(labels):
    check(lambda tf, x: tf.nn.ctc_unique_labels(x), np.asarray(labels))
