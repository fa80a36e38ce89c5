"""keras.ops neural-network functions against real Keras 3.15.1: activations, softmax, encodings,
crossentropies, moments, normalization, convolutions and pooling (values and gradients)."""

import numpy as np
import pytest

from compat_tests.keras.building_blocks_harness import data, same
from compat_tests.keras.test_ops import check

X = (data(2, 5, seed=4) * 2).astype("float32")
PROBS = np.abs(data(4, 3, seed=5)) + 0.05
PROBS = (PROBS / PROBS.sum(axis=1, keepdims=True)).astype("float32")
LABELS = np.eye(3, dtype="float32")[[0, 2, 1, 2]]


@pytest.mark.parametrize("make", [
    lambda ops: ops.relu6(X * 4), lambda ops: ops.leaky_relu(X), lambda ops: ops.leaky_relu(X, 0.01),
    lambda ops: ops.elu(X, 0.3), lambda ops: ops.selu(X), lambda ops: ops.celu(X, 0.5), lambda ops: ops.gelu(X),
    lambda ops: ops.gelu(X, approximate=False), lambda ops: ops.silu(X), lambda ops: ops.swish(X),
    lambda ops: ops.hard_sigmoid(X), lambda ops: ops.hard_silu(X), lambda ops: ops.hard_swish(X),
    lambda ops: ops.log_sigmoid(X), lambda ops: ops.softsign(X), lambda ops: ops.sparse_plus(X),
    lambda ops: ops.sparse_sigmoid(X), lambda ops: ops.squareplus(X, 2), lambda ops: ops.tanh_shrink(X),
    lambda ops: ops.hard_tanh(X), lambda ops: ops.soft_shrink(X), lambda ops: ops.hard_shrink(X, 1.0),
    lambda ops: ops.threshold(X, 0.1, 9.0), lambda ops: ops.glu(X[:, :4]), lambda ops: ops.sparsemax(X),
    lambda ops: ops.softmax(X), lambda ops: ops.softmax(X, axis=0), lambda ops: ops.softmax(X, axis=None),
    lambda ops: ops.softmax(X.reshape(2, 5, 1), axis=(0, 1)), lambda ops: ops.log_softmax(X),
    lambda ops: ops.log_softmax(X, axis=(0, 1)), lambda ops: ops.log_softmax(X, axis=None),
    lambda ops: ops.glu(X), lambda ops: ops.normalize(X), lambda ops: ops.normalize(X, axis=0, order=1),
    lambda ops: ops.normalize(X, order=3, epsilon=1e-3), lambda ops: ops.psnr(X, X * 0.9, 4.0),
])
def test_activations_and_normalization(make):
    check(make)


@pytest.mark.parametrize("make", [
    lambda ops: ops.one_hot(np.array([0, 2, 1, -1, 3]), 3), lambda ops: ops.one_hot(np.array([[0, 1], [2, 0]]), 3,
                                                                                    axis=0),
    lambda ops: ops.one_hot(np.array([1, 0]), 4, dtype="int32"), lambda ops: ops.one_hot(np.array([1, 0]), 2,
                                                                                        dtype="bool"),
    lambda ops: ops.multi_hot(np.array([[0, 2], [1, 1]]), 4), lambda ops: ops.multi_hot(np.array([0, 3]), 4),
    lambda ops: ops.multi_hot(np.array([[0, 2]]), num_classes=3, dtype="bool"),
    lambda ops: ops.multi_hot(np.array([[1]]), num_tokens=2), lambda ops: ops.multi_hot(np.array([[1]])),
])
def test_encodings(make):
    check(make)


