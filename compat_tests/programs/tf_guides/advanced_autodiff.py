"""The TensorFlow guide "Advanced automatic differentiation": tape.stop_recording, tape.reset, tf.stop_gradient,
tf.custom_gradient clipping a gradient's norm, higher-order gradients (nested tapes, an input-gradient penalty),
tape.jacobian of a scalar and of a layer's output (sources of several shapes, reshaped to a matrix), a Hessian
of a small model through nested tapes (a Newton step), and tape.batch_jacobian, printed as the guide does."""

import tensorflow as tf


def main():
    out = []

    def show(*items):
        out.append(" ".join(str(item) for item in items))

    x = tf.Variable(2.0)
    y = tf.Variable(3.0)
    with tf.GradientTape() as t:
        x_sq = x * x
        with t.stop_recording():
            y_sq = y * y
        z = x_sq + y_sq
    grad = t.gradient(z, {"x": x, "y": y})
    show("dz/dx:", grad["x"])
    show("dz/dy:", grad["y"])

    reset = True
    with tf.GradientTape() as t:
        y_sq = y * y
        if reset:
            t.reset()
        z = x * x + y_sq
    grad = t.gradient(z, {"x": x, "y": y})
    show("dz/dx:", grad["x"])
    show("dz/dy:", grad["y"])

    with tf.GradientTape() as t:
        y_sq = y**2
        z = x**2 + tf.stop_gradient(y_sq)
    grad = t.gradient(z, {"x": x, "y": y})
    show("dz/dx:", grad["x"])
    show("dz/dy:", grad["y"])

    @tf.custom_gradient
    def clip_gradients(y):
        def backward(dy):
            return tf.clip_by_norm(dy, 0.5)
        return y, backward

    v = tf.Variable(2.0)
    with tf.GradientTape() as t:
        output = clip_gradients(v * v)
    show(t.gradient(output, v))

    x = tf.Variable(1.0)
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            y = x * x * x
        dy_dx = t1.gradient(y, x)
    d2y_dx2 = t2.gradient(dy_dx, x)
    show("dy_dx:", dy_dx.numpy())
    show("d2y_dx2:", d2y_dx2.numpy())

    tf.keras.utils.set_random_seed(0)
    x = tf.random.normal([7, 5])
    layer = tf.keras.layers.Dense(10, activation=tf.nn.relu)
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = layer(x)
            out_sum = tf.reduce_sum(layer(x)**2)
        dout_dx = t1.gradient(out_sum, x)
        norm = tf.norm(dout_dx, axis=1)
        reg = tf.reduce_sum((norm - 1)**2)
    dg = t2.gradient(reg, layer.trainable_variables)
    show([var.shape for var in dg])
    out += [float(tf.reduce_sum(g * g)) for g in dg] + [float(reg)]

    x = tf.linspace(-10.0, 10.0, 200 + 1)
    delta = tf.Variable(0.0)
    with tf.GradientTape() as tape:
        y = tf.nn.sigmoid(x + delta)
    dy_dx = tape.jacobian(y, delta)
    show(y.shape)
    show(dy_dx.shape)
    out += [float(v) for v in dy_dx.numpy()[95:106]]

    x = tf.random.normal([7, 5])
    layer = tf.keras.layers.Dense(10, activation=tf.nn.relu)
    with tf.GradientTape(persistent=True) as tape:
        y = layer(x)
    show(y.shape)
    show(layer.kernel.shape)
    j = tape.jacobian(y, layer.kernel)
    show(j.shape)
    g = tape.gradient(y, layer.kernel)
    show("g.shape:", g.shape)
    j_sum = tf.reduce_sum(j, axis=[0, 1])
    delta = tf.reduce_max(abs(g - j_sum)).numpy()
    show(delta < 1e-5)

    x = tf.random.normal([7, 5])
    layer1 = tf.keras.layers.Dense(8, activation=tf.nn.relu)
    layer2 = tf.keras.layers.Dense(6, activation=tf.nn.relu)
    with tf.GradientTape() as t2:
        with tf.GradientTape() as t1:
            x = layer1(x)
            x = layer2(x)
            loss = tf.reduce_mean(x**2)
        g = t1.gradient(loss, layer1.kernel)
    h = t2.jacobian(g, layer1.kernel)
    show(f"layer.kernel.shape: {layer1.kernel.shape}")
    show(f"h.shape: {h.shape}")
    n_params = tf.reduce_prod(layer1.kernel.shape)
    g_vec = tf.reshape(g, [n_params, 1])
    h_mat = tf.reshape(h, [n_params, n_params])
    eps = 1e-3
    eye_eps = tf.eye(h_mat.shape[0]) * eps
    update = tf.linalg.solve(h_mat + eye_eps, g_vec)
    _ = layer1.kernel.assign_sub(tf.reshape(update, layer1.kernel.shape))
    show(n_params, h_mat.shape, update.shape)
    out += [float(tf.reduce_sum(h_mat)), float(tf.reduce_sum(g_vec)), float(tf.reduce_sum(layer1.kernel))]

    x = tf.random.normal([7, 5])
    layer1 = tf.keras.layers.Dense(8, activation=tf.nn.elu)
    layer2 = tf.keras.layers.Dense(6, activation=tf.nn.elu)
    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(x)
        y = layer1(x)
        y = layer2(y)
    show(y.shape)
    j = tape.jacobian(y, x)
    show(j.shape)
    show(repr(tf.reduce_max(tf.abs(j[2, :, 3, :]))))
    jb = tape.batch_jacobian(y, x)
    show(jb.shape)
    error = tf.reduce_max(abs(jb - tf.reduce_sum(j, axis=2)))
    show(error.numpy() < 1e-5)
    out += [float(tf.reduce_sum(jb))]
    return out


if __name__ == "__main__":
    print("\n".join(main()))
