"""The tensorflow.org guides "Introduction to gradients and automatic differentiation", "Introduction to graphs" and
"Migrate to TF2" bits that still run eagerly, shrunken: tape.watch on a constant, persistent tapes reused, gradients
of a dict of variables, stop_recording, unconnected_gradients=ZERO, int/str sources (None gradients with a warning
free check), a non-trainable variable, tf.function retracing counts per signature (Python scalars vs tensors),
run_functions_eagerly toggled, and the tf.compat.v1 functions TF 2 still runs eagerly with their TF 1 argument names
(reduction_indices, keep_dims, dimension, dim), to_float, assign_add and a seeded random_normal."""

import numpy as np
import tensorflow as tf


def main():
    values = []
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x ** 2
    values += [float(tape.gradient(y, x).numpy())]

    w = tf.Variable(tf.constant(np.linspace(-1, 1, 6).reshape(3, 2), tf.float32), name="w")
    b = tf.Variable(tf.zeros(2, dtype=tf.float32), name="b")
    xin = [[1.0, 2.0, 3.0]]
    with tf.GradientTape(persistent=True) as tape:
        y = xin @ w + b
        loss = tf.reduce_mean(y ** 2)
    [dl_dw, dl_db] = tape.gradient(loss, [w, b])
    values += [str(w.shape), str(dl_dw.shape)] + [float(v) for v in dl_dw.numpy().ravel()]
    my_vars = {"w": w, "b": b}
    grad = tape.gradient(loss, my_vars)
    values += [str(sorted(grad)), float(grad["b"][0])]
    del tape

    layer = tf.keras.layers.Dense(2, activation="relu")
    x2 = tf.constant([[1.0, 2.0, 3.0]])
    tf.keras.utils.set_random_seed(1)
    with tf.GradientTape() as tape:
        y = layer(x2)
        loss = tf.reduce_mean(y ** 2)
    grads = tape.gradient(loss, layer.trainable_variables)
    values += [f"{var.name}, {g.shape}" for var, g in zip(layer.trainable_variables, grads)]

    x0 = tf.Variable(3.0, name="x0")
    x1 = tf.Variable(3.0, name="x1", trainable=False)
    x2v = tf.Variable(2.0, name="x2") + 1.0
    x3 = tf.constant(3.0, name="x3")
    with tf.GradientTape() as tape:
        y = (x0 ** 2) + (x1 ** 2) + (x2v ** 2)
    grad = tape.gradient(y, [x0, x1, x2v, x3])
    values += [str(g) if g is None else float(g) for g in grad]
    values += [str([var.name for var in tape.watched_variables()])]

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x ** 2
    values += [float(tape.gradient(y, x))]
    x0 = tf.Variable(0.0)
    x1 = tf.Variable(10.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x1)
        y0 = tf.math.sin(x0)
        y1 = tf.nn.softplus(x1)
        y = y0 + y1
        ys = tf.reduce_sum(y)
    grad = tape.gradient(ys, {"x0": x0, "x1": x1})
    values += [str(grad["x0"]), float(grad["x1"])]

    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    values += [float(tape.gradient(z, x)), float(tape.gradient(y, x))]
    del tape

    x = tf.Variable(2.0)
    y = tf.Variable(3.0)
    with tf.GradientTape() as t:
        x_sq = x * x
        with t.stop_recording():
            y_sq = y * y
        z = x_sq + y_sq
    grad = t.gradient(z, {"x": x, "y": y})
    values += [float(grad["x"]), str(grad["y"])]

    x = tf.Variable([2.0, 2.0])
    y = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        z = y ** 2
    values += [str(tape.gradient(z, x, unconnected_gradients=tf.UnconnectedGradients.ZERO))]
    x = tf.Variable(2.0)
    for _ in range(2):
        with tf.GradientTape() as tape:
            y = x + 1
        values += [str(type(x).__name__), str(type(tape.gradient(y, x)).__name__)]
        x = x + 1  # a tensor now, no longer watched
    x = tf.Variable([[1.0, 2.0], [3.0, 4.0]], dtype=tf.float32)
    with tf.GradientTape() as tape:
        x2 = x ** 2
        y = np.mean(x2, axis=0)  # leaves the tape
        y = tf.reduce_mean(y, axis=0)
    values += [str(tape.gradient(y, x))]
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = x * x
        z = tf.Variable(0.0)
        z.assign_add(y)
    values += [str(tape.gradient(z, x))]

    # "Introduction to graphs": retracing
    trace_count = []

    @tf.function
    def my_relu(x):
        trace_count.append(1)
        return tf.maximum(0.0, x)

    values += [str(my_relu(tf.constant(5.5))), str(my_relu([1.0, -1.0])), str(my_relu(tf.constant([3.0, -3.0])))]
    values += [len(trace_count)]
    my_relu(tf.constant(2.0))
    my_relu(2.0)
    my_relu(3.0)
    values += [len(trace_count)]
    values += [str(my_relu.pretty_printed_concrete_signatures().count("Input Parameters"))]

    tf.config.run_functions_eagerly(True)
    values += [str(tf.config.functions_run_eagerly())]
    eager_calls = len(trace_count)
    my_relu(tf.constant(1.0))
    my_relu(tf.constant(1.0))
    values += [len(trace_count) - eager_calls]
    tf.config.run_functions_eagerly(False)
    values += [str(tf.config.functions_run_eagerly())]

    # TF1 names that TF2 keeps and that run eagerly
    values += [str(tf.compat.v1.executing_eagerly()), str(tf.executing_eagerly())]
    a = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    v1 = tf.compat.v1
    values += [str(v1.reduce_sum(a, reduction_indices=1, keep_dims=True)), str(v1.math.reduce_sum(a, axis=1))]
    values += [str(v1.argmax(a, dimension=1)), str(v1.expand_dims(a, dim=0).shape), str(v1.to_float([1, 2]))]
    values += [str(v1.shape(a)), str(v1.count_nonzero(a - 1.0, reduction_indices=[0]))]
    counter = tf.Variable(1.0)
    values += [str(v1.assign_add(counter, 2.0)), float(counter)]
    v1.set_random_seed(4)
    values += [float(v) for v in v1.random_normal([3], seed=2).numpy()]
    return values
