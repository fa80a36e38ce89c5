"""Gaussian-process regression written with tf.linalg, as in Stack Overflow answers and the TF Probability-free
GP notebooks: an RBF kernel from pairwise squared distances, tf.Variable hyper-parameters kept positive with
tf.nn.softplus, the negative log marginal likelihood from tf.linalg.cholesky, tf.linalg.cholesky_solve and the
log of the Cholesky diagonal, optimised by tf.keras.optimizers.Adam in a tf.function GradientTape loop; then the
predictive mean and variance through tf.linalg.triangular_solve, a tf.linalg.lstsq linear baseline (with and
without l2_regularizer), tf.linalg.logdet / slogdet cross-checks and tf.linalg.matvec."""

import numpy as np
import tensorflow as tf


def rbf_kernel(a, b, length_scale, amplitude):
    sq_a = tf.reduce_sum(tf.square(a), axis=-1, keepdims=True)
    sq_b = tf.reduce_sum(tf.square(b), axis=-1, keepdims=True)
    sq_dist = sq_a - 2.0 * tf.matmul(a, b, transpose_b=True) + tf.transpose(sq_b)
    return tf.square(amplitude) * tf.exp(-0.5 * tf.maximum(sq_dist, 0.0) / tf.square(length_scale))


class GaussianProcess(tf.Module):
    def __init__(self):
        super().__init__()
        self.raw_length_scale = tf.Variable(0.0, name="raw_length_scale")
        self.raw_amplitude = tf.Variable(0.5, name="raw_amplitude")
        self.raw_noise = tf.Variable(-1.0, name="raw_noise")

    def hyper(self):
        return (tf.nn.softplus(self.raw_length_scale), tf.nn.softplus(self.raw_amplitude),
                tf.nn.softplus(self.raw_noise) + 1e-4)

    def neg_log_marginal_likelihood(self, x, y):
        length_scale, amplitude, noise = self.hyper()
        n = tf.shape(x)[0]
        k = rbf_kernel(x, x, length_scale, amplitude) + noise * tf.eye(n)
        chol = tf.linalg.cholesky(k)
        alpha = tf.linalg.cholesky_solve(chol, y[:, tf.newaxis])
        data_fit = 0.5 * tf.reduce_sum(y[:, tf.newaxis] * alpha)
        complexity = tf.reduce_sum(tf.math.log(tf.linalg.diag_part(chol)))
        constant = 0.5 * tf.cast(n, tf.float32) * np.log(2.0 * np.pi).astype(np.float32)
        return data_fit + complexity + constant

    def predict(self, x, y, x_new):
        length_scale, amplitude, noise = self.hyper()
        k = rbf_kernel(x, x, length_scale, amplitude) + noise * tf.eye(tf.shape(x)[0])
        chol = tf.linalg.cholesky(k)
        k_star = rbf_kernel(x, x_new, length_scale, amplitude)
        v = tf.linalg.triangular_solve(chol, k_star, lower=True)
        w = tf.linalg.triangular_solve(chol, y[:, tf.newaxis], lower=True)
        mean = tf.squeeze(tf.matmul(v, w, transpose_a=True), -1)
        var = tf.square(amplitude) - tf.reduce_sum(tf.square(v), axis=0)
        return mean, var


def main():
    rng = np.random.default_rng(11)
    x = np.sort(rng.uniform(-3.0, 3.0, size=(24, 1)), axis=0).astype(np.float32)
    y = (np.sin(1.5 * x[:, 0]) + 0.1 * rng.normal(size=24)).astype(np.float32)
    x_new = np.linspace(-3.5, 3.5, 7, dtype=np.float32)[:, None]
    xt, yt = tf.constant(x), tf.constant(y)

    gp = GaussianProcess()
    optimizer = tf.keras.optimizers.Adam(learning_rate=0.05)

    @tf.function
    def train_step():
        with tf.GradientTape() as tape:
            loss = gp.neg_log_marginal_likelihood(xt, yt)
        grads = tape.gradient(loss, gp.trainable_variables)
        optimizer.apply_gradients(zip(grads, gp.trainable_variables))
        return loss

    values = [float(train_step()) for _ in range(25)]
    values += [float(h) for h in gp.hyper()]
    values += [v.name for v in gp.trainable_variables]
    mean, var = gp.predict(xt, yt, tf.constant(x_new))
    values += mean.numpy().tolist() + var.numpy().tolist()

    length_scale, amplitude, noise = gp.hyper()
    k = rbf_kernel(xt, xt, length_scale, amplitude) + noise * tf.eye(24)
    chol = tf.linalg.cholesky(k)
    values.append(float(tf.linalg.logdet(k)))
    values.append(float(2.0 * tf.reduce_sum(tf.math.log(tf.linalg.diag_part(chol)))))
    sign, log_abs = tf.linalg.slogdet(k)
    values += [float(sign), float(log_abs)]

    # a linear baseline on polynomial features: least squares, plain and ridge
    features = tf.concat([tf.ones_like(xt), xt, xt ** 2, xt ** 3], axis=1)
    coeffs = tf.linalg.lstsq(features, yt[:, tf.newaxis])
    ridge = tf.linalg.lstsq(features, yt[:, tf.newaxis], l2_regularizer=0.5)
    values += tf.reshape(coeffs, [-1]).numpy().tolist() + tf.reshape(ridge, [-1]).numpy().tolist()
    fitted = tf.linalg.matvec(features, tf.squeeze(coeffs, -1))
    values.append(float(tf.reduce_mean(tf.square(fitted - yt))))
    values.append(str(coeffs.shape))
    return values


if __name__ == "__main__":
    print(main())
