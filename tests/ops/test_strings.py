"""String ops and TfIdfVectorizer against ONNX's reference evaluator."""

import numpy as np
import pytest

from tests.ops.oracle import assert_same, onnx_run, vfw_run
from vfw.core import OpAttributeError, ShapeError, run


def check_op(op_type, inputs, attrs=None):
    """vfw against the reference (which returns string outputs as numpy unicode arrays)."""
    ours = vfw_run(op_type, inputs, attrs)
    theirs = onnx_run(op_type, inputs, attrs, len(ours))
    for k, (a, e) in enumerate(zip(ours, theirs)):
        assert_same(a, e.astype(object) if e.dtype.kind == "U" else e, what=f"{op_type} output {k}")


def s(*values):
    return np.array(values, dtype=object)


def test_string_concat_broadcasts():
    check_op("StringConcat", [s("a", "bc", ""), s("x")])
    check_op("StringConcat", [s("a", "b").reshape(2, 1), s("1", "2", "3")])
    check_op("StringConcat", [np.array("ab", dtype=object), np.array("é", dtype=object)])
    with pytest.raises(ShapeError, match="broadcast"):
        run("StringConcat", s("a", "b"), s("a", "b", "c"))


@pytest.mark.parametrize("delimiter,maxsplit", [(None, None), (",", None), (",", 1), ("", 2), ("ab", None)])
def test_string_split(delimiter, maxsplit):
    x = s("a,b,,c", "  two  words ", "", "abxab", "one").reshape(5)
    check_op("StringSplit", [x], {"delimiter": delimiter, "maxsplit": maxsplit})
    check_op("StringSplit", [x[:4].reshape(2, 2)], {"delimiter": delimiter, "maxsplit": maxsplit})


@pytest.mark.parametrize("action", ["NONE", "LOWER", "UPPER"])
@pytest.mark.parametrize("sensitive", [0, 1])
def test_string_normalizer(action, sensitive):
    x = s("Monday", "tuesday", "MONDAY", "wednesday")
    attrs = {"case_change_action": action, "is_case_sensitive": sensitive, "stopwords": ["monday"]}
    if action == "NONE" and not sensitive:
        # ONNX's reference keeps "Monday" and "MONDAY" here; the spec matches stop words regardless of case.
        assert_same(run("StringNormalizer", x, **attrs), s("tuesday", "wednesday"))
        return
    check_op("StringNormalizer", [x], attrs)
    check_op("StringNormalizer", [x.reshape(1, 4)], attrs)
    all_dropped = run("StringNormalizer", s("monday").reshape(1, 1), stopwords=["monday"])
    assert all_dropped.shape == (1, 1) and all_dropped[0, 0] == ""


def test_regex_full_match():
    x = s("www.google.com", "www.facebook.com", "www.bbc.co.uk", "google.com").reshape(2, 2)
    check_op("RegexFullMatch", [x], {"pattern": r"www\.[\w.-]+\.\bcom\b"})
    check_op("RegexFullMatch", [s("abc", "ab", "")], {"pattern": "a.c|"})
    with pytest.raises(OpAttributeError, match="invalid pattern"):
        run("RegexFullMatch", s("a"), pattern="(")


INT_POOL = {"pool_int64s": [2, 3, 5, 4, 5, 6, 7, 8, 6, 7], "ngram_counts": [0, 4],
            "ngram_indexes": [0, 1, 2, 3, 4, 5, 6]}


@pytest.mark.parametrize("mode", ["TF", "IDF", "TFIDF"])
@pytest.mark.parametrize("grams,skip", [((1, 1), 0), ((2, 2), 0), ((1, 2), 0), ((1, 2), 3), ((2, 2), 1)])
def test_tfidf_ints(mode, grams, skip):
    attrs = dict(INT_POOL, mode=mode, min_gram_length=grams[0], max_gram_length=grams[1], max_skip_count=skip,
                 weights=[0.5, 1.0, 2.0, 1.5, 3.0, 0.25, 1.0])
    x = np.array([[1, 1, 3, 3, 3, 7], [8, 6, 7, 5, 6, 8]], np.int32)
    check_op("TfIdfVectorizer", [x], attrs)
    check_op("TfIdfVectorizer", [np.array([1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8], np.int64)], attrs)


def test_tfidf_strings():
    attrs = {"mode": "TF", "min_gram_length": 1, "max_gram_length": 2, "max_skip_count": 1,
             "pool_strings": ["a", "b", "c", "a", "b", "b", "c"], "ngram_counts": [0, 3],
             "ngram_indexes": [2, 0, 1, 3, 4]}
    check_op("TfIdfVectorizer", [s("a", "b", "c", "b", "x", "c", "a").reshape(1, 7)], attrs)
    out = run("TfIdfVectorizer", s("q", "q"), **attrs)
    assert_same(out, np.zeros(5, np.float32))
