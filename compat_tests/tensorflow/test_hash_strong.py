"""Keyed SipHash-2-4 (``_siphash``), TF's legacy Hash64 (``_tf_hash64``), ``tf.strings.to_hash_bucket_strong`` /
``to_hash_bucket`` and the hashed sparse-cross combination (``_hash_ops.cross_hashed_dense``) against real TF 2.21:
random byte strings of every length 0..80 (every tail length and block count), several keys, bucket counts, shapes,
tf.function, errors.  SipHash is also checked against the SipHash paper's published test vector."""

import numpy as np
import pytest
import vfw.tensorflow as vtf

from compat_tests.tensorflow.harness import check, real
from vfw.frontends.tensorflow import _hash_ops
from vfw.frontends.tensorflow._siphash import siphash24
from vfw.frontends.tensorflow._tf_hash64 import hash64

RNG = np.random.default_rng(1)
STRINGS = [RNG.integers(0, 256, size=n, dtype=np.uint8).tobytes() for n in list(range(81)) * 3 + [500, 1000]]
KEYS = [(0, 0), (1, 2), (-1, 123456789012345), (2**63 - 1, -2**63)]


def _buckets_equal(ours, tf_hash):
    """All 64 bits: modulo 2**63 - 1 keeps all but the top bit, an odd small modulus pins it."""
    for buckets in (2**63 - 1, 3):
        np.testing.assert_array_equal(ours % np.uint64(buckets), tf_hash(buckets).numpy().astype(np.uint64))


def test_siphash_paper_test_vector():
    """SipHash-2-4 paper, appendix A: key 00 01 .. 0f, message 00 01 .. 0e -> a129ca6149be45e5."""
    key = (int.from_bytes(bytes(range(8)), "little"), int.from_bytes(bytes(range(8, 16)), "little"))
    assert siphash24([bytes(range(15))], key)[0] == np.uint64(0xA129CA6149BE45E5)


@pytest.mark.parametrize("key", KEYS)
def test_siphash_every_length_against_tf(key):
    _buckets_equal(siphash24(STRINGS, key),
                   lambda buckets: real.strings.to_hash_bucket_strong(real.constant(STRINGS), buckets, list(key)))


def test_hash64_every_length_against_tf():
    _buckets_equal(hash64(STRINGS), lambda buckets: real.strings.to_hash_bucket(real.constant(STRINGS), buckets))


WORDS = np.array([[b"", b"a", b"hello world"], [b"x" * 40, b"keras" * 30, "\u00e9t\u00e9".encode()]], object)


@pytest.mark.parametrize("buckets", [1, 7, 1000003])
def test_to_hash_bucket_strong(buckets):
    check(lambda tf, s: tf.strings.to_hash_bucket_strong(s, buckets, [3, 9]), WORDS)
    check(lambda tf: tf.function(lambda s: tf.strings.to_hash_bucket_strong(s, buckets, key=[1, 2]))(
        tf.constant(["a", "bc"])))
    check(lambda tf: tf.strings.to_hash_bucket_strong("scalar", buckets, [5, -5]))


@pytest.mark.parametrize("buckets", [1, 7, 1000003])
def test_to_hash_bucket(buckets):
    check(lambda tf, s: tf.strings.to_hash_bucket(s, buckets), WORDS)
    check(lambda tf: tf.function(lambda s: tf.strings.to_hash_bucket(s, buckets))(tf.constant(["a", "bc"])))


ERRORS = {
    "strong_zero_buckets": lambda tf: tf.strings.to_hash_bucket_strong(["a"], 0, [1, 2]),
    "strong_short_key": lambda tf: tf.strings.to_hash_bucket_strong(["a"], 3, [1]),
    "strong_long_key": lambda tf: tf.strings.to_hash_bucket_strong(["a"], 3, [1, 2, 3]),
    "strong_key_overflow": lambda tf: tf.strings.to_hash_bucket_strong(["a"], 3, [1, 2**64]),
    "strong_numbers": lambda tf: tf.strings.to_hash_bucket_strong(tf.constant([1]), 3, [1, 2]),
    "legacy_zero_buckets": lambda tf: tf.strings.to_hash_bucket(["a"], 0),
    "legacy_numbers": lambda tf: tf.strings.to_hash_bucket(tf.constant([1.0]), 3),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    check(ERRORS[case])


def _cross_features():
    text = np.array([[b"A"], [b"B"], [b"hello"], [b""], [b"long string " * 9]], object)
    numbers = np.array([[101], [-5], [2**40], [0], [-2**63]], np.int64)
    return text, numbers


@pytest.mark.parametrize("order", [(0, 1), (1, 0), (0, 0, 1), (1, 1), (0,), (1,)])
@pytest.mark.parametrize("buckets", [2**62, 1000, 0])
def test_cross_hashed_dense_against_tf_sparse_cross_hashed(order, buckets):
    features = _cross_features()
    want = real.sparse.to_dense(real.sparse.cross_hashed([real.constant(features[i]) for i in order], buckets))
    got = _hash_ops.cross_hashed_dense([vtf.constant(features[i]) for i in order], buckets)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert got.dtype.name == want.dtype.name == "int64"
