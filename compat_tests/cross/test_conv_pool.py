"""Convolutions and pooling in torch's channels-first layout and TF's channels-last layout.

Images go NCHW -> NHWC, filters (out, in, *kernel) -> (*kernel, in, out); the tests pick padding
that both frameworks can express (TF's "SAME" pads the extra row at the end, torch pads both
sides equally, so odd sizes or kernels where the two coincide).
"""

import numpy as np
import pytest

from compat_tests.cross.harness import CHANNELS_LAST, FILTER, SAME, Layout, check, check_layer, normal, tf, torch

IMAGE = CHANNELS_LAST[4]


def test_conv1d_strided():
    check(lambda torch, x, w, b: torch.nn.functional.conv1d(x, w, b, stride=2),
          lambda tf, x, w, b: tf.nn.conv1d(x, w, stride=2, padding="VALID") + b,
          dict(x=normal((2, 3, 11)), w=normal((4, 3, 3), 1), b=normal((4,), 2)),
          layouts=dict(x=CHANNELS_LAST[3], w=FILTER[3]), out_layouts=[CHANNELS_LAST[3]])


def test_conv2d_strided_with_explicit_padding():
    check(lambda torch, x, w: torch.nn.functional.conv2d(x, w, stride=2, padding=(1, 2)),
          lambda tf, x, w: tf.nn.conv2d(x, w, strides=2, padding=[[0, 0], [1, 1], [2, 2], [0, 0]]),
          dict(x=normal((2, 3, 8, 9)), w=normal((5, 3, 3, 3), 1)),
          layouts=dict(x=IMAGE, w=FILTER[4]), out_layouts=[IMAGE])


def test_conv2d_same_padding_dilated():
    # Stride 1 and an odd dilated kernel: "same" pads equally on both sides in both frameworks.
    check(lambda torch, x, w: torch.nn.functional.conv2d(x, w, padding="same", dilation=2),
          lambda tf, x, w: tf.nn.conv2d(x, w, strides=1, padding="SAME", dilations=2),
          dict(x=normal((1, 2, 7, 6)), w=normal((3, 2, 3, 3), 1)),
          layouts=dict(x=IMAGE, w=FILTER[4]), out_layouts=[IMAGE])


def test_conv3d():
    check(lambda torch, x, w: torch.nn.functional.conv3d(x, w, stride=(1, 2, 1)),
          lambda tf, x, w: tf.nn.conv3d(x, w, strides=[1, 1, 2, 1, 1], padding="VALID"),
          dict(x=normal((1, 2, 4, 5, 4)), w=normal((3, 2, 2, 3, 2), 1)),
          layouts=dict(x=CHANNELS_LAST[5], w=FILTER[5]), out_layouts=[CHANNELS_LAST[5]])


def depthwise_filter(channels, multiplier):
    """torch's grouped filter ``(channels * multiplier, 1, kh, kw)`` -> TF's depthwise ``(kh, kw, channels,
    multiplier)`` (output channel ``c * multiplier + m`` in both)."""

    def to_tf(a):
        kh, kw = a.shape[2:]
        return np.ascontiguousarray(a.reshape(channels, multiplier, kh, kw).transpose(2, 3, 0, 1))

    def to_torch(a):
        kh, kw = a.shape[:2]
        return np.ascontiguousarray(a.transpose(2, 3, 0, 1).reshape(channels * multiplier, 1, kh, kw))

    return Layout(to_tf, to_torch)


def test_depthwise_conv2d_is_a_grouped_convolution():
    check(lambda torch, x, w: torch.nn.functional.conv2d(x, w, groups=3, padding=1),
          lambda tf, x, w: tf.nn.depthwise_conv2d(x, w, strides=[1, 1, 1, 1], padding="SAME"),
          dict(x=normal((2, 3, 6, 5)), w=normal((6, 1, 3, 3), 1)),
          layouts=dict(x=IMAGE, w=depthwise_filter(3, 2)), out_layouts=[IMAGE])


@pytest.mark.parametrize("padding, tf_padding, kernel", [(0, "VALID", 3), (1, "SAME", 4)])
def test_conv_transpose2d(padding, tf_padding, kernel):
    # torch's transposed filter is (in, out, kh, kw), TF's (kh, kw, out, in): the same axis permutation as a
    # convolution filter.  Kernel 4, stride 2, padding 1 doubles the size as TF's "SAME" does, cropping alike.
    x = normal((2, 3, 4, 5))
    out_shape = [2, (4 - 1) * 2 + kernel - 2 * padding, (5 - 1) * 2 + kernel - 2 * padding, 3]
    check(lambda torch, x, w: torch.nn.functional.conv_transpose2d(x, w, stride=2, padding=padding),
          lambda tf, x, w: tf.nn.conv2d_transpose(x, w, output_shape=out_shape, strides=2, padding=tf_padding),
          dict(x=x, w=normal((3, 3, kernel, kernel), 1)),
          layouts=dict(x=IMAGE, w=FILTER[4]), out_layouts=[IMAGE])


