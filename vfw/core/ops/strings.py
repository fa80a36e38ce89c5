"""String and text ops (ONNX): StringConcat, StringSplit, StringNormalizer, RegexFullMatch, TfIdfVectorizer.

String tensors are numpy object arrays of ``str``.  numpy's ``char`` routines do the per-string
work where they exist; splitting and regular expressions have no vectorized numpy form and run
once per string (their results are ragged or per-string by nature).  Patterns use Python's ``re``,
which accepts the RE2 syntax ONNX names for everything but RE2-only constructs.  TfIdfVectorizer
maps tokens to ids and matches all n-gram windows at once.  None of these ops is differentiable.
"""

import re

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable
from vfw.core.errors import OpAttributeError, ShapeError
from vfw.core.ops._common import broadcast_infer, require
from vfw.core.registry import Attr, TensorInfo, defop

_STR = frozenset({dt.string})


def _text(x):
    """A numpy unicode array of the string tensor ``x`` (for numpy's char routines)."""
    return x.astype(str) if x.size else np.zeros(x.shape, "U1")


def _objects(u):
    return u.astype(object)


@defop("StringConcat", inputs="X:T Y:T", outputs="Z:T", types={"T": _STR}, infer=broadcast_infer)
def string_concat():
    """Elementwise concatenation of two string tensors (broadcast)."""

    def kernel(x, y, out=None):
        try:
            shape = np.broadcast_shapes(x.shape, y.shape)
        except ValueError:
            raise ShapeError(f"StringConcat: shapes {x.shape} and {y.shape} cannot be broadcast together") from None
        return _objects(np.asarray(np.char.add(_text(x), _text(y)))).reshape(shape)

    return kernel


@defop("StringSplit", inputs="X:T1", outputs="Y:T1 Z:int64", types={"T1": _STR},
       attrs={"delimiter": Attr("string", None), "maxsplit": Attr("int", None)},
       infer=lambda attrs, infos: [TensorInfo(None if infos[0].shape is None else infos[0].shape + (None,),
                                              dt.string), TensorInfo(infos[0].shape, dt.int64)])
def string_split(delimiter, maxsplit):
    """Substrings of each element split on ``delimiter`` (runs of whitespace when unset or empty), at most
    ``maxsplit`` splits, padded with empty strings to the longest; and the count of substrings of each."""
    sep = delimiter or None
    limit = -1 if maxsplit is None else maxsplit

    def kernel(x, out=None):
        parts = [s.split(sep, limit) for s in x.reshape(-1)]  # ragged: one Python split per string
        counts = np.array([len(p) for p in parts], np.int64).reshape(x.shape)
        width = int(counts.max()) if counts.size else 0
        table = np.full((len(parts), width), "", dtype=object)
        if parts:
            rows = np.repeat(np.arange(len(parts)), counts.reshape(-1))
            cols = np.concatenate([np.arange(len(p)) for p in parts]) if width else np.zeros(0, np.int64)
            table[rows, cols] = [s for p in parts for s in p]
        return table.reshape(x.shape + (width,)), counts

    return kernel


@defop("StringNormalizer", inputs="X:T", outputs="Y:T", types={"T": _STR},
       attrs={"case_change_action": Attr("string", "NONE", choices=("NONE", "LOWER", "UPPER")),
              "is_case_sensitive": Attr("int", 0, choices=(0, 1)), "locale": Attr("string", ""),
              "stopwords": Attr("strings", ())})
def string_normalizer(case_change_action, is_case_sensitive, locale, stopwords):
    """Drop the ``stopwords`` from a ``[C]`` or ``[1, C]`` string tensor, then lower- or uppercase; an input
    left empty gives one empty string."""
    words = np.array(list(stopwords), dtype=str) if stopwords else np.zeros(0, "U1")
    if not is_case_sensitive:
        words = np.char.lower(words)

    def kernel(x, out=None):
        if not (x.ndim == 1 or (x.ndim == 2 and x.shape[0] == 1)):
            raise ShapeError(f"StringNormalizer: X must have shape [C] or [1, C], got {x.shape}")
        text = _text(x.reshape(-1))
        keys = text if is_case_sensitive else np.char.lower(text)
        kept = text[~np.isin(keys, words)]
        if case_change_action == "LOWER":
            kept = np.char.lower(kept)
        elif case_change_action == "UPPER":
            kept = np.char.upper(kept)
        if not kept.size:
            kept = np.array([""])
        return _objects(kept).reshape((1, -1) if x.ndim == 2 else (-1,))

    return kernel


@defop("RegexFullMatch", inputs="X:T1", outputs="Y:bool", types={"T1": _STR}, attrs={"pattern": Attr("string")},
       infer=lambda attrs, infos: [TensorInfo(infos[0].shape, dt.bool_)])
def regex_full_match(pattern):
    """Whether each string matches ``pattern`` entirely."""
    try:
        compiled = re.compile(pattern)
    except re.error as exc:
        raise OpAttributeError(f"RegexFullMatch: invalid pattern {pattern!r} ({exc})") from None

    def kernel(x, out=None):
        matches = [compiled.fullmatch(s) is not None for s in x.reshape(-1)]  # one regex match per string
        return np.array(matches, dtype=bool).reshape(x.shape)

    return kernel