@pytest.mark.parametrize("make", [
    lambda ops: ops.binary_crossentropy(LABELS, PROBS), lambda ops: ops.binary_crossentropy(LABELS, X[:, :3][[0, 1,
                                                                                                            0, 1]],
                                                                                              from_logits=True),
    lambda ops: ops.binary_crossentropy(LABELS, ops.sigmoid(X[:, :3][[0, 1, 0, 1]] * 30)),
    lambda ops: ops.categorical_crossentropy(LABELS, PROBS),
    lambda ops: ops.categorical_crossentropy(LABELS, PROBS * 3),
    lambda ops: ops.categorical_crossentropy(LABELS, np.log(PROBS), from_logits=True),
    lambda ops: ops.categorical_crossentropy(LABELS.T, PROBS.T, axis=0),
    lambda ops: ops.categorical_crossentropy(LABELS, ops.softmax(np.log(PROBS) * 40)),
    lambda ops: ops.sparse_categorical_crossentropy(np.array([0, 2, 1, 2]), PROBS),
    lambda ops: ops.sparse_categorical_crossentropy(np.array([[0], [2], [1], [2]]), PROBS),
    lambda ops: ops.sparse_categorical_crossentropy(np.array([0, 2, 1, 2]), np.log(PROBS), from_logits=True),
    lambda ops: ops.sparse_categorical_crossentropy(np.array([0, 2, 1, 2]), ops.softmax(np.log(PROBS) * 40)),
    lambda ops: ops.binary_crossentropy(LABELS, PROBS[:, :2]),
    lambda ops: ops.categorical_crossentropy(LABELS[:, :2], PROBS),
    lambda ops: ops.sparse_categorical_crossentropy(np.array([0, 1]), PROBS),
    lambda ops: ops.sparse_categorical_crossentropy(np.array([0, 1, 2, 0]), PROBS, axis=0),
])
def test_crossentropies(make):
    check(make)


