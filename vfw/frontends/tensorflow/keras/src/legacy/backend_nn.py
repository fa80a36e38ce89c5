"""tf.keras.backend's legacy Keras 2 functions, part 2: products, activations, losses, convolution and
pooling, padding and resizing, CTC (``backend_math`` has the elementwise, shape, variable and random
ones, ``backend_control`` the control flow).

Each maps to the vfw.tensorflow op Keras' legacy backend calls (``tf.compat.v1`` ones to their TF2
equivalents), so values, dtypes and gradients are TF's.  Not served: ``ctc_label_dense_to_sparse``
(vfw has no ``tf.SparseTensor``) and ``ctc_decode(greedy=False)`` (no beam-search decoder).
"""

import itertools

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.backend.config import epsilon, image_data_format
from vfw.frontends.tensorflow.keras.src.layers.merging import batch_dot_axes
from vfw.frontends.tensorflow.keras.src.legacy.backend_math import ndim, repeat_elements
from vfw.frontends.tensorflow.keras.src.ops.nn_extra import ctc_decode as _ctc_greedy_decode

API = {"backend": [
    "batch_dot", "dot", "bias_add", "batch_normalization", "l2_normalize", "in_top_k", "relu", "elu",
    "hard_sigmoid", "softmax", "dropout", "binary_crossentropy", "binary_focal_crossentropy",
    "categorical_crossentropy", "categorical_focal_crossentropy", "sparse_categorical_crossentropy", "conv1d",
    "conv2d", "conv2d_transpose", "conv3d", "depthwise_conv2d", "separable_conv2d", "pool2d", "pool3d",
    "temporal_padding", "spatial_2d_padding", "spatial_3d_padding", "resize_images", "resize_volumes",
    "ctc_batch_cost", "ctc_decode",
]}


# -- products -------------------------------------------------------------------------------------------------------
def dot(x, y):
    """``x . y``: a matmul for matrices; for higher ranks, ``x``'s last axis against ``y``'s second to last
    (result shape ``x.shape[:-1] + y.shape[:-2] + y.shape[-1:]``, as Theano's dot)."""
    if ndim(x) is not None and (ndim(x) > 2 or ndim(y) > 2):
        x_shape, y_shape = tuple(x.shape.as_list()), tuple(y.shape.as_list())
        y_axes = list(range(ndim(y)))
        y_axes = [y_axes.pop(-2)] + y_axes
        flat_x = tf.reshape(x, [-1, x_shape[-1]])
        flat_y = tf.reshape(tf.transpose(y, perm=y_axes), [y_shape[-2], -1])
        return tf.reshape(tf.matmul(flat_x, flat_y), x_shape[:-1] + y_shape[:-2] + y_shape[-1:])
    return tf.matmul(x, y)


def batch_dot(x, y, axes=None):
    """Per-sample dot product of batches ``x`` and ``y`` (rank >= 2) contracting ``x``'s axis ``axes[0]``
    with ``y``'s ``axes[1]`` (default: ``x``'s last with ``y``'s second to last, or last for a matrix ``y``).
    The result has ``x``'s other axes then ``y``'s; rank-2 inputs lose the added axis."""
    x_ndim, y_ndim = len(x.shape), len(y.shape)
    x_axis, y_axis = batch_dot_axes(x.shape, y.shape, axes, shapes="tf.shapes", expand="K.expand_dims(x, 0)",
                                    provided="")
    # Contracted axis last in x, second in y; then x (b, rest_x..., k) and y (b, k, rest_y...) flatten their
    # other axes to one matmul (b, m, k) @ (b, k, n).
    x = tf.transpose(x, [a for a in range(x_ndim) if a != x_axis] + [x_axis])
    y = tf.transpose(y, [0, y_axis] + [a for a in range(1, y_ndim) if a != y_axis])
    x_rest, y_rest = tf.shape(x)[1:-1], tf.shape(y)[2:]
    batch = tf.shape(x)[:1]
    flat_x = tf.reshape(x, tf.concat([batch, [-1], tf.shape(x)[-1:]], 0))
    flat_y = tf.reshape(y, tf.concat([batch, tf.shape(y)[1:2], [-1]], 0))
    # Keras drops the axis it adds to a rank-2 x (or else to a rank-2 y): two matrices give (batch, 1).
    extra = [1] if x_ndim == y_ndim == 2 else []
    return tf.reshape(tf.matmul(flat_x, flat_y), tf.concat([batch, x_rest, y_rest, extra], 0))


