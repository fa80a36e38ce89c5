"""Cases from real TF 2.21's docstring examples where vfw.tensorflow differed, compared with real TF."""

import linecache

import numpy as np
import pytest

from compat_tests.tensorflow.harness import LIBS, check


@pytest.mark.parametrize("name", ["float", "double", "half", "float32", "int", "complex", "f4", "i8", "single",
                                  "object", "long"])
def test_as_dtype_takes_only_tf_names(name):
    check(lambda tf: tf.as_dtype(name))


def test_scalar_string_element_numpy_is_bytes():
    def elements(tf):
        params = tf.constant(["p0", "p1", "p2", "p3"])
        first, *_ = tf.unstack(params)
        return [tf.gather(params, 3).numpy(), first.numpy(), [t.numpy() for t in params],
                tf.strings.length(tf.gather(params, 1)), tf.strings.length(first)]
    check(elements)
    for lib in LIBS:
        assert type(lib.gather(lib.constant(["a", "b"]), 1).numpy()) is bytes


def test_map_fn_over_strings():
    check(lambda tf, x: tf.map_fn(tf.strings.length, x, fn_output_signature=tf.int32),
          np.array([b"hello", b"moon"], dtype=object))


def test_where_complex_condition():
    check(lambda tf: tf.where([complex(0.0), complex(1.0), 0 + 1j, 1 + 1j]))
    check(lambda tf, c: tf.where(c), np.array([[0j, 2j], [1 + 0j, 0j]], np.complex64))


@pytest.mark.parametrize("value, dtype, target", [
    (0xFFFFFFFF, "uint32", "uint8"),
    (1.0, "float32", "int32"),
    (-2, "int64", "int16"),
    ([1.0, 2.0], "float32", "complex64"),
    ([[1, 2], [3, 4]], "int16", "int32"),
    (1, "int16", "int32"),
])
def test_bitcast_scalars_and_narrowing(value, dtype, target):
    check(lambda tf: tf.bitcast(tf.constant(value, dtype=dtype), target))


@pytest.mark.parametrize("name", ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"])
def test_math_special_namespace(name):
    check(lambda tf, v: getattr(tf.math.special, name)(v), np.array([-1.0, -0.5, 0.5, 1.0], np.float32))


@pytest.mark.parametrize("api", ["numpy_function", "py_function"])
def test_python_function_as_decorator(api):
    def decorated(tf, x, m):
        @getattr(tf, api)(Tout=tf.float32)
        def scaled_sum(a, b):
            return a * 2 + b

        @tf.function
        def traced(a):
            return scaled_sum(a, m)
        return [scaled_sum(x, m), traced(x)]
    check(decorated, np.float32(1.5), np.float32(0.25))


@pytest.mark.parametrize("api", ["numpy_function", "py_function"])
def test_python_function_needs_inp_without_decorator(api):
    check(lambda tf: getattr(tf, api)(lambda v: v, Tout=tf.float32))


@pytest.mark.parametrize("args", [(np.arange(6), 2), (np.arange(6), 3, 2), (np.arange(6), 0, 0), (np.arange(6), 4),
                                  (np.arange(6), 2, 2), (np.arange(6), -1), (np.arange(6).reshape(3, 2), 1)])
def test_ragged_from_uniform_row_length(args):
    def build(tf, values, *rest):
        rt = tf.RaggedTensor.from_uniform_row_length(values, *rest)
        return [rt.to_tensor(), rt.shape, rt.row_splits, rt.ragged_rank, rt.nrows()]
    check(build, *args)


def test_ragged_from_uniform_row_length_of_ragged_values():
    def build(tf):
        inner = tf.RaggedTensor.from_row_lengths([1, 2, 3, 4, 5, 6], [1, 2, 3, 0])
        rt = tf.RaggedTensor.from_uniform_row_length(inner, 2)
        return [rt.shape, rt.to_list()]
    check(build)


def test_assert_in_function_with_shape_in_message_is_a_run_error():
    """A failed assertion is InvalidArgumentError at the call, even when its message mentions a shape."""
    def run(tf, x, bias):
        @tf.function(input_signature=[tf.TensorSpec([None, None], tf.float32)] * 2)
        def add(a, b):
            tf.debugging.assert_equal(tf.shape(a)[1], tf.shape(b)[1], message="bad shape")
            return a + b
        return add(x, bias)
    check(run, np.ones((2, 5), np.float32), np.ones((2, 5), np.float32))
    check(run, np.ones((2, 5), np.float32), np.ones((2, 7), np.float32))


def test_autograph_converts_functions_with_linecache_source():
    """Code compiled from a string whose source linecache holds (doctest, IPython) is converted."""
    source = ("def sign(x):\n"
              "  if x > 0:\n"
              "    return 1\n"
              "  else:\n"
              "    return -1\n")
    filename = "<vfw-doc-example-sign>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)

    def run(tf, x):
        namespace = {}
        exec(compile(source, filename, "exec"), namespace)  # noqa: S102  (the test's own source)
        return tf.function(namespace["sign"])(x)
    check(run, np.int32(-2))
    check(run, np.int32(3))
