"""The TensorFlow guide "Introduction to graphs and tf.function": a regular function and its tf.function (same
results), a tf.function calling inner functions, AutoGraph turning a tensor `if` into a graph (relu), concrete
functions per input signature, tf.config.run_functions_eagerly, print (Python side effect, once per trace) vs
tf.print (every call), a function with a failing unused op run eagerly, and a speed-free count of traces."""

import io
import sys

import tensorflow as tf


def main():
    out = []

    def show(*items):
        out.append(" ".join(str(item) for item in items))

    def a_regular_function(x, y, b):
        x = tf.matmul(x, y)
        x = x + b
        return x

    a_function_that_uses_a_graph = tf.function(a_regular_function)
    x1 = tf.constant([[1.0, 2.0]])
    y1 = tf.constant([[2.0], [3.0]])
    b1 = tf.constant(4.0)
    orig_value = a_regular_function(x1, y1, b1).numpy()
    tf_function_value = a_function_that_uses_a_graph(x1, y1, b1).numpy()
    show(orig_value, tf_function_value, orig_value == tf_function_value)

    def inner_function(x, y, b):
        x = tf.matmul(x, y)
        x = x + b
        return x

    @tf.function
    def outer_function(x):
        y = tf.constant([[2.0], [3.0]])
        b = tf.constant(4.0)
        return inner_function(x, y, b)

    show(outer_function(tf.constant([[1.0, 2.0]])).numpy())

    def simple_relu(x):
        if tf.greater(x, 0):
            return x
        else:
            return 0

    tf_simple_relu = tf.function(simple_relu)
    show("First branch, with graph:", tf_simple_relu(tf.constant(1)).numpy())
    show("Second branch, with graph:", tf_simple_relu(tf.constant(-1)).numpy())

    @tf.function
    def my_relu(x):
        return tf.maximum(0.0, x)

    show(my_relu(tf.constant(5.5)))
    show(my_relu([1, -1]))
    show(my_relu(tf.constant([3.0, -3.0])))
    show(my_relu(tf.constant(-2.5)))
    show(my_relu(tf.constant([-1.0, 1.0])))
    concrete = my_relu.get_concrete_function(tf.constant(3.0))
    show(concrete(tf.constant(-4.0)))
    show(my_relu.experimental_get_tracing_count())

    @tf.function
    def get_MSE(y_true, y_pred):
        print("Calculating MSE!")
        sq_diff = tf.pow(y_true - y_pred, 2)
        return tf.reduce_mean(sq_diff)

    y_true = tf.random.uniform([5], maxval=10, dtype=tf.int32, seed=1)
    y_pred = tf.random.uniform([5], maxval=10, dtype=tf.int32, seed=2)
    show(y_true.shape, y_pred.shape, y_true.dtype)

    captured = io.StringIO()
    real_stdout, sys.stdout = sys.stdout, captured
    try:
        error = get_MSE(y_true, y_pred)
        error = get_MSE(y_true, y_pred)
        error = get_MSE(y_true, y_pred)
        tf.config.run_functions_eagerly(True)
        error = get_MSE(y_true, y_pred)
        error = get_MSE(y_true, y_pred)
        tf.config.run_functions_eagerly(False)
        error = get_MSE(y_true, y_pred)
    finally:
        sys.stdout = real_stdout
    show(repr(captured.getvalue()), error.dtype, error.shape)
    show(tf.config.functions_run_eagerly())

    def unused_return_eager(x):
        tf.gather(x, [1])
        return x

    try:
        show(unused_return_eager(tf.constant([0.0])))
    except tf.errors.InvalidArgumentError as e:
        show(type(e).__name__)

    @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
    def next_collatz(x):
        show("Tracing with", x.dtype)
        return tf.where(x % 2 == 0, x // 2, 3 * x + 1)

    show(next_collatz(tf.constant([1, 2])))
    try:
        next_collatz(tf.constant([[1, 2], [3, 4]]))
    except (TypeError, ValueError) as e:
        show(type(e).__name__)
    show(next_collatz.get_concrete_function().structured_input_signature)
    show(next_collatz.input_signature)
    return out


if __name__ == "__main__":
    print("\n".join(main()))
