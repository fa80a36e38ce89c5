"""tf.custom_gradient with a differentiable gradient, trained with a gradient penalty from nested tapes, and a
Hessian-vector product."""

import numpy as np
import tensorflow as tf


@tf.custom_gradient
def soft_squash(x):
    """y = x / (1 + x^2); its gradient (1 - x^2) / (1 + x^2)^2 is written with differentiable ops."""

    def grad(upstream):
        square = x * x
        return upstream * (1 - square) / (1 + square) ** 2

    return x / (1 + x * x), grad


def main():
    rng = np.random.default_rng(5)
    x = tf.constant(rng.uniform(-2, 2, (64, 3)).astype(np.float32))
    target = tf.reduce_sum(tf.sin(x), axis=1, keepdims=True)
    w1 = tf.Variable(rng.standard_normal((3, 16)).astype(np.float32) * 0.5)
    b1 = tf.Variable(tf.zeros([16]))
    w2 = tf.Variable(rng.standard_normal((16, 1)).astype(np.float32) * 0.25)
    variables = [w1, b1, w2]
    optimizer = tf.keras.optimizers.Adam(1e-2)

    def predict(inputs):
        return soft_squash(tf.matmul(tf.tanh(tf.matmul(inputs, w1) + b1), w2)) * 3

    losses = []
    for _ in range(10):
        with tf.GradientTape() as outer:
            with tf.GradientTape() as inner:
                inner.watch(x)
                prediction = predict(x)
            input_grad = inner.gradient(prediction, x)
            fit = tf.reduce_mean(tf.square(prediction - target))
            penalty = tf.reduce_mean(tf.reduce_sum(input_grad ** 2, axis=1))
            loss = fit + 0.01 * penalty
        optimizer.apply_gradients(zip(outer.gradient(loss, variables), variables))
        losses += [float(fit), float(penalty)]
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            fit = tf.reduce_mean(tf.square(predict(x) - target))
        grads = inner.gradient(fit, variables)
        dot = tf.add_n([tf.reduce_sum(g) for g in grads])
    hvp = outer.gradient(dot, variables)
    losses.append(float(tf.add_n([tf.reduce_sum(h) for h in hvp])))
    return losses


if __name__ == "__main__":
    print(main())
