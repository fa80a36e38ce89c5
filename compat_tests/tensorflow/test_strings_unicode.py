"""tf.strings Unicode ops, bytes_split, unsorted_segment_join and tf.io decode_raw / base64 against real TF 2.21:
values, dtypes, ragged structure, error kinds, and the ops inside tf.function and dataset maps."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check

TEXTS = np.array(["héllo", "ab", "", "😀x"], dtype=object)
BAD_UTF8 = [b"a\xffb", b"\xe2\x82", b"\xe2\x82a", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80",
            b"\x7f\x80\x00\x1f \n"]


def _ragged(r):
    """A ragged result in a comparable form: its rows, shape, dtype and partitions."""
    return (r.to_list(), r.shape, r.dtype, r.flat_values, r.nested_row_splits, r.ragged_rank)


def _result(r):
    return tuple(_result(x) for x in r) if isinstance(r, tuple) else _ragged(r) if hasattr(r, "flat_values") else r


@pytest.mark.parametrize("fn", [
    lambda tf, x: tf.strings.bytes_split(x),
    lambda tf, x: tf.strings.bytes_split(x[0]),
    lambda tf, x: tf.strings.bytes_split(tf.reshape(x, [2, 2])),
    lambda tf, x: tf.strings.bytes_split(tf.strings.split(x)),
    lambda tf, x: tf.strings.unicode_decode(x, "UTF-8"),
    lambda tf, x: tf.strings.unicode_decode(x[0], "UTF-8"),
    lambda tf, x: tf.strings.unicode_decode(tf.reshape(x, [2, 2]), "UTF-8"),
    lambda tf, x: tf.strings.unicode_decode(tf.RaggedTensor.from_row_lengths(x, [1, 3]), "utf-8"),
    lambda tf, x: tf.strings.unicode_decode_with_offsets(x, "UTF-8"),
    lambda tf, x: tf.strings.unicode_decode_with_offsets(x[0], "UTF-8"),
    lambda tf, x: tf.strings.unicode_decode_with_offsets(tf.reshape(x, [2, 2]), "UTF-8"),
    lambda tf, x: tf.strings.unicode_split(x, "UTF-8"),
    lambda tf, x: tf.strings.unicode_split_with_offsets(x, "UTF-8"),
    lambda tf, x: tf.strings.unicode_split_with_offsets(x[3], "UTF-8"),
    lambda tf, x: tf.strings.unicode_transcode(x, "UTF-8", "UTF-16-BE"),
    lambda tf, x: tf.strings.unicode_transcode(x[0], "UTF-8", "UTF-32-BE"),
    lambda tf, x: tf.strings.unicode_transcode(tf.strings.unicode_transcode(x, "UTF-8", "UTF-16-BE"),
                                               "UTF-16-BE", "UTF-8"),
    lambda tf, x: tf.strings.unicode_transcode(tf.RaggedTensor.from_row_lengths(x, [3, 1]), "UTF-8", "UTF-8"),
    lambda tf, x: tf.strings.unicode_encode(tf.strings.unicode_decode(x, "UTF-8"), "UTF-8"),
    lambda tf, x: tf.strings.unicode_encode(tf.strings.unicode_decode(tf.reshape(x, [2, 2]), "UTF-8"), "UTF-16-BE"),
    lambda tf, x: tf.strings.unicode_encode(tf.strings.unicode_decode(x, "UTF-8").to_tensor(), "UTF-32-BE"),
    lambda tf, x: tf.strings.unsorted_segment_join(x, [0, 1, 0, 3], 5, separator=":"),
    lambda tf, x: tf.strings.unsorted_segment_join(tf.reshape(x, [2, 2]), [1, 0], 2),
    lambda tf, x: tf.strings.unsorted_segment_join(tf.reshape(x, [2, 2]), [[1, 0], [0, 0]], 2, separator="-"),
    lambda tf, x: tf.strings.unsorted_segment_join(x, tf.constant([0, 1, 0, 1], tf.int64), tf.constant(2, tf.int64)),
    lambda tf, x: tf.strings.unsorted_segment_join(x, [0, 1, 0, 1], 0),
    lambda tf, x: tf.strings.unsorted_segment_join(x, [0, 1, -1, 1], 2),
    lambda tf, x: tf.strings.unsorted_segment_join(x, [0, 1, 2, 1], 2),
    lambda tf, x: tf.strings.unsorted_segment_join(x, [0, 1], 2),
    lambda tf, x: tf.strings.unsorted_segment_join(x, [0, 1, 0, 1], -1),
    lambda tf, x: tf.io.encode_base64(x),
    lambda tf, x: tf.io.encode_base64(tf.reshape(x, [2, 2]), pad=True),
    lambda tf, x: tf.io.decode_base64(tf.io.encode_base64(x)),
    lambda tf, x: tf.io.decode_base64(tf.io.encode_base64(x, pad=True)),
])
def test_text_ops(fn):
    check(lambda tf, x: _result(fn(tf, x)), TEXTS)


@pytest.mark.parametrize("errors", ["replace", "ignore", "strict"])
@pytest.mark.parametrize("control", [False, True])
@pytest.mark.parametrize("op", ["unicode_decode", "unicode_decode_with_offsets", "unicode_transcode"])
def test_invalid_input_policies(op, errors, control):
    def fn(tf, text):
        kwargs = dict(errors=errors, replace_control_characters=control)
        if op == "unicode_transcode":
            return tf.strings.unicode_transcode([text], "UTF-8", "UTF-16-BE", **kwargs)
        return _result(getattr(tf.strings, op)([text], "UTF-8", **kwargs))
    for text in BAD_UTF8:
        check(fn, text)


@pytest.mark.parametrize("fn", [
    lambda tf: tf.strings.unicode_decode([b"a\xff", b"\x01"], "UTF-8", replacement_char=63,
                                         replace_control_characters=True),
    lambda tf: tf.strings.unicode_split([b"a\xffb"], "UTF-8"),
    lambda tf: tf.strings.unicode_split([b"a\xffb"], "UTF-8", errors="ignore"),
    lambda tf: tf.strings.unicode_split([b"a\xffb"], "UTF-8", replacement_char=63),
    lambda tf: tf.strings.unicode_split_with_offsets([b"a\xff\xe2\x82b"], "UTF-8"),
    lambda tf: tf.strings.unicode_decode([b"\x00a\x00b", b"\xd8\x3d\xde\x00", b"\x00a\x00"], "UTF-16-BE"),
    lambda tf: tf.strings.unicode_decode_with_offsets([b"\xd8\x3d\xde\x00\x00a"], "UTF-16-BE"),
    lambda tf: tf.strings.unicode_decode_with_offsets([b"\xff\xfea\x00b\x00"], "UTF-16"),
    lambda tf: tf.strings.unicode_decode_with_offsets([b"\xfe\xff\x00a\x00b", b"\x00a"], "UTF-16"),
    lambda tf: tf.strings.unicode_decode_with_offsets([b"\x00a"], "UTF-16"),
    lambda tf: tf.strings.unicode_decode([b"a\x00"], "UTF-16-LE"),
    lambda tf: tf.strings.unicode_decode([b"\x00\x00\x00a"], "UTF-32-BE"),
    lambda tf: tf.strings.unicode_decode([b"a\xe9"], "ISO-8859-1"),
    lambda tf: tf.strings.unicode_split([b"\x00a\x00b"], "UTF-16-BE"),
    lambda tf: tf.strings.unicode_decode(["a"], "FOO"),
    lambda tf: tf.strings.unicode_decode(["a"], "UTF-8", errors="foo"),
    lambda tf: tf.strings.unicode_decode([b"a\xff"], "UTF-8", replacement_char=0x110000),
    lambda tf: tf.strings.unicode_decode(tf.constant([1]), "UTF-8"),
    lambda tf: tf.strings.unicode_decode_with_offsets([1], "UTF-8"),
    lambda tf: tf.strings.unicode_split(tf.ragged.constant([[1]]), "UTF-8"),
    lambda tf: tf.strings.unicode_split_with_offsets(tf.constant([1]), "UTF-8"),
    lambda tf: tf.strings.bytes_split([1]),
    lambda tf: tf.strings.unicode_encode(tf.ragged.constant([[1]], tf.int64), "UTF-8"),
    lambda tf: tf.strings.unsorted_segment_join(tf.constant([1]), [0], 1),
    lambda tf: tf.io.encode_base64(tf.constant([1])),
    lambda tf: tf.strings.bytes_split(tf.constant([1])),
    lambda tf: tf.strings.unicode_transcode([b"\xff\xfea\x00"], "UTF-16", "UTF-8"),
    lambda tf: tf.strings.unicode_transcode([b"a\xffb"], "UTF-8", "UTF-8", replacement_char=63),
    lambda tf: tf.strings.unicode_transcode([b"\xff"], "UTF-8", "UTF-16-BE"),
    lambda tf: tf.strings.unicode_transcode(["a"], "UTF-8", "ISO-8859-1"),
    lambda tf: tf.strings.unicode_transcode([1], "UTF-8", "UTF-8"),
    lambda tf: tf.strings.unicode_encode([104, 233, 0x1F600], "UTF-8"),
    lambda tf: tf.strings.unicode_encode([[[104, 233], [97, 98]]], "UTF-32-BE"),
    lambda tf: tf.strings.unicode_encode(tf.ragged.constant([[104, 233], [], [97]]), "UTF-8"),
    lambda tf: _ragged(tf.strings.unicode_encode(tf.ragged.constant([[[104, 233]], [[], [97]]]), "UTF-16-BE")),
    lambda tf: tf.strings.unicode_encode([104, -1, 0x110000, 0xD800], "UTF-8"),
    lambda tf: tf.strings.unicode_encode([104, -1, 0xD800], "UTF-8", errors="ignore"),
    lambda tf: tf.strings.unicode_encode([104, -1], "UTF-8", errors="strict"),
    lambda tf: tf.strings.unicode_encode([104, -1], "UTF-8", replacement_char=63),
    lambda tf: tf.strings.unicode_encode([104], "ISO-8859-1"),
    lambda tf: tf.strings.unicode_encode(tf.constant([104], tf.int64), "UTF-8"),
    lambda tf: tf.strings.unicode_encode([1.0], "UTF-8"),
    lambda tf: tf.strings.unicode_encode(104, "UTF-8"),
    lambda tf: tf.strings.unicode_encode(tf.zeros([2, 0], tf.int32), "UTF-8"),
    lambda tf: tf.strings.unsorted_segment_join([1, 2], [0, 0], 1),
])
def test_encodings_and_errors(fn):
    check(lambda tf: _result(fn(tf)))


@pytest.mark.parametrize("fn", [
    lambda tf: tf.io.decode_raw([b"\x01\x00\x02\x00", b"\x03\x00\xff\xff"], tf.int16),
    lambda tf: tf.io.decode_raw([b"\x01\x00\x02\x00"], tf.int16, little_endian=False),
    lambda tf: tf.io.decode_raw(b"\x01\x00\x02\x00", tf.uint8),
    lambda tf: tf.io.decode_raw(b"\x00\x00\x80\x3f\x00\x00\x00\xc0", tf.float32),
    lambda tf: tf.io.decode_raw([[b"\x01\x00\x00\x00"], [b"\x02\x00\x00\x00"]], tf.int32),
    lambda tf: tf.io.decode_raw([b"\x00\x00\x00\x00\x00\x00\xf0\x3f"], tf.float64, little_endian=False),
    lambda tf: tf.io.decode_raw([b"\x3f\xf0\x00\x00\x00\x00\x00\x00"], tf.float64, little_endian=False),
    lambda tf: tf.io.decode_raw([b"\x01\x00"], tf.bool),
    lambda tf: tf.io.decode_raw([b"\x00\x3c"], tf.float16),
    lambda tf: tf.io.decode_raw([b"\x00\x00\x80\x3f\x00\x00\x00\x00"], tf.complex64),
    lambda tf: tf.io.decode_raw(tf.constant([], tf.string), tf.int32),
    lambda tf: tf.io.decode_raw([b"", b""], tf.int32),
    lambda tf: tf.io.decode_raw(b"", tf.int32),
    lambda tf: tf.io.decode_raw([b"\x01\x00\x02", b"\x01"], tf.int16, fixed_length=4),
    lambda tf: tf.io.decode_raw([[b"\x01\x00\x02\x00\x05\x00"]], tf.int16, fixed_length=4),
    lambda tf: tf.io.decode_raw(b"\x01\x00\x02\x00\x05\x00", tf.int16, fixed_length=2),
    lambda tf: tf.io.decode_raw([b"\x01\x00\x02"], tf.int16, fixed_length=3),
    lambda tf: tf.io.decode_raw([b"\x01\x00\x02"], tf.int16),
    lambda tf: tf.io.decode_raw([b"\x01\x00", b"\x01\x00\x02"], tf.int16),
    lambda tf: tf.io.decode_raw([b"\x01\x00"], tf.string),
    lambda tf: tf.io.decode_raw([b"\x00" * 8], tf.uint64),
    lambda tf: tf.io.decode_raw([1], tf.int32),
    lambda tf: tf.io.decode_raw(tf.constant([1]), tf.int32),
])
def test_decode_raw(fn):
    check(fn)


@pytest.mark.parametrize("text", [b"YQ==", b"YW==", b"YR", b"YWJ", b"YWJ=", b"YWJjZA==", b"aGVsbG8_Pg", b"", b"====",
                                  b"Y===", b"=", b"==", b"YQ=", b"YQ===", b"YQ=a", b"YWJ=YWJ=", b"YQ==\n",
                                  b"YWJj\n", b"a!!b", b"aGVsbG8/Pg", b"YW Jj"])
def test_decode_base64(text):
    check(lambda tf: tf.io.decode_base64([text]))
    check(lambda tf: tf.io.decode_base64(text))


def test_base64_bytes_round_trip():
    data = np.array([bytes(range(256)), b"\xff\xfe", b"a"], dtype=object)
    check(lambda tf, x: (tf.io.encode_base64(x), tf.io.encode_base64(x, pad=True)), data)
    check(lambda tf: tf.io.encode_base64([1]))


def test_in_function_and_dataset_map():
    def fn(tf):
        @tf.function
        def codes(x):
            return (tf.strings.unicode_decode(x, "UTF-8").to_tensor(), tf.strings.bytes_split(x).to_tensor(),
                    tf.io.decode_raw(tf.io.decode_base64(tf.io.encode_base64(x[:1])), tf.uint8),
                    tf.strings.unicode_transcode(x, "UTF-8", "UTF-16-BE"))
        dataset = tf.data.Dataset.from_tensor_slices(["héllo", "ab"]).map(
            lambda s: tf.strings.unicode_encode(tf.reverse(tf.strings.unicode_decode(s, "UTF-8"), [0]), "UTF-8"))
        return codes(tf.constant(["héllo", "ab"])), codes(tf.constant(["x", "yz"])), list(dataset.as_numpy_iterator())
    check(fn)
