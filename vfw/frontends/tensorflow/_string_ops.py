"""``tf.strings``: elementwise string ops on string tensors (numpy object arrays of ``bytes``).

Each op converts its input with TF's rules (a non-string tensor is TF's InvalidArgumentError "cannot compute
StringLower as input #0(zero-based) was expected to be a string tensor..."; Python values that are not strings
are a TypeError), and computes through ``host`` so that a ``tf.function`` graph reruns it on each call.  Ops TF
dispatches over ragged tensors (lower, regex_replace...) apply to a ragged tensor's flat values.  Regular
expressions are RE2's in TF; vfw runs them with Python's ``re`` on the UTF-8 text in ASCII mode (``\\w``, ``\\d``,
``\\s`` ASCII as in RE2), which agrees on the common syntax.
"""

import base64
import re

import numpy as np

from vfw.frontends.tensorflow import _dtypes, errors
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, kernel_type_name, mismatch, op_error, wrap
from vfw.frontends.tensorflow._print import format_tensor
from vfw.frontends.tensorflow._ragged import RaggedTensor
from vfw.frontends.tensorflow._ragged_array_ops import ragged_reduce_join
from vfw.frontends.tensorflow._string_split import bytes_split, ngrams, split  # noqa: F401  (tf.strings names)

_UNITS = ("BYTE", "UTF8_CHAR")


def strings_of(value, tf_op, position=0):
    """``value`` as a string tensor (TF's errors for other dtypes)."""
    t = convert_to_tensor(value, dtype=_dtypes.string) if not hasattr(value, "array") else value
    if t.array.dtype != object:
        raise mismatch(tf_op, object, t.array.dtype, position)
    return t


def _elementwise(fn, value, tf_op, out_dtype=object):
    """``fn`` applied to every string of ``value`` (a tensor, Python data, or a ragged tensor's flat values)."""
    if isinstance(value, RaggedTensor):
        return value.with_flat_values(_elementwise(fn, value.flat_values, tf_op, out_dtype))
    t = strings_of(value, tf_op)
    mapped = np.frompyfunc(fn, 1, 1)

    def run(array):
        return np.asarray(mapped(array), dtype=out_dtype).reshape(array.shape)
    return host(run, t)


def _check_unit(unit, tf_op):
    if unit not in _UNITS:
        raise op_error(f'Value for attr \'unit\' of "{unit}" is not in the list of allowed values: "BYTE", '
                       '"UTF8_CHAR"', tf_op)


def _decoded(b):
    return b.decode("utf-8", "surrogateescape")


def _encoded(s):
    return s.encode("utf-8", "surrogateescape")


def lower(input, encoding="", name=None):  # noqa: A002  (TF's argument name)
    """Lowercase: ASCII letters only, or every Unicode letter with ``encoding="utf-8"``."""
    if encoding:
        return _elementwise(lambda b: _encoded(_decoded(b).lower()), input, "StringLower")
    return _elementwise(bytes.lower, input, "StringLower")


def upper(input, encoding="", name=None):  # noqa: A002
    """Uppercase: ASCII letters only, or every Unicode letter with ``encoding="utf-8"``."""
    if encoding:
        return _elementwise(lambda b: _encoded(_decoded(b).upper()), input, "StringUpper")
    return _elementwise(bytes.upper, input, "StringUpper")


def strip(input, name=None):  # noqa: A002
    """Leading and trailing ASCII whitespace removed."""
    return _elementwise(bytes.strip, input, "StringStrip")


def length(input, unit="BYTE", name=None):  # noqa: A002
    """The length of every string (int32): in bytes, or in UTF-8 characters with ``unit="UTF8_CHAR"``."""
    _check_unit(unit, "StringLength")
    if unit == "BYTE":
        return _elementwise(len, input, "StringLength", np.int32)
    return _elementwise(lambda b: len(_decoded(b)), input, "StringLength", np.int32)


def _regex(pattern, tf_op):
    pattern = pattern.decode() if isinstance(pattern, bytes) else pattern
    try:
        return re.compile(pattern, re.ASCII)
    except re.error as e:
        raise op_error(f"Invalid pattern: {pattern}, error: {e}", tf_op) from None


def _static_text(value, what):
    if hasattr(value, "array"):
        value = value.array.reshape(()).item() if value.array.size == 1 else value
    if isinstance(value, bytes):
        return value.decode()
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a string scalar, got {value!r}")
    return value


