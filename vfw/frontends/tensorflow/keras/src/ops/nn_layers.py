"""keras.ops functions behind normalization and attention layers: layer_normalization, rms_normalization,
dot_product_attention, depth_to_space, space_to_depth."""

import vfw.tensorflow as tf
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src.backend import config
from vfw.frontends.tensorflow.keras.src.backend.config import standardize_data_format
from vfw.frontends.tensorflow.keras.src.backend.dtypes import result_type
from vfw.frontends.tensorflow.keras.src.ops._common import convert_to_tensor, keras_op


def _to_compute_dtype(x):
    """``x`` as a tensor of at least float32 precision, and its own dtype name."""
    x = convert_to_tensor(x)
    dtype = x.dtype.name
    return convert_to_tensor(x, result_type(dtype, "float32")), dtype


@keras_op
def layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None, **kwargs):
    """``(x - mean) / sqrt(variance + epsilon) * gamma + beta`` with the statistics over ``axis``.

    Computed in at least float32 and cast back to ``x``'s dtype.  (``rms_scaling=True`` is Keras'
    deprecated variance scaling.)
    """
    rms_scaling = kwargs.pop("rms_scaling", False)
    if rms_scaling:
        warn_for_user("You passed `rms_scaling=True`, which is deprecated. This argument incorrectly scales the input "
                      "by the variance, not the root mean square. To correctly use RMS Normalization, please use "
                      "`keras.ops.rms_normalization` / `keras.ops.nn.rms_normalization` instead.")
    epsilon = config.epsilon() if epsilon is None else epsilon
    x, dtype = _to_compute_dtype(x)
    gamma = None if gamma is None else convert_to_tensor(gamma, x.dtype)
    beta = None if beta is None else convert_to_tensor(beta, x.dtype)
    ndim = len(x.shape)
    axes = sorted([axis] if isinstance(axis, int) else axis)
    broadcast_shape = [x.shape[d] if d in [a % ndim for a in axes] else 1 for d in range(ndim)]

    def broadcast(v):
        if v is not None and len(v.shape) != ndim and axes != [ndim - 1]:
            return tf.reshape(v, broadcast_shape)
        return v

    if rms_scaling:
        outputs = x * tf.math.rsqrt(tf.math.reduce_variance(x, axis=axes, keepdims=True) + epsilon)
        if gamma is not None:
            outputs = outputs * broadcast(gamma)
        return tf.cast(outputs, dtype)
    mean, variance = tf.nn.moments(x, axes, keepdims=True)
    gamma, beta = broadcast(gamma), broadcast(beta)
    inverse = tf.math.rsqrt(variance + epsilon)
    if gamma is not None:
        inverse = inverse * gamma
    offset = -mean * inverse
    if beta is not None:
        offset = offset + beta
    return tf.cast(x * inverse + offset, dtype)


@keras_op
def rms_normalization(x, scale=None, axis=-1, epsilon=None):
    """``x / sqrt(mean(x**2) + epsilon) * scale`` with the mean over ``axis`` (at least float32 inside)."""
    epsilon = config.epsilon() if epsilon is None else epsilon
    x, dtype = _to_compute_dtype(x)
    if scale is not None:
        scale = convert_to_tensor(scale, x.dtype)
    if isinstance(axis, (tuple, list)):
        axis = sorted(axis)
    if not x.shape.rank:
        x = tf.expand_dims(x, 0)
    mean_square = tf.reduce_mean(tf.math.square(x), axis=axis, keepdims=True)
    outputs = x * tf.math.rsqrt(mean_square + epsilon)
    if scale is not None:
        outputs = outputs * scale
    return tf.cast(outputs, dtype)


def _large_negative(dtype):
    """The masked-out logit: -0.7 times about the largest finite value of ``dtype``."""
    return tf.constant((65500.0 if dtype.name == "float16" else 3.38953e38) * -0.7, dtype=dtype)


