"""FarmHash ops: ``tf.strings.to_hash_bucket_fast`` and ``tf.fingerprint`` (method "farmhash64").

Both compute on the host (``host``: a ``tf.function`` graph reruns them on each call) through
``_farmhash.fingerprint64``.
"""

import numpy as np

from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, op_error
from vfw.frontends.tensorflow._farmhash import fingerprint64
from vfw.frontends.tensorflow._string_ops import strings_of


def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002  (TF's argument name)
    """``Fingerprint64(s) % num_buckets`` of every string of ``input`` (int64, ``input``'s shape).

    Raises
    ------
    InvalidArgumentError
        For ``num_buckets < 1`` or a non-string tensor.
    """
    if num_buckets < 1:
        raise op_error(f"Value for attr 'num_buckets' of {num_buckets} must be at least minimum 1",
                       "StringToHashBucketFast")
    strings = strings_of(input, "StringToHashBucketFast")

    def run(array):
        hashes = fingerprint64(array.reshape(-1).tolist()) % np.uint64(num_buckets)
        return hashes.astype(np.int64).reshape(array.shape)
    return host(run, strings)


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


NAMESPACES = {"tf": ["fingerprint"], "strings": ["to_hash_bucket_fast"]}