# -- TfIdfVectorizer -------------------------------------------------------------------------------------------
def _pool_ngrams(pool, counts, lengths):
    """``{n: (rows, first)}``: the pool's n-grams as a ``(count, n)`` array and the index of the first one among all
    the pool's n-grams, for each length ``n`` in ``lengths``."""
    starts = list(counts) + [len(pool)]
    found, index = {}, 0
    for n in range(1, len(starts)):
        chunk = pool[starts[n - 1]:starts[n]]
        if len(chunk) % n:
            raise OpAttributeError(f"TfIdfVectorizer: the pool's {n}-grams ({len(chunk)} items) are not whole "
                                   f"{n}-grams")
        rows = chunk.reshape(-1, n)
        if n in lengths:
            found[n] = (rows, index)
        index += len(rows)
    return found, index


def _windows(ids, n, skip):
    """All n-grams of ``ids`` (rows of tokens) whose items are ``skip + 1`` apart: ``(rows, starts, n)``."""
    span = (n - 1) * (skip + 1)
    starts = ids.shape[1] - span
    if starts <= 0:
        return np.zeros((ids.shape[0], 0, n), ids.dtype)
    offsets = np.arange(starts)[:, None] + (skip + 1) * np.arange(n)[None, :]
    return ids[:, offsets]


@defop("TfIdfVectorizer", inputs="X:T", outputs="Y:float32", types={"T": _STR | {dt.int32, dt.int64}},
       attrs={"max_gram_length": Attr("int"), "max_skip_count": Attr("int"), "min_gram_length": Attr("int"),
              "mode": Attr("string", choices=("TF", "IDF", "TFIDF")), "ngram_counts": Attr("ints"),
              "ngram_indexes": Attr("ints"), "pool_int64s": Attr("ints", None),
              "pool_strings": Attr("strings", None), "weights": Attr("floats", None)})
def tfidf_vectorizer(max_gram_length, max_skip_count, min_gram_length, mode, ngram_counts, ngram_indexes,
                     pool_int64s, pool_strings, weights):
    """Counts (TF), presence (IDF) or weighted counts (TFIDF) of the pool's n-grams in each row of X, with n from
    min_gram_length to max_gram_length and up to max_skip_count items skipped between an n-gram's items."""
    if (pool_int64s is None) == (pool_strings is None):
        raise OpAttributeError("TfIdfVectorizer: give exactly one of pool_int64s and pool_strings")
    require("TfIdfVectorizer", 1 <= min_gram_length <= max_gram_length and max_skip_count >= 0,
            f"need 1 <= min_gram_length <= max_gram_length and max_skip_count >= 0, got {min_gram_length}, "
            f"{max_gram_length}, {max_skip_count}", OpAttributeError)
    pool = np.array(pool_strings if pool_strings is not None else pool_int64s,
                    dtype=object if pool_strings is not None else np.int64)
    vocab, pool_ids = np.unique(pool, return_inverse=True)
    grams, total = _pool_ngrams(pool_ids.reshape(-1), ngram_counts, range(min_gram_length, max_gram_length + 1))
    if len(ngram_indexes) != total:
        raise OpAttributeError(f"TfIdfVectorizer: ngram_indexes has {len(ngram_indexes)} entries for {total} n-grams")
    scale = np.ones(total) if weights is None else np.asarray(weights, np.float64)
    require("TfIdfVectorizer", len(scale) == total, f"weights has {len(scale)} entries for {total} n-grams",
            OpAttributeError)
    targets = np.asarray(ngram_indexes, np.int64)
    width = int(targets.max()) + 1 if total else 0

    def kernel(x, out=None):
        if (x.dtype == dt.string) != (pool_strings is not None):
            raise OpAttributeError("TfIdfVectorizer: string inputs need pool_strings, integer inputs pool_int64s")
        require("TfIdfVectorizer", x.ndim in (1, 2), f"X must be 1-D or 2-D, got shape {x.shape}")
        rows = x.reshape(1, -1) if x.ndim == 1 else x
        tokens = rows.astype(object) if x.dtype == dt.string else rows.astype(np.int64)
        position = np.searchsorted(vocab, tokens.reshape(-1)) if len(vocab) else np.zeros(tokens.size, np.int64)
        position = np.minimum(position, max(len(vocab) - 1, 0))
        known = vocab[position] == tokens.reshape(-1) if len(vocab) else np.zeros(tokens.size, bool)
        ids = np.where(known, position, -1).reshape(tokens.shape)  # tokens outside the pool match nothing
        counts = np.zeros((len(rows), total))
        for n, (pool_rows, first) in grams.items():
            skips = range(max_skip_count + 1) if n > 1 else range(1)
            found = np.concatenate([_windows(ids, n, s) for s in skips], axis=1)
            if not found.shape[1] or not len(pool_rows):
                continue
            table, inverse = np.unique(np.concatenate([pool_rows, found.reshape(-1, n)]), axis=0,
                                       return_inverse=True)
            inverse = inverse.reshape(-1)
            entry = np.full(len(table), -1)
            entry[inverse[:len(pool_rows)]] = np.arange(len(pool_rows))
            hits = entry[inverse[len(pool_rows):]].reshape(len(rows), -1)
            row_of = np.broadcast_to(np.arange(len(rows))[:, None], hits.shape)
            matched = hits >= 0
            np.add.at(counts, (row_of[matched], first + hits[matched]), 1.0)
        if mode == "IDF":
            counts = np.minimum(counts, 1.0)
        if mode != "TF":
            counts = counts * scale
        result = np.zeros((len(rows), width))
        if total:
            np.add.at(result, (slice(None), targets), counts)  # two pool entries may share an output column
        return result.astype(np.float32).reshape((width,) if x.ndim == 1 else (len(rows), width))

    return kernel


not_differentiable("StringConcat", "StringSplit", "StringNormalizer", "RegexFullMatch", "TfIdfVectorizer")