# -- layers' math -------------------------------------------------------------------------------------------------
def _data_format(data_format):
    data_format = data_format or image_data_format()
    if data_format not in {"channels_first", "channels_last"}:
        raise ValueError(f"Unknown data_format: {data_format}")
    return data_format


def bias_add(x, bias, data_format=None):
    """``x + bias`` with ``bias`` on the channel axis (1-D) or the non-batch axes (rank(x) - 1)."""
    data_format = _data_format(data_format)
    bias_shape = tuple(bias.shape)
    if len(bias_shape) != 1 and len(bias_shape) != ndim(x) - 1:
        raise ValueError(f"Unexpected bias dimensions {len(bias_shape)}. Expected it to be 1 or {ndim(x) - 1} "
                         f"dimensions")
    if len(bias_shape) == 1:
        return tf.nn.bias_add(x, bias, data_format="NCHW" if data_format == "channels_first" else "NHWC")
    if ndim(x) in (3, 4, 5):
        if data_format == "channels_first":
            return x + tf.reshape(bias, (1, bias_shape[-1]) + bias_shape[:-1])
        return x + tf.reshape(bias, (1,) + bias_shape)
    return tf.nn.bias_add(x, bias)


def batch_normalization(x, mean, var, beta, gamma, axis=-1, epsilon=1e-3):
    """``(x - mean) / sqrt(var + epsilon) * gamma + beta`` (``axis`` unused, as in Keras)."""
    return tf.nn.batch_normalization(x, mean, var, beta, gamma, epsilon)


def l2_normalize(x, axis=None):
    """``x`` divided by its L2 norm over ``axis``."""
    return tf.linalg.l2_normalize(x, axis=axis)


def in_top_k(predictions, targets, k):
    """Whether each target class is among its row's ``k`` largest predictions."""
    return tf.math.in_top_k(targets, predictions, k)


def relu(x, alpha=0.0, max_value=None, threshold=0.0):
    """``x`` above ``threshold`` (else ``alpha * (x - threshold)``), capped at ``max_value``."""
    if alpha != 0.0:
        if max_value is None and threshold == 0:
            return tf.nn.leaky_relu(x, alpha=alpha)
        negative_part = tf.nn.relu(-x + threshold) if threshold != 0 else tf.nn.relu(-x)
    clip_max = max_value is not None
    if threshold != 0:
        x = x * tf.cast(tf.greater(x, threshold), dtype=getattr(x, "dtype", None) or "float32")
    elif max_value == 6:
        x = tf.nn.relu6(x)  # TF's native op, as Keras
        clip_max = False
    else:
        x = tf.nn.relu(x)
    if clip_max:
        x = tf.clip_by_value(x, tf.convert_to_tensor(0, dtype=x.dtype), tf.convert_to_tensor(max_value, x.dtype))
    if alpha != 0.0:
        x -= tf.convert_to_tensor(alpha, dtype=x.dtype) * negative_part
    return x


def elu(x, alpha=1.0):
    """``x`` for ``x > 0``, else ``alpha * (exp(x) - 1)``."""
    res = tf.nn.elu(x)
    return res if alpha == 1 else tf.where(x > 0, res, alpha * res)


def hard_sigmoid(x):
    """``clip(0.2 * x + 0.5, 0, 1)``."""
    x = tf.add(tf.multiply(x, tf.convert_to_tensor(0.2, dtype=x.dtype)), tf.convert_to_tensor(0.5, dtype=x.dtype))
    return tf.clip_by_value(x, 0.0, 1.0)


