"""The TensorFlow guide "Better performance with tf.function": tracing on the first call, Python side effects
(print once per trace, a Python list captured), tf.Variable created on the first call only (a counter module),
a tf.Variable created inside a function called twice (TF's ValueError), iterating over a Python list vs a
dataset, accumulating in a tf.TensorArray inside a tensor loop, AutoGraph `for`/`while`/`if` on tensors, and
the guide's training loop over a dataset inside tf.function."""

import io
import sys

import tensorflow as tf


def main():
    out = []

    def show(*items):
        out.append(" ".join(str(item) for item in items))

    @tf.function
    def add(a, b):
        return a + b

    show(add(tf.ones([2, 2]), tf.ones([2, 2])))
    v = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        result = add(v, 1.0)
    show(tape.gradient(result, v))

    @tf.function
    def dense_layer(x, w, b):
        return add(tf.matmul(x, w), b)

    show(dense_layer(tf.ones([3, 2]), tf.ones([2, 2]), tf.ones([2])))

    @tf.function
    def double(a):
        show("Tracing with", a.dtype)
        return a + a

    show(double(tf.constant(1)))
    show(double(tf.constant(1.1)))
    show(double(tf.constant("a")))
    show(double.experimental_get_tracing_count())

    @tf.function
    def f(x):
        show("Traced with", x)
        tf.print("Executed with", x, output_stream="file:///dev/null")

    f(1)
    f(1)
    f(2)
    show(f.experimental_get_tracing_count())

    external_list = []

    @tf.function
    def side_effect(x):
        external_list.append(x)

    side_effect(1)
    side_effect(1)
    side_effect(1)
    show(len(external_list))

    class Count(tf.Module):
        def __init__(self):
            self.count = None

        @tf.function
        def __call__(self):
            if self.count is None:
                self.count = tf.Variable(0)
            return self.count.assign_add(1)

    c = Count()
    show(c())
    show(c())

    @tf.function
    def f2(x):
        v = tf.Variable(1.0)
        return v

    try:
        f2(1.0)
    except ValueError as e:
        show(type(e).__name__)

    @tf.function
    def buggy_consume_next(iterator):
        tf.print("Value:", next(iterator), output_stream="file:///dev/null")

    iterator = iter([1, 2, 3])
    buggy_consume_next(iterator)
    buggy_consume_next(iterator)
    show(next(iterator))

    batch_size = 2
    seq_len = 3
    feature_size = 4

    def rnn_step(inp, state):
        return inp + state

    @tf.function
    def dynamic_rnn(rnn_step, input_data, initial_state):
        input_data = tf.transpose(input_data, [1, 0, 2])
        max_seq_len = input_data.shape[0]
        states = tf.TensorArray(tf.float32, size=max_seq_len)
        state = initial_state
        for i in tf.range(max_seq_len):
            state = rnn_step(input_data[i], state)
            states = states.write(i, state)
        return tf.transpose(states.stack(), [1, 0, 2])

    tf.random.set_seed(7)
    show(dynamic_rnn(rnn_step, tf.random.uniform([batch_size, seq_len, feature_size]),
                     tf.zeros([batch_size, feature_size])))

    @tf.function
    def collatz_steps(n):
        steps = tf.constant(0)
        while n > 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps

    show(collatz_steps(tf.constant(27)), collatz_steps(tf.constant(6)))

    tf.keras.utils.set_random_seed(3)
    model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu"), tf.keras.layers.Dense(1)])
    model.build((None, 3))
    optimizer = tf.keras.optimizers.SGD(0.1)
    xs = tf.random.normal([16, 3])
    ys = tf.reduce_sum(xs, axis=1, keepdims=True)
    dataset = tf.data.Dataset.from_tensor_slices((xs, ys)).batch(4)

    @tf.function
    def train(dataset):
        loss = tf.constant(0.0)
        for x, y in dataset:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean((model(x) - y) ** 2)
            grads = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    captured = io.StringIO()
    real_stdout, sys.stdout = sys.stdout, captured
    try:
        out += [float(train(dataset)) for _ in range(3)]
    finally:
        sys.stdout = real_stdout
    out += [float(tf.reduce_sum(w)) for w in model.trainable_variables]
    return out


if __name__ == "__main__":
    print("\n".join(main()))
