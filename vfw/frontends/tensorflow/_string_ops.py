"""``tf.strings``: elementwise string ops on string tensors (numpy object arrays of ``bytes``).

Each op converts its input with TF's rules (a non-string tensor is TF's InvalidArgumentError "cannot compute
StringLower as input #0(zero-based) was expected to be a string tensor..."; Python values that are not strings
are a TypeError), and computes through ``host`` so that a ``tf.function`` graph reruns it on each call.  Ops TF
dispatches over ragged tensors (lower, regex_replace...) apply to a ragged tensor's flat values.  Regular
expressions are RE2's in TF; vfw runs them with Python's ``re`` on the UTF-8 text in ASCII mode (``\\w``, ``\\d``,
``\\s`` ASCII as in RE2), which agrees on the common syntax.
"""

import re

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, mismatch, op_error, wrap
from vfw.frontends.tensorflow._print import format_tensor
from vfw.frontends.tensorflow._ragged import RaggedTensor
from vfw.frontends.tensorflow._string_split import ngrams, split, unicode_split  # noqa: F401  (tf.strings names)

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
    return _elementwise(lambda b: _encoded(regex.sub(template, _decoded(b), count)), input, "StaticRegexReplace")


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
        return np.asarray([sep.join(row) for row in zip(*parts)] if parts else [], object).reshape(shape)
    return host(run, *tensors)


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """The strings joined with ``separator`` along ``axis`` (all axes when None)."""
    t = strings_of(inputs, "ReduceJoin")
    ndim = t.array.ndim
    axes = list(range(ndim)) if axis is None else [int(a) for a in np.ravel(axis)]
    for a in axes:
        if not -ndim <= a < max(ndim, 1):
            raise op_error(f"Invalid reduction dimension {a} for input with {ndim} dimensions.", "ReduceJoin")
    axes = sorted({a % ndim for a in axes}) if ndim else []
    sep = _static_text(separator, "separator").encode()

    def run(array):
        kept = [d for d in range(ndim) if d not in axes]
        moved = np.transpose(array, kept + axes).reshape([array.shape[d] for d in kept] + [-1])
        joined = np.asarray([sep.join(row) for row in moved.reshape(-1, moved.shape[-1])], object)
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
            piece = text[begin:begin + max(size, 0)]
            out.append(_encoded(piece) if by_char else piece)
        return np.asarray(out, object).reshape(array.shape)
    return host(run, t, pos_t, len_t)


def to_number(string_tensor, out_type=_dtypes.float32, name=None):
    """The numbers the strings spell, as ``out_type`` (float32, float64, int32, int64)."""
    dtype = _dtypes.as_dtype(out_type)
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    is_float = np_dtype.kind == "f"

    def parse(b):
        text = b.decode("utf-8", "replace")
        try:
            if is_float:
                return np_dtype.type(float(text))
            if text != text.strip() or "_" in text:
                raise ValueError
            value = int(text)
            if np_dtype.type(value) != value:
                raise ValueError
            return value
        except (ValueError, OverflowError):
            raise op_error(f"StringToNumberOp could not correctly convert string: {text}", "StringToNumber") \
                from None
    return _elementwise(parse, string_tensor, "StringToNumber", np_dtype)


def as_string(input, precision=-1, scientific=False, shortest=False, width=-1, fill="", name=None):  # noqa: A002
    """The numbers (or bools, or strings unchanged) as text, formatted as TF's printf-style ``AsString``."""
    t = convert_to_tensor(input)
    kind = t.array.dtype.kind
    if kind == "O":
        return t
    if kind not in "fiub":
        raise op_error(f"Value for attr 'T' of {t.dtype.name} is not in the list of allowed values", "AsString")
    flags = ("0" if fill == "0" else "") + (str(width) if width >= 0 else "")
    if kind == "f":
        conversion = "g" if shortest else "e" if scientific else "f"
        spec = "%" + flags + (f".{precision}" if precision >= 0 else "") + conversion
    elif kind == "b":
        spec = "%" + flags + "s"
    else:
        spec = "%" + flags + "d"

    def run(array):
        values = np.where(array, "true", "false") if kind == "b" else array
        return np.asarray([(spec % (v if kind == "b" else v.item())).encode() for v in values.ravel()],
                          object).reshape(array.shape)
    return host(run, t)


def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001  (TF's name)
    """``template`` with each ``placeholder`` replaced by the text of the next tensor of ``inputs`` (as
    ``tf.print`` shows it: ``summarize`` elements at each end)."""
    inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    pieces = template.split(placeholder)
    if len(pieces) - 1 != len(inputs):
        raise ValueError(f"The template expects {len(pieces) - 1} tensors, but the inputs only has {len(inputs)}. "
                         "Please ensure the number of placeholders in template matches inputs length.")
    tensors = [convert_to_tensor(x) for x in inputs]

    def run(*arrays):
        texts = [format_tensor(a, summarize) for a in arrays]
        return np.asarray("".join(p + t for p, t in zip(pieces, texts + [""])).encode(), object)
    return host(run, *tensors) if tensors else wrap(np.asarray(template.encode(), object))


NAMESPACES = {
    "strings": ["as_string", "format", "join", "length", "lower", "ngrams", "reduce_join", "regex_full_match",
                "regex_replace", "split", "strip", "substr", "to_number", "unicode_split", "upper"],
    "tf": ["as_string"],
}