def softmax(x, axis=-1):
    """Softmax over ``axis`` (an int or a tuple of axes); ``x`` of rank >= 2."""
    if x.shape.rank <= 1:
        # TF formats an eager tensor in f-strings as its numpy value.
        shown = x.numpy() if tf.executing_eagerly() and hasattr(x, "numpy") else x
        raise ValueError(f"Cannot apply softmax to a tensor that is 1D. Received input: {shown}")
    if isinstance(axis, int):
        return tf.nn.softmax(x, axis=axis)
    numerator = tf.exp(x - tf.reduce_max(x, axis=axis, keepdims=True))
    return numerator / tf.reduce_sum(numerator, axis=axis, keepdims=True)


def dropout(x, level, noise_shape=None, seed=None):
    """``tf.nn.dropout`` at rate ``level`` (op seed from numpy's global RNG when None)."""
    seed = np.random.randint(10e6) if seed is None else seed
    return tf.nn.dropout(x, rate=level, noise_shape=noise_shape, seed=seed)


# -- losses ---------------------------------------------------------------------------------------------------------
def _clipped(output):
    eps = tf.convert_to_tensor(epsilon(), output.dtype)
    return tf.clip_by_value(output, eps, 1.0 - eps)


def binary_crossentropy(target, output, from_logits=False):
    """Elementwise binary cross-entropy of probabilities (clipped to [eps, 1 - eps]) or logits."""
    target, output = tf.convert_to_tensor(target), tf.convert_to_tensor(output)
    if from_logits:
        return tf.nn.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    output = _clipped(output)
    bce = target * tf.math.log(output + epsilon())
    bce += (1 - target) * tf.math.log(1 - output + epsilon())
    return -bce


def binary_focal_crossentropy(target, output, apply_class_balancing=False, alpha=0.25, gamma=2.0,
                              from_logits=False):
    """Binary cross-entropy weighted by ``(1 - p_t) ** gamma`` (and ``alpha`` class weights if balancing)."""
    probabilities = tf.sigmoid(output) if from_logits else output
    p_t = target * probabilities + (1 - target) * (1 - probabilities)
    focal_bce = tf.pow(1.0 - p_t, gamma) * binary_crossentropy(target, output, from_logits=from_logits)
    if apply_class_balancing:
        focal_bce = (target * alpha + (1 - target) * (1 - alpha)) * focal_bce
    return focal_bce


def _normalized_probabilities(target, output, axis, from_logits):
    target, output = tf.convert_to_tensor(target), tf.convert_to_tensor(output)
    target.shape.assert_is_compatible_with(output.shape)
    if from_logits:
        output = tf.nn.softmax(output, axis=axis)
    return target, _clipped(output / tf.reduce_sum(output, axis=axis, keepdims=True))


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """Cross-entropy of one-hot ``target`` and probabilities (renormalized, clipped) or logits over ``axis``."""
    if from_logits:
        target, output = tf.convert_to_tensor(target), tf.convert_to_tensor(output)
        target.shape.assert_is_compatible_with(output.shape)
        return tf.nn.softmax_cross_entropy_with_logits(labels=target, logits=output, axis=axis)
    target, output = _normalized_probabilities(target, output, axis, False)
    return -tf.reduce_sum(target * tf.math.log(output), axis)


