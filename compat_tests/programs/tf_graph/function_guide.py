"""The tf.function guide's examples: fizzbuzz with tf.print in a converted loop, Python vs tensor conditionals,
accumulating values in a TensorArray, retracing rules (Python arguments, input_signature with None dims,
reduce_retracing), variables created once on the first trace, and tf.function methods of a tf.Module."""

import tensorflow as tf


@tf.function
def fizzbuzz(n):
    count = tf.constant(0)
    total = tf.constant(0)
    for i in tf.range(1, n + 1):
        if i % 15 == 0:
            tf.print("FizzBuzz")
            count += 15
        elif i % 3 == 0:
            tf.print("Fizz")
            count += 3
        elif i % 5 == 0:
            tf.print("Buzz")
            count += 5
        else:
            tf.print(i)
            total += i
    return count, total


@tf.function
def accumulate(x):
    # The guide's "accumulating values in a loop": a TensorArray written at each step, stacked afterwards.
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    running = tf.zeros_like(x[0])
    for i in tf.range(tf.shape(x)[0]):
        running = running + x[i]
        ta = ta.write(i, running)
    return ta.stack()


@tf.function
def python_or_tensor_branch(x, training):
    if training:  # a Python bool: only one branch is traced
        x = x * 2.0
    if tf.reduce_sum(x) > 0:  # a tensor: tf.cond
        x = tf.nn.relu(x)
    else:
        x = -x
    return x


@tf.function(input_signature=[tf.TensorSpec(shape=[None], dtype=tf.float32)])
def next_collatz_like(x):
    return tf.where(x % 2.0 == 0.0, x / 2.0, 3.0 * x + 1.0)


@tf.function(reduce_retracing=True)
def square_sum(x):
    return tf.reduce_sum(x * x)


class Counter(tf.Module):
    def __init__(self):
        super().__init__()
        self.count = None

    @tf.function
    def __call__(self, increment):
        if self.count is None:  # variables may be created on the first trace only
            self.count = tf.Variable(0.0)
        self.count.assign_add(increment)
        return self.count.read_value()


class Dense(tf.Module):
    def __init__(self, units):
        super().__init__()
        self.units = units
        self.built = False

    @tf.function
    def __call__(self, x):
        if not self.built:
            self.w = tf.Variable(tf.random.normal([x.shape[-1], self.units], seed=3), name="w")
            self.b = tf.Variable(tf.zeros([self.units]), name="b")
            self.built = True
        return tf.nn.tanh(x @ self.w + self.b)


def main():
    tf.random.set_seed(7)
    values = []
    count, total = fizzbuzz(tf.constant(20))
    values += [float(count), float(total)]
    count, total = fizzbuzz(tf.constant(33))
    values += [float(count), float(total), float(fizzbuzz.experimental_get_tracing_count())]

    stacked = accumulate(tf.reshape(tf.range(12, dtype=tf.float32), [4, 3]))
    values += stacked.numpy().ravel().tolist() + stacked.shape.as_list()
    values += accumulate(tf.ones([6, 2])).numpy().ravel().tolist()

    x = tf.constant([-1.0, 0.5, 2.0])
    for training in (True, False, True):
        values += python_or_tensor_branch(x, training).numpy().tolist()
    values += python_or_tensor_branch(-x, False).numpy().tolist()
    values.append(float(python_or_tensor_branch.experimental_get_tracing_count()))

    for length in (3, 5, 8):
        values += next_collatz_like(tf.range(1.0, length + 1.0)).numpy().tolist()
    values.append(float(next_collatz_like.experimental_get_tracing_count()))
    try:
        next_collatz_like(tf.constant([[1.0]]))
    except (TypeError, ValueError) as error:
        values.append(type(error).__name__)

    for shape in ([2], [3], [4], [2, 2], [3, 3]):
        values.append(float(square_sum(tf.ones(shape))))
    values.append(float(square_sum.experimental_get_tracing_count()))

    counter = Counter()
    for step in range(4):
        values.append(float(counter(tf.constant(float(step) + 0.5))))
    values += [float(counter.count.numpy()), float(len(counter.trainable_variables))]

    dense = Dense(4)
    inputs = tf.random.normal([5, 3], seed=11)
    values += dense(inputs).numpy().ravel().tolist()
    values += dense(inputs * 2.0).numpy().ravel().tolist()
    values += [float(len(dense.variables)), float(Dense.__call__.experimental_get_tracing_count())]
    return values


if __name__ == "__main__":
    print(main())
