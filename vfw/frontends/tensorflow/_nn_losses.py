"""tf.nn losses: sigmoid / softmax / sparse softmax / weighted cross entropies, log-Poisson, l2_loss, and the
distribution helpers compute_average_loss and scale_regularization_loss (one replica).

Each loss is TF's formula in engine ops, so gradients (also for float labels and targets) are
the same functions' gradients; the softmax cross entropy keeps TF's fused kernel's gradient
``softmax - labels`` for logits (exact only when labels sum to 1, as TF's).
"""

import math

import numpy as np

from vfw.frontends.tensorflow import _math_binary, _math_ops
from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, op_error, wrap
from vfw.frontends.tensorflow._op_support import (
    F16,
    F32,
    FLOATS,
    I64,
    SIGNED,
    UNSIGNED,
    OpTypes,
    cast,
    int64s,
    reduce,
    reshape,
    same_dtype,
    scalar_like,
)
from vfw.frontends.tensorflow._traced_shapes import reshaped_like

_LABEL_TYPES = frozenset({np.dtype(np.int32), I64})


_EXP_TYPES = OpTypes("Exp", FLOATS)
_SOFTMAX_CROSS_ENTROPY_WITH_LOGITS_TYPES = OpTypes("SoftmaxCrossEntropyWithLogits", FLOATS)
_SPARSE_SOFTMAX_CROSS_ENTROPY_WITH_LOGITS_TYPES = OpTypes("SparseSoftmaxCrossEntropyWithLogits", FLOATS)
_L2_LOSS_TYPES = OpTypes("L2Loss", FLOATS)
_SUM_TYPES = OpTypes("Sum", FLOATS | SIGNED | UNSIGNED)


def _same_shape(logits, labels, first="logits", second="labels"):
    if logits.array.shape != labels.array.shape:
        raise ValueError(f"`{first}` and `{second}` must have the same shape, received ({logits.array.shape} vs "
                         f"{labels.array.shape}).")


