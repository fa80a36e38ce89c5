"""The TensorFlow guide "Introduction to gradients and automatic differentiation": a tape on a variable, gradients
of a model's variables as a dict, watch on constants, persistent tapes, watch_accessed_variables=False, gradients
of non-scalar targets (summed, a list, elementwise), control flow under the tape, stop_gradient, None gradients
(constants, non-trainable and integer variables, a round trip through numpy, an int dtype), and
unconnected_gradients=ZERO, each printed as the guide does."""

import numpy as np
import tensorflow as tf


def main():
    out = []

    def show(*items):
        out.append(" ".join(str(item) for item in items))

    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x**2
    dy_dx = tape.gradient(y, x)
    show(dy_dx.numpy(), repr(dy_dx))

    w = tf.Variable(tf.reshape(tf.range(6, dtype=tf.float32) / 10.0, (3, 2)), name="w")
    b = tf.Variable(tf.zeros(2, dtype=tf.float32), name="b")
    x = [[1.0, 2.0, 3.0]]
    with tf.GradientTape(persistent=True) as tape:
        y = x @ w + b
        loss = tf.reduce_mean(y**2)
    [dl_dw, dl_db] = tape.gradient(loss, [w, b])
    show(w.shape)
    show(dl_dw.shape)
    my_vars = {"w": w, "b": b}
    grad = tape.gradient(loss, my_vars)
    show(grad["b"])
    show(dl_dw)

    layer = tf.keras.layers.Dense(2, activation="relu", kernel_initializer="ones", bias_initializer="zeros")
    x = tf.constant([[1.0, 2.0, 3.0]])
    with tf.GradientTape() as tape:
        y = layer(x)
        loss = tf.reduce_mean(y**2)
    grad = tape.gradient(loss, layer.trainable_variables)
    for var, g in zip(layer.trainable_variables, grad):
        show(f"{var.name}, shape: {g.shape}")
        show(g)

    x0 = tf.Variable(3.0, name="x0")
    x1 = tf.Variable(3.0, name="x1", trainable=False)
    x2 = tf.Variable(2.0, name="x2") + 1.0
    x3 = tf.constant(3.0, name="x3")
    with tf.GradientTape() as tape:
        y = (x0**2) + (x1**2) + (x2**2)
    grad = tape.gradient(y, [x0, x1, x2, x3])
    for g in grad:
        show(g)
    show([var.name for var in tape.watched_variables()])

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x**2
    show(tape.gradient(y, x).numpy())

    x0 = tf.Variable(0.0)
    x1 = tf.Variable(10.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(x1)
        y0 = tf.math.sin(x0)
        y1 = tf.nn.softplus(x1)
        y = y0 + y1
        ys = tf.reduce_sum(y)
    grad = tape.gradient(ys, {"x0": x0, "x1": x1})
    show("dy/dx0:", grad["x0"])
    show("dy/dx1:", grad["x1"].numpy())

    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    show(tape.gradient(z, y).numpy())

    x = tf.constant([1, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    show(tape.gradient(z, x).numpy())
    show(tape.gradient(y, x).numpy())
    del tape

    x = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        y0 = x**2
        y1 = 1 / x
    show(tape.gradient(y0, x).numpy())
    show(tape.gradient(y1, x).numpy())
    with tf.GradientTape() as tape:
        y0 = x**2
        y1 = 1 / x
    show(tape.gradient({"y0": y0, "y1": y1}, x).numpy())
    with tf.GradientTape() as tape:
        y = x * [3.0, 4.0]
    show(tape.gradient(y, x).numpy())

    x = tf.linspace(-10.0, 10.0, 200 + 1)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.sigmoid(x)
    dy_dx = tape.gradient(y, x)
    out += [float(v) for v in dy_dx.numpy()[::20]]

    x = tf.constant(1.0)
    v0 = tf.Variable(2.0)
    v1 = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        if x > 0.0:
            result = v0
        else:
            result = v1**2
    dv0, dv1 = tape.gradient(result, [v0, v1])
    show(dv0)
    show(dv1)
    dx = tape.gradient(result, x)
    show(dx)

    x = tf.Variable(2.0)
    y = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        z = y * y
    show(tape.gradient(z, x))

    x = tf.Variable(2.0)
    for _epoch in range(2):
        with tf.GradientTape() as tape:
            y = x + 1
        show(tape.gradient(y, x))
        x = x + 1

    x = tf.Variable([[1.0, 2.0], [3.0, 4.0]], dtype=tf.float32)
    with tf.GradientTape() as tape:
        x2 = x**2
        y = np.mean(x2, axis=0)
        y = tf.reduce_mean(y, axis=0)
    show(tape.gradient(y, x))

    x = tf.constant(10)
    with tf.GradientTape() as g:
        g.watch(x)
        y = x * x
    show(g.gradient(y, x))

    x0 = tf.Variable(3.0)
    x1 = tf.Variable(0.0)
    with tf.GradientTape() as tape:
        x1.assign_add(x0)
        y = x1**2
    show(tape.gradient(y, x0))

    x = tf.Variable([[1.0, 2.0], [3.0, 4.0]], dtype=tf.float32)
    with tf.GradientTape() as tape:
        x2 = x**2
        y = tf.stop_gradient(x2) + x
    show(tape.gradient(y, x))

    x = tf.Variable([2.0, 2.0])
    y = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        z = y**2
    show(tape.gradient(z, x, unconnected_gradients=tf.UnconnectedGradients.ZERO))
    show(tf.UnconnectedGradients.ZERO, tf.UnconnectedGradients.NONE)
    return out


if __name__ == "__main__":
    print("\n".join(main()))
