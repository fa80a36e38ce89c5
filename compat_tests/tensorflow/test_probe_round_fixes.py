"""Fixes found by a differential probe of everyday TF calls (tf.strings, tf.math, tf.image, tf.histogram, ragged
tf.where), each compared with real TF 2.21."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check


# -- tf.strings.to_number: C's strtod syntax for floats, surrounding spaces for ints, TF's out_type list ------------
@pytest.mark.parametrize("text", ["0x10", "0X1f", "0x1p3", "0x.8", "1.", ".5", "infinity", "-INF", "nan(1)", "+nan",
                                  "1e-50", "1e400", "\x0b1", " 1.5 "])
def test_to_number_accepts_c_float_syntax(text):
    check(lambda tf: tf.strings.to_number([text]))


@pytest.mark.parametrize("text", ["1_0", "\u0663", "1e", "0x", ".", "+-1", "nanx", "1d"])
def test_to_number_rejects_what_strtod_rejects(text):
    check(lambda tf: tf.strings.to_number([text]))


@pytest.mark.parametrize("text, out_type", [(" 7", "int32"), ("7 ", "int64"), ("\t7\n", "int32"), ("+7", "int32"),
                                            ("1_0", "int32"), ("\u0663", "int32"), ("7", "uint32"), ("-7", "uint32"),
                                            ("18446744073709551615", "uint64"), ("2147483648", "int32")])
def test_to_number_integers(text, out_type):
    check(lambda tf: tf.strings.to_number([text], out_type=getattr(tf, out_type)))


@pytest.mark.parametrize("out_type", ["float16", "uint8", "bool"])
def test_to_number_out_type_outside_tf_list(out_type):
    check(lambda tf: tf.strings.to_number(["3"], out_type=getattr(tf, out_type)))


# -- tf.strings.as_string: TF's argument checks, fill flags, complex and bfloat16 values --------------------------
@pytest.mark.parametrize("value, kwargs", [
    ([1], {"precision": 2}), ([True], {"precision": 1}), ([1], {"scientific": True}), ([1], {"shortest": True}),
    ([1.5], {"scientific": True, "shortest": True}), ([1.5], {"fill": "ab"}), ([1.5], {"fill": "x", "width": 6}),
    ([1.5], {"fill": " ", "width": 6}), ([1.5], {"fill": "+"}), ([-5], {"fill": "-", "width": 4}),
    ([1.5], {"fill": "#", "width": 6}), ([True], {"fill": "0", "width": 6}), (["a"], {"width": 3}),
    ([1.5], {"width": 10, "fill": "0", "precision": 1}),
])
def test_as_string_arguments(value, kwargs):
    check(lambda tf: tf.strings.as_string(value, **kwargs))


@pytest.mark.parametrize("dtype, kwargs", [("complex64", {}), ("complex128", {"precision": 2}),
                                           ("complex64", {"width": 12}), ("complex64", {"scientific": True}),
                                           ("complex64", {"shortest": True}),
                                           ("complex64", {"precision": 1, "width": 5, "fill": "0"})])
def test_as_string_complex(dtype, kwargs):
    check(lambda tf: tf.strings.as_string(tf.constant([1 + 2j, -0.5j], getattr(tf, dtype)), **kwargs))


def test_as_string_bfloat16():
    check(lambda tf: tf.strings.as_string(tf.constant([1.5, -2.25], tf.bfloat16), precision=2))


# -- tf.strings.substr / join / reduce_join / format ----------------------------------------------------------------
@pytest.mark.parametrize("pos, length", [(1, -1), (1, -2), (-3, -1), (0, -100)])
def test_substr_negative_byte_length_takes_the_rest(pos, length):
    check(lambda tf: tf.strings.substr(["Hello", "ab"], [pos, 0], [length, length]))


def test_join_of_no_inputs_is_one_empty_string():
    check(lambda tf: tf.strings.join([], separator="-"))


@pytest.mark.parametrize("inputs, kwargs", [
    ([], {}), ([1, 2], {}), ("empty", {}), ("empty", {"axis": 0, "keepdims": True}),
    ([["a", "b"]], {"axis": 2}), ([["a", "b"]], {"axis": -3}), ("a", {"axis": 0}), (["a", "b"], {"axis": [0, 0]}),
    ([["a", "b"], ["c", "d"]], {"axis": [-1, 0], "separator": "."}),
])
def test_reduce_join_edges(inputs, kwargs):
    def fn(tf):
        values = tf.constant([], tf.string) if inputs == "empty" else inputs
        return tf.strings.reduce_join(values, **kwargs)
    check(fn)


@pytest.mark.parametrize("inputs", [5, "abc", {"a": 1}, [5], (1, 2)])
def test_format_takes_a_sequence_or_one_tensor(inputs):
    check(lambda tf: tf.strings.format("{}" * (2 if inputs == (1, 2) else 1), inputs))


# -- tf.math.polyval: each coefficient converted on its own ------------------------------------------------------
@pytest.mark.parametrize("coeffs, x", [([1.0, 2, 3], 2.0), ([1.0, 2.0, 3.0], 2.0), ([2, 1, 0], 3), ([1, 2.0], 2)])
def test_polyval_converts_each_coefficient(coeffs, x):
    check(lambda tf: tf.math.polyval(coeffs, x))


# -- tf.histogram_fixed_width: NaN values -------------------------------------------------------------------------
def test_histogram_rejects_nan():
    check(lambda tf: tf.histogram_fixed_width([float("nan"), 1.0], [0.0, 5.0], nbins=2))


# -- tf.image.resize: non-positive output sizes ------------------------------------------------------------------
@pytest.mark.parametrize("method", ["bilinear", "nearest", "bicubic", "area"])
@pytest.mark.parametrize("size", [[0, 2], [2, 0], [-1, 2]])
def test_resize_rejects_non_positive_size(method, size):
    check(lambda tf: tf.image.resize(tf.ones([4, 4, 1]), size, method=method))


# -- tf.where over ragged tensors ---------------------------------------------------------------------------------
@pytest.mark.parametrize("condition", [[[True, False], [True]], [[[True, False], [True]], [], [[False, True, True]]],
                                       [[False]]])
def test_where_of_a_ragged_condition_gives_coordinates(condition):
    check(lambda tf: tf.where(tf.ragged.constant(condition)))


def test_where_of_a_ragged_condition_with_inner_dims():
    check(lambda tf: tf.where(tf.ragged.constant([[[1, 0], [1, 1]], [[0, 1]]], ragged_rank=1)))


@pytest.mark.parametrize("x, y", [("ragged", "ragged"), ("ragged", 0), (1, 0), ("ragged", "mismatched")])
def test_where_selects_over_ragged_tensors(x, y):
    def fn(tf):
        values = {"ragged": tf.ragged.constant([[1, 2], [3]]), "mismatched": tf.ragged.constant([[4], [6]])}
        return tf.where(tf.ragged.constant([[True, False], [True]]), values.get(x, x), values.get(y, y)).to_list()
    check(fn)


# -- tf.math.add_n: each input converted on its own before AddN compares dtypes ----------------------------------
@pytest.mark.parametrize("case", ["int_after_float", "float_list_after_int", "int_after_int64", "float64_first",
                                  "python_ints"])
def test_add_n_converts_each_input(case):
    def fn(tf):
        inputs = {"int_after_float": [tf.constant([1.0]), [2]], "float_list_after_int": [[1], [2.0]],
                  "int_after_int64": [tf.constant(1, tf.int64), 2],
                  "float64_first": [np.float64(1.0), tf.constant(2.0)], "python_ints": [1, 2]}[case]
        return tf.math.add_n(inputs)
    check(fn)


def test_bincount_binary_output_excludes_weights():
    check(lambda tf: tf.math.bincount([1, 2], weights=[1.0, 2.0], binary_output=True))



# -- tf.image.non_max_suppression_with_scores: soft-NMS ----------------------------------------------------------
def _random_boxes(seed, count):
    rng = np.random.default_rng(seed)
    top_left = rng.uniform(0, 5, (count, 2))
    size = rng.uniform(0.1, 2, (count, 2)) * ([0, 1] if seed % 4 == 0 else [1, 1])  # some boxes of zero area
    scores = rng.uniform(0, 1, count)
    scores[1] = scores[0]  # a tie: the lower index comes first
    return np.concatenate([top_left, top_left + size], 1).astype(np.float32), scores.astype(np.float32)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("sigma, score_threshold, max_output", [(0.05, float("-inf"), 10), (0.5, 0.2, 10),
                                                                (2.0, 0.0, 4), (0.3, 0.5, 0)])
def test_soft_nms(seed, sigma, score_threshold, max_output):
    boxes, scores = _random_boxes(seed, 9)
    check(lambda tf: tf.image.non_max_suppression_with_scores(boxes, scores, max_output, iou_threshold=0.3,
                                                               score_threshold=score_threshold, soft_nms_sigma=sigma),
          rtol=1e-6)


def test_soft_nms_rejects_a_negative_sigma():
    check(lambda tf: tf.image.non_max_suppression_with_scores([[0.0, 0, 1, 1]], [0.5], 1, soft_nms_sigma=-1.0))


# -- tf.strings.regex_replace: RE2's scan skips an empty match where the previous match ended ---------------------
@pytest.mark.parametrize("pattern, rewrite", [("a*", "-"), (r"\d*", "#"), ("", "-"), ("(a)(b)?", r"<\2\1\0>"),
                                              (r"\s+", " ")])
@pytest.mark.parametrize("replace_global", [True, False])
def test_regex_replace_empty_matches(pattern, rewrite, replace_global):
    check(lambda tf: tf.strings.regex_replace(["aaa", "baaac", "", "abab", "ab12cd3", "h\u00e9\u00e9", "a b  c"],
                                              pattern, rewrite, replace_global=replace_global))
