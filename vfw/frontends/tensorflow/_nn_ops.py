"""tf.nn activations and the softmax family (losses: ``_nn_losses``; moments, batch norm, bias_add and
embeddings: ``_nn_norm``).

Gradients follow TF's conventions at the kinks: relu6's is 0 at 0 and at 6 and selu's is the
linear slope at 0. Where the engine's fused op differentiates otherwise, the function runs
the fused kernel when nothing records and an equivalent composition of engine ops (with TF's
gradient) when a tape or trace records.
"""

import numpy as np

from vfw.frontends.tensorflow import _math_ops, errors
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, op_error, run, wrap
from vfw.frontends.tensorflow._support import (
    F32,
    F64,
    FLOATS,
    SIGNED,
    UNSIGNED,
    binary,
    bound,
    cast,
    check_dtype,
    const,
    recording,
    tensor,
    unary,
)
from vfw.frontends.tensorflow._tensor import Tensor

_RELU_TYPES = FLOATS | SIGNED | UNSIGNED
_ENGINE_RELU_TYPES = FLOATS | SIGNED
_RELU = bound("Relu")
_ELU_CONSTANTS = (1.6732632423543772848170429916717, 1.0507009873554804934193349852946)  # selu's alpha, scale

# The elementwise math TF also lists in tf.nn (tf.nn.sigmoid is tf.math.sigmoid).
sigmoid = _math_ops.sigmoid
tanh = _math_ops.tanh
softplus = _math_ops.softplus
softsign = _math_ops.softsign
zero_fraction = _math_ops.zero_fraction
top_k = _math_ops.top_k
in_top_k = _math_ops.in_top_k


def relu(features, name=None):
    """``max(features, 0)`` (integers too; unsigned integers pass through)."""
    x = features if features.__class__ is Tensor else convert_to_tensor(features)
    dtype = x.array.dtype
    if dtype in _ENGINE_RELU_TYPES:
        if x.array.ndim and not recording(x):
            return wrap(_RELU.kernel(x.array))  # the dtype is checked: straight to the kernel
        return run(_RELU, x, tf_op="Relu")
    check_dtype(x, _RELU_TYPES, "Relu")
    return run(bound("Identity"), x, tf_op="Relu")


def relu6(features, name=None):
    """``min(max(features, 0), 6)``; the gradient is 0 outside (0, 6), at both kinks included, as TF's."""
    x = tensor(features)
    check_dtype(x, _RELU_TYPES, "Relu6")
    six = const(6, x)
    if not recording(x):
        return run(bound("Clip"), x, const(0, x), six, tf_op="Relu6")
    # Where(x >= 6) takes the constant at 6 (gradient 0 there); Relu's gradient is 0 at 0; NaN stays NaN.
    return run(bound("Where"), binary("GreaterOrEqual", x, six, "Relu6"), six, relu(x), tf_op="Relu6")


def crelu(features, axis=-1, name=None):
    """``concat([relu(features), relu(-features)], axis)``."""
    x = tensor(features)
    check_dtype(x, FLOATS | SIGNED, "Neg")
    rank = x.array.ndim
    if not -rank <= axis < rank:
        raise op_error(f"ConcatOp : Expected concatenating dimensions in the range [{-rank}, {rank}), but got {axis}",
                       "ConcatV2")
    return run(bound("Concat", axis=axis), relu(x), relu(unary("Neg", x, "Neg")), tf_op="ConcatV2")


def _float_features(features, tf_op):
    x = tensor(features)
    check_dtype(x, FLOATS, tf_op)
    return x


def elu(features, name=None):
    """``features`` where positive, ``exp(features) - 1`` otherwise."""
    return run(bound("Elu", alpha=1.0), _float_features(features, "Elu"), tf_op="Elu")


