"""Closed-form linear algebra around a small Keras model, as in Kaggle notebooks that whiten features and warm-start
a network: the covariance's eigendecomposition (tf.linalg.eigh) for ZCA whitening, the SVD (tf.linalg.svd) and a
QR decomposition (tf.linalg.qr) compared through sign-free quantities, ridge regression solved three ways
(tf.linalg.lstsq with l2_regularizer, cholesky + cholesky_solve, tf.linalg.solve), tf.linalg.pinv, slogdet and
logdet, band_part for a banded smoothing matrix; the ridge solution initialises a Dense layer's kernel and bias
(layer.kernel.assign) that fit then refines with a Huber loss and SGD with Nesterov momentum."""

import keras
import numpy as np
import tensorflow as tf
from keras import layers


def main():
    keras.utils.set_random_seed(13)
    rng = np.random.default_rng(13)
    mixing = rng.normal(size=(4, 4)).astype(np.float32)
    x = (rng.normal(size=(40, 4)) @ mixing).astype(np.float32)
    w_true = np.array([[1.0], [-2.0], [0.5], [0.0]], np.float32)
    y = (x @ w_true + 0.1 * rng.normal(size=(40, 1)) + 0.3).astype(np.float32)

    values = []
    xt = tf.constant(x)
    centered = xt - tf.reduce_mean(xt, axis=0)
    cov = tf.matmul(centered, centered, transpose_a=True) / 39.0
    eigvals, eigvecs = tf.linalg.eigh(cov)
    zca = eigvecs @ tf.linalg.diag(tf.math.rsqrt(eigvals + 1e-5)) @ tf.transpose(eigvecs)
    white = centered @ zca
    values += eigvals.numpy().tolist()
    # the whitened covariance is the identity: its off-diagonal entries are round-off, compare the diagonal
    values += tf.linalg.diag_part(tf.matmul(white, white, transpose_a=True) / 39.0).numpy().tolist()

    s, u, v = tf.linalg.svd(centered)
    values += s.numpy().tolist()
    values.append(float(tf.reduce_max(tf.abs(u @ tf.linalg.diag(s) @ tf.transpose(v) - centered))) < 1e-4)
    q, r = tf.linalg.qr(centered)
    values += tf.abs(tf.linalg.diag_part(r)).numpy().tolist() + [str(q.shape), str(r.shape)]

    design = tf.concat([xt, tf.ones([40, 1])], axis=1)
    yt = tf.constant(y)
    ridge = tf.linalg.lstsq(design, yt, l2_regularizer=0.1)
    gram = tf.matmul(design, design, transpose_a=True) + 0.1 * tf.eye(5)
    chol = tf.linalg.cholesky(gram)
    by_cholesky = tf.linalg.cholesky_solve(chol, tf.matmul(design, yt, transpose_a=True))
    by_solve = tf.linalg.solve(gram, tf.matmul(design, yt, transpose_a=True))
    values += tf.reshape(ridge, [-1]).numpy().tolist() + tf.reshape(by_cholesky, [-1]).numpy().tolist()
    values += tf.reshape(by_solve, [-1]).numpy().tolist()
    values += tf.reshape(tf.linalg.pinv(design) @ yt, [-1]).numpy().tolist()
    sign, logabsdet = tf.linalg.slogdet(gram)
    values += [float(sign), float(logabsdet), float(tf.linalg.logdet(gram))]
    band = tf.linalg.band_part(tf.ones([5, 5]), 1, 1)
    values += tf.reshape(band / tf.reduce_sum(band, axis=1, keepdims=True), [-1]).numpy().tolist()

    model = keras.Sequential([keras.Input((4,)), layers.Dense(1, name="linear")])
    model.get_layer("linear").kernel.assign(ridge[:4])
    model.get_layer("linear").bias.assign(ridge[4])
    model.compile(optimizer=keras.optimizers.SGD(0.05, momentum=0.9, nesterov=True),
                  loss=keras.losses.Huber(delta=0.5), metrics=["mae"])
    values.append(model.evaluate(x, y, verbose=0)[0])
    history = model.fit(x, y, batch_size=10, epochs=2, shuffle=False, verbose=0)
    values += history.history["loss"] + history.history["mae"]
    values += [float(np.sum(w)) for w in model.get_weights()]
    return values
