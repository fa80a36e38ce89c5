"""Fixes found running round 6 of the keras.io example programs (compat_tests/programs/tf_more5) under vfw, each
compared with real TF: a dropout ``noise_shape`` given as a list holding tensors (Keras' Dropout with
``noise_shape=(None, 1, 1, 1)`` fills the None dims with ``tf.shape(x)[i]``)."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check


@pytest.mark.parametrize("noise_shape", [lambda tf, x: [tf.shape(x)[0], 1, 1],
                                         lambda tf, x: [tf.shape(x)[0], 1, tf.shape(x)[2]],
                                         lambda tf, x: [4, tf.constant(1), 2]])
def test_stateless_dropout_noise_shape_list_holding_tensors(noise_shape):
    def fn(tf, x):
        return tf.nn.experimental.stateless_dropout(x, 0.5, seed=[3, 7], noise_shape=noise_shape(tf, x))

    check(fn, np.arange(1, 25, dtype=np.float32).reshape(4, 3, 2))


def test_dropout_noise_shape_list_holding_tensors_shape():
    def fn(tf, x):
        y = tf.nn.dropout(x, 0.5, noise_shape=[tf.shape(x)[0], 1, 1], seed=5)
        # Each example's mask is one draw: its elements are all kept (scaled) or all dropped.
        kept = tf.reduce_all(tf.equal(y, 2.0 * x), axis=[1, 2])
        dropped = tf.reduce_all(tf.equal(y, 0.0), axis=[1, 2])
        return y.shape, tf.reduce_all(tf.logical_or(kept, dropped))

    check(fn, np.ones((6, 3, 2), dtype=np.float32))


def test_stateless_dropout_noise_shape_list_holding_tensors_in_function():
    def fn(tf, x):
        @tf.function
        def drop(v):
            return tf.nn.experimental.stateless_dropout(v, 0.5, seed=[1, 2], noise_shape=[tf.shape(v)[0], 1, 2])

        return drop(x)

    check(fn, np.arange(1, 25, dtype=np.float32).reshape(4, 3, 2))
