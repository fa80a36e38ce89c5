"""Gradient clipping of Keras 3's optimizers (``clipnorm``, ``global_clipnorm``, ``clipvalue``), as the TensorFlow
backend computes it; dense tensors and ``IndexedSlices`` alike."""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.optimizers import sparse_math


def clip_gradients(grads, clipnorm=None, global_clipnorm=None, clipvalue=None):
    """``grads`` clipped by the one option that is set and positive (none: unchanged).

    Parameters
    ----------
    grads : list of tensors or IndexedSlices
    clipnorm : float, optional
        Each gradient's norm (``tf.clip_by_norm``).
    global_clipnorm : float, optional
        The norm of all gradients together (``clip_by_global_norm``).
    clipvalue : float, optional
        Each element, to ``[-clipvalue, clipvalue]``.
    """
    if clipnorm and clipnorm > 0:
        return [tf.clip_by_norm(g, clipnorm) for g in grads]
    if global_clipnorm and global_clipnorm > 0:
        return clip_by_global_norm(grads, global_clipnorm)
    if clipvalue and clipvalue > 0:
        return [tf.clip_by_value(g, -clipvalue, clipvalue) for g in grads]
    return grads


def global_norm(values):
    """``sqrt(sum of the squares of every tensor in values)`` (Nones skipped), as Keras computes it."""
    squares = [sparse_math.densify(sparse_math.square(v)) for v in values if v is not None]  # an IndexedSlices' rows
    squared_norms = tf.stack([tf.reduce_sum(s) for s in squares])
    return tf.sqrt(tf.reduce_sum(squared_norms))


def clip_by_global_norm(values, clip_norm):
    """Keras' global-norm clipping: every tensor times ``clip_norm * min(1 / norm, 1 / clip_norm)``.

    A non-finite norm makes the scale NaN (``norm - norm``), so every value becomes NaN.
    """
    norm = global_norm(values)
    scale = tf.multiply(clip_norm, tf.minimum(tf.truediv(1.0, norm), 1.0 / clip_norm))
    scale = scale + (norm - norm)
    return [v if v is None else sparse_math.densify(v) * scale for v in values]  # IndexedSlices: densified, as Keras
