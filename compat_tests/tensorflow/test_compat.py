"""tf.compat (string helpers, forward compatibility, dimensions, v2) against real TensorFlow 2.21."""

import pathlib

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, real, vtf


@pytest.mark.parametrize("function, args", [
    ("as_bytes", ("é",)), ("as_bytes", ("é", "latin-1")), ("as_bytes", (b"ab",)), ("as_bytes", (bytearray(b"ab"),)),
    ("as_bytes", (1,)), ("as_bytes", (memoryview(b"x"),)),
    ("as_text", (b"\xc3\xa9",)), ("as_text", (b"\xe9", "latin-1")), ("as_text", ("x",)), ("as_text", (1,)),
    ("as_text", (bytearray(b"a"),)), ("as_text", (b"\xff",)),
    ("as_str", (b"ab",)), ("as_str", (None,)),
    ("as_str_any", (3,)), ("as_str_any", (b"x",)), ("as_str_any", ("y",)), ("as_str_any", ([1, b"a"],)),
    ("path_to_str", (pathlib.Path("/a/b"),)), ("path_to_str", (b"x",)), ("path_to_str", (3,)),
    ("dimension_value", (3,)), ("dimension_value", (None,)),
])
def test_conversions(function, args):
    check(lambda tf: getattr(tf.compat, function)(*args))


def test_conversion_error_messages():
    for lib in (real, vtf):
        with pytest.raises(TypeError, match=r"Expected binary or unicode string, got 1"):
            lib.compat.as_bytes(1)


def test_type_tuples_and_dir():
    for name in ("bytes_or_text_types", "complex_types", "integral_types", "real_types"):
        assert getattr(vtf.compat, name) == getattr(real.compat, name)


def test_public_names():
    def public(module):
        return [n for n in dir(module) if not n.startswith("_")]

    assert public(vtf.compat) == public(real.compat)


def test_v2_is_the_tf2_api():
    assert vtf.compat.v2.constant is vtf.constant
    assert vtf.compat.v2.nn.relu is vtf.nn.relu
    assert vtf.compat.v1.compat.v2.constant is vtf.constant
    check(lambda tf: tf.compat.v2.reduce_sum(tf.compat.v2.constant([1.0, 2.0])))


def test_importable_as_modules():
    import vfw.tensorflow.compat.v1 as tf1
    import vfw.tensorflow.compat.v2 as tf2

    assert tf2 is vtf
    assert tf1 is vtf.compat.v1
    assert tf1.nn.relu is vtf.nn.relu


@pytest.mark.parametrize("date", [(2019, 1, 1), (2026, 1, 15), (2026, 1, 16), (2026, 1, 17), (2030, 5, 5),
                                  (2021, 13, 40)])
def test_forward_compatible(date):
    check(lambda tf: tf.compat.forward_compatible(*date))


def test_forward_compatibility_horizon():
    def horizons(tf):
        out = []
        with tf.compat.forward_compatibility_horizon(2030, 1, 1):
            out += [tf.compat.forward_compatible(2029, 12, 31), tf.compat.forward_compatible(2030, 1, 1)]
        with tf.compat.forward_compatibility_horizon(2019, 1, 1):  # in the past: ignored, with a warning
            out.append(tf.compat.forward_compatible(2026, 1, 15))
        return out + [tf.compat.forward_compatible(2029, 12, 31)]

    check(horizons)


@pytest.mark.parametrize("dims, index", [([2, None], 0), ([2, None], 1), ([2, 3], -1), (None, 4), ([2, 3], 5),
                                         ([], 0)])
def test_dimension_at_index(dims, index):
    def dimension(tf):
        found = tf.compat.dimension_at_index(tf.TensorShape(dims), index)
        return repr(found), str(found), found.value, tf.compat.dimension_value(found), found == 3, found != 3

    check(dimension)


def test_dimension_at_index_needs_a_tensor_shape():
    check(lambda tf: tf.compat.dimension_at_index([2, 3], 1))


def test_dimension():
    def dimensions(tf):
        d = tf.compat.v1.Dimension
        return int(d(3)), d(3) == d(3), d(None) == 3, d(3) == "a", np.arange(5)[d(2)], repr(d(d(4)))

    check(dimensions)
    check(lambda tf: tf.compat.v1.Dimension(-1))
    check(lambda tf: tf.compat.v1.Dimension("a"))
