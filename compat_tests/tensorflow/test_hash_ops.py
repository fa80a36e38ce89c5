"""FarmHash Fingerprint64 (``_farmhash``), ``tf.strings.to_hash_bucket_fast`` and ``tf.fingerprint`` against real
TF 2.21: random byte strings of every length 0..200 (every length branch of the hash and the 64-byte loop), bucket
counts, shapes, numeric fingerprints of every dtype width, tf.function, errors."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, real
from vfw.frontends.tensorflow._farmhash import fingerprint64

RNG = np.random.default_rng(0)
STRINGS = [RNG.integers(0, 256, size=n, dtype=np.uint8).tobytes() for n in list(range(201)) * 4]


def test_fingerprint64_every_length_against_tf():
    """TF's to_hash_bucket_fast with 2**63 - 1 buckets is the fingerprint modulo that (the top bit is the only loss),
    a second, small odd bucket count pins the remaining information."""
    ours = fingerprint64(STRINGS)
    for buckets in (2**63 - 1, 3):
        want = real.strings.to_hash_bucket_fast(real.constant(STRINGS), buckets).numpy().astype(np.uint64)
        np.testing.assert_array_equal(ours % np.uint64(buckets), want)


def test_fingerprint64_exactly_through_tf_fingerprint():
    """tf.fingerprint of a 1-D string tensor gives each string's Fingerprint64 bytes: all 64 bits compared."""
    want = real.fingerprint(real.constant(STRINGS)).numpy()
    np.testing.assert_array_equal(fingerprint64(STRINGS).astype("<u8").view(np.uint8).reshape(-1, 8), want)


@pytest.mark.parametrize("buckets", [1, 7, 1000003])
def test_to_hash_bucket_fast(buckets):
    words = np.array([[b"", b"a", b"hello world"], [b"x" * 40, b"keras" * 30, "\u00e9t\u00e9".encode()]], object)
    check(lambda tf, s: tf.strings.to_hash_bucket_fast(s, buckets), words)
    check(lambda tf: tf.function(lambda s: tf.strings.to_hash_bucket_fast(s, buckets))(tf.constant(["a", "bc"])))
    check(lambda tf: tf.strings.to_hash_bucket_fast("scalar", buckets))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "float16", "float32", "float64", "bool"])
def test_fingerprint_numeric_rows(dtype):
    data = (RNG.normal(size=(4, 3, 2)) * 50).astype(dtype)
    check(lambda tf, x: tf.fingerprint(x), data)
    check(lambda tf, x: tf.fingerprint(x[0, 0]), data)
    check(lambda tf, x: tf.fingerprint(x[:, :0]), data)


ERRORS = {
    "zero_buckets": lambda tf: tf.strings.to_hash_bucket_fast(["a"], 0),
    "numbers_to_buckets": lambda tf: tf.strings.to_hash_bucket_fast(tf.constant([1]), 3),
    "scalar_fingerprint": lambda tf: tf.fingerprint(tf.constant(3)),
    "bad_method": lambda tf: tf.fingerprint([1, 2], method="md5"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors(case):
    check(ERRORS[case])