@keras_op
def dot_product_attention(query, key, value, bias=None, mask=None, scale=None, is_causal=False, flash_attention=None,
                          attn_logits_soft_cap=None):
    """Scaled dot-product attention of ``(batch, length, heads, head_dim)`` queries, keys and values.

    Parameters
    ----------
    bias : tensor, optional
        Added to the logits ``(batch, heads, target, source)``.
    mask : bool tensor, optional
        False entries are masked out.
    scale : float, optional
        Defaults to ``1 / sqrt(head_dim)``.
    is_causal : bool
        Mask out future positions.
    flash_attention : bool, optional
        Must not be True (no flash attention on TensorFlow).

    Grouped-query attention: with more query heads than key/value heads, keys and values repeat.
    """
    if attn_logits_soft_cap is not None:
        raise ValueError("attn_logits_soft_cap is only supported for JAX on TPU. Set attn_logits_soft_cap=None when "
                         "not using JAX on TPU.")
    if flash_attention:
        raise ValueError("Flash attention is not supported in tensorflow backend.")
    query, key, value = convert_to_tensor(query), convert_to_tensor(key), convert_to_tensor(value)
    if len(query.shape) != 4:
        raise ValueError(f"`dot_product_attention` only supports 4D inputs. Received: query.shape={query.shape}, "
                         f"key.shape={key.shape}, value.shape={value.shape}.")
    dtype = result_type(query.dtype.name, key.dtype.name, value.dtype.name)
    query, key, value = tf.cast(query, dtype), tf.cast(key, dtype), tf.cast(value, dtype)
    query_heads, kv_heads = query.shape[2], key.shape[2]
    if query_heads > kv_heads > 1:
        key = tf.repeat(key, repeats=query_heads // kv_heads, axis=2)
        value = tf.repeat(value, repeats=query_heads // kv_heads, axis=2)
    if bias is not None:
        bias = convert_to_tensor(bias, dtype=dtype)
    if scale is None:
        scale = 1.0 / tf.sqrt(tf.cast(key.shape[-1], "float32"))
    logits = tf.einsum("BTNH,BSNH->BNTS", query, key)
    logits = tf.cast(logits, result_type(query.dtype.name, "float32"))
    logits = logits * tf.cast(scale, logits.dtype)
    if bias is not None:
        logits = logits + tf.cast(bias, logits.dtype)
    if mask is not None or is_causal:
        keep = tf.ones_like(logits, dtype="bool")
        if mask is not None:
            keep = tf.logical_and(keep, mask)
        if is_causal:
            target, source = logits.shape[2], logits.shape[3]
            keep = tf.logical_and(keep, tf.linalg.band_part(tf.ones((target, source), "bool"), -1, 0)[None, None])
        logits = tf.where(keep, logits, _large_negative(logits.dtype))
    probabilities = tf.nn.softmax(tf.cast(logits, result_type(logits.dtype.name, "float32")), axis=-1)
    return tf.einsum("BNTS,BSNH->BTNH", tf.cast(probabilities, key.dtype), value)


def _block_rearrange(x, block_size, data_format, tf_function):
    data_format = standardize_data_format(data_format)
    if block_size < 2:
        raise ValueError(f"`block_size` must be at least 2. Received: block_size={block_size}")
    x = convert_to_tensor(x)
    if data_format == "channels_last":
        return tf_function(x, block_size, data_format="NHWC")
    out = tf_function(tf.transpose(x, [0, 2, 3, 1]), block_size, data_format="NHWC")
    return tf.transpose(out, [0, 3, 1, 2])


@keras_op
def depth_to_space(x, block_size, data_format="channels_last"):
    """Move channel blocks into ``block_size x block_size`` spatial blocks (4-D images)."""
    return _block_rearrange(x, block_size, data_format, tf.nn.depth_to_space)


@keras_op
def space_to_depth(x, block_size, data_format="channels_last"):
    """Move ``block_size x block_size`` spatial blocks into channels (4-D images)."""
    return _block_rearrange(x, block_size, data_format, tf.nn.space_to_depth)