def test_conv2d_module_vs_keras_layer():
    torch.manual_seed(0)
    check_layer(torch.nn.Conv2d(3, 4, 3, padding="same"), tf.keras.layers.Conv2D(4, 3, padding="same"),
                dict(x=normal((2, 3, 5, 6))), [("kernel", ("weight",), FILTER[4]), ("bias", ("bias",), SAME)],
                layouts=dict(x=IMAGE), out_layouts=[IMAGE])


def test_conv_transpose2d_module_vs_keras_layer():
    torch.manual_seed(1)
    check_layer(torch.nn.ConvTranspose2d(3, 2, 4, stride=2, padding=1),
                tf.keras.layers.Conv2DTranspose(2, 4, strides=2, padding="same"),
                dict(x=normal((2, 3, 3, 4))), [("kernel", ("weight",), FILTER[4]), ("bias", ("bias",), SAME)],
                layouts=dict(x=IMAGE), out_layouts=[IMAGE])


def test_max_pool2d():
    check(lambda torch, x: torch.nn.functional.max_pool2d(x, 2),
          lambda tf, x: tf.nn.max_pool2d(x, ksize=2, strides=2, padding="VALID"),
          dict(x=normal((2, 3, 6, 8))), layouts=dict(x=IMAGE), out_layouts=[IMAGE])


def test_max_pool2d_padded_overlapping():
    # Size 7, kernel 3, stride 2: TF's "SAME" pads one row on each side, as torch's padding=1.
    check(lambda torch, x: torch.nn.functional.max_pool2d(x, 3, stride=2, padding=1),
          lambda tf, x: tf.nn.max_pool2d(x, ksize=3, strides=2, padding="SAME"),
          dict(x=normal((2, 2, 7, 7))), layouts=dict(x=IMAGE), out_layouts=[IMAGE])


def test_avg_pool2d_padding_excluded_from_the_mean():
    # TF's "SAME" average pool divides by the number of real values: torch's count_include_pad=False.
    check(lambda torch, x: torch.nn.functional.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False),
          lambda tf, x: tf.nn.avg_pool2d(x, ksize=3, strides=2, padding="SAME"),
          dict(x=normal((2, 2, 7, 7))), layouts=dict(x=IMAGE), out_layouts=[IMAGE])


def test_pool1d_and_pool3d():
    check(lambda torch, x, v: (torch.nn.functional.max_pool1d(x, 2), torch.nn.functional.avg_pool3d(v, 2)),
          lambda tf, x, v: (tf.nn.max_pool1d(x, 2, 2, "VALID"), tf.nn.avg_pool3d(v, 2, 2, "VALID")),
          dict(x=normal((2, 3, 8)), v=normal((1, 2, 4, 4, 6), 1)),
          layouts=dict(x=CHANNELS_LAST[3], v=CHANNELS_LAST[5]), out_layouts=[CHANNELS_LAST[3], CHANNELS_LAST[5]])


def test_global_pooling_layers():
    check(lambda torch, x: (torch.nn.functional.adaptive_avg_pool2d(x, 1).flatten(1), x.amax(dim=(2, 3))),
          lambda tf, x: (tf.keras.layers.GlobalAveragePooling2D()(x), tf.keras.layers.GlobalMaxPooling2D()(x)),
          dict(x=normal((2, 3, 5, 4))), layouts=dict(x=IMAGE))


def flattened_dense(channels, height, width):
    """torch's Linear weight ``(out, C*H*W)`` reading a flattened NCHW feature map -> the Keras kernel
    ``(H*W*C, out)`` reading the same map flattened in NHWC order."""

    def to_tf(a):
        out = a.shape[0]
        return np.ascontiguousarray(a.reshape(out, channels, height, width).transpose(2, 3, 1, 0).reshape(-1, out))

    def to_torch(a):
        out = a.shape[1]
        return np.ascontiguousarray(a.reshape(height, width, channels, out).transpose(3, 2, 0, 1).reshape(out, -1))

    return Layout(to_tf, to_torch)


def test_small_cnn_flatten_order():
    # conv -> relu -> pool -> flatten -> dense: flattening NCHW and NHWC maps visits features in different
    # orders, so the dense weight is permuted too.
    def torch_net(torch, x, w, b, dense_w, dense_b):
        F = torch.nn.functional
        h = F.max_pool2d(F.relu(F.conv2d(x, w, b, padding=1)), 2)
        return F.linear(h.flatten(1), dense_w, dense_b)

    def tf_net(tf, x, w, b, dense_w, dense_b):
        h = tf.nn.relu(tf.nn.conv2d(x, w, 1, "SAME") + b)
        h = tf.nn.max_pool2d(h, 2, 2, "VALID")
        return tf.matmul(tf.reshape(h, [tf.shape(h)[0], -1]), dense_w) + dense_b

    check(torch_net, tf_net,
          dict(x=normal((2, 3, 6, 6)), w=normal((4, 3, 3, 3), 1, 0.3), b=normal((4,), 2),
               dense_w=normal((5, 4 * 3 * 3), 3, 0.2), dense_b=normal((5,), 4)),
          layouts=dict(x=IMAGE, w=FILTER[4], dense_w=flattened_dense(4, 3, 3)))