def test_crossentropy_gradients_through_softmax_logits():
    def fn(lib):
        ops = lib.keras.ops
        logits = lib.tf.constant(np.log(PROBS) * 5)
        with lib.tf.GradientTape() as tape:
            tape.watch(logits)
            loss = ops.mean(ops.categorical_crossentropy(LABELS, lib.keras.activations.softmax(logits)))
        return loss, tape.gradient(loss, logits)

    same(fn, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
def test_moments_and_batch_normalization(dtype):
    x = data(4, 3, 2, seed=6).astype(dtype)

    def fn(ops):
        mean, variance = ops.moments(x, axes=[0, 1])
        kept = ops.moments(x, axes=0, keepdims=True)
        normalized = ops.batch_normalization(x, mean, variance, axis=-1, offset=np.ones(2, dtype),
                                             scale=np.full(2, 2.0, dtype), epsilon=1e-3)
        m1, v1 = ops.moments(x, axes=[0, 2])
        along_1 = ops.batch_normalization(x, m1, v1, axis=1)
        return mean, variance, kept, normalized, along_1

    check(fn, rtol=1e-2 if dtype == "float16" else 1e-5, atol=1e-2 if dtype == "float16" else 1e-5)


IMAGES = data(2, 7, 6, 3, seed=7)
KERNEL = data(3, 3, 3, 4, seed=8)
SIGNAL = data(2, 9, 3, seed=9)


@pytest.mark.parametrize("make", [
    lambda ops: ops.conv(IMAGES, KERNEL), lambda ops: ops.conv(IMAGES, KERNEL, strides=2, padding="same"),
    lambda ops: ops.conv(IMAGES, KERNEL, dilation_rate=2, padding="SAME"),
    lambda ops: ops.conv(IMAGES.transpose(0, 3, 1, 2), KERNEL, data_format="channels_first"),
    lambda ops: ops.conv(SIGNAL, data(2, 3, 5, seed=1), strides=2),
    lambda ops: ops.conv(data(1, 4, 4, 4, 2, seed=2), data(2, 2, 2, 2, 3, seed=3), padding="same"),
    lambda ops: ops.conv(IMAGES, data(3, 3, 1, 3, seed=1)),
    lambda ops: ops.depthwise_conv(IMAGES, data(3, 3, 3, 2, seed=1)),
    lambda ops: ops.depthwise_conv(IMAGES, data(2, 2, 3, 1, seed=1), strides=2, padding="same"),
    lambda ops: ops.depthwise_conv(SIGNAL, data(3, 3, 2, seed=1)),
    lambda ops: ops.depthwise_conv(IMAGES.transpose(0, 3, 1, 2), data(3, 3, 3, 2, seed=1),
                                   data_format="channels_first"),
    lambda ops: ops.separable_conv(IMAGES, data(3, 3, 3, 2, seed=1), data(1, 1, 6, 5, seed=2), padding="same"),
    lambda ops: ops.separable_conv(SIGNAL, data(3, 3, 1, seed=1), data(1, 3, 4, seed=2)),
    lambda ops: ops.conv_transpose(IMAGES, data(3, 3, 5, 3, seed=1)),
    lambda ops: ops.conv_transpose(IMAGES, data(3, 3, 5, 3, seed=1), strides=2, padding="same"),
    lambda ops: ops.conv_transpose(IMAGES, data(2, 2, 5, 3, seed=1), strides=2, output_padding=1),
    lambda ops: ops.conv_transpose(SIGNAL, data(3, 4, 3, seed=1), strides=3),
    lambda ops: ops.max_pool(IMAGES, 2), lambda ops: ops.max_pool(IMAGES, (3, 2), strides=1, padding="same"),
    lambda ops: ops.max_pool(SIGNAL, 2, data_format="channels_first"),
    lambda ops: ops.average_pool(IMAGES, 2, strides=(1, 2)), lambda ops: ops.average_pool(IMAGES, 3, padding="same"),
    lambda ops: ops.average_pool(IMAGES.transpose(0, 3, 1, 2), 2, data_format="channels_first"),
    lambda ops: ops.max_pool(data(1, 4, 4, 4, 2, seed=2), 2),
    lambda ops: ops.conv(IMAGES, data(3, 3, 2, 4, seed=1)),
])
def test_convolution_and_pooling(make):
    check(make, rtol=1e-4, atol=1e-5)


def test_conv_with_empty_output():
    # (real TF returns the input unchanged here; Keras' check is meant to raise)
    from vfw.tensorflow import keras

    with pytest.raises(ValueError, match="resulted in an empty output"):
        keras.ops.conv(IMAGES[:, :2, :2], KERNEL)


def test_conv_gradients():
    def fn(lib):
        ops = lib.keras.ops
        images, kernel = lib.tf.constant(IMAGES), lib.tf.Variable(KERNEL)
        with lib.tf.GradientTape() as tape:
            tape.watch(images)
            y = ops.max_pool(ops.relu(ops.conv(images, kernel, padding="same")), 2)
            loss = ops.sum(ops.average_pool(y, 1) * 0.5)
        return tape.gradient(loss, [images, kernel])

    same(fn, rtol=1e-4, atol=1e-5)


SEQ = data(2, 5, 4, seed=12)
Q, K, V = data(2, 3, 4, 8, seed=13), data(2, 5, 2, 8, seed=14), data(2, 5, 2, 8, seed=15)


@pytest.mark.parametrize("make", [
    lambda ops: ops.layer_normalization(SEQ), lambda ops: ops.layer_normalization(SEQ, axis=(1, 2)),
    lambda ops: ops.layer_normalization(SEQ, gamma=np.full(4, 2.0, "float32"), beta=np.ones(4, "float32")),
    lambda ops: ops.layer_normalization(SEQ, gamma=np.full(5, 2.0, "float32"), axis=1, epsilon=0.1),
    lambda ops: ops.layer_normalization(SEQ.astype("float16")),
    lambda ops: ops.rms_normalization(SEQ), lambda ops: ops.rms_normalization(SEQ, scale=np.arange(4.0), axis=-1),
    lambda ops: ops.rms_normalization(SEQ, axis=(1, 2), epsilon=1e-3),
    lambda ops: ops.dot_product_attention(Q, K, V), lambda ops: ops.dot_product_attention(Q, K, V, is_causal=True),
    lambda ops: ops.dot_product_attention(Q, K, V, scale=0.5, bias=data(2, 4, 3, 5, seed=16)),
    lambda ops: ops.dot_product_attention(Q, K, V, mask=data(2, 1, 3, 5, seed=17) > 0),
    lambda ops: ops.dot_product_attention(Q[:, :, :2], K, V, flash_attention=False),
    lambda ops: ops.dot_product_attention(Q, K, V, flash_attention=True),
    lambda ops: ops.dot_product_attention(Q[0], K[0], V[0]),
    lambda ops: ops.depth_to_space(data(1, 2, 3, 8, seed=1), 2),
    lambda ops: ops.depth_to_space(data(1, 8, 2, 3, seed=1), 2, data_format="channels_first"),
    lambda ops: ops.space_to_depth(data(1, 4, 6, 2, seed=1), 2), lambda ops: ops.space_to_depth(X, 1),
])
def test_layer_functions(make):
    check(make, rtol=1e-4, atol=1e-5)
