"""keras.ops.math-style functions: top_k, in_top_k, erf, erfinv, rsqrt, segment reductions, framing."""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.ops._common import convert_to_tensor, keras_op


@keras_op
def top_k(x, k, sorted=True):  # noqa: A002  (Keras' argument name)
    """``(values, indices)`` of the ``k`` largest entries of the last axis."""
    return tf.math.top_k(convert_to_tensor(x), k, sorted=sorted)


@keras_op
def in_top_k(targets, predictions, k):
    """Whether each target class is among the ``k`` largest ``predictions`` of its row."""
    # unconverted, as Keras passes them: TF converts numpy/Python predictions to the op's float32
    return tf.math.in_top_k(targets, predictions, k)


@keras_op
def erf(x):
    """The error function, elementwise."""
    return tf.math.erf(convert_to_tensor(x))


@keras_op
def erfinv(x):
    """The inverse error function, elementwise (float16/bfloat16 computed in float32)."""
    x = convert_to_tensor(x)
    if x.dtype.name in ("bfloat16", "float16"):
        return tf.cast(tf.math.erfinv(tf.cast(x, "float32")), x.dtype)
    return tf.math.erfinv(x)


@keras_op
def rsqrt(x):
    """``1 / sqrt(x)``, elementwise."""
    return tf.math.rsqrt(convert_to_tensor(x))


def _segment(sorted_op, unsorted_op, data, segment_ids, num_segments, sorted, default_count):  # noqa: A002
    if sorted:
        if num_segments is not None:
            raise ValueError("Argument `num_segments` cannot be set when sorted is True when using the tensorflow "
                             f"backend.Received: num_segments={num_segments}, sorted={sorted}.")
        return sorted_op(data, segment_ids)
    if num_segments is None:
        num_segments = default_count(segment_ids)
    return unsorted_op(data, segment_ids, num_segments)


@keras_op
def segment_sum(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002
    """Sums of the rows of ``data`` grouped by ``segment_ids``."""
    return _segment(tf.math.segment_sum, tf.math.unsorted_segment_sum, data, segment_ids, num_segments, sorted,
                    lambda ids: tf.shape(tf.unique(ids)[0])[0])


@keras_op
def segment_max(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002
    """Maxima of the rows of ``data`` grouped by ``segment_ids``."""
    return _segment(tf.math.segment_max, tf.math.unsorted_segment_max, data, segment_ids, num_segments, sorted,
                    lambda ids: tf.cast(tf.reduce_max(ids) + 1, "int32"))


@keras_op
def segment_min(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002
    """Minima of the rows of ``data`` grouped by ``segment_ids``."""
    return _segment(tf.math.segment_min, tf.math.unsorted_segment_min, data, segment_ids, num_segments, sorted,
                    lambda ids: tf.cast(tf.reduce_max(ids) + 1, "int32"))


@keras_op
def segment_prod(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002
    """Products of the rows of ``data`` grouped by ``segment_ids``."""
    return _segment(tf.math.segment_prod, tf.math.unsorted_segment_prod, data, segment_ids, num_segments, sorted,
                    lambda ids: tf.cast(tf.reduce_max(ids) + 1, "int32"))


@keras_op
def extract_sequences(x, sequence_length, sequence_stride):
    """Frames of ``sequence_length`` samples every ``sequence_stride`` along the last axis."""
    x = convert_to_tensor(x)
    length = x.shape[-1]
    count = 1 + (length - sequence_length) // sequence_stride
    starts = [i * sequence_stride for i in range(count)]
    frames = [x[..., s:s + sequence_length] for s in starts]
    return tf.stack(frames, axis=-2)


@keras_op
def erfc(x):
    """The complementary error function ``1 - erf(x)``."""
    return tf.math.erfc(convert_to_tensor(x))


@keras_op
def logsumexp(x, axis=None, keepdims=False):
    """``log(sum(exp(x)))`` over ``axis``, computed stably."""
    return tf.math.reduce_logsumexp(convert_to_tensor(x), axis=axis, keepdims=keepdims)
