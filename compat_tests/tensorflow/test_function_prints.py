"""Python ``print`` inside traced code shows as often and as much as in TF 2.21: once per counted trace of a
tf.function (vfw traces again for new shapes under an input signature's None dims, or a reduce_retracing shape, but
prints nothing then), once when a Keras layer's ``call`` is run for a functional model's None dims, with the static
shapes (None dims) Keras' symbolic tensors show."""

import contextlib
import io

import numpy as np

from compat_tests.tensorflow.harness import check


def _printed(body):
    """A case returning ``body(tf)``'s result and what it printed."""
    def case(tf):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            result = body(tf)
        return result, out.getvalue()
    return case


def test_input_signature_with_a_none_dim_prints_once_as_the_tf_function_guide():
    def body(tf):
        @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
        def next_collatz(x):
            print("Tracing with", x)
            return tf.where(x % 2 == 0, x // 2, 3 * x + 1)

        results = [next_collatz(tf.constant(np.arange(1, n + 1, dtype=np.int32))) for n in (2, 4, 5, 4, 7)]
        return results, next_collatz.experimental_get_tracing_count()

    check(_printed(body))


def test_reduce_retracing_prints_for_each_counted_trace_only():
    def body(tf):
        @tf.function(reduce_retracing=True)
        def scaled(x, factor):
            print("tracing", x.shape, factor)
            return x * factor

        results = [scaled(tf.ones([n, 2]), factor) for n, factor in ((1, 2), (3, 2), (4, 2), (5, 3), (6, 3), (2, 2))]
        return results, scaled.experimental_get_tracing_count()

    check(_printed(body))


def test_variables_of_one_shape_share_a_trace_and_its_prints():
    def body(tf):
        @tf.function
        def bump(v, x):
            print("tracing bump")
            v.assign_add(x)
            return v.read_value()

        a, b = tf.Variable([1.0, 2.0]), tf.Variable([5.0, 6.0])
        results = [bump(a, tf.constant([1.0, 1.0])), bump(b, tf.constant([2.0, 2.0])), bump(a, tf.constant([3.0, 3.0]))]
        return results, bump.experimental_get_tracing_count()

    check(_printed(body))


def test_a_layer_call_prints_once_and_sees_none_dims_while_a_functional_model_is_built():
    def body(tf):
        class Pooling(tf.keras.layers.Layer):
            def call(self, x):
                y = tf.reduce_mean(x * 2.0, axis=-1, keepdims=True)
                print("call", x.shape, y.shape, tf.shape(x).shape, x.dtype)
                return tf.reduce_max(y, axis=list(range(1, len(x.shape))))

        tf.keras.utils.set_random_seed(0)
        sequences = tf.keras.Input((None, 4))
        images = tf.keras.Input((12, 12, 1), batch_size=None)
        features = Pooling()(tf.keras.layers.Conv2D(2, 3)(images))
        model = tf.keras.Model([sequences, images], [Pooling()(sequences), features])
        results = model([tf.ones([2, 3, 4]), tf.ones([2, 12, 12, 1])])
        return model.output_shape, results

    check(_printed(body))


def test_get_concrete_function_traces_at_once_as_the_tf_function_guide():
    def body(tf):
        @tf.function
        def double(a):
            print("Tracing with", a)
            return a + a

        results = [double(tf.constant(1)), double(tf.constant("a"))]
        print("Obtaining concrete trace")
        strings = double.get_concrete_function(tf.constant("a"))  # traced by the call above: no print
        unknown = double.get_concrete_function(tf.TensorSpec(shape=None, dtype=tf.string))
        print("Executing traced function")
        results += [strings(tf.constant("b")), unknown(tf.constant(["c", "d"])), unknown(tf.constant("e"))]
        print(unknown)
        print(repr(strings).split(" at 0x")[0])

        @tf.function
        def power(a, b):
            print("tracing power", a, b)
            return a ** b

        square = power.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
        results.append(square(tf.constant(10.0)))
        try:
            square(tf.constant(10.0), b=3)
        except TypeError as e:
            print(e)
        return results, double.experimental_get_tracing_count(), square.output_shapes, square.output_dtypes

    check(_printed(body))