def _log1p_exp(x):
    return call("Log1p", call("Exp", x, tf_op="Exp"), tf_op="Log1p")


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Elementwise ``max(x, 0) - x * z + log(1 + exp(-|x|))`` for logits x and labels z (same shape)."""
    if labels is None or logits is None:
        raise ValueError("Both `labels` and `logits` must be provided for sigmoid_cross_entropy_with_logits"
                         f"Received: labels={labels} and logits={logits}")
    x = convert_to_tensor(logits)
    z = convert_to_tensor(labels)
    _same_shape(x, z)
    same_dtype("Mul", x, z)
    _EXP_TYPES.check(x.array.dtype)
    zero = scalar_like(0, x)
    positive = call("GreaterOrEqual", x, zero, tf_op="GreaterEqual")
    rectified = call("Where", positive, x, zero, tf_op="SelectV2")
    negative_abs = call("Where", positive, call("Neg", x, tf_op="Neg"), x, tf_op="SelectV2")
    linear = call("Sub", rectified, call("Mul", x, z, tf_op="Mul"), tf_op="Sub")
    return call("Add", linear, _log1p_exp(negative_abs), tf_op="AddV2")


def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """Sigmoid cross entropy with positive examples weighted by ``pos_weight``:
    ``(1 - z) * x + (1 + (q - 1) * z) * (log(1 + exp(-|x|)) + max(-x, 0))``."""
    x = convert_to_tensor(logits)
    z = convert_to_tensor(labels)
    _same_shape(x, z)
    q = convert_to_tensor(pos_weight, dtype=z.dtype)  # TypeError for integer labels, as TF
    same_dtype("Mul", x, z)
    _EXP_TYPES.check(x.array.dtype)
    one = scalar_like(1, z)
    log_weight = call("Add", one, call("Mul", call("Sub", q, one, tf_op="Sub"), z, tf_op="Mul"), tf_op="AddV2")
    negative_abs = call("Neg", call("Abs", x, tf_op="Abs"), tf_op="Neg")
    softplus_neg = call("Add", _log1p_exp(negative_abs), call("Relu", call("Neg", x, tf_op="Neg"), tf_op="Relu"),
                        tf_op="AddV2")
    linear = call("Mul", call("Sub", one, z, tf_op="Sub"), x, tf_op="Mul")
    return call("Add", linear, call("Mul", log_weight, softplus_neg, tf_op="Mul"), tf_op="AddV2")


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """``-sum(labels * log_softmax(logits), axis)``; labels (probabilities) are cast to the logits' dtype and
    broadcast against them. Float16 is computed in float32.

    The gradient is ``softmax - labels`` for logits (TF's fused kernel) and ``-log_softmax`` for labels.
    """
    x = convert_to_tensor(logits)
    z = convert_to_tensor(labels)
    _SOFTMAX_CROSS_ENTROPY_WITH_LOGITS_TYPES.check(x.array.dtype)
    half = x.array.dtype == F16
    if half:
        x = cast(x, F32)
    z = cast(z, x.array.dtype)
    if not x.array.ndim:
        raise op_error("logits and labels must be at least rank 1 (scalars received)", "SoftmaxCrossEntropyWithLogits")
    try:
        shape = np.broadcast_shapes(x.array.shape, z.array.shape)
    except ValueError:
        raise op_error(f"logits and labels must be broadcastable: logits_size={list(x.array.shape)} labels_size="
                       f"{list(z.array.shape)}", "SoftmaxCrossEntropyWithLogits") from None
    if shape != x.array.shape:  # TF reshapes the loss to the logits' shape without the class dim
        raise op_error(f"Input to reshape is a tensor with {math.prod(shape) // shape[axis]} values, but the "
                       f"requested shape has {math.prod(x.array.shape) // x.array.shape[axis]}", "Reshape")
    log_sum = reduce("ReduceLogSumExp", x, [axis], True, "SoftmaxCrossEntropyWithLogits")
    frozen = wrap(log_sum.array)  # the log-sum-exp without its gradient
    weighted = call("Mul", z, call("Sub", frozen, x, tf_op="Sub"), tf_op="Mul")
    per_label = reduce("ReduceSum", weighted, [axis], False, "Sum")
    # log_sum - frozen is 0 but carries softmax(logits) as gradient: TF's backprop is softmax - labels.
    correction = reduce("ReduceSum", call("Sub", log_sum, frozen, tf_op="Sub"), [axis], False, "Sum")
    loss = call("Add", per_label, correction, tf_op="AddV2")
    return cast(loss, F16) if half else loss


def _check_sparse_labels(labels, logits):
    if not logits.array.ndim:
        raise ValueError(f"`logits` cannot be a scalar. Received logits={logits.array}`")
    if labels.array.ndim != logits.array.ndim - 1:
        raise ValueError(f"`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: labels.shape="
                         f"{labels.array.shape} of rank {labels.array.ndim} and logits.shape={logits.array.shape} of "
                         f"rank {logits.array.ndim}")
    if labels.array.shape != logits.array.shape[:-1]:
        raise ValueError(f"`labels.shape` must equal `logits.shape` except for the last dimension. Received: "
                         f"labels.shape={labels.array.shape} and logits.shape={logits.array.shape}")
    if labels.array.dtype not in _LABEL_TYPES:
        raise op_error(f"Value for attr 'Tlabels' of {labels.dtype.name.replace('32', '')} is not in the list of "
                       "allowed values: int32, int64", "SparseSoftmaxCrossEntropyWithLogits")
    classes = logits.array.shape[-1]

    def labels_in_range(values):
        bad = (values < 0) | (values >= classes)
        if bad.any():  # TF's CPU kernel refuses them (its GPU kernel gives NaN)
            raise op_error(f"Received a label value of {values[bad].flat[0]} which is outside the valid range of "
                           f"[0, {classes}).  Label values: {' '.join(map(str, values.reshape(-1)))}",
                           "SparseSoftmaxCrossEntropyWithLogits")

    # Now only, with TF's message: at later runs of a graph the engine's SoftmaxCrossEntropyLoss kernel refuses
    # out-of-range labels itself (InvalidArgumentError too), and a graph without a PyFunc check can be saved.
    labels_in_range(labels.array)


def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """``-log_softmax(logits)[..., labels]``: cross entropy against integer class labels (shape ``logits.shape[:-1]``).

    Labels outside ``[0, num_classes)`` raise InvalidArgumentError (TF's CPU behaviour).
    """
    z = convert_to_tensor(labels)
    x = convert_to_tensor(logits)
    _check_sparse_labels(z, x)
    _SPARSE_SOFTMAX_CROSS_ENTROPY_WITH_LOGITS_TYPES.check(x.array.dtype)
    half = x.array.dtype == F16
    if half:
        x = cast(x, F32)
    classes = x.array.shape[-1]
    flat = reshape(x, (-1, classes))
    loss = call("SoftmaxCrossEntropyLoss", flat, reshape(z, (-1,)), None, reduction="none",
                tf_op="SparseSoftmaxCrossEntropyWithLogits")[0]
    loss = reshaped_like(loss, z, "SparseSoftmaxCrossEntropyWithLogits")
    return cast(loss, F16) if half else loss


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """``exp(log_input) - log_input * targets``, plus Stirling's approximation of ``log(targets!)`` for targets
    outside [0, 1] when ``compute_full_loss``."""
    c = convert_to_tensor(log_input)
    z = convert_to_tensor(targets)
    _same_shape(c, z, "log_input", "targets")
    same_dtype("Mul", c, z)
    _EXP_TYPES.check(c.array.dtype)
    result = call("Sub", call("Exp", c, tf_op="Exp"), call("Mul", c, z, tf_op="Mul"), tf_op="Sub")
    if not compute_full_loss:
        return result
    z_log_z = call("Sub", call("Mul", z, call("Log", z, tf_op="Log"), tf_op="Mul"), z, tf_op="Sub")
    log_2pi_z = call("Log", call("Mul", scalar_like(2 * np.pi, z), z, tf_op="Mul"), tf_op="Log")
    stirling = call("Add", z_log_z, call("Mul", scalar_like(0.5, z), log_2pi_z, tf_op="Mul"), tf_op="AddV2")
    small = call("And", call("GreaterOrEqual", z, scalar_like(0, z), tf_op="GreaterEqual"),
                 call("LessOrEqual", z, scalar_like(1, z), tf_op="LessEqual"), tf_op="LogicalAnd")
    return call("Add", result, call("Where", small, scalar_like(0, z), stirling, tf_op="SelectV2"), tf_op="AddV2")


def l2_loss(t, name=None):
    """``sum(t ** 2) / 2``."""
    x = convert_to_tensor(t)
    _L2_LOSS_TYPES.check(x.array.dtype)
    squares = reduce("ReduceSumSquare", x, None, False, "L2Loss")
    return call("Mul", squares, scalar_like(0.5, squares), tf_op="L2Loss")


def _weighted_losses(losses, weights):
    """Losses times sample weights, in float32, with Keras's rank matching (a weight dim of 1 too many is
    squeezed, one too few is added)."""
    losses, weights = cast(losses, F32), cast(weights, F32)
    difference = weights.array.ndim - losses.array.ndim
    if weights.array.ndim and difference == 1:
        weights = call("Squeeze", weights, int64s([-1]), tf_op="Squeeze")
    elif weights.array.ndim and difference == -1:
        weights = call("Unsqueeze", weights, int64s([-1]), tf_op="ExpandDims")
    try:
        np.broadcast_shapes(losses.array.shape, weights.array.shape)
    except ValueError:
        raise op_error(f"Incompatible shapes: {list(losses.array.shape)} vs. {list(weights.array.shape)}",
                       "Mul") from None
    return call("Mul", losses, weights, tf_op="Mul")


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """Sum of (weighted) per-example losses divided by the global batch size (the first dim by default).

    Integer losses give a float result (TF's true division).
    """
    loss = convert_to_tensor(per_example_loss)
    dtype = loss.array.dtype
    if not loss.array.ndim:
        raise ValueError("Invalid value passed for `per_example_loss`. Expected a tensor with at least rank 1. "
                         f"Received per_example_loss={loss.array} with rank 0")
    _SUM_TYPES.check(loss.array.dtype)
    if sample_weight is not None:
        loss = cast(_weighted_losses(loss, convert_to_tensor(sample_weight)), dtype)
    if global_batch_size is None:
        # the global batch is every replica's: this one's times the number of replicas (one per MPI process)
        batch = convert_to_tensor(loss.array.shape[0] * _replicas_in_sync("compute_average_loss"))
    else:
        batch = convert_to_tensor(global_batch_size)
        if batch.array.ndim:
            raise ValueError(f"global_batch_size must be a scalar. Received rank {batch.array.ndim}.")
        if batch.array.dtype.kind not in "iu":
            raise TypeError("global_batch_size must be an integer..  Expected \"x\" to be integer type.  Found: "
                            f"tensor of dtype {batch.dtype!r}")
        if batch.array < 0:  # TF's assert_non_negative
            raise op_error("global_batch_size must be non-negative..  \nCondition x >= 0 did not hold element-wise:"
                           f"\nx (shape=() dtype={batch.dtype.name}) = \n{batch.array}")
    # div_no_nan: an empty global batch gives 0
    return _math_binary.divide_no_nan(reduce("ReduceSum", loss, None, False, "Sum"), cast(batch, dtype))


def scale_regularization_loss(regularization_loss):
    """The summed regularization loss divided by the number of replicas (one per MPI process)."""
    replicas = _replicas_in_sync("scale_regularization_loss")
    loss = convert_to_tensor(regularization_loss)
    _SUM_TYPES.check(loss.array.dtype)
    return _math_ops.divide(reduce("ReduceSum", loss, None, False, "Sum"), replicas)


def _replicas_in_sync(name):
    """The current strategy's number of replicas; a RuntimeError in its cross-replica context, as TF."""
    from vfw.frontends.tensorflow import distribute

    if distribute.has_strategy() and distribute.in_cross_replica_context():
        raise RuntimeError(f"You are calling `{name}` in cross replica context, while it was expected to be called "
                           "in replica context.")
    return distribute.get_strategy().num_replicas_in_sync


NAMESPACES = {
    "nn": ["sigmoid_cross_entropy_with_logits", "weighted_cross_entropy_with_logits",
           "softmax_cross_entropy_with_logits", "sparse_softmax_cross_entropy_with_logits", "log_poisson_loss",
           "l2_loss", "compute_average_loss", "scale_regularization_loss"],
}
TENSOR_METHODS = {}