def regex_replace(input, pattern, rewrite, replace_global=True, name=None):  # noqa: A002
    """Every match of ``pattern`` (the first one with ``replace_global=False``) replaced by ``rewrite``, in
    which ``\\1``... are groups and ``\\0`` the whole match."""
    regex = _regex(_static_text(pattern, "pattern"), "StaticRegexReplace")
    template = re.sub(r"\\0", r"\\g<0>", _static_text(rewrite, "rewrite"))
    count = 0 if replace_global else 1
    return _elementwise(lambda b: _encoded(_replaced(regex, template, _decoded(b), count)), input,
                        "StaticRegexReplace")


def _replaced(regex, template, text, count):
    """``text`` with its first ``count`` (0: all) matches of ``regex`` expanded from ``template``, scanned as RE2's
    GlobalReplace scans: an empty match where the previous match ended is skipped (Python's ``re.sub`` replaces it,
    so ``a*`` on "aaa" would give "--" instead of TF's "-")."""
    pieces, position, previous_end, replaced = [], 0, -1, 0
    while position <= len(text) and (count == 0 or replaced < count):
        match = regex.search(text, position)
        if match is None:
            break
        pieces.append(text[position:match.start()])
        if match.start() == match.end() == previous_end:
            pieces.append(text[match.start():match.start() + 1])
            position = match.start() + 1
            continue
        pieces.append(match.expand(template))
        position = previous_end = match.end()
        replaced += 1
    pieces.append(text[position:])
    return "".join(pieces)


def regex_full_match(input, pattern, name=None):  # noqa: A002
    """Whether each whole string matches ``pattern`` (bool)."""
    regex = _regex(_static_text(pattern, "pattern"), "StaticRegexFullMatch")
    return _elementwise(lambda b: regex.fullmatch(_decoded(b)) is not None, input, "StaticRegexFullMatch", bool)


def join(inputs, separator="", name=None):
    """The strings of ``inputs`` (tensors of one shape, or scalars) joined elementwise with ``separator``."""
    tensors = [strings_of(x, "StringJoin", i) for i, x in enumerate(inputs)]
    shapes = {t.array.shape for t in tensors if t.array.ndim}
    if len(shapes) > 1:
        first, second = sorted(shapes, key=lambda s: [t.array.shape for t in tensors].index(s))[:2]
        raise op_error(f"Input shapes do not match: [{','.join(map(str, first))}] vs. "
                       f"[{','.join(map(str, second))}]", "StringJoin")
    sep = _static_text(separator, "separator").encode()

    def run(*arrays):
        shape = next(iter(shapes)) if shapes else ()
        parts = [np.broadcast_to(a, shape).ravel() for a in arrays]
        if not parts:  # TF joins no inputs into one empty string
            return np.asarray(b"", object)
        return np.asarray([sep.join(row) for row in zip(*parts)], object).reshape(shape)
    return host(run, *tensors)


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """The strings joined with ``separator`` along ``axis`` (all axes when None; a ragged ``inputs`` as
    ``_ragged_array_ops.ragged_reduce_join``)."""
    if isinstance(inputs, RaggedTensor):
        return ragged_reduce_join(inputs, axis, keepdims, separator, reduce_join)
    # TF converts ``inputs`` with no dtype first: ``[]`` is a float tensor, so not a string tensor.
    t = inputs if hasattr(inputs, "array") else convert_to_tensor(inputs)
    if t.array.dtype != object:
        raise mismatch("ReduceJoin", object, t.array.dtype, 0)
    ndim = t.array.ndim
    axes = list(range(ndim)) if axis is None else [int(a) for a in np.ravel(axis)]
    for a in axes:
        if not -ndim <= a < ndim:
            raise op_error(f"Invalid reduction dimension {a} for input with {ndim} dimension(s)", "ReduceJoin",
                           errors.OutOfRangeError)
    if len({a % ndim for a in axes}) != len(axes):
        raise op_error(f"Duplicate reduction dimension {axes[-1] % ndim}", "ReduceJoin")
    axes = sorted(a % ndim for a in axes)
    sep = _static_text(separator, "separator").encode()

    def run(array):
        kept = [d for d in range(ndim) if d not in axes]
        moved = np.transpose(array, kept + axes).reshape([array.shape[d] for d in kept] + [-1])
        rows = moved.reshape(int(np.prod(moved.shape[:-1])), moved.shape[-1])
        joined = np.asarray([sep.join(row) for row in rows], object)
        shape = [1 if d in axes else array.shape[d] for d in range(ndim)] if keepdims else \
            [array.shape[d] for d in kept]
        return joined.reshape(shape)
    return host(run, t)


