"""TF's functional transforms in a small physics-style fitting program: tf.map_fn over a batch (with
fn_output_signature), tf.scan accumulating an exponential moving average and a damped-oscillator simulation,
tf.foldl / tf.foldr reductions, tf.vectorized_map per-example gradients (a GradientTape inside), tape.jacobian
and batch_jacobian, tf.autodiff.ForwardAccumulator Jacobian-vector products, a forward-over-back Hessian-vector
product; the oscillator's damping and frequency (tf.Variables) fitted with SGD (momentum) in a tf.function."""

import numpy as np
import tensorflow as tf


def simulate(damping, omega, steps=12, dt=0.15):
    def step(state, _):
        position, velocity = state[0], state[1]
        acceleration = -omega ** 2 * position - damping * velocity
        velocity = velocity + dt * acceleration
        return tf.stack([position + dt * velocity, velocity])
    states = tf.scan(step, tf.zeros([steps]), initializer=tf.constant([1.0, 0.0]))
    return states[:, 0]


def main():
    values = []
    batch = tf.constant(np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(4, 3))
    norms = tf.map_fn(lambda row: tf.norm(row), batch)
    pairs = tf.map_fn(lambda row: (tf.reduce_max(row), tf.argmax(row, output_type=tf.int32)), batch,
                      fn_output_signature=(tf.float32, tf.int32))
    values += norms.numpy().tolist() + pairs[0].numpy().tolist() + pairs[1].numpy().tolist()

    series = tf.constant([1.0, 3.0, 2.0, 5.0, 4.0])
    ema = tf.scan(lambda acc, x: 0.7 * acc + 0.3 * x, series, initializer=0.0)
    values += ema.numpy().tolist()
    values.append(float(tf.foldl(lambda acc, x: acc * 0.5 + x, series, initializer=0.0)))
    values.append(float(tf.foldr(lambda x, acc: acc * 0.5 + x, series)))
    values += tf.scan(lambda a, x: a + x, series, reverse=True).numpy().tolist()

    target = simulate(tf.constant(0.4), tf.constant(2.5))
    damping = tf.Variable(0.1)
    omega = tf.Variable(2.0)
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.01, momentum=0.5)

    @tf.function
    def train_step():
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(simulate(damping, omega) - target))
        grads = tape.gradient(loss, [damping, omega])
        optimizer.apply_gradients(zip(grads, [damping, omega]))
        return loss

    values += [float(train_step()) for _ in range(8)]
    values += [float(damping.numpy()), float(omega.numpy())]

    w = tf.constant(np.arange(6, dtype=np.float32).reshape(3, 2) / 5.0)
    x = tf.constant(np.linspace(0.0, 1.0, 12, dtype=np.float32).reshape(4, 3))
    y = tf.constant([0.5, -0.5, 1.0, 0.0])

    def per_example_grad(example):
        xi, yi = example
        with tf.GradientTape() as tape:
            tape.watch(w)
            loss = tf.square(tf.reduce_sum(tf.tanh(tf.linalg.matvec(w, xi, transpose_a=True))) - yi)
        return tape.gradient(loss, w)

    per_example = tf.vectorized_map(per_example_grad, (x, y))
    values += [str(per_example.shape)] + per_example.numpy().ravel().tolist()

    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        out = tf.tanh(tf.matmul(x, w))
    values += tape.jacobian(out, w).numpy().ravel()[:12].tolist()
    values += [str(tape.batch_jacobian(out, x).shape)] + tape.batch_jacobian(out, x).numpy().ravel()[:12].tolist()
    del tape

    tangent = tf.ones_like(w)
    with tf.autodiff.ForwardAccumulator(w, tangent) as acc:
        out = tf.reduce_sum(tf.sin(tf.matmul(x, w)), axis=1)
    values += acc.jvp(out).numpy().tolist()

    with tf.autodiff.ForwardAccumulator(w, tangent) as acc:
        with tf.GradientTape() as tape:
            tape.watch(w)
            loss = tf.reduce_sum(tf.sin(tf.matmul(x, w)) ** 2)
        grad = tape.gradient(loss, w)
    values += acc.jvp(grad).numpy().ravel().tolist()
    return values


if __name__ == "__main__":
    print(main())