def categorical_focal_crossentropy(target, output, alpha=0.25, gamma=2.0, from_logits=False, axis=-1):
    """Categorical cross-entropy weighted by ``alpha * (1 - p) ** gamma``."""
    target, output = _normalized_probabilities(target, output, axis, from_logits)
    weight = tf.multiply(tf.pow(1.0 - output, gamma), alpha)
    return tf.reduce_sum(tf.multiply(weight, -target * tf.math.log(output)), axis=axis)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1, ignore_class=None):
    """Cross-entropy of int class ``target`` and probabilities (clipped) or logits over ``axis``; entries of
    class ``ignore_class`` get 0."""
    target = tf.cast(tf.convert_to_tensor(target), "int64")
    output = tf.convert_to_tensor(output)
    if not from_logits:
        output = tf.math.log(_clipped(output))
    output_rank = output.shape.rank
    axis %= output_rank
    if axis != output_rank - 1:
        output = tf.transpose(output, perm=list(itertools.chain(range(axis), range(axis + 1, output_rank), [axis])))
    output_shape = tf.shape(output)
    reshaped = target.shape.rank != output_rank - 1
    if reshaped:
        target = tf.reshape(target, [-1])
        output = tf.reshape(output, [-1, output_shape[-1]])
    if ignore_class is not None:
        valid = tf.not_equal(target, tf.cast(ignore_class, target.dtype))
        res = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=target[valid], logits=output[valid])
        res_shape = tf.cast(output_shape[:-1], "int64")
        return tf.scatter_nd(tf.where(tf.reshape(valid, res_shape)), res, res_shape)
    res = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=output)
    if reshaped and output_rank >= 3:
        res = tf.reshape(res, output_shape[:-1])
    return res


# -- convolution and pooling ----------------------------------------------------------------------------------------
_TF_FORMATS = {1: ("NWC", "NCW"), 2: ("NHWC", "NCHW"), 3: ("NDHWC", "NCDHW")}


def _tf_format(data_format, spatial):
    return _TF_FORMATS[spatial][data_format == "channels_first"]


def _padding(padding):
    if padding not in ("same", "valid"):
        raise ValueError(f"Invalid padding: {padding}")
    return padding.upper()


def _convolution(x, kernel, strides, padding, data_format, dilation_rate, spatial):
    data_format = _data_format(data_format)
    return tf.nn.convolution(x, kernel, strides=strides, padding=_padding(padding),
                             data_format=_tf_format(data_format, spatial), dilations=dilation_rate)


def conv1d(x, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """1-D convolution ("causal" padding: left-padded by ``dilation_rate * (kernel_size - 1)``)."""
    if padding == "causal":
        x = temporal_padding(x, (dilation_rate * (kernel.shape[0] - 1), 0))
        padding = "valid"
    return _convolution(x, kernel, strides, padding, data_format, dilation_rate, 1)


def conv2d(x, kernel, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1)):
    """2-D convolution of ``x`` with ``kernel`` (kh, kw, in, out)."""
    return _convolution(x, kernel, strides, padding, data_format, dilation_rate, 2)


def conv3d(x, kernel, strides=(1, 1, 1), padding="valid", data_format=None, dilation_rate=(1, 1, 1)):
    """3-D convolution of ``x`` with ``kernel`` (kd, kh, kw, in, out)."""
    return _convolution(x, kernel, strides, padding, data_format, dilation_rate, 3)


def _full_strides(strides, tf_format):
    return (1,) + tuple(strides) + (1,) if tf_format.endswith("C") else (1, 1) + tuple(strides)


def conv2d_transpose(x, kernel, output_shape, strides=(1, 1), padding="valid", data_format=None,
                     dilation_rate=(1, 1)):
    """Transposed 2-D convolution to ``output_shape`` (a None batch size takes ``x``'s)."""
    data_format = _data_format(data_format)
    # Dilated transposed convolutions (atrous) exist only channels-last: channels-first goes through a transpose.
    moved = data_format == "channels_first" and dilation_rate != (1, 1)
    if moved:
        x = tf.transpose(x, (0, 2, 3, 1))
        output_shape = (output_shape[0], output_shape[2], output_shape[3], output_shape[1])
    tf_format = "NHWC" if moved else _tf_format(data_format, 2)
    if output_shape[0] is None:
        output_shape = (tf.shape(x)[0],) + tuple(output_shape[1:])
    if isinstance(output_shape, (tuple, list)):
        output_shape = tf.stack(list(output_shape))
    padding = _padding(padding)
    if dilation_rate == (1, 1):
        x = tf.nn.conv2d_transpose(x, kernel, output_shape, _full_strides(strides, tf_format), padding=padding,
                                   data_format=tf_format)
    else:
        if dilation_rate[0] != dilation_rate[1]:
            raise ValueError(f"Expected the 2 dimensions of the `dilation_rate` argument to be equal to each other. "
                             f"Received: dilation_rate={dilation_rate}")
        x = tf.nn.atrous_conv2d_transpose(x, kernel, output_shape, rate=dilation_rate[0], padding=padding)
    return tf.transpose(x, (0, 3, 1, 2)) if moved else x


