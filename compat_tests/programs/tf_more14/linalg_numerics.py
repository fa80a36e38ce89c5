"""A numerical-methods script with tf.linalg, as in scientific-computing notebooks: ridge regression by
tf.linalg.lstsq (fast and not, l2_regularizer) against the normal equations solved with cholesky / cholesky_solve,
matrix_triangular_solve, inv, det / slogdet / logdet, eigh and svd reconstructions (sign-free checks), qr, pinv,
expm and band_part, a Gaussian-process negative log marginal likelihood whose kernel hyperparameters are fit with
tf.GradientTape through cholesky, and batched solves with broadcasting."""

import numpy as np
import tensorflow as tf


def gp_nll(log_scale, log_noise, x, y):
    sq = tf.reduce_sum(tf.square(x[:, None, :] - x[None, :, :]), axis=-1)
    k = tf.exp(-0.5 * sq / tf.exp(2.0 * log_scale)) + (tf.exp(log_noise) + 1e-6) * tf.eye(tf.shape(x)[0],
                                                                                            dtype=x.dtype)
    chol = tf.linalg.cholesky(k)
    alpha = tf.linalg.cholesky_solve(chol, y)
    return (0.5 * tf.reduce_sum(y * alpha) + tf.reduce_sum(tf.math.log(tf.linalg.diag_part(chol)))
            + 0.5 * tf.cast(tf.shape(x)[0], x.dtype) * np.log(2 * np.pi))


def main():
    rng = np.random.default_rng(2718)
    a = rng.normal(size=(12, 4))
    b = (a @ np.array([[1.0], [-2.0], [0.5], [0.0]]) + 0.1 * rng.normal(size=(12, 1)))
    a64, b64 = tf.constant(a), tf.constant(b)
    values = []
    for fast in (True, False):
        values += [float(v) for v in tf.linalg.lstsq(a64, b64, l2_regularizer=0.1, fast=fast).numpy().ravel()]
    gram = tf.matmul(a64, a64, transpose_a=True) + 0.1 * tf.eye(4, dtype=tf.float64)
    chol = tf.linalg.cholesky(gram)
    values += [float(v) for v in tf.linalg.cholesky_solve(chol, tf.matmul(a64, b64, transpose_a=True)).numpy().ravel()]
    z = tf.linalg.triangular_solve(chol, tf.matmul(a64, b64, transpose_a=True), lower=True)
    values += [float(v) for v in tf.linalg.triangular_solve(chol, z, lower=True, adjoint=True).numpy().ravel()]
    values += [float(tf.linalg.det(gram)), float(tf.linalg.logdet(gram))]
    sign, logabs = tf.linalg.slogdet(gram - 30.0 * tf.eye(4, dtype=tf.float64))
    values += [float(sign), float(logabs)]
    values += [float(v) for v in tf.linalg.inv(gram).numpy().ravel()[:6]]

    sym = tf.constant((a.T @ a) / 12.0, tf.float32)
    e, v = tf.linalg.eigh(sym)
    values += [float(x) for x in e.numpy()]
    recon = tf.matmul(v * e, v, transpose_b=True)
    values.append(float(tf.reduce_max(tf.abs(recon - sym))) < 1e-5)
    values += [float(x) for x in tf.linalg.eigvalsh(sym).numpy()]
    s, u, vt = tf.linalg.svd(tf.constant(a, tf.float32))
    values += [float(x) for x in s.numpy()]
    values.append(float(tf.reduce_max(tf.abs(tf.matmul(u * s, vt, adjoint_b=True) - a))) < 1e-4)
    q, r = tf.linalg.qr(a64)
    values += [float(x) for x in tf.abs(tf.linalg.diag_part(r)).numpy()] + [str(q.shape)]
    values += [float(x) for x in tf.linalg.pinv(a64).numpy().ravel()[:5]]
    small = tf.constant([[0.0, 0.3], [-0.3, 0.1]], tf.float64)
    values += [float(x) for x in tf.linalg.expm(small).numpy().ravel()]
    values += [float(x) for x in tf.linalg.band_part(gram, 1, 0).numpy().ravel()]
    batch = tf.constant(rng.normal(size=(3, 4, 4)) + 4 * np.eye(4), tf.float32)
    rhs = tf.constant(rng.normal(size=(4, 2)), tf.float32)
    values += [float(x) for x in tf.linalg.solve(batch, tf.broadcast_to(rhs, [3, 4, 2])).numpy().ravel()[:8]]
    values += [float(x) for x in tf.linalg.norm(batch, ord="fro", axis=[-2, -1]).numpy()]
    values += [float(x) for x in tf.linalg.trace(batch).numpy()]

    x = tf.constant(np.sort(rng.uniform(-2, 2, size=(10, 1)), axis=0), tf.float64)
    y = tf.sin(2.0 * x) + 0.05 * tf.constant(rng.normal(size=(10, 1)))
    log_scale, log_noise = tf.Variable(0.0, dtype=tf.float64), tf.Variable(-2.0, dtype=tf.float64)
    opt = tf.keras.optimizers.Adam(0.1)
    for _ in range(10):
        with tf.GradientTape() as tape:
            nll = gp_nll(log_scale, log_noise, x, y)
        grads = tape.gradient(nll, [log_scale, log_noise])
        opt.apply_gradients(zip(grads, [log_scale, log_noise]))
        values.append(float(nll))
    values += [float(log_scale.numpy()), float(log_noise.numpy())]
    return values
