"""tf.strings and tf.RaggedTensor against real TF 2.21: values, dtypes, shapes and error kinds."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check

WORDS = np.array(["The cat sat.", "  a\tb  ", "", "ÀB éx"], dtype=object)


def _ragged(r):
    """A ragged result in a comparable form: its rows, shape and dtype."""
    return (r.to_list(), r.shape, r.dtype, r.flat_values, r.row_lengths(), r.nrows())


@pytest.mark.parametrize("fn", [
    lambda tf, x: tf.strings.lower(x),
    lambda tf, x: tf.strings.lower(x, encoding="utf-8"),
    lambda tf, x: tf.strings.upper(x),
    lambda tf, x: tf.strings.strip(x),
    lambda tf, x: tf.strings.length(x),
    lambda tf, x: tf.strings.length(x, unit="UTF8_CHAR"),
    lambda tf, x: tf.strings.length(x, unit="X"),
    lambda tf, x: tf.strings.regex_replace(x, r"[aeiou]", "_"),
    lambda tf, x: tf.strings.regex_replace(x, r"(\w)(\w)", r"<\2\1\0>", replace_global=False),
    lambda tf, x: tf.strings.regex_replace(x, "(", "x"),
    lambda tf, x: tf.strings.regex_full_match(x, r".*\w+\."),
    lambda tf, x: tf.strings.substr(x, 0, 2),
    lambda tf, x: tf.strings.substr(x[:1], -3, 2),
    lambda tf, x: tf.strings.substr(x, 3, 1),
    lambda tf, x: tf.strings.substr(x[3:], 1, 2, unit="UTF8_CHAR"),
    lambda tf, x: tf.strings.join([x, "-", x], separator="|"),
    lambda tf, x: tf.strings.join([x, x[:2]]),
    lambda tf, x: tf.strings.reduce_join(x),
    lambda tf, x: tf.strings.reduce_join(tf.reshape(x, [2, 2]), axis=1, separator=","),
    lambda tf, x: tf.strings.reduce_join(tf.reshape(x, [2, 2]), axis=-2, keepdims=True),
    lambda tf, x: tf.strings.as_string(x),
    lambda tf, x: tf.strings.lower(tf.constant([1, 2])),
    lambda tf, x: tf.strings.lower(1),
    lambda tf, x: tf.strings.length(tf.constant(1.0)),
])
def test_elementwise(fn):
    check(fn, WORDS)


@pytest.mark.parametrize("fn", [
    lambda tf: tf.strings.as_string([1.5, -2.0]),
    lambda tf: tf.strings.as_string(tf.constant([1.5e10, 1e-7], tf.float64), shortest=True),
    lambda tf: tf.strings.as_string([1.5e10], scientific=True, precision=2),
    lambda tf: tf.strings.as_string([1, 22], width=4, fill="0"),
    lambda tf: tf.strings.as_string(tf.constant([3, -4], tf.int64), width=3),
    lambda tf: tf.as_string([True, False]),
    lambda tf: tf.strings.to_number(["1.5", "-3", " 2e3 "]),
    lambda tf: tf.strings.to_number(["1.5", "x"]),
    lambda tf: tf.strings.to_number(["15", "-3"], tf.int64),
    lambda tf: tf.strings.to_number(["15", "1.5"], tf.int32),
    lambda tf: tf.strings.to_number(["0.1"], out_type=tf.float64),
    lambda tf: tf.strings.to_number([1]),
    lambda tf: tf.strings.format("x={} y={}", [tf.constant([1, 2, 3, 4, 5, 6, 7]), "q"]),
    lambda tf: tf.strings.format("m={}", tf.constant([[1.5, 2.0]])),
    lambda tf: tf.strings.format("{} and {}", [tf.constant(["a"]), tf.constant(True)], summarize=-1),
    lambda tf: tf.strings.format("x={} {}", [1]),
    lambda tf: tf.strings.split("a  b c"),
    lambda tf: tf.strings.split(tf.constant(1)),
    lambda tf: tf.strings.ngrams(tf.constant(["a", "b", "c"]), 2),
    lambda tf: tf.strings.ngrams(tf.constant([["a", "b", "c"], ["d", "e", "f"]]), (1, 3), separator="_"),
])
def test_scalar_and_dense(fn):
    check(fn)


@pytest.mark.parametrize("fn", [
    lambda tf, x: _ragged(tf.strings.split(x)),
    lambda tf, x: _ragged(tf.strings.split(x, " ")),
    lambda tf, x: _ragged(tf.strings.split(x, maxsplit=1)),
    lambda tf, x: _ragged(tf.strings.split(tf.reshape(x, [2, 2]))),
    lambda tf, x: _ragged(tf.strings.unicode_split(x, "UTF-8")),
    lambda tf, x: _ragged(tf.strings.lower(tf.strings.split(x))),
    lambda tf, x: _ragged(tf.strings.ngrams(tf.strings.split(x), 2)),
    lambda tf, x: _ragged(tf.strings.ngrams(tf.strings.split(x), (1, 2), separator="+")),
    lambda tf, x: _ragged(tf.strings.ngrams(tf.strings.split(x), 3, pad_values=("<", ">"), padding_width=1)),
    lambda tf, x: _ragged(tf.strings.ngrams(tf.strings.split(x), 3, preserve_short_sequences=True)),
    lambda tf, x: tf.strings.split(x).to_tensor(),
    lambda tf, x: tf.strings.split(x).to_tensor(default_value="?", shape=[None, 2]),
    lambda tf, x: tf.strings.split(x).to_tensor(shape=[2, 5]),
    lambda tf, x: (tf.strings.split(x)[0], tf.strings.split(x)[-2], tf.strings.split(x)[1:3].to_list()),
    lambda tf, x: repr(tf.strings.split(x)),
    lambda tf, x: repr(tf.strings.split(tf.reshape(x, [2, 2]))),
])
def test_ragged(fn):
    check(fn, WORDS)


def test_ragged_constructors():
    check(lambda tf: _ragged(tf.RaggedTensor.from_row_splits(["a", "b", "c"], [0, 2, 2, 3])))
    check(lambda tf: _ragged(tf.RaggedTensor.from_row_lengths([1, 2, 3], [1, 0, 2])))
    check(lambda tf: tf.RaggedTensor.from_row_lengths([1.0, 2.0, 3.0], [1, 2]).to_tensor(default_value=-1.0))


def test_string_ops_in_function():
    for lib_fn in (lambda tf: tf.function(lambda x: tf.strings.split(tf.strings.lower(x)).to_tensor())(
            tf.constant(["A b", "C"])),
                   lambda tf: tf.function(lambda x: tf.strings.length(tf.strings.regex_replace(x, "b", "")))(
            tf.constant(["abba", "b"]))):
        check(lib_fn)
