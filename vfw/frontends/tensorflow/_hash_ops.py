"""String hashing ops: ``tf.strings.to_hash_bucket_fast`` and ``tf.fingerprint`` (method "farmhash64") through
``_farmhash.fingerprint64``, ``tf.strings.to_hash_bucket_strong`` (keyed SipHash-2-4, ``_siphash``) and
``tf.strings.to_hash_bucket`` (TF's legacy Hash64, ``_tf_hash64``).

All compute on the host (``host``: a ``tf.function`` graph reruns them on each call).
"""

import numpy as np

from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, op_error
from vfw.frontends.tensorflow._farmhash import fingerprint64
from vfw.frontends.tensorflow._ragged import RaggedTensor
from vfw.frontends.tensorflow._siphash import siphash24
from vfw.frontends.tensorflow._string_ops import strings_of
from vfw.frontends.tensorflow._tf_hash64 import hash64


def _hash_buckets(hash_fn, input, num_buckets, tf_op):  # noqa: A002  (TF's argument name)
    """``hash_fn(strings) % num_buckets`` of every string of ``input`` (int64, ``input``'s shape)."""
    if num_buckets < 1:
        raise op_error(f"Value for attr 'num_buckets' of {num_buckets} must be at least minimum 1", tf_op)
    if isinstance(input, RaggedTensor):  # TF dispatches the hash ops over a ragged tensor's flat values
        return input.with_flat_values(_hash_buckets(hash_fn, input.flat_values, num_buckets, tf_op))
    strings = strings_of(input, tf_op)

    def run(array):
        hashes = hash_fn(array.reshape(-1).tolist()) % np.uint64(num_buckets)
        return hashes.astype(np.int64).reshape(array.shape)
    return host(run, strings)


def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002  (TF's argument name)
    """``Fingerprint64(s) % num_buckets`` of every string of ``input`` (int64, ``input``'s shape).

    Raises
    ------
    InvalidArgumentError
        For ``num_buckets < 1`` or a non-string tensor.
    """
    return _hash_buckets(fingerprint64, input, num_buckets, "StringToHashBucketFast")


def to_hash_bucket_strong(input, num_buckets, key, name=None):  # noqa: A002  (TF's argument name)
    """``SipHash-2-4(key, s) % num_buckets`` of every string of ``input`` (int64, ``input``'s shape).

    Parameters
    ----------
    input : string tensor
    num_buckets : int
        At least 1.
    key : list of two int
        The 128-bit SipHash key as two int64 values (read as uint64).

    Raises
    ------
    InvalidArgumentError
        For ``num_buckets < 1``, a non-string tensor or a key without exactly 2 elements.
    OverflowError
        For a key element outside int64.
    """
    key = [int(k) for k in key]
    if any(not -2**63 <= k < 2**63 for k in key):
        raise OverflowError("int too big to convert")
    if num_buckets >= 1 and len(key) != 2:
        raise op_error("Key must have 2 elements", "StringToHashBucketStrong")
    return _hash_buckets(lambda strings: siphash24(strings, key), input, num_buckets, "StringToHashBucketStrong")


def to_hash_bucket(input, num_buckets, name=None):  # noqa: A002  (TF's argument name)
    """``Hash64(s) % num_buckets`` (TF's legacy MurmurHash64A-based hash) of every string of ``input``.

    Raises
    ------
    InvalidArgumentError
        For ``num_buckets < 1`` or a non-string tensor.
    """
    return _hash_buckets(hash64, input, num_buckets, "StringToHashBucket")


_CAT_MUL = np.uint64(0xC6A4A7935BD1E995)
_CROSS_HASH_KEY = 0xDECAFCAFFE  # TF's default sparse-cross hash key


def _shift_mix(value):
    return value ^ (value >> np.uint64(47))


def _fingerprint_cat64(first, second):
    """TF's ``FingerprintCat64``: the 64-bit fingerprint of a concatenation of two fingerprints."""
    result = (first ^ _CAT_MUL) ^ (_shift_mix(second * _CAT_MUL) * _CAT_MUL)
    return _shift_mix(_shift_mix(result * _CAT_MUL) * _CAT_MUL)


def cross_hashed_dense(features, num_buckets, hash_key=None):
    """TF's hashed sparse cross (``tf.sparse.cross_hashed``) of dense ``[batch, 1]`` features, densified.

    Each row's cross is ``FingerprintCat64`` folded over the features in order, starting from ``hash_key``; a
    string feature enters as its FarmHash Fingerprint64, an integer feature as its int64 value (read as
    uint64).  Returns int64 ``[batch, 1]``: the cross modulo ``num_buckets`` (0: modulo the int64 maximum).
    """
    key = _CROSS_HASH_KEY if not hash_key else hash_key

    def run(*arrays):
        hashed = np.full(arrays[0].shape[0], np.uint64(key % 2**64), np.uint64)
        with np.errstate(over="ignore"):
            for array in arrays:
                column = array[:, 0]
                values = fingerprint64(column.tolist()) if array.dtype == object else column.astype(np.int64)
                hashed = _fingerprint_cat64(hashed, values.astype(np.uint64))
        modulus = np.uint64(num_buckets if num_buckets > 0 else 2**63 - 1)
        return (hashed % modulus).astype(np.int64).reshape(-1, 1)
    return host(run, *features)


def fingerprint(data, method="farmhash64", name=None):
    """Fingerprints ``[rows, 8]`` uint8 of the rows (first-axis slices) of ``data``.

    A numeric row's fingerprint is FarmHash Fingerprint64 of its bytes (little-endian), written as
    8 little-endian bytes; a string row is one string (1-D string tensors).

    Raises
    ------
    InvalidArgumentError
        For a scalar ``data`` or a method other than "farmhash64".
    NotImplementedError
        For string tensors of rank > 1 (TF combines per-string 128-bit fingerprints, not implemented).
    """
    data = convert_to_tensor(data)
    if method != "farmhash64":
        raise op_error(f"Unsupported fingerprint method: {method}", "Fingerprint")
    if data.array.ndim == 0:
        raise op_error(f"`data` should have at least one dimension: {list(data.array.shape)}", "Fingerprint")
    if data.array.dtype == object and data.array.ndim > 1:
        raise NotImplementedError("tf.fingerprint of string tensors of rank > 1 is not supported by vfw")

    def run(array):
        if array.dtype == object:
            rows = array.tolist()
        else:
            flat = np.ascontiguousarray(array.reshape(array.shape[0], -1).astype(array.dtype.newbyteorder("<")))
            rows = [row.tobytes() for row in flat]
        return fingerprint64(rows).astype("<u8").view(np.uint8).reshape(len(rows), 8)
    return host(run, data)


NAMESPACES = {"tf": ["fingerprint"], "strings": ["to_hash_bucket_fast", "to_hash_bucket_strong", "to_hash_bucket"]}
