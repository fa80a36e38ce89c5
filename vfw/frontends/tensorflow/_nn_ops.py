"""tf.nn activations and the softmax family (losses: ``_nn_losses``; moments, batch norm, bias_add and
embeddings: ``_nn_norm``).

Gradients follow TF's conventions at the kinks: relu6's is 0 at 0 and at 6 and selu's is the
linear slope at 0. Where the engine's fused op differentiates otherwise, the function runs
the fused kernel when nothing records and an equivalent composition of engine ops (with TF's
gradient) when a tape or trace records.
"""

import numpy as np

from vfw.frontends.tensorflow import _dispatch, _math_ops, errors
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, op, op_error, recording, wrap
from vfw.frontends.tensorflow._op_support import F32, F64, FLOATS, SIGNED, UNSIGNED, OpTypes, cast, scalar_like

_RELU_TYPES = OpTypes("Relu", "F I U")
_RELU6_TYPES = OpTypes("Relu6", "F I U")
_NEG_TYPES = OpTypes("Neg", "F I")
_LEAKY_RELU_TYPES = OpTypes("LeakyRelu", "F")
_FLOAT_TYPES = {tf_op: OpTypes(tf_op, "F") for tf_op in ("Elu", "Selu", "Sigmoid", "Softmax", "LogSoftmax")}
_ENGINE_RELU_TYPES = FLOATS | SIGNED
_RELU = op("Relu")
_ELU_CONSTANTS = (1.6732632423543772848170429916717, 1.0507009873554804934193349852946)  # selu's alpha, scale

# The elementwise math TF also lists in tf.nn (tf.nn.sigmoid is tf.math.sigmoid).
sigmoid = _math_ops.sigmoid
tanh = _math_ops.tanh
softplus = _math_ops.softplus
softsign = _math_ops.softsign
zero_fraction = _math_ops.zero_fraction
top_k = _math_ops.top_k
in_top_k = _math_ops.in_top_k
approx_max_k = _math_ops.approx_max_k
approx_min_k = _math_ops.approx_min_k


def relu(features, name=None):
    """``max(features, 0)`` (integers too; unsigned integers pass through)."""
    x = convert_to_tensor(features)
    dtype = x.array.dtype
    if dtype in _ENGINE_RELU_TYPES:
        if x.array.ndim and not recording(x):
            result = _RELU.kernel(x.array)  # the dtype is checked: straight to the kernel
            if _dispatch.numerics_hook is not None:
                _dispatch.numerics_hook("Relu", (x,), result, False)
            return wrap(result)
        return call(_RELU, x, tf_op="Relu")
    _RELU_TYPES.check(x.array.dtype)
    return call("Identity", x, tf_op="Relu")


def relu6(features, name=None):
    """``min(max(features, 0), 6)``; the gradient is 0 outside (0, 6), at both kinks included, as TF's."""
    x = convert_to_tensor(features)
    _RELU6_TYPES.check(x.array.dtype)
    six = scalar_like(6, x)
    if not recording(x):
        return call("Clip", x, scalar_like(0, x), six, tf_op="Relu6")
    # Where(x >= 6) takes the constant at 6 (gradient 0 there); Relu's gradient is 0 at 0; NaN stays NaN.
    return call("Where", call("GreaterOrEqual", x, six, tf_op="Relu6"), six, relu(x), tf_op="Relu6")


def crelu(features, axis=-1, name=None):
    """``concat([relu(features), relu(-features)], axis)``."""
    x = convert_to_tensor(features)
    _NEG_TYPES.check(x.array.dtype)
    rank = x.array.ndim
    if not -rank <= axis < rank:
        raise op_error(f"ConcatOp : Expected concatenating dimensions in the range [{-rank}, {rank}), but got {axis}",
                       "ConcatV2")
    return call("Concat", relu(x), relu(call("Neg", x, tf_op="Neg")), axis=axis, tf_op="ConcatV2")


def _float_features(features, tf_op):
    x = convert_to_tensor(features)
    _FLOAT_TYPES[tf_op].check(x.array.dtype)
    return x


def elu(features, name=None):
    """``features`` where positive, ``exp(features) - 1`` otherwise."""
    return call("Elu", _float_features(features, "Elu"), alpha=1.0, tf_op="Elu")