def substr(input, pos, len, unit="BYTE", name=None):  # noqa: A002
    """The substrings of ``len`` bytes (or UTF-8 characters) from ``pos`` (negative: from the end); ``pos`` past
    the end of a string is TF's InvalidArgumentError."""
    _check_unit(unit, "Substr")
    t = strings_of(input, "Substr")
    pos_t, len_t = convert_to_tensor(pos), convert_to_tensor(len, dtype=convert_to_tensor(pos).dtype)
    by_char = unit == "UTF8_CHAR"

    def run(array, starts, sizes):
        starts, sizes = np.broadcast_to(starts, array.shape).ravel(), np.broadcast_to(sizes, array.shape).ravel()
        out = []
        for i, (b, start, size) in enumerate(zip(array.ravel(), starts, sizes)):
            text = _decoded(b) if by_char else b
            n = text.__len__()
            begin = start + n if start < 0 else start
            if not 0 <= begin <= n:
                raise op_error(f"pos {start} out of range for string b'{b.decode('utf-8', 'replace')}' at index {i}",
                               "Substr")
            # TF passes a negative byte length on as an unsigned one: the rest of the string.
            end = n if size < 0 and not by_char else begin + max(size, 0)
            piece = text[begin:end]
            out.append(_encoded(piece) if by_char else piece)
        return np.asarray(out, object).reshape(array.shape)
    return host(run, t, pos_t, len_t)


# C's strtod syntax as TF's StringToNumber accepts it for floats: decimal, hexadecimal (with an optional binary
# exponent), inf/infinity/nan(...) in any case; Python's float() would also take "1_0" and non-ASCII digits.
_DECIMAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)
_HEXADECIMAL = re.compile(r"([+-]?)0[xX]([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][+-]?\d+)?", re.ASCII)
_SPECIAL = re.compile(r"[+-]?(inf|infinity|nan(\([0-9a-zA-Z_]*\))?)", re.IGNORECASE)
_INTEGER = re.compile(r"[+-]?\d+", re.ASCII)
_ASCII_SPACE = " \t\n\v\f\r"
_NUMBER_TYPES = ("float32", "float64", "int32", "int64", "uint32", "uint64")


def _parsed_float(text):
    """The value of a C float literal ``text`` (surrounding ASCII spaces allowed), or None."""
    text = text.strip(_ASCII_SPACE)
    if _DECIMAL.fullmatch(text):
        return float(text)
    hexadecimal = _HEXADECIMAL.fullmatch(text)
    if hexadecimal:
        sign, digits, exponent = hexadecimal.groups()
        return float.fromhex(f"{sign}0x{digits}{exponent or ''}")
    special = _SPECIAL.fullmatch(text)
    if special:
        return float(text.lower().split("(")[0])
    return None


def to_number(string_tensor, out_type=_dtypes.float32, name=None):
    """The numbers the strings spell, as ``out_type`` (float32, float64, int32, int64, uint32, uint64)."""
    dtype = _dtypes.as_dtype(out_type)
    if dtype.name not in _NUMBER_TYPES:
        names = ", ".join(_dtypes.as_dtype(n).name.replace("float32", "float").replace("float64", "double")
                          for n in _NUMBER_TYPES)
        raise op_error(f"Value for attr 'out_type' of {kernel_type_name(dtype)} is not in the list of allowed "
                       f"values: {names}", "StringToNumber")
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    is_float = np_dtype.kind == "f"

    def parse(b):
        text = b.decode("utf-8", "replace")
        if is_float:
            value = _parsed_float(text)
        else:
            stripped = text.strip(_ASCII_SPACE)
            value = int(stripped) if _INTEGER.fullmatch(stripped) else None
            if value is not None and not np.iinfo(np_dtype).min <= value <= np.iinfo(np_dtype).max:
                value = None
        if value is None:
            raise op_error(f"StringToNumberOp could not correctly convert string: {text}", "StringToNumber")
        return np_dtype.type(value)
    return _elementwise(parse, string_tensor, "StringToNumber", np_dtype)


# The flags AsString takes from ``fill``: a printf flag character (' ', '+', '-', '0', '#').
_FILL_FLAGS = " +-0#"


