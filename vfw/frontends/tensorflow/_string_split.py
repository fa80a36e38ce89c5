"""``tf.strings.split``, ``bytes_split`` and ``ngrams``: strings into ragged rows of tokens.

A scalar input gives a dense 1-D tensor of its tokens; an input of rank ``r >= 1`` a ragged tensor with one
more (ragged) dimension.  The tokens are computed in numpy through ``host`` (one flat values tensor and the row
splits), so a ``tf.function`` graph reruns them on each call.
"""

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host
from vfw.frontends.tensorflow._ragged import RaggedTensor


def _string_input(value, what):
    if isinstance(value, RaggedTensor):
        return value
    t = convert_to_tensor(value, dtype_hint=_dtypes.string)
    if t.array.dtype != object:
        raise ValueError(f"{what}: Tensor conversion requested dtype string for Tensor with dtype {t.dtype.name}: "
                         f"{t!r}")
    return t


def _tokenized(t, tokens_of, dtypes=(object,)):
    """``tokens_of(bytes)`` over every string of ``t``: a 1-D tensor for a scalar, else a ragged tensor with rows
    of tokens under the dims of ``t``.

    ``tokens_of`` returns a list of tokens, or with several ``dtypes`` a tuple of equally long lists (one per
    dtype: e.g. characters and their offsets), and then a tuple of results sharing one row structure is returned.
    """
    if isinstance(t, RaggedTensor):
        flats = _tokenized(t.flat_values, tokens_of, dtypes)
        return tuple(t.with_flat_values(f) for f in flats) if len(dtypes) > 1 else t.with_flat_values(flats)

    def run(array):
        pieces = [tokens_of(b) for b in array.ravel()]
        columns = [[p[k] for p in pieces] for k in range(len(dtypes))] if len(dtypes) > 1 else [pieces]
        flats = []
        for rows, dtype in zip(columns, dtypes):
            flat = np.empty(sum(len(r) for r in rows), dtype)
            flat[:] = [token for r in rows for token in r]
            flats.append(flat)
        splits = np.concatenate([[0], np.cumsum([len(r) for r in columns[0]])]).astype(np.int64)
        return (*flats, splits)
    *flats, splits = host(run, t)
    if t.array.ndim:
        flats = [_nested_rows(flat, splits, t.array.shape[1:]) for flat in flats]
    return tuple(flats) if len(dtypes) > 1 else flats[0]


def _nested_rows(flat, splits, outer_dims):
    """``flat`` cut by ``splits`` into rows, then into uniform rows of rows for each of the dense ``outer_dims``."""
    ragged = RaggedTensor(flat, splits)
    for dim in reversed(outer_dims):  # the outer dims of the input are uniform rows of rows
        ragged = RaggedTensor(ragged, host(lambda a, n=dim: np.arange(0, a.shape[0], n, np.int64), ragged.row_splits),
                              dim)
    return ragged


def split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002  (TF's argument name)
    """The tokens of each string: split at runs of ASCII whitespace (``sep=None``, empty tokens dropped) or at
    every ``sep`` (empty tokens kept), at most ``maxsplit`` times (-1: no limit).

    Returns
    -------
    Tensor or RaggedTensor
        1-D tokens for a scalar input; a ragged tensor of rank ``rank(input) + 1`` otherwise.
    """
    t = _string_input(input, "input")
    if sep is not None and hasattr(sep, "array"):
        sep = sep.array.reshape(()).item()
    sep = sep.encode() if isinstance(sep, str) else sep
    limit = -1 if maxsplit is None else int(maxsplit)
    if sep in (None, b""):
        return _tokenized(t, lambda b: _whitespace_tokens(b, limit))
    return _tokenized(t, lambda b: b.split(sep, limit))


def _whitespace_tokens(text, limit):
    """``text`` split at runs of whitespace at most ``limit`` times, as TF's kernel: ``limit`` 0 keeps the string
    whole (blanks included), and a string of exactly ``limit`` tokens gets an empty token after them ("c" split
    once is ["c", ""])."""
    if limit == 0:
        return [text]
    tokens = text.split(None, limit)
    if limit > 0 and len(tokens) == limit:
        tokens.append(b"")
    return tokens


def bytes_split(input, name=None):  # noqa: A002
    """The bytes of each string, each as a string (a 1-D tensor for a scalar, else one more ragged dim)."""
    return _tokenized(_string_input(input, "input"), lambda b: [b[i:i + 1] for i in range(len(b))])


def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None, preserve_short_sequences=False,
           name=None):
    """The n-grams of each row of tokens (the last axis): consecutive tokens joined with ``separator``, for every
    width in ``ngram_width`` (an int or a tuple), in that order; rows optionally padded by ``pad_values``
    (left, right) ``padding_width`` times (default ``width - 1``)."""
    widths = (ngram_width,) if isinstance(ngram_width, int) else tuple(ngram_width)
    for width in widths:
        if width < 1:
            raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
    if pad_values is None:
        left = right = None
    elif isinstance(pad_values, (tuple, list)):
        left, right = (v.encode() if isinstance(v, str) else v for v in pad_values)
    else:
        left = right = pad_values.encode() if isinstance(pad_values, str) else pad_values
    if padding_width is not None and padding_width < 1:
        raise ValueError(f"padding_width must be greater than 0. Got {padding_width}")
    sep = separator.encode()

    def grams(tokens):
        found = []
        for width in widths:
            pad = 0 if left is None else (width - 1 if padding_width is None else min(padding_width, width - 1))
            row = [left] * pad + list(tokens) + [right] * pad
            found += [sep.join(row[i:i + width]) for i in range(len(row) - width + 1)]
        if not found and preserve_short_sequences and tokens:
            found = [sep.join(tokens)]
        return found

    if isinstance(data, RaggedTensor):
        if isinstance(data.values, RaggedTensor):
            return RaggedTensor(ngrams(data.values, ngram_width, separator, pad_values, padding_width,
                                       preserve_short_sequences), data.row_splits, data.uniform_row_length)

        def run(values, splits):
            rows = [grams(values[splits[i]:splits[i + 1]].tolist()) for i in range(len(splits) - 1)]
            flat = np.empty(sum(len(r) for r in rows), object)
            flat[:] = [g for r in rows for g in r]
            return flat, np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int64)
        flat, splits = host(run, _string_input(data.values, "data"), data.row_splits)
        return RaggedTensor(flat, splits)
    t = _string_input(data, "data")
    if t.array.ndim == 0:
        raise ValueError("Data must have rank>0")

    def dense(array):
        rows = [grams(row.tolist()) for row in array.reshape(-1, array.shape[-1])]
        width = len(rows[0]) if rows else 0
        return np.asarray(rows, object).reshape(array.shape[:-1] + (width,))
    return host(dense, t)