def selu(features, name=None):
    """``scale * features`` where positive, ``scale * alpha * (exp(features) - 1)`` otherwise (Klambauer et al.)."""
    x = _float_features(features, "Selu")
    alpha, scale = _ELU_CONSTANTS
    if not recording(x):
        return run(bound("Selu", alpha=alpha, gamma=scale), x, tf_op="Selu")
    # TF's gradient at 0 is the linear branch's: select on x < 0, the exponential seeing min(x, 0) only.
    negative = binary("Less", x, const(0, x), "Selu")
    inner = run(bound("Where"), negative, x, const(0, x), tf_op="Selu")
    curve = binary("Mul", unary("Expm1", inner, "Selu"), const(scale * alpha, x), "Selu")
    return run(bound("Where"), negative, curve, binary("Mul", x, const(scale, x), "Selu"), tf_op="Selu")


def gelu(features, approximate=False, name=None):
    """Gaussian error linear unit ``x * Phi(x)``; ``approximate`` uses the tanh approximation."""
    x = tensor(features)
    if x.array.dtype not in FLOATS:
        raise ValueError(f"`features.dtype` must be a floating point tensor.Received:features.dtype={x.dtype!r}")
    return run(bound("Gelu", approximate="tanh" if approximate else "none"), x, tf_op="Gelu")


def silu(features, beta=1.0):
    """Sigmoid linear unit (swish): ``features * sigmoid(beta * features)``."""
    x = _float_features(features, "Sigmoid")
    beta = convert_to_tensor(beta, dtype=x.dtype)
    scaled = x if beta.array == 1 else binary("Mul", x, beta, "Mul")
    return binary("Mul", x, unary("Sigmoid", scaled, "Sigmoid"), "Mul")


swish = silu


def leaky_relu(features, alpha=0.2, name=None):
    """``features`` where positive, ``alpha * features`` otherwise (integer inputs are computed in float32)."""
    x = tensor(features)
    if x.array.dtype in SIGNED or x.array.dtype in UNSIGNED:
        x = cast(x, F32)
    if isinstance(alpha, np.ndarray):
        alpha = alpha.item()
    if not isinstance(alpha, (int, float, np.number)) or isinstance(alpha, bool):
        raise TypeError(f"Expected float for argument 'alpha' not {alpha!r}.")
    check_dtype(x, FLOATS, "LeakyRelu")
    return run(bound("LeakyRelu", alpha=float(alpha)), x, tf_op="LeakyRelu")


def _softmax(op_type, tf_op, logits, axis):
    x = logits if logits.__class__ is Tensor else convert_to_tensor(logits)
    check_dtype(x, FLOATS, tf_op)
    rank = x.array.ndim
    axis = -1 if axis is None else axis
    if axis not in (-1, rank - 1) and not -rank <= axis < rank:
        raise op_error(f"`dim` must be in the range [{-rank}, {rank}) where {rank} is the number of dimensions in the "
                       f"input. Received: dim={axis}", None)
    if not rank:
        if tf_op == "Softmax" and x.array.dtype != F64:  # TF's oneDNN kernel refuses scalars with this error class
            raise op_error("Input dims must be <= 5 and >=1", tf_op, errors.AbortedError)
        raise op_error("logits must have >= 1 dimension, got []", tf_op)
    return run(bound(op_type, axis=axis), x, tf_op=tf_op)


def softmax(logits, axis=None, name=None):
    """``exp(logits) / sum(exp(logits), axis)`` (``axis`` defaults to the last)."""
    return _softmax("Softmax", "Softmax", logits, axis)


def log_softmax(logits, axis=None, name=None):
    """``logits - log(sum(exp(logits), axis))`` (``axis`` defaults to the last)."""
    return _softmax("LogSoftmax", "LogSoftmax", logits, axis)


NAMESPACES = {
    "nn": ["relu", "relu6", "crelu", "elu", "selu", "gelu", "silu", "swish", "leaky_relu", "softplus", "softsign",
           "sigmoid", "tanh", "softmax", "log_softmax", "zero_fraction", "top_k", "in_top_k"],
    "math": ["softmax", "log_softmax"],
}
TENSOR_METHODS = {}
