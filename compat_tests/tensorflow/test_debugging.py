"""tf.debugging and the top-level assertions of vfw.tensorflow against real TF 2.21 (results and error kinds)."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, real, vtf

NAN = float("nan")


@pytest.mark.parametrize("case", [
    lambda tf: tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 2])),
    lambda tf: tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 3])),
    lambda tf: tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]), message="hey"),
    lambda tf: tf.debugging.assert_equal(tf.constant([1, 2]), [1, 2, 3]),
    lambda tf: tf.debugging.assert_equal(tf.constant([1, 2]), tf.constant([1., 2.])),
    lambda tf: tf.debugging.assert_equal(tf.constant([1, 2]), 1), lambda tf: tf.debugging.assert_equal([1, 2], [1, 2]),
    lambda tf: tf.debugging.assert_equal(tf.constant([[1, 2]]), [[1], [1]]),
    lambda tf: tf.debugging.assert_equal(tf.constant([[1, 1]]), [[1], [1]]),
    lambda tf: tf.assert_equal(tf.constant([1, 2]), tf.constant([1, 3])),
    lambda tf: tf.debugging.assert_none_equal(tf.constant([1, 2]), tf.constant([3, 2])),
    lambda tf: tf.debugging.assert_none_equal(tf.constant([1, 2]), tf.constant([3, 4])),
    lambda tf: tf.debugging.assert_less(tf.constant([1, 2]), tf.constant([3, 2])),
    lambda tf: tf.debugging.assert_less(tf.constant([1, 2]), 3), lambda tf: tf.assert_less(tf.constant([1., 2.]), 2.),
    lambda tf: tf.debugging.assert_less_equal(tf.constant([1, 2]), tf.constant([3, 2])),
    lambda tf: tf.debugging.assert_greater(tf.constant([1, 2]), 0),
    lambda tf: tf.debugging.assert_greater(tf.constant([1, 2]), 1, message="msg", summarize=1),
    lambda tf: tf.assert_greater(tf.constant([1, 2]), tf.constant([0, 3])),
    lambda tf: tf.debugging.assert_greater_equal(tf.constant([1, 2]), 2),
    lambda tf: tf.debugging.assert_equal(tf.constant([NAN]), tf.constant([NAN])),
    lambda tf: tf.debugging.assert_equal(tf.constant(["a"]), tf.constant(["a"])),
])
def test_comparison_assertions(case):
    check(case)


@pytest.mark.parametrize("case", [
    lambda tf: tf.debugging.assert_near(tf.constant([1., 2.]), tf.constant([1., 2.000001])),
    lambda tf: tf.debugging.assert_near(tf.constant([1., 2.]), tf.constant([1., 2.1])),
    lambda tf: tf.debugging.assert_near(tf.constant([1., 2.]), tf.constant([1., 2.1]), atol=0.2),
    lambda tf: tf.debugging.assert_near(tf.constant([1., 2.]), tf.constant([1., 2.1]), rtol=0.06),
    lambda tf: tf.debugging.assert_near(tf.constant([1, 2]), tf.constant([1, 2])),
    lambda tf: tf.debugging.assert_near(tf.constant([1., 2.], tf.float64), tf.constant([1., 2. + 1e-14], tf.float64)),
    lambda tf: tf.debugging.assert_near(tf.constant([1., 2.], tf.float64), tf.constant([1., 2. + 1e-12], tf.float64)),
    lambda tf: tf.debugging.assert_near(tf.constant([100.]), tf.constant([100.0001])),
    lambda tf: tf.debugging.assert_near(tf.constant([1.]), tf.constant([1.], tf.float64)),
])
def test_assert_near(case):
    check(case)


@pytest.mark.parametrize("case", [
    lambda tf: tf.debugging.assert_rank(tf.zeros([2, 3]), 2), lambda tf: tf.debugging.assert_rank(tf.zeros([2, 3]), 3),
    lambda tf: tf.debugging.assert_rank(tf.zeros([2, 3]), tf.constant(3)),
    lambda tf: tf.debugging.assert_rank(tf.zeros([2, 3]), [2]), lambda tf: tf.assert_rank([[1]], 2),
    lambda tf: tf.debugging.assert_rank_at_least(tf.zeros([2, 3]), 2),
    lambda tf: tf.debugging.assert_rank_at_least(tf.zeros([2, 3]), 3),
    lambda tf: tf.debugging.assert_rank_in(tf.zeros([2, 3]), [1, 2]),
    lambda tf: tf.debugging.assert_rank_in(tf.zeros([2, 3]), [1, 3]),
    lambda tf: tf.debugging.assert_shapes([(tf.zeros([2, 3]), ("N", "D")), (tf.zeros([2]), ("N",))]),
    lambda tf: tf.debugging.assert_shapes([(tf.zeros([2, 3]), ("N", "D")), (tf.zeros([3]), ("N",))]),
    lambda tf: tf.debugging.assert_shapes([(tf.zeros([2, 3]), (2, 3))]),
    lambda tf: tf.debugging.assert_shapes([(tf.zeros([2, 3]), (2, 4))]),
    lambda tf: tf.debugging.assert_shapes([(tf.zeros([2, 3]), ("N",))]),
    lambda tf: tf.debugging.assert_shapes([(tf.zeros([2, 3]), (..., 3)), (tf.zeros([5, 2, 3]), (..., "N", 3))]),
    lambda tf: tf.debugging.assert_shapes([(tf.zeros([2, 3]), (..., 3)), (tf.zeros([5, 3, 3]), (..., "N", 3)),
                                           (tf.zeros([2]), ("N",))]),
    lambda tf: tf.debugging.assert_shapes([(tf.zeros([]), ())]), lambda tf: tf.debugging.assert_shapes([(1, 2)]),
    lambda tf: tf.debugging.assert_shapes([(tf.zeros([2, 3]), ("N", None))]),
    lambda tf: tf.debugging.assert_shapes([(tf.zeros([2, 2]), ("N", "N"))]),
    lambda tf: tf.debugging.assert_shapes([(tf.zeros([2, 3]), ("N", "N"))]),
    lambda tf: tf.debugging.assert_type(tf.zeros([2]), tf.float32),
    lambda tf: tf.debugging.assert_type(tf.zeros([2]), tf.int32),
    lambda tf: tf.debugging.assert_integer(tf.constant([1, 2])),
    lambda tf: tf.debugging.assert_integer(tf.constant([1., 2])),
    lambda tf: tf.debugging.assert_scalar(tf.constant(1)), lambda tf: tf.debugging.assert_scalar(tf.constant([1])),
    lambda tf: tf.debugging.assert_same_float_dtype([tf.constant(1.), tf.constant(2.)]),
    lambda tf: tf.debugging.assert_same_float_dtype([tf.constant(1.), tf.constant(2., tf.float64)]),
    lambda tf: tf.debugging.assert_same_float_dtype([tf.constant(1)]),
    lambda tf: tf.debugging.assert_same_float_dtype(None, tf.float64),
    lambda tf: tf.debugging.assert_proper_iterable([1, 2]), lambda tf: tf.debugging.assert_proper_iterable("ab"),
    lambda tf: tf.debugging.assert_proper_iterable(tf.constant([1])),
    lambda tf: tf.debugging.assert_proper_iterable(np.array([1])), lambda tf: tf.debugging.assert_proper_iterable(3),
])
def test_static_checks(case):
    check(case)


@pytest.mark.parametrize("case", [
    lambda tf: tf.debugging.assert_positive(tf.constant([1, 2])), lambda tf: tf.debugging.assert_positive([0, 2]),
    lambda tf: tf.debugging.assert_negative(tf.constant([-1, -2])), lambda tf: tf.debugging.assert_negative([0, -2]),
    lambda tf: tf.debugging.assert_non_negative(tf.constant([0, 2])),
    lambda tf: tf.debugging.assert_non_negative(tf.constant([-1., 2.])),
    lambda tf: tf.debugging.assert_non_positive(tf.constant([0, -2])),
    lambda tf: tf.debugging.assert_non_positive(tf.constant([1, 2])), lambda tf: tf.debugging.assert_positive([]),
    lambda tf: tf.debugging.assert_all_finite(tf.constant([1., 2]), "bad"),
    lambda tf: tf.debugging.assert_all_finite(tf.constant([1., NAN]), "bad"),
    lambda tf: tf.debugging.assert_all_finite(tf.constant([1, 2]), "bad"),
    lambda tf: tf.debugging.check_numerics(tf.constant([1., 2], tf.float64), "bad"),
    lambda tf: tf.debugging.check_numerics(tf.constant([1., float("inf")]), "bad"),
    lambda tf: tf.debugging.check_numerics(tf.constant([1., NAN, float("inf")], tf.float16), "bad"),
    lambda tf: tf.debugging.Assert(True, ["x"]), lambda tf: tf.debugging.Assert(False, ["x", tf.constant([1, 2])]),
    lambda tf: tf.debugging.Assert(tf.constant(False), ["x", tf.constant([1, 2])], summarize=1),
    lambda tf: tf.debugging.Assert(tf.constant([True]), ["x"]), lambda tf: tf.debugging.Assert(1, ["x"]),
    lambda tf: tf.Assert(tf.constant(True), [tf.constant(1.5)]),
    lambda tf: tf.debugging.is_numeric_tensor(tf.constant(1)),
    lambda tf: tf.debugging.is_numeric_tensor(tf.constant("a")),
    lambda tf: tf.debugging.is_numeric_tensor(tf.constant(True)), lambda tf: tf.debugging.is_numeric_tensor(1),
    lambda tf: tf.debugging.is_numeric_tensor(tf.constant(1.5, tf.bfloat16)),
])
def test_value_checks(case):
    check(case)


def test_error_messages():
    with pytest.raises(vtf.errors.InvalidArgumentError) as caught:
        vtf.debugging.assert_equal(vtf.constant([1, 2]), vtf.constant([1, 3]), message="hey")
    with pytest.raises(real.errors.InvalidArgumentError) as expected:
        real.debugging.assert_equal(real.constant([1, 2]), real.constant([1, 3]), message="hey")
    assert str(caught.value) == str(expected.value)
    for lib in (real, vtf):
        with pytest.raises(lib.errors.InvalidArgumentError, match=r"bad : Tensor had NaN values \[Op:CheckNumerics\]"):
            lib.debugging.check_numerics(lib.constant([1.0, NAN]), "bad")
        with pytest.raises(ValueError, match="must have rank 3.  Received rank 2, shape"):
            lib.debugging.assert_rank(lib.zeros([2, 3]), 3)


def test_namespaces():
    skipped = {"experimental"}
    for name in dir(real.debugging):
        if not name.startswith("_") and name not in skipped:
            assert hasattr(vtf.debugging, name), name
    vtf.debugging.disable_traceback_filtering()
    assert not vtf.debugging.is_traceback_filtering_enabled()
    vtf.debugging.enable_traceback_filtering()
    vtf.debugging.set_log_device_placement(True)
    assert vtf.debugging.get_log_device_placement()
    vtf.debugging.set_log_device_placement(False)
    for name in ("Assert", "assert_equal", "assert_greater", "assert_less", "assert_rank"):
        assert getattr(vtf, name) is getattr(vtf.debugging, name)
