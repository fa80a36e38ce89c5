"""The TF "Advanced automatic differentiation" and "Introduction to Variables" guides put together: a persistent
tape with watch_accessed_variables=False watching only some variables, tape.jacobian of a vector output (and with
unconnected_gradients=ZERO), tape.batch_jacobian of a small MLP, gradients through a variable updated by slice
assignment (v[1:3].assign), scatter updates of variables and tensors (scatter_nd_update, tensor_scatter_nd_add/max,
scatter_update with IndexedSlices), tf.switch_case, in_top_k, histogram_fixed_width and searchsorted."""

import numpy as np
import tensorflow as tf


def main():
    tf.keras.utils.set_random_seed(7)
    rng = np.random.default_rng(7)
    values = []

    w = tf.Variable(rng.normal(size=(3, 2)).astype("float32"), name="w")
    b = tf.Variable(tf.zeros(2), name="b")
    x = tf.constant(rng.normal(size=(4, 3)).astype("float32"))
    with tf.GradientTape(persistent=True, watch_accessed_variables=False) as tape:
        tape.watch(w)
        y = tf.nn.tanh(x @ w + b)
        loss = tf.reduce_sum(y ** 2)
    values += [str([v.name for v in tape.watched_variables()])]
    grad_w, grad_b = tape.gradient(loss, [w, b])
    values += [float(tf.reduce_sum(grad_w)), str(grad_b)]
    grad_b = tape.gradient(loss, b, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    values += [float(v) for v in grad_b]
    jac = tape.jacobian(y, w)
    values += [str(jac.shape), float(tf.reduce_sum(jac)), float(tf.reduce_max(tf.abs(jac)))]
    jac_b = tape.jacobian(y, b, unconnected_gradients="zero")
    values += [str(jac_b.shape), float(tf.reduce_sum(jac_b))]
    del tape

    layer1 = tf.keras.layers.Dense(5, activation="elu")
    layer2 = tf.keras.layers.Dense(2, activation="softplus")
    xb = tf.constant(rng.normal(size=(6, 4)).astype("float32"))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(xb)
        out = layer2(layer1(xb))
    batch_jac = tape.batch_jacobian(out, xb)
    full_jac = tape.jacobian(out, xb)
    values += [str(batch_jac.shape), str(full_jac.shape)]
    values += [float(v) for v in tf.reshape(batch_jac[1], [-1])]
    values += [float(tf.reduce_max(tf.abs(batch_jac[3] - full_jac[3, :, 3])))]
    kernel_jac = tape.jacobian(out, layer1.kernel)
    values += [str(kernel_jac.shape), float(tf.reduce_sum(kernel_jac * kernel_jac))]
    del tape

    v = tf.Variable(tf.range(10, dtype=tf.float32))
    v[1:3].assign([-1.0, -2.0])
    v[::4].assign(tf.constant([7.0, 8.0, 9.0]))
    values += [float(t) for t in v.numpy()]
    m = tf.Variable(tf.reshape(tf.range(12, dtype=tf.float32), (3, 4)))
    m[:, 0].assign(tf.ones(3) * 5)
    m[1].assign(tf.zeros(4))
    m.scatter_nd_update([[0, 1], [2, 3]], [-3.0, -4.0])
    m.scatter_update(tf.IndexedSlices(tf.fill([1, 4], 0.5), tf.constant([2])))
    values += [float(t) for t in tf.reshape(m, [-1])]
    with tf.GradientTape() as tape:
        scaled = m * 2.0
        total = tf.reduce_sum(scaled[1:, 1:] ** 2)
    values += [float(t) for t in tf.reshape(tape.gradient(total, m), [-1])]

    t = tf.zeros((4, 3))
    t = tf.tensor_scatter_nd_update(t, [[0, 0], [3, 2]], [1.0, 2.0])
    t = tf.tensor_scatter_nd_add(t, [[0, 0], [0, 0]], [1.0, 0.5])
    t = tf.tensor_scatter_nd_max(t, [[1], [2]], [[2.0, -1.0, 0.0], [0.0, 4.0, -2.0]])
    t = tf.tensor_scatter_nd_sub(t, [[3, 2]], [0.25])
    values += [float(s) for s in tf.reshape(t, [-1])]
    values += [float(s) for s in tf.reshape(tf.scatter_nd([[1], [3], [1]], [[1, 2], [3, 4], [5, 6]], [5, 2]), [-1])]

    def branch(k):
        return lambda: tf.constant(float(k * k))

    values += [float(tf.switch_case(tf.constant(i), [branch(0), branch(1), branch(2)], default=branch(9)))
               for i in (0, 2, 5)]
    logits = tf.constant(rng.normal(size=(5, 4)).astype("float32"))
    targets = tf.constant([0, 1, 2, 3, 1])
    values += [str(tf.math.in_top_k(targets, logits, 2).numpy().tolist())]
    samples = tf.constant(rng.normal(size=50).astype("float32"))
    values += [str(tf.histogram_fixed_width(samples, [-2.0, 2.0], nbins=6).numpy().tolist())]
    edges = tf.constant([[-1.0, 0.0, 1.0], [0.0, 0.5, 2.0]])
    values += [str(tf.searchsorted(edges, [[0.0, 1.5], [0.5, 3.0]], side="right").numpy().tolist())]
    values += [str(tf.searchsorted(edges, [[0.0, 1.5], [0.5, 3.0]]).numpy().tolist())]
    values += [float(tf.math.polyval([2.0, -1.0, 0.5], tf.constant(1.5)))]
    return values
