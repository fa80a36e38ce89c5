"""keras.ops ``cdist`` (pairwise Euclidean distances) and ``lu_factor`` (keras.ops.linalg)."""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.ops._common import convert_to_tensor, keras_op


@keras_op
def cdist(x, y):
    """Euclidean distances between the rows of ``x`` (..., m, d) and ``y`` (..., n, d): (..., m, n)."""
    x, y = convert_to_tensor(x), convert_to_tensor(y)
    if x.shape.rank < 2 or y.shape.rank < 2:
        raise ValueError("`cdist` inputs must have rank >= 2")
    if x.shape[-1] != y.shape[-1]:
        raise ValueError("Last dimension of inputs to `cdist` must match")
    return tf.sqrt(tf.reduce_sum(tf.square(tf.expand_dims(x, -2) - tf.expand_dims(y, -3)), axis=-1))


@keras_op
def lu_factor(x):
    """``(lu, pivots)``: the packed LU factors of square ``x`` (row pivoting) and, for each row of ``lu``, the
    row of ``x`` it came from inverted (``pivots[i]`` is where row ``i`` of ``x`` went), as Keras' TF backend
    returns them."""
    lu, permutation = tf.linalg.lu(convert_to_tensor(x))
    return lu, tf.math.invert_permutation(permutation)