def depthwise_conv2d(x, depthwise_kernel, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1)):
    """Depthwise 2-D convolution (kernel (kh, kw, in, multiplier))."""
    tf_format = _tf_format(_data_format(data_format), 2)
    return tf.nn.depthwise_conv2d(x, depthwise_kernel, strides=_full_strides(strides, tf_format),
                                  padding=_padding(padding), dilations=dilation_rate, data_format=tf_format)


def separable_conv2d(x, depthwise_kernel, pointwise_kernel, strides=(1, 1), padding="valid", data_format=None,
                     dilation_rate=(1, 1)):
    """Depthwise then 1x1 pointwise 2-D convolution."""
    tf_format = _tf_format(_data_format(data_format), 2)
    if len(strides) != 2:
        raise ValueError("`strides` must be a tuple of 2 integers.")
    return tf.nn.separable_conv2d(x, depthwise_kernel, pointwise_kernel, strides=_full_strides(strides, tf_format),
                                  padding=_padding(padding), dilations=dilation_rate, data_format=tf_format)


def _pool(x, pool_size, strides, padding, data_format, pool_mode, spatial):
    tf_format = _tf_format(_data_format(data_format), spatial)
    padding = _padding(padding)
    pools = {2: (tf.nn.max_pool2d, tf.nn.avg_pool2d), 3: (tf.nn.max_pool3d, tf.nn.avg_pool3d)}[spatial]
    if pool_mode not in ("max", "avg"):
        raise ValueError(f"Invalid pooling mode: {pool_mode}")
    pool = pools[pool_mode == "avg"]
    return pool(x, _full_strides(pool_size, tf_format), _full_strides(strides, tf_format), padding=padding,
                data_format=tf_format)


def pool2d(x, pool_size, strides=(1, 1), padding="valid", data_format=None, pool_mode="max"):
    """2-D max or average pooling."""
    _data_format(data_format)
    if len(pool_size) != 2:
        raise ValueError("`pool_size` must be a tuple of 2 integers.")
    if len(strides) != 2:
        raise ValueError("`strides` must be a tuple of 2 integers.")
    return _pool(x, pool_size, strides, padding, data_format, pool_mode, 2)


def pool3d(x, pool_size, strides=(1, 1, 1), padding="valid", data_format=None, pool_mode="max"):
    """3-D max or average pooling."""
    return _pool(x, pool_size, strides, padding, data_format, pool_mode, 3)


# -- padding and resizing -------------------------------------------------------------------------------------------
def temporal_padding(x, padding=(1, 1)):
    """Zero-pad the middle axis of a 3-D tensor by ``(left, right)``."""
    if len(padding) != 2:
        raise ValueError(f"Expected `padding` to be a tuple of 2 integers. Received: padding={padding}")
    return tf.pad(x, [[0, 0], [padding[0], padding[1]], [0, 0]])


def _spatial_padding(x, padding, data_format, spatial):
    if len(padding) != spatial or any(len(pair) != 2 for pair in padding):
        words = {2: "2 tuples", 3: "3 tuples"}[spatial]
        raise ValueError(f"Expected `padding` to be a tuple of {words} of 2 integers. Received: padding={padding}")
    pads = [[pair[0], pair[1]] for pair in padding]
    if _data_format(data_format) == "channels_first":
        return tf.pad(x, [[0, 0], [0, 0]] + pads)
    return tf.pad(x, [[0, 0]] + pads + [[0, 0]])