def selu(features, name=None):
    """``scale * features`` where positive, ``scale * alpha * (exp(features) - 1)`` otherwise (Klambauer et al.)."""
    x = _float_features(features, "Selu")
    alpha, scale = _ELU_CONSTANTS
    if not recording(x):
        return call("Selu", x, alpha=alpha, gamma=scale, tf_op="Selu")
    # TF's gradient at 0 is the linear branch's: select on x < 0, the exponential seeing min(x, 0) only.
    negative = call("Less", x, scalar_like(0, x), tf_op="Selu")
    inner = call("Where", negative, x, scalar_like(0, x), tf_op="Selu")
    curve = call("Mul", call("Expm1", inner, tf_op="Selu"), scalar_like(scale * alpha, x), tf_op="Selu")
    return call("Where", negative, curve, call("Mul", x, scalar_like(scale, x), tf_op="Selu"), tf_op="Selu")


def gelu(features, approximate=False, name=None):
    """Gaussian error linear unit ``x * Phi(x)``; ``approximate`` uses the tanh approximation."""
    x = convert_to_tensor(features)
    if x.array.dtype not in FLOATS:
        raise ValueError(f"`features.dtype` must be a floating point tensor.Received:features.dtype={x.dtype}")
    return call("Gelu", x, approximate="tanh" if approximate else "none", tf_op="Gelu")


def silu(features, beta=1.0):
    """Sigmoid linear unit (swish): ``features * sigmoid(beta * features)``."""
    x = _float_features(features, "Sigmoid")
    beta = convert_to_tensor(beta, dtype=x.dtype)
    scaled = x if beta.array == 1 else call("Mul", x, beta, tf_op="Mul")
    return call("Mul", x, call("Sigmoid", scaled, tf_op="Sigmoid"), tf_op="Mul")


swish = silu


def leaky_relu(features, alpha=0.2, name=None):
    """``features`` where positive, ``alpha * features`` otherwise (integer inputs are computed in float32)."""
    x = convert_to_tensor(features)
    if x.array.dtype in SIGNED or x.array.dtype in UNSIGNED:
        x = cast(x, F32)
    if isinstance(alpha, np.ndarray):
        alpha = alpha.item()
    if not isinstance(alpha, (int, float, np.number)) or isinstance(alpha, bool):
        raise TypeError(f"Expected float for argument 'alpha' not {alpha!r}.")
    _LEAKY_RELU_TYPES.check(x.array.dtype)
    return call("LeakyRelu", x, alpha=float(alpha), tf_op="LeakyRelu")


def _softmax(op_type, tf_op, logits, axis):
    x = convert_to_tensor(logits)
    _FLOAT_TYPES[tf_op].check(x.array.dtype)
    rank = x.array.ndim
    axis = -1 if axis is None else axis
    if axis not in (-1, rank - 1) and not -rank <= axis < rank:
        raise op_error(f"`dim` must be in the range [{-rank}, {rank}) where {rank} is the number of dimensions in the "
                       f"input. Received: dim={axis}", None)
    if not rank:
        if tf_op == "Softmax" and x.array.dtype != F64:  # TF's oneDNN kernel refuses scalars with this error class
            raise op_error("Input dims must be <= 5 and >=1", tf_op, errors.AbortedError)
        raise op_error("logits must have >= 1 dimension, got []", tf_op)
    return call(op_type, x, axis=axis, tf_op=tf_op)


def softmax(logits, axis=None, name=None):
    """``exp(logits) / sum(exp(logits), axis)`` (``axis`` defaults to the last)."""
    return _softmax("Softmax", "Softmax", logits, axis)


def log_softmax(logits, axis=None, name=None):
    """``logits - log(sum(exp(logits), axis))`` (``axis`` defaults to the last)."""
    return _softmax("LogSoftmax", "LogSoftmax", logits, axis)


NAMESPACES = {
    "nn": ["relu", "relu6", "crelu", "elu", "selu", "gelu", "silu", "swish", "leaky_relu", "softplus", "softsign",
           "sigmoid", "tanh", "softmax", "log_softmax", "zero_fraction", "top_k", "in_top_k", "approx_max_k",
           "approx_min_k"],
    "math": ["softmax", "log_softmax"],
}
TENSOR_METHODS = {}
