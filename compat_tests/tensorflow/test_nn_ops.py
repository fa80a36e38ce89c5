"""tf.nn activations and softmax / log_softmax against real TF: values, dtypes, errors, gradients (kinks
included: inputs hold exact zeros and the kink points)."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import arrays, check, check_grad, real, vtf

DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "uint16", "bool"]
KINKS = np.array([[-7.0, -1.5, -0.0, 0.0, 0.5], [2.0, 6.0, 6.5, 3.0, -3.0]], np.float32)


def check_values_and_grads(fn, *args, **kwargs):
    """``check`` (errors included), then ``check_grad`` when real TF computed a result."""
    if check(fn, *args, **kwargs) is not None:
        check_grad(fn, *args, **kwargs)


ACTIVATIONS = {
    "relu": lambda tf, x: tf.nn.relu(x),
    "relu6": lambda tf, x: tf.nn.relu6(x),
    "crelu": lambda tf, x: tf.nn.crelu(x),
    "crelu_axis0": lambda tf, x: tf.nn.crelu(x, axis=0),
    "elu": lambda tf, x: tf.nn.elu(x),
    "selu": lambda tf, x: tf.nn.selu(x),
    "gelu": lambda tf, x: tf.nn.gelu(x),
    "gelu_tanh": lambda tf, x: tf.nn.gelu(x, approximate=True),
    "silu": lambda tf, x: tf.nn.silu(x),
    "swish_beta": lambda tf, x: tf.nn.swish(x, beta=2.0),
    "leaky_relu": lambda tf, x: tf.nn.leaky_relu(x),
    "leaky_relu_2": lambda tf, x: tf.nn.leaky_relu(x, alpha=2.0),
    "softplus": lambda tf, x: tf.nn.softplus(x),
    "softsign": lambda tf, x: tf.nn.softsign(x),
    "sigmoid": lambda tf, x: tf.nn.sigmoid(x),
    "tanh": lambda tf, x: tf.nn.tanh(x),
    "softmax": lambda tf, x: tf.nn.softmax(x),
    "log_softmax": lambda tf, x: tf.nn.log_softmax(x),
    "softmax_axis0": lambda tf, x: tf.nn.softmax(x, axis=0),
    "log_softmax_axis0": lambda tf, x: tf.math.log_softmax(x, axis=0),
    "math_softmax": lambda tf, x: tf.math.softmax(x, axis=-2),
}


@pytest.mark.parametrize("name", ACTIVATIONS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_and_gradients_at_kinks(name, dtype):
    check_values_and_grads(ACTIVATIONS[name], KINKS.astype(dtype))


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_random_values_and_gradients(name):
    check_values_and_grads(ACTIVATIONS[name], arrays((3, 4, 5), low=-8, high=8), rtol=1e-4)


@pytest.mark.parametrize("name", ACTIVATIONS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_dtypes(name, dtype):
    check(lambda tf, x: ACTIVATIONS[name](tf, tf.cast(x, dtype)), KINKS)


@pytest.mark.parametrize("name", ACTIVATIONS)
@pytest.mark.parametrize("value", [[1, -2], 3.0, [[1.5, -2.0]], np.float64(-1.0), np.zeros((0, 3), np.float32)],
                         ids=repr)
def test_python_values_and_scalars(name, value):
    check(lambda tf: ACTIVATIONS[name](tf, value))


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_special_values(name):
    x = np.array([np.nan, np.inf, -np.inf, 0.0, 7.0, -1.0], np.float32)
    if "softmax" in name:
        # TF's float32 softmax (oneDNN) gives 0 for the other entries of a row holding NaN or +inf where
        # its float64 kernel, and vfw in every type, give NaN for the whole row.
        x = x.astype(np.float64)
    check(ACTIVATIONS[name], x)


def test_gradients_while_not_recording_and_recording_agree():
    # relu6 and selu take another path when a tape records: both give TF's values.
    for name in ("relu6", "selu"):
        check(ACTIVATIONS[name], KINKS)
        check_grad(ACTIVATIONS[name], KINKS)


@pytest.mark.parametrize("alpha", [0.5, np.float32(0.5), np.array(0.3), 0])
def test_leaky_relu_alpha(alpha):
    check_values_and_grads(lambda tf, x: tf.nn.leaky_relu(x, alpha=alpha), KINKS)


def test_leaky_relu_tensor_alpha_and_int_input():
    check(lambda tf, x: tf.nn.leaky_relu(x, alpha=tf.constant(0.5)), KINKS)
    check(lambda tf: tf.nn.leaky_relu(tf.constant([[-3, 2]])))


@pytest.mark.parametrize("axis", [2, -3, 1, -1, None])
def test_softmax_axes(axis):
    x = arrays((2, 3))
    check_values_and_grads(lambda tf, x: tf.nn.softmax(x, axis=axis), x)
    check_values_and_grads(lambda tf, x: tf.nn.log_softmax(x, axis=axis), x)


def test_softmax_of_scalar_and_empty():
    check(lambda tf: tf.nn.softmax(tf.constant(1.0)))
    check(lambda tf: tf.nn.log_softmax(tf.constant(1.0)))
    check(lambda tf: tf.nn.softmax(tf.ones([0, 3])))
    check(lambda tf: tf.nn.log_softmax(tf.constant([[-np.inf, 0.0], [np.inf, 1.0]])))


@pytest.mark.parametrize("beta", [1.0, 2.0, 0.5])
def test_silu_beta_tensor(beta):
    check_values_and_grads(lambda tf, x: tf.nn.silu(x, beta=tf.constant(beta)), KINKS)


def test_namespaces_are_tfs():
    for name in ["relu", "relu6", "crelu", "elu", "selu", "gelu", "silu", "swish", "leaky_relu", "softplus",
                 "softsign", "sigmoid", "tanh", "softmax", "log_softmax", "zero_fraction"]:
        assert hasattr(real.nn, name) and hasattr(vtf.nn, name), name
    for name in ["softmax", "log_softmax", "sigmoid", "tanh", "softplus", "softsign", "zero_fraction", "top_k",
                 "in_top_k"]:
        assert getattr(vtf.nn, name) is getattr(vtf.math, name), name
    assert vtf.nn.swish is vtf.nn.silu