def spatial_2d_padding(x, padding=((1, 1), (1, 1)), data_format=None):
    """Zero-pad the 2 spatial axes of a 4-D tensor by ``((top, bottom), (left, right))``."""
    return _spatial_padding(x, padding, data_format, 2)


def spatial_3d_padding(x, padding=((1, 1), (1, 1), (1, 1)), data_format=None):
    """Zero-pad the 3 spatial axes of a 5-D tensor."""
    return _spatial_padding(x, padding, data_format, 3)


_RESIZE_METHODS = ("area", "bicubic", "bilinear", "gaussian", "lanczos3", "lanczos5", "mitchellcubic", "nearest")


def resize_images(x, height_factor, width_factor, data_format, interpolation="nearest"):
    """A 4-D image batch resized by integer factors with a ``tf.image.resize`` method."""
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"Invalid `data_format` argument: {data_format}")
    rows = 2 if data_format == "channels_first" else 1
    new_size = tf.shape(x)[rows:rows + 2] * tf.constant(np.array([height_factor, width_factor], dtype="int32"))
    if interpolation not in _RESIZE_METHODS:
        names = '"' + '", "'.join(_RESIZE_METHODS) + '"'
        raise ValueError(f'`interpolation` argument should be one of: {names}. Received: "{interpolation}".')
    if data_format == "channels_first":
        x = tf.transpose(x, [0, 2, 3, 1])
    x = tf.image.resize(x, new_size, method=interpolation)
    return tf.transpose(x, [0, 3, 1, 2]) if data_format == "channels_first" else x


def resize_volumes(x, depth_factor, height_factor, width_factor, data_format):
    """A 5-D volume batch with each voxel repeated by the three factors."""
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"Invalid data_format: {data_format}")
    first = 2 if data_format == "channels_first" else 1
    for offset, factor in enumerate((depth_factor, height_factor, width_factor)):
        x = repeat_elements(x, factor, axis=first + offset)
    return x


# -- CTC ------------------------------------------------------------------------------------------------------------
def ctc_batch_cost(y_true, y_pred, input_length, label_length):
    """Per-sample CTC loss (batch, 1) of dense labels ``y_true`` (batch, max_label_length) under the
    softmax outputs ``y_pred`` (batch, frames, classes), the last class being the blank."""
    label_length = tf.cast(tf.squeeze(label_length, axis=-1), tf.int32)
    input_length = tf.cast(tf.squeeze(input_length, axis=-1), tf.int32)
    log_probs = tf.math.log(tf.transpose(y_pred, perm=[1, 0, 2]) + epsilon())
    loss = tf.nn.ctc_loss(labels=tf.cast(y_true, tf.int32), logits=log_probs, label_length=label_length,
                          logit_length=input_length, logits_time_major=True, blank_index=-1)
    return tf.expand_dims(loss, 1)


def ctc_decode(y_pred, input_length, greedy=True, beam_width=100, top_paths=1):
    """Greedy CTC decoding of softmax outputs ``y_pred`` (batch, frames, classes), the last class the blank:
    ``([decoded], log_prob)`` with ``decoded`` int (batch, frames) padded with -1 and ``log_prob`` (batch, 1)."""
    if not greedy:
        raise NotImplementedError("keras.backend.ctc_decode(greedy=False): vfw has no CTC beam-search decoder.")
    log_probs = tf.math.log(tf.convert_to_tensor(y_pred) + epsilon())
    decoded, log_prob = _ctc_greedy_decode(log_probs, tf.cast(input_length, tf.int32),
                                           mask_index=log_probs.shape[-1] - 1)
    return [tf.cast(decoded[0], tf.int64)], log_prob
