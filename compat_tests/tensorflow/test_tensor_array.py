"""tf.TensorArray and the context helpers (executing_eagerly, init_scope, group, ...) against real TF 2.21."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad

X = arrays((3, 2), seed=3)


def test_write_read_stack():
    check(lambda tf: tf.TensorArray(tf.float32, size=3).write(0, [1.0, 2.0]).write(2, [3.0, 4.0]).stack())
    check(lambda tf: tf.TensorArray(tf.float32, size=3).write(0, [1, 1]).read(0))  # Python ints converted
    check(lambda tf: tf.TensorArray(tf.int32, size=0, dynamic_size=True).write(2, 5).stack())
    check(lambda tf: tf.TensorArray(tf.float32, size=3, dynamic_size=True).write(4, 1.0).size())
    check(lambda tf: tf.TensorArray(tf.float32, size=0, dynamic_size=True, element_shape=[2]).stack())
    check(lambda tf: tf.TensorArray(tf.float32, size=0, dynamic_size=True).stack())
    check(lambda tf: tf.TensorArray(tf.float32, size=2, clear_after_read=False).write(0, 1.0).read(0))
    check(lambda tf: (tf.TensorArray(tf.float32, size=2).element_shape,
                      tf.TensorArray(tf.float32, size=2, element_shape=[None, 3]).element_shape))


def test_unstack_scatter_gather_split_concat():
    check(lambda tf, x: tf.TensorArray(tf.float32, size=2).unstack(x).stack(), X)
    check(lambda tf, x: tf.TensorArray(tf.float32, size=2, dynamic_size=True).unstack(x).stack(), X)
    check(lambda tf, x: tf.TensorArray(tf.float32, size=5).unstack(x).size(), X)
    check(lambda tf, x: tf.TensorArray(tf.float32, size=4).scatter([0, 2], x[:2]).gather([2, 0]), X)
    check(lambda tf: tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, [1.0, 2]).write(1, [3.0]).concat())
    check(lambda tf: tf.TensorArray(tf.float32, size=3).split([1.0, 2, 3, 4, 5, 6], [1, 2, 3]).read(2))
    check(lambda tf: tf.TensorArray(tf.float32, size=2).write(0, [1.0]).concat())


@pytest.mark.parametrize("case", [
    lambda tf: tf.TensorArray(tf.float32),
    lambda tf: tf.TensorArray(tf.float32, size=2).write(0, "a"),
    lambda tf: tf.TensorArray(tf.float32, size=2).write(0, tf.constant(1)),
    lambda tf: tf.TensorArray(tf.float32, size=2, element_shape=[3]).write(0, [1.0, 2.0]),
    lambda tf: tf.TensorArray(tf.float32, size=2).write(0, [1.0, 2]).write(1, [3.0]),
    lambda tf: tf.TensorArray(tf.float32, size=2).read(5),
    lambda tf: tf.TensorArray(tf.float32, size=2).read(-1),
    lambda tf: tf.TensorArray(tf.float32, size=2).write(5, 1.0),
    lambda tf: tf.TensorArray(tf.float32, size=2).write(-1, 1.0),
    lambda tf: tf.TensorArray(tf.float32, size=2).read(0),
    lambda tf: tf.TensorArray(tf.float32, size=2).stack(),
    lambda tf: tf.TensorArray(tf.float32, size=2).gather([3]),
    lambda tf: tf.TensorArray(tf.float32, size=2).scatter([3], [1.0]),
    lambda tf: tf.TensorArray(tf.float32, size=2).unstack(1.0),
    lambda tf: tf.TensorArray(tf.float32, size=2).split([1.0, 2, 3], [1, 1]),
])
def test_errors(case):
    check(case)


def test_read_twice_is_refused():
    def read_twice(tf):
        ta = tf.TensorArray(tf.float32, size=2).write(0, 1.0)
        return ta.read(0), ta.read(0)
    check(read_twice)


def test_shared_storage_and_gradients():
    def shared(tf):
        ta = tf.TensorArray(tf.float32, size=3)
        ta.write(0, [1.0, 2.0])
        return ta.size(), ta.element_shape, ta.read(0)
    check(shared)

    def squares(tf, x):
        ta = tf.TensorArray(tf.float32, size=3)
        for i in range(3):
            ta = ta.write(i, x[i] * x[i])
        return ta.stack(), ta.gather([2, 1])
    check_grad(squares, X)
    check_grad(lambda tf, x: tf.function(lambda y: squares(tf, y))(x), X)
    check_grad(lambda tf, x: tf.TensorArray(tf.float32, size=3).unstack(x * 2.0).concat(), X)


def test_context_helpers():
    check(lambda tf, x: (tf.executing_eagerly(), tf.inside_function(), tf.is_symbolic_tensor(x),
                         tf.tuple([x, x * 2]), tf.group(x), tf.no_op()), X)

    def in_function(tf, x):
        seen = []

        @tf.function
        def f(a):
            seen.append((tf.executing_eagerly(), tf.inside_function(), tf.is_symbolic_tensor(a)))
            with tf.init_scope():
                seen.append((tf.executing_eagerly(), tf.inside_function()))
            with tf.control_dependencies([a]), tf.device("/CPU:0"):
                b = tf.identity(a)
            with tf.name_scope("q"):
                seen.append(tf.get_current_name_scope())
            return b * 2
        return f(x), seen
    check(in_function, X)
    check(lambda tf: tf.device(3).__enter__())
    check(lambda tf: tf.no_gradient(3))
    check(lambda tf: tf.RegisterGradient(3))
    check(lambda tf: tf.get_logger().name)


def test_name_scope_and_registrations():
    import vfw.tensorflow as tf
    with tf.name_scope("a"):
        with tf.name_scope("b"):
            assert tf.get_current_name_scope() == "a/b"
    assert tf.get_current_name_scope() == ""
    tf.no_gradient("VfwTestOp")
    with pytest.raises(KeyError):
        tf.no_gradient("VfwTestOp")

    @tf.RegisterGradient("VfwTestGrad")
    def grad(op, g):
        return g
    assert callable(grad)
    with pytest.raises(KeyError):
        tf.RegisterGradient("VfwTestGrad")(grad)


def test_indexed_slices():
    def dense(tf, v):
        s = tf.IndexedSlices(v, tf.constant([1, 1]), tf.constant([3, 2]))
        return tf.convert_to_tensor(s), tf.reduce_sum(s), s.dtype, s.shape, (-s).values, s.indices
    check_grad(dense, X[:2])
    check(lambda tf, v: tf.IndexedSlices(v, tf.constant([1, 1])).shape, X[:2])
    check(lambda tf, v: tf.convert_to_tensor(tf.IndexedSlices(v, tf.constant([1, 1]))), X[:2])


def test_histograms():
    values = np.concatenate([arrays((200,), seed=4, low=-1.0, high=6.0), np.array([0.0, 5.0, 2.5, -3, 9],
                                                                                  np.float32)])
    check(lambda tf, x: tf.histogram_fixed_width(x, [0.0, 5.0], nbins=7), values)
    check(lambda tf, x: tf.histogram_fixed_width(x, [0.0, 5.0], nbins=5, dtype=tf.int64), values)
    check(lambda tf, x: tf.histogram_fixed_width(x, [0, 5], nbins=3), np.array([-1, 0, 1, 2, 3, 4, 5, 7], np.int32))
    check(lambda tf, x: tf.histogram_fixed_width_bins(x, [0.0, 5.0], nbins=7), values.reshape(5, 41))
    check(lambda tf, x: tf.histogram_fixed_width_bins(x, [0.0, 5.0], nbins=4), values.astype(np.float64))
    check(lambda tf, x: tf.histogram_fixed_width_bins(x, np.array([0.0, 5.0]), nbins=4), values.astype(np.float64))
    check(lambda tf, x: tf.histogram_fixed_width(x, [0.0, 5.0], nbins=0), values)
    check(lambda tf, x: tf.histogram_fixed_width(x, [5.0, 0.0]), values)
    check(lambda tf, x: tf.function(lambda y: tf.histogram_fixed_width(y, [0.0, 5.0], nbins=7))(x), values)


def test_initializers():
    for name in ["zeros_initializer", "ones_initializer"]:
        check(lambda tf, name=name: getattr(tf, name)()([2, 3]))
        check(lambda tf, name=name: getattr(tf, name)()([2], dtype=tf.int32))
        check(lambda tf, name=name: getattr(tf, name)()([2], dtype=tf.string))
    check(lambda tf: tf.constant_initializer(3)([2, 2]))
    check(lambda tf: tf.constant_initializer([1, 2, 3, 4])([2, 2], dtype=tf.float32))
    check(lambda tf: tf.constant_initializer([1, 2, 3])([2, 2]))
    check(lambda tf: tf.random_normal_initializer(mean=1.0, stddev=2.0, seed=7)([3, 4]))
    check(lambda tf: tf.random_normal_initializer(seed=7)([3], dtype=tf.float64))
    check(lambda tf: tf.random_normal_initializer(seed=7)([3], dtype=tf.int32))
    check(lambda tf: tf.random_uniform_initializer(-1.0, 2.0, seed=3)([5, 2]))
    check(lambda tf: tf.random_uniform_initializer(0, 10, seed=3)([6], dtype=tf.int32))
    check(lambda tf: (tf.ones_initializer().get_config(), tf.random_normal_initializer().get_config(),
                      tf.random_uniform_initializer(seed=2).get_config(), tf.constant_initializer(3).get_config()))

    def unseeded(tf):
        tf.random.set_seed(5)
        return tf.random_normal_initializer()([4]), tf.random_uniform_initializer()([4])
    check(unseeded)
