"""tf.print inside converted loops and branches (written to a file and compared as text), an early `break` on a
tensor condition inside a dataset loop (early stopping on a running loss), `continue` in a tf.range loop, and
`return` from a tensor `if` inside a tf.function."""

import os
import tempfile

import numpy as np
import tensorflow as tf


def main():
    path = os.path.join(tempfile.mkdtemp(), "printed.txt")
    stream = "file://" + path

    @tf.function
    def fizzbuzz(n):
        for i in tf.range(1, n + 1):
            if i % 15 == 0:
                tf.print("FizzBuzz", output_stream=stream)
            elif i % 3 == 0:
                tf.print("Fizz", output_stream=stream)
            elif i % 5 == 0:
                tf.print("Buzz", output_stream=stream)
            else:
                tf.print(i, output_stream=stream)

    @tf.function
    def odd_squares(n):
        total = tf.constant(0)
        for i in tf.range(n):
            if i % 2 == 0:
                continue
            tf.print("odd", i, "square", i * i, sep="|", output_stream=stream)
            total += i * i
        return total

    w = tf.Variable([0.5, -0.5])

    @tf.function
    def train_until(dataset, threshold):
        running = tf.constant(1.0)
        steps = tf.constant(0)
        for x, y in dataset:
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(tf.linalg.matvec(x, w) - y))
            w.assign_sub(0.2 * tape.gradient(loss, w))
            running = 0.7 * running + 0.3 * loss
            steps += 1
            if running < threshold:
                tf.print("stopped at", steps, output_stream=stream)
                break
        return running, steps

    @tf.function
    def sign_label(x):
        if tf.reduce_sum(x) > 0:
            return tf.constant(1), tf.reduce_sum(x)
        return tf.constant(-1), -tf.reduce_sum(x)

    values = []
    fizzbuzz(tf.constant(16))
    values.append(float(odd_squares(tf.constant(7))))
    rng = np.random.default_rng(2)
    x = rng.standard_normal((64, 2)).astype(np.float32)
    y = (x @ np.array([1.5, 0.5], np.float32)).astype(np.float32)
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(64, seed=4).batch(4)
    for threshold in (0.3, 0.05):
        running, steps = train_until(dataset, tf.constant(threshold))
        values += [float(running), float(steps)] + w.numpy().tolist()
    for data in ([1.0, 2.0], [-3.0, 1.0]):
        label, magnitude = sign_label(tf.constant(data))
        values += [float(label), float(magnitude)]
        tf.print("label", label, "of", tf.constant(data), output_stream=stream)
    with open(path) as f:
        values.append(f.read())
    return values


if __name__ == "__main__":
    print(main())
