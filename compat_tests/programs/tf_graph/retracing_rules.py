"""Retracing as the tf.function guide describes it: Python scalars retrace per value, tensors per shape/dtype,
nested dict/tuple arguments by structure, input_signature with None dims (one trace for every length),
reduce_retracing generalizing shapes, get_concrete_function and calling the concrete function, a tf.Variable
as an argument, and a tf.Module whose tf.function methods keep one trace per instance."""

import tensorflow as tf


def main():
    traces = []
    values = []

    @tf.function
    def scale(x, factor):
        traces.append("scale")
        return x * factor

    for factor in (2, 3, 2, 2.0):
        values.append(float(tf.reduce_sum(scale(tf.ones([3]), factor))))
    for shape in ([3], [4], [3]):
        values.append(float(tf.reduce_sum(scale(tf.ones(shape), tf.constant(1.5)))))
    values.append(float(tf.reduce_sum(scale(tf.ones([3], tf.float64), tf.constant(1.5, tf.float64)))))
    values += [float(scale.experimental_get_tracing_count()), float(len(traces))]

    @tf.function
    def combine(inputs):
        return inputs["a"] * 2.0 + tf.reduce_sum(inputs["pair"][0]) - inputs["pair"][1]

    values += combine({"a": tf.ones([2]), "pair": (tf.range(3.0), tf.constant(1.0))}).numpy().tolist()
    values += combine({"a": tf.zeros([2]), "pair": (tf.range(4.0), tf.constant(2.0))}).numpy().tolist()
    values += combine({"a": tf.zeros([2]), "pair": (tf.range(3.0), tf.constant(5.0))}).numpy().tolist()
    values.append(float(combine.experimental_get_tracing_count()))

    @tf.function(input_signature=(tf.TensorSpec([None, 2], tf.float32), tf.TensorSpec([], tf.int32)))
    def rolled(x, shift):
        return tf.roll(x, shift, axis=0) - tf.reduce_mean(x, axis=0)

    for n in (3, 5, 1):
        values += rolled(tf.reshape(tf.range(2.0 * n), [n, 2]), tf.constant(n // 2)).numpy().ravel().tolist()
    values.append(float(rolled.experimental_get_tracing_count()))
    concrete = rolled.get_concrete_function()
    values += concrete(tf.ones([2, 2]), tf.constant(1)).numpy().ravel().tolist()
    values.append(str(concrete.structured_outputs.shape))

    @tf.function(reduce_retracing=True)
    def norm(x):
        return tf.sqrt(tf.reduce_sum(tf.square(x), axis=-1))

    for shape in ([2, 3], [4, 3], [5, 3], [2, 6]):
        values += norm(tf.ones(shape)).numpy().tolist()
    values.append(float(norm.experimental_get_tracing_count()))

    specific = tf.function(lambda x: x + 1.0).get_concrete_function(tf.TensorSpec([None], tf.float32))
    values += specific(tf.constant([1.0, 2.0, 3.0])).numpy().tolist()

    @tf.function
    def bump(v, amount):
        v.assign_add(amount * tf.ones_like(v))
        return v.read_value() * 2.0

    first, second = tf.Variable([1.0, 2.0]), tf.Variable([5.0, 6.0])
    values += bump(first, 1.0).numpy().tolist() + bump(second, 1.0).numpy().tolist()
    values += bump(first, 1.0).numpy().tolist() + first.numpy().tolist() + second.numpy().tolist()
    values.append(float(bump.experimental_get_tracing_count()))

    class Scaler(tf.Module):
        def __init__(self, factor):
            super().__init__()
            self.factor = tf.Variable(factor)

        @tf.function
        def __call__(self, x):
            return x * self.factor

    a, b = Scaler(2.0), Scaler(-1.0)
    values += [float(a(tf.constant(3.0))), float(b(tf.constant(3.0))), float(a(tf.constant(4.0)))]
    a.factor.assign(10.0)
    values += [float(a(tf.constant(3.0))), float(Scaler.__call__.experimental_get_tracing_count())]
    return values


if __name__ == "__main__":
    print(main())
