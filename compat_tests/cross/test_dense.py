"""Matrix products, dense layers, activations and softmax: vfw.torch == vfw.tensorflow == onnxruntime."""

import math

import pytest

from compat_tests.cross.harness import MATRIX_T, SAME, check, check_layer, normal, tf, torch, transposed


def test_matmul_batched_with_broadcast():
    check(lambda torch, a, b: torch.matmul(a, b), lambda tf, a, b: tf.matmul(a, b),
          dict(a=normal((2, 3, 4, 5)), b=normal((5, 6), seed=1)))


def test_matmul_transposed_operand():
    # torch transposes explicitly where TF takes transpose_b: the same product.
    check(lambda torch, a, b: a @ b.transpose(-1, -2), lambda tf, a, b: tf.matmul(a, b, transpose_b=True),
          dict(a=normal((3, 4, 5)), b=normal((3, 6, 5), seed=1)))


def test_linear_as_matmul_plus_bias():
    # torch's Linear weight is (out, in); TF multiplies by an (in, out) kernel.
    check(lambda torch, x, w, b: torch.nn.functional.linear(x, w, b), lambda tf, x, w, b: tf.matmul(x, w) + b,
          dict(x=normal((4, 5)), w=normal((3, 5), seed=1), b=normal((3,), seed=2)), layouts=dict(w=MATRIX_T))


def test_einsum():
    check(lambda torch, a, b: torch.einsum("bij,bjk->bik", a, b), lambda tf, a, b: tf.einsum("bij,bjk->bik", a, b),
          dict(a=normal((2, 3, 4)), b=normal((2, 4, 5), seed=1)))


@pytest.mark.parametrize("activation", ["relu", "tanh", "sigmoid"])
def test_linear_module_vs_dense_layer(activation):
    torch.manual_seed(0)
    linear = torch.nn.Linear(6, 4)
    act = getattr(torch, activation)
    check_layer(linear, tf.keras.layers.Dense(4, activation=activation), dict(x=normal((5, 6))),
                [("kernel", ("weight",), MATRIX_T), ("bias", ("bias",), SAME)],
                torch_call=lambda module, x: act(module(x)))


def test_dense_layer_on_sequences():
    # Dense on a rank-3 input multiplies the last axis, as Linear does.
    torch.manual_seed(1)
    check_layer(torch.nn.Linear(3, 2), tf.keras.layers.Dense(2), dict(x=normal((2, 4, 3))),
                [("kernel", ("weight",), MATRIX_T), ("bias", ("bias",), SAME)])


# (torch functional call, TF call) computing the same activation.
ACTIVATIONS = {
    "relu": (lambda F, x: F.relu(x), lambda tf, x: tf.nn.relu(x)),
    "relu6": (lambda F, x: F.relu6(x), lambda tf, x: tf.nn.relu6(x)),
    "leaky_relu": (lambda F, x: F.leaky_relu(x, 0.2), lambda tf, x: tf.nn.leaky_relu(x, alpha=0.2)),
    "elu": (lambda F, x: F.elu(x), lambda tf, x: tf.nn.elu(x)),
    "selu": (lambda F, x: F.selu(x), lambda tf, x: tf.nn.selu(x)),
    "gelu": (lambda F, x: F.gelu(x), lambda tf, x: tf.nn.gelu(x, approximate=False)),
    "gelu_tanh": (lambda F, x: F.gelu(x, approximate="tanh"), lambda tf, x: tf.nn.gelu(x, approximate=True)),
    "silu": (lambda F, x: F.silu(x), lambda tf, x: tf.nn.silu(x)),
    "sigmoid": (lambda F, x: F.sigmoid(x), lambda tf, x: tf.nn.sigmoid(x)),
    "tanh": (lambda F, x: F.tanh(x), lambda tf, x: tf.nn.tanh(x)),
    "softplus": (lambda F, x: F.softplus(x), lambda tf, x: tf.nn.softplus(x)),
    "softsign": (lambda F, x: F.softsign(x), lambda tf, x: tf.nn.softsign(x)),
    "hardsigmoid": (lambda F, x: F.hardsigmoid(x), lambda tf, x: tf.keras.activations.hard_sigmoid(x)),
    "hardswish": (lambda F, x: F.hardswish(x), lambda tf, x: tf.keras.activations.hard_silu(x)),
    "mish": (lambda F, x: F.mish(x), lambda tf, x: tf.keras.activations.mish(x)),
    "log_sigmoid": (lambda F, x: F.logsigmoid(x), lambda tf, x: tf.math.log_sigmoid(x)),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation(name):
    torch_act, tf_act = ACTIVATIONS[name]
    # Values away from the kinks at 0 and +-3, where one-sided derivatives may be chosen differently.
    x = normal((3, 7), scale=2.5)
    x[abs(x) < 0.05] += 0.2
    x[abs(abs(x) - 3) < 0.05] += 0.2
    check(lambda torch, x: torch_act(torch.nn.functional, x), lambda tf, x: tf_act(tf, x), dict(x=x))


@pytest.mark.parametrize("axis", [-1, 1])
def test_softmax_and_log_softmax(axis):
    check(lambda torch, x: (torch.softmax(x, dim=axis), torch.log_softmax(x, dim=axis)),
          lambda tf, x: (tf.nn.softmax(x, axis=axis), tf.nn.log_softmax(x, axis=axis)),
          dict(x=normal((2, 5, 4), scale=3.0)))


def test_softmax_over_channels_in_both_layouts():
    # Softmax over torch's channel axis 1 is softmax over TF's last axis once the image is channels-last.
    layout = transposed((0, 2, 3, 1))
    check(lambda torch, x: torch.softmax(x, dim=1), lambda tf, x: tf.nn.softmax(x, axis=-1),
          dict(x=normal((2, 3, 4, 5))), layouts=dict(x=layout), out_layouts=[layout])


def test_mlp_block():
    # Two dense layers, a GELU and a residual connection: the shape of a transformer's feed-forward block.
    def torch_block(torch, x, w1, b1, w2, b2):
        return x + torch.nn.functional.linear(torch.nn.functional.gelu(torch.nn.functional.linear(x, w1, b1)), w2, b2)

    def tf_block(tf, x, w1, b1, w2, b2):
        return x + tf.matmul(tf.nn.gelu(tf.matmul(x, w1) + b1, approximate=False), w2) + b2

    scale = 1 / math.sqrt(8)
    check(torch_block, tf_block,
          dict(x=normal((3, 8)), w1=normal((16, 8), 1, scale), b1=normal((16,), 2), w2=normal((8, 16), 3, scale / 2),
               b2=normal((8,), 4)), layouts=dict(w1=MATRIX_T, w2=MATRIX_T))