def _as_string_spec(dtype, precision, scientific, shortest, width, fill):
    """The printf conversion AsString applies to each element of ``dtype`` (TF's argument checks)."""
    if len(fill) > 1:
        raise op_error("Fill string must be one or fewer characters", "AsString")
    if scientific and shortest:
        raise op_error("Cannot select both scientific and shortest notation", "AsString")
    if fill and fill not in _FILL_FLAGS:
        raise op_error(f'Fill argument not supported: "{fill}"', "AsString")
    is_float = dtype.is_floating or dtype.is_complex
    if not is_float and dtype.name != "string":
        if scientific or shortest:
            raise op_error(f"scientific and shortest format not supported for datatype {kernel_type_name(dtype)}",
                           "AsString")
        if precision > -1:
            raise op_error(f"precision not supported for datatype {kernel_type_name(dtype)}", "AsString")
    spec = "%" + fill + (str(width) if width > -1 else "")
    if is_float:
        return spec + (f".{precision}" if precision > -1 else "") + ("g" if shortest else "e" if scientific else "f")
    return spec + ("s" if dtype.name == "string" else "d")


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    """The numbers (complex as ``(real,imag)``, bools as true/false, strings padded to ``width``) as text,
    formatted as TF's printf-style ``AsString``."""
    t = convert_to_tensor(input)
    dtype = t.dtype
    if not (dtype.is_floating or dtype.is_complex or dtype.is_integer or dtype.is_bool or dtype.name == "string"):
        raise op_error(f"Value for attr 'T' of {dtype.name} is not in the list of allowed values", "AsString")
    spec = _as_string_spec(dtype, precision, scientific, shortest, width, fill)

    def text(v):
        if dtype.is_bool:  # TF writes bools without the width or fill
            return "true" if v else "false"
        if dtype.is_complex:
            return f"({spec % v.real},{spec % v.imag})"
        return spec % (_decoded(v) if dtype.name == "string" else v)

    def run(array):
        values = array.astype(np.float32) if dtype.name == "bfloat16" else array
        return np.asarray([_encoded(text(v)) for v in values.ravel().tolist()], object).reshape(array.shape)
    return host(run, t)


