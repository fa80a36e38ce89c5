"""``tf.strings`` Unicode ops: decoding strings into code points (with byte offsets), splitting them into
characters, encoding code points and transcoding between encodings.

Decoding follows ICU's conversion, as TF does: any encoding Python's codecs know (``UTF-8``, ``UTF-16-BE``,
``ISO-8859-1``...; ``UTF-16`` / ``UTF-32`` read a byte order mark, else big-endian), each maximal invalid
subsequence is one error (``errors="replace"``: ``replacement_char``; ``"ignore"``: dropped; ``"strict"``: TF's
InvalidArgumentError), and ``replace_control_characters`` treats the C0 controls (U+0000..U+001F) as errors that
``"strict"`` replaces too.  Encoding writes ``UTF-8``, ``UTF-16-BE`` or ``UTF-32-BE`` only, as TF's kernels.  The
work runs on the host (``host``), so ``tf.function`` graphs and dataset maps rerun it on each call.
"""

import codecs

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, mismatch, op_error
from vfw.frontends.tensorflow._ragged import RaggedTensor
from vfw.frontends.tensorflow._string_ops import strings_of
from vfw.frontends.tensorflow._string_split import _tokenized

_ERRORS = ("strict", "replace", "ignore")
_OUTPUT_ENCODINGS = {"UTF-8": "utf-8", "UTF-16-BE": "utf-16-be", "UTF-32-BE": "utf-32-be"}
_BYTE_ORDER_MARKS = {"utf-16": ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be")),
                     "utf-32": ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"))}
_MAX_CODE_POINT = 0x10FFFF


def _check_errors(errors, tf_op):
    if errors not in _ERRORS:
        raise op_error(f'Value for attr \'errors\' of "{errors}" is not in the list of allowed values: "strict", '
                       '"replace", "ignore"', tf_op)


def _input_codec(encoding, tf_op):
    """The Python codec name decoding ``encoding`` (TF's error when there is none)."""
    try:
        return codecs.lookup(encoding).name
    except LookupError:
        raise op_error(f"Could not create converter for input encoding: {encoding}", tf_op) from None


def _output_codec(encoding, tf_op):
    if encoding not in _OUTPUT_ENCODINGS:
        raise op_error(f'Value for attr \'output_encoding\' of "{encoding}" is not in the list of allowed values: '
                       '"UTF-8", "UTF-16-BE", "UTF-32-BE"', tf_op)
    return _OUTPUT_ENCODINGS[encoding]


def _check_replacement(replacement_char, tf_op):
    if not 0 <= replacement_char <= _MAX_CODE_POINT:
        raise op_error("replacement_char out of unicode codepoint range", tf_op)


def _without_mark(codec):
    """The codec of ``codec``'s text when it has no byte order mark: big-endian for UTF-16 / UTF-32, as ICU."""
    return codec + "-be" if codec in _BYTE_ORDER_MARKS else codec


def _decoder(codec, errors, replacement_char, replace_control_characters, tf_op):
    """A function ``bytes -> (code points, byte offsets)`` decoding one string as ``codec``."""
    def decode(b):
        start, name = 0, _without_mark(codec)
        for mark, ordered in _BYTE_ORDER_MARKS.get(codec, ()):
            if b.startswith(mark):
                start, name = len(mark), ordered
                break
        mark_length = start
        points, offsets = [], []
        while start < len(b):
            try:
                text, bad = b[start:].decode(name), None
            except UnicodeDecodeError as e:
                text, bad = b[start:start + e.start].decode(name), (start + e.start, start + e.end)
            widths = [len(c.encode(name)) for c in text]
            positions = np.concatenate([[start], start + np.cumsum(widths[:-1], dtype=np.int64)]) if text else []
            for c, position in zip(text, positions):
                code = ord(c)
                if code < 0x20 and replace_control_characters:
                    if errors == "ignore":
                        continue
                    code = replacement_char
                points.append(code)
                offsets.append(int(position))
            if bad is None:
                break
            if errors == "strict":
                raise op_error("Invalid formatting on input string", tf_op)
            if errors == "replace":
                points.append(replacement_char)
                offsets.append(bad[0])
            start = bad[1]
        if mark_length and offsets and offsets[0] == mark_length:
            offsets[0] = 0  # ICU reports the first character after a byte order mark at offset 0
        return points, offsets
    return decode


def _encoder(codec, errors, replacement_char, tf_op):
    """A function ``code points -> bytes`` encoding as ``codec``; code points that are not Unicode scalar values
    (negative, past U+10FFFF, surrogates) are errors."""
    def encode(points):
        chars = []
        for code in points:
            if not 0 <= code <= _MAX_CODE_POINT or 0xD800 <= code <= 0xDFFF:
                if errors == "strict":
                    raise op_error("Code point is out of range for Unicode, or is a surrogate.", tf_op)
                if errors == "ignore":
                    continue
                code = replacement_char
            chars.append(chr(code))
        return "".join(chars).encode(codec)
    return encode


def _decode_input(value, tf_op):
    """``value`` as a string tensor or ragged tensor (TF's InvalidArgumentError for other dtypes)."""
    if not isinstance(value, RaggedTensor):
        value = convert_to_tensor(value, dtype_hint=_dtypes.string)
    if value.dtype != _dtypes.string:
        raise mismatch(tf_op, object, value.flat_values.array.dtype if isinstance(value, RaggedTensor)
                       else value.array.dtype, 0)
    return value


def _decode(input, input_encoding, errors, replacement_char, replace_control_characters, with_offsets):  # noqa: A002
    tf_op = "UnicodeDecodeWithOffsets" if with_offsets else "UnicodeDecode"
    t = _decode_input(input, tf_op)
    _check_errors(errors, tf_op)
    decode = _decoder(_input_codec(input_encoding, tf_op), errors, replacement_char, replace_control_characters,
                      tf_op)
    _check_replacement(replacement_char, tf_op)
    if with_offsets:
        return _tokenized(t, decode, (np.int32, np.int64))
    return _tokenized(t, lambda b: decode(b)[0], (np.int32,))


def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002  (TF's name)
                   replace_control_characters=False, name=None):
    """The code points (int32) of each string decoded from ``input_encoding``.

    Returns
    -------
    Tensor or RaggedTensor
        1-D for a scalar input, else ragged with one more dimension than ``input``.
    """
    return _decode(input, input_encoding, errors, replacement_char, replace_control_characters, False)


def unicode_decode_with_offsets(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                                replace_control_characters=False, name=None):
    """``unicode_decode``'s code points and the byte offset (int64) in its string where each character starts."""
    return _decode(input, input_encoding, errors, replacement_char, replace_control_characters, True)


def _split(input, input_encoding, errors, replacement_char, with_offsets):  # noqa: A002
    tf_op = "UnicodeDecodeWithOffsets" if with_offsets else "UnicodeDecode"
    t = _decode_input(input, tf_op)
    _check_errors(errors, tf_op)
    codec = _input_codec(input_encoding, tf_op)
    decode = _decoder(codec, errors, replacement_char, False, tf_op)
    _check_replacement(replacement_char, tf_op)
    output = _without_mark(codec)

    def characters(b):  # each code point encoded back into the input's encoding, as TF does
        points, offsets = decode(b)
        chars = [chr(p).encode(output) for p in points]
        return (chars, offsets) if with_offsets else chars
    return _tokenized(t, characters, (object, np.int64) if with_offsets else (object,))


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """The characters of each string, each as a string in ``input_encoding`` (shaped as ``unicode_decode``)."""
    return _split(input, input_encoding, errors, replacement_char, False)


def unicode_split_with_offsets(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                               name=None):
    """``unicode_split``'s characters and the byte offset (int64) where each starts."""
    return _split(input, input_encoding, errors, replacement_char, True)


def _code_points(value):
    if isinstance(value, RaggedTensor):
        return value
    t = convert_to_tensor(value, dtype_hint=_dtypes.int32)
    if t.array.dtype != np.int32:
        raise mismatch("UnicodeEncode", np.int32, t.array.dtype, 0)
    if t.array.ndim == 0:
        raise ValueError("input_tensor's rank must be at least 1.")
    return t


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    """The strings of ``output_encoding`` ("UTF-8", "UTF-16-BE", "UTF-32-BE") whose characters are the int32 code
    points along the last (possibly ragged) axis of ``input``.

    Returns
    -------
    Tensor or RaggedTensor
        One dimension less than ``input``: ragged when ``input`` has more than one ragged dimension.
    """
    t = _code_points(input)
    _check_errors(errors, "UnicodeEncode")
    encode = _encoder(_output_codec(output_encoding, "UnicodeEncode"), errors, replacement_char, "UnicodeEncode")
    if isinstance(t, RaggedTensor):
        if isinstance(t.values, RaggedTensor):
            return t.with_values(unicode_encode(t.values, output_encoding, errors, replacement_char))
        if t.values.array.dtype != np.int32:
            raise mismatch("UnicodeEncode", np.int32, t.values.array.dtype, 0)

        def run_rows(values, splits):
            return np.asarray([encode(values[splits[i]:splits[i + 1]].tolist()) for i in range(len(splits) - 1)]
                              + [b""], object)[:-1]
        return host(run_rows, t.values, t.row_splits)

    def run(array):
        rows = array.reshape(int(np.prod(array.shape[:-1])), array.shape[-1])
        return np.asarray([encode(row.tolist()) for row in rows] + [b""], object)[:-1].reshape(array.shape[:-1])
    return host(run, t)


def unicode_transcode(input, input_encoding, output_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                      replace_control_characters=False, name=None):
    """Each string decoded from ``input_encoding`` and encoded as ``output_encoding`` (same shape; ragged
    tensors keep their rows)."""
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(unicode_transcode(input.flat_values, input_encoding, output_encoding, errors,
                                                        replacement_char, replace_control_characters))
    t = strings_of(input, "UnicodeTranscode")
    _check_errors(errors, "UnicodeTranscode")
    codec = _output_codec(output_encoding, "UnicodeTranscode")
    decode = _decoder(_input_codec(input_encoding, "UnicodeTranscode"), errors, replacement_char,
                      replace_control_characters, "UnicodeTranscode")
    encode = _encoder(codec, "replace", replacement_char, "UnicodeTranscode")

    def run(array):
        return np.asarray([encode(decode(b)[0]) for b in array.ravel()] + [b""], object)[:-1].reshape(array.shape)
    return host(run, t)


NAMESPACES = {"strings": ["unicode_decode", "unicode_decode_with_offsets", "unicode_encode", "unicode_split",
                          "unicode_split_with_offsets", "unicode_transcode"]}
