"""Fixes found by running the TensorFlow core guides under vfw (compat_tests/programs/tf_guides), each compared with
real TF: a variable as a gradient target, a TensorShape converted to a tensor, and ``+`` on string tensors."""

import pytest

from compat_tests.tensorflow.harness import check, real, vtf


def _variable_targets(tf, value, watch_accessed):
    v = tf.Variable(value)
    w = tf.Variable([1.0, 2.0])
    with tf.GradientTape(persistent=True, watch_accessed_variables=watch_accessed) as tape:
        if watch_accessed:
            y = v * 2.0
    found = [tape.gradient(v, v), tape.gradient(v, w), tape.gradient(w, w), tape.gradient([v, v], v),
             tape.gradient(v, [v, w]), tape.gradient(w, w, output_gradients=tf.constant([3.0, 4.0])),
             tape.gradient(w, v, unconnected_gradients="zero")]
    if watch_accessed:
        found += [tape.gradient([v, y], v), tape.gradient(y, v)]
    return found


@pytest.mark.parametrize("watch_accessed", [True, False])
def test_gradient_of_a_variable_with_respect_to_itself(watch_accessed):
    # TF differentiates a variable target through its handle: d v / d v is ones even if the tape never read it.
    check(_variable_targets, 2.0, watch_accessed)


def test_gradient_of_an_integer_variable_with_respect_to_itself():
    def fn(tf):
        v = tf.Variable([2, 3])
        with tf.GradientTape() as tape:
            pass
        return tape.gradient(v, v)
    check(fn)


def test_gradient_of_a_read_variable_is_not_counted_twice():
    def fn(tf):
        v = tf.Variable(3.0)
        with tf.GradientTape() as tape:
            result = v if v > 0 else v ** 2
        return tape.gradient(result, v), tape is not None
    check(fn)


@pytest.mark.parametrize("dims, dtype", [([5, 8], None), ([], None), ([2 ** 33], None), ([5, 8], "int64"),
                                         ([2, 3], "float32"), ([None, 3], None), (None, None)])
def test_tensorshape_converts_to_a_tensor(dims, dtype):
    def fn(tf):
        shape = tf.TensorShape(dims)
        return tf.convert_to_tensor(shape, dtype), tf.constant(shape, dtype)
    check(fn)


def test_tensorshape_in_ops():
    check(lambda tf: (tf.reduce_prod(tf.TensorShape([5, 8])), tf.zeros(tf.TensorShape([2, 3])),
                      tf.reshape(tf.range(6), tf.TensorShape([3, 2]))))


def test_tensorshape_conversion_messages():
    for lib in (real, vtf):
        with pytest.raises(ValueError, match=r"Cannot convert a partially known TensorShape \(None, 3\) to a "
                                             r"Tensor\."):
            lib.convert_to_tensor(lib.TensorShape([None, 3]))
        with pytest.raises(TypeError, match=r"Cannot convert TensorShape \(2, 3\) to dtype <dtype: 'float32'>\. "
                                            r"Allowed dtypes are tf\.int32 and tf\.int64\."):
            lib.convert_to_tensor(lib.TensorShape([2, 3]), lib.float32)


def test_string_addition_concatenates():
    def fn(tf):
        a = tf.constant("a")
        return (a + a, tf.add(a, "b"), tf.math.add(["x", "y"], a), "z" + a,
                tf.function(lambda s: s + "!")(tf.constant(["q", "r"])))
    check(fn)


@pytest.mark.parametrize("other", [1, [b"a", b"b", b"c"]])
def test_string_addition_errors(other):
    def fn(tf):
        return tf.constant(["a", "b"]) + tf.constant(other)
    check(fn)
    for lib in (real, vtf):
        with pytest.raises(lib.errors.InvalidArgumentError, match=r"\[Op:Add\]"):
            fn(lib)