def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001  (TF's name)
    """``template`` with each ``placeholder`` replaced by the text of the next tensor of ``inputs`` (as
    ``tf.print`` shows it: ``summarize`` elements at each end)."""
    # TF wraps a single tensor; anything else is a sequence whose len() it takes (Python's TypeError for a
    # number; a string gives its characters, a dict its keys).
    if hasattr(inputs, "array"):
        inputs = [inputs]
    else:
        len(inputs)
        inputs = list(inputs)
    pieces = template.split(placeholder)
    if len(pieces) - 1 != len(inputs):
        raise ValueError(f"The template expects {len(pieces) - 1} tensors, but the inputs only has {len(inputs)}. "
                         "Please ensure the number of placeholders in template matches inputs length.")
    tensors = [convert_to_tensor(x) for x in inputs]

    def run(*arrays):
        texts = [format_tensor(a, summarize) for a in arrays]
        return np.asarray("".join(p + t for p, t in zip(pieces, texts + [""])).encode(), object)
    return host(run, *tensors) if tensors else wrap(np.asarray(template.encode(), object))


def unsorted_segment_join(inputs, segment_ids, num_segments, separator="", name=None):
    """The strings of ``inputs`` joined with ``separator`` per segment: output row ``k`` joins, in order, the
    slices ``inputs[i]`` whose ``segment_ids[i] == k`` (``segment_ids`` indexes the leading dims of ``inputs``).

    Returns
    -------
    Tensor
        ``[num_segments] + inputs.shape[rank(segment_ids):]`` strings (empty for segments without slices).
    """
    t = convert_to_tensor(inputs, dtype=_dtypes.string)
    ids, count = convert_to_tensor(segment_ids), convert_to_tensor(num_segments)
    sep = _static_text(separator, "separator").encode()

    def run(array, id_array, segments):
        segments = int(segments)
        if segments < 0:
            raise op_error(f"Number of segments must be non-negative but got {segments}", "UnsortedSegmentJoin")
        for d, (size, id_size) in enumerate(zip(array.shape, id_array.shape)):
            if size != id_size:
                raise op_error(f"Segment dimension is {id_size} while input dimension is {size} in rank {d}",
                               "UnsortedSegmentJoin")
        flat_ids = id_array.ravel()
        if np.any(flat_ids < 0) or np.any(flat_ids >= segments):
            raise op_error("segment_ids are not allowed to exceed num_segments or to have negative values.",
                           "UnsortedSegmentJoin")
        inner = array.shape[id_array.ndim:]
        slices = array.reshape((flat_ids.size, -1))
        rows = [[] for _ in range(segments)]
        for segment, row in zip(flat_ids.tolist(), slices):
            rows[segment].append(row)
        width = slices.shape[1]
        joined = [[sep.join(col) for col in zip(*r)] if r else [b""] * width for r in rows]
        out = np.empty((segments, width), object)
        out[...] = joined if segments else out
        return out.reshape((segments,) + inner)
    return host(run, t, ids, count)


_RAW_TYPES = ("half", "float", "double", "int32", "uint16", "uint8", "int16", "int8", "int64", "complex64",
              "complex128", "bool", "bfloat16")


def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """The bytes of each string reinterpreted as numbers of ``out_type``: shape ``input.shape + [n]``.

    Without ``fixed_length`` every string must have the same length, a multiple of the type's size; with it each
    string is cut or zero-padded to ``fixed_length`` bytes (a multiple of the type's size).
    """
    dtype = _dtypes.as_dtype(out_type)
    tf_op = "DecodeRaw" if fixed_length is None else "DecodePaddedRaw"
    if kernel_type_name(dtype) not in _RAW_TYPES:
        raise op_error(f"Value for attr 'out_type' of {dtype.name} is not in the list of allowed values: "
                       f"{', '.join(_RAW_TYPES)}", tf_op)
    t = strings_of(input_bytes, tf_op)
    item = np.dtype(dtype.as_numpy_dtype).newbyteorder("<" if little_endian else ">")
    size = item.itemsize
    length = None if fixed_length is None else int(convert_to_tensor(fixed_length).array)
    if length is not None and length % size:
        raise op_error(f"fixed_length ({length}) must be a multiple of the size of out_type ({size})", tf_op)

    def run(array):
        strings = array.ravel().tolist()
        if length is not None:
            strings = [b[:length].ljust(length, b"\0") for b in strings]
            width = length
        else:
            width = len(strings[0]) if strings else 0
            if width % size:
                raise op_error(f"Input to DecodeRaw has length {width} that is not a multiple of {size}, the size of "
                               f"{kernel_type_name(dtype)}", tf_op)
            for i, b in enumerate(strings):
                if len(b) != width:
                    raise op_error(f"DecodeRaw requires input strings to all be the same size, but element {i} has "
                                   f"size {width} != {len(b)}", tf_op)
        values = np.frombuffer(b"".join(strings), item).astype(item.newbyteorder("="))
        if array.ndim == 0 and length is None:
            return values
        return values.reshape(array.shape + (width // size,))
    return host(run, t)


_BASE64_URL = re.compile(rb"[A-Za-z0-9_-]*")


def encode_base64(input, pad=False, name=None):  # noqa: A002
    """Each string in web-safe base64 (``-`` and ``_`` for ``+`` and ``/``), ``=`` padded only with ``pad``."""
    if pad:
        return _elementwise(base64.urlsafe_b64encode, input, "EncodeBase64")
    return _elementwise(lambda b: base64.urlsafe_b64encode(b).rstrip(b"="), input, "EncodeBase64")


def _from_base64(b):
    # TF's reading: a length that is a multiple of 4 may end in one or two '=', the rest is web-safe characters;
    # bad characters in the complete 4-character groups are reported before a 1-character tail.
    if len(b) % 4 == 0 and b.endswith(b"="):
        b = b[:-2] if b.endswith(b"==") else b[:-1]
    whole = len(b) - len(b) % 4
    if not _BASE64_URL.fullmatch(b, 0, whole):
        raise op_error("Invalid character found in base64.", "DecodeBase64")
    if len(b) % 4 == 1:
        raise op_error("Base64 string length cannot be 1 modulo 4.", "DecodeBase64")
    if not _BASE64_URL.fullmatch(b, whole):
        raise op_error("Invalid character found in base64.", "DecodeBase64")
    return base64.urlsafe_b64decode(b + b"=" * (-len(b) % 4))


def decode_base64(input, name=None):  # noqa: A002
    """Each web-safe base64 string decoded (padding optional)."""
    return _elementwise(_from_base64, input, "DecodeBase64")


NAMESPACES = {
    "strings": ["as_string", "bytes_split", "format", "join", "length", "lower", "ngrams", "reduce_join",
                "regex_full_match", "regex_replace", "split", "strip", "substr", "to_number", "unsorted_segment_join",
                "upper"],
    "tf": ["as_string"],
    "io": ["decode_base64", "decode_raw", "encode_base64"],
}
