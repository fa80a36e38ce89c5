"""``tf.debugging.enable_check_numerics`` / ``disable_check_numerics`` against real TF 2.21: ops whose float
outputs hold NaN or Inf raise InvalidArgumentError naming the op (eagerly and inside tf.function), data-moving
ops and constants do not, and nothing is checked once disabled."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import real, vtf


@pytest.fixture
def checking():
    for lib in (real, vtf):
        lib.debugging.enable_check_numerics()
    yield
    for lib in (real, vtf):
        lib.debugging.disable_check_numerics()


def _message(lib, fn):
    """The message of the InvalidArgumentError ``fn(lib)`` raises, without TF's function-node prefix and name."""
    with pytest.raises(lib.errors.InvalidArgumentError) as caught:
        fn(lib)
    text = str(caught.value)
    return text[text.index("!!! Detected"):].split(" [Op:")[0]


_EAGER_CASES = {
    "log": lambda tf: tf.math.log(tf.constant([1.0, 0.0])),
    "log_float64": lambda tf: tf.math.log(tf.constant([1.0, 0.0], tf.float64)),
    "divide": lambda tf: tf.constant([1.0, 0.0]) / 0.0,
    "sqrt": lambda tf: tf.sqrt(tf.constant([-2.0, -1.0])),
    "add_scalar": lambda tf: tf.constant(float("nan")) + 1,
    "mul_all_kinds": lambda tf: tf.constant(np.array([np.inf, -np.inf, np.nan], np.float32)) * 1.0,
    "exp_overflow": lambda tf: tf.exp(tf.constant([100.0, 1.0])),
    "cast": lambda tf: tf.cast(tf.constant([1e40], tf.float64), tf.float32),
    "matmul": lambda tf: tf.matmul(tf.constant([[np.inf, 1.0]]), tf.constant([[1.0], [-np.inf]])),
    "subtract_inf": lambda tf: tf.subtract(tf.constant([np.inf, -np.inf]), tf.constant([1.0, 1.0])),
}


@pytest.mark.parametrize("case", sorted(_EAGER_CASES))
def test_eager_op_message(checking, case):
    assert _message(vtf, _EAGER_CASES[case]) == _message(real, _EAGER_CASES[case])


@pytest.mark.parametrize("fn", [
    lambda tf: tf.reduce_sum(tf.constant([np.inf, 1.0])),
    lambda tf: tf.nn.relu(tf.constant([np.nan, 1.0])),
    lambda tf: tf.reduce_max(tf.constant([[np.nan, 1.0]]), axis=1),
])
def test_eager_op_message_head(checking, fn):
    # TF lists inputs vfw's engine takes as attributes (a reduction's axes): the head up to the inputs matches.
    assert _message(vtf, fn).split("\n\n  Input")[0] == _message(real, fn).split("\n\n  Input")[0]


@pytest.mark.parametrize("fn", [
    lambda tf: tf.constant([np.nan, 1.0]),
    lambda tf: tf.identity(tf.constant([np.nan])),
    lambda tf: tf.reshape(tf.constant([np.inf, 1.0]), [2, 1]),
    lambda tf: tf.transpose(tf.constant([[np.inf, 1.0]])),
    lambda tf: tf.concat([tf.constant([np.nan]), tf.constant([1.0])], 0),
    lambda tf: tf.constant([1.0, 2.0]) / 2.0,
    lambda tf: tf.constant([1, 2]) // 1,
])
def test_finite_or_unchecked_ops_pass(checking, fn):
    np.testing.assert_array_equal(np.asarray(fn(vtf)), np.asarray(fn(real)))


def test_inside_tf_function(checking):
    def fn(tf):
        traced = tf.function(lambda a: tf.math.log(a) * 2.0)
        np.testing.assert_allclose(traced(tf.constant([1.0, 2.0])).numpy(), np.log([1.0, 2.0]) * 2)
        return traced(tf.constant([1.0, 0.0]))

    # TF's graph message has no element counts and names the op as a graph op.
    assert _message(vtf, fn).split("\n\n  Input")[0] == _message(real, fn).split("\n\n  Input")[0]


def test_gradients_still_flow(checking):
    for lib in (real, vtf):
        x = lib.Variable([1.0, 2.0])
        with lib.GradientTape() as tape:
            y = lib.reduce_sum(lib.math.log(x))
        np.testing.assert_allclose(tape.gradient(y, x).numpy(), [1.0, 0.5])


def test_disabled_checks_nothing():
    for lib in (real, vtf):
        lib.debugging.enable_check_numerics()
        lib.debugging.disable_check_numerics()
        np.testing.assert_array_equal(lib.math.log(lib.constant([1.0, 0.0])).numpy(), [0.0, -np.inf])
        lib.debugging.disable_check_numerics()  # twice is fine
