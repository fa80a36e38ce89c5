"""The elementwise ops of optimizer update steps, with Keras 3's TF-backend semantics for ``tf.IndexedSlices``.

A gradient that is an IndexedSlices (an Embedding's, or any ``tf.gather``'s) flows through Keras'
update steps sparsely, as keras/src/backend/tensorflow/sparse.py defines:

- zero-preserving unary ops (``square``, ``sqrt``, ``abs``, ``negative``, ``sign``, ``cast``) apply to
  each row of values separately (so repeated ids give a sum of squares, not the square of a sum);
- ``multiply`` with a scalar scales the values, with a dense tensor multiplies the values by the
  dense tensor's rows at the indices (the result stays sparse);
- ``divide`` of slices by a scalar or a dense tensor stays sparse the same way; a sparse divisor is
  densified;
- ``mean`` (over all axes) of slices sums their values over the dense size;
- ``add``/``subtract`` with a dense tensor or a scalar, and ``maximum``, densify the slices (repeated
  rows summed); two slices with the same indices tensor combine their values.

Dense operands go to the TF ops unchanged.
"""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow._indexed_slices import IndexedSlices


def densify(x):
    """``x`` as a dense tensor (an IndexedSlices' rows summed into its dense shape)."""
    return tf.convert_to_tensor(x) if isinstance(x, IndexedSlices) else x


def cast(x, dtype):
    """``tf.cast``; an IndexedSlices keeps its rows, cast."""
    if isinstance(x, IndexedSlices):
        return _with_values(x, tf.cast(x.values, dtype))
    return tf.cast(x, dtype)


def _unary(op):
    def apply(x):
        if isinstance(x, IndexedSlices):
            return _with_values(x, op(x.values))
        return op(x)

    apply.__name__ = op.__name__
    apply.__doc__ = f"``tf.{op.__name__}``, row by row on an IndexedSlices' values (zero-preserving)."
    return apply


square = _unary(tf.square)
sqrt = _unary(tf.sqrt)
abs = _unary(tf.abs)  # noqa: A001  (Keras' op name)
negative = _unary(tf.negative)
sign = _unary(tf.sign)


def multiply(x1, x2):
    """``x1 * x2``; with an IndexedSlices operand the result keeps its rows (intersection semantics)."""
    if isinstance(x1, IndexedSlices):
        if isinstance(x2, IndexedSlices):
            return _with_values(x1, tf.multiply(x1.values, _same_rows(x1, x2).values))
        return _with_values(x1, tf.multiply(x1.values, _rows_of(x2, x1)))
    if isinstance(x2, IndexedSlices):
        return _with_values(x2, tf.multiply(_rows_of(x1, x2), x2.values))
    return tf.multiply(x1, x2)


def divide(x1, x2):
    """``x1 / x2``; slices divided by a scalar or dense tensor stay sparse, a sparse divisor is densified.

    Raises
    ------
    NotImplementedError
        Slices divided by a dense tensor with a zero or NaN entry: Keras then widens the result to
        the union of rows, which vfw does not reproduce (optimizer denominators are positive). Checked
        in eager steps only; a traced step does not check.
    """
    if isinstance(x2, IndexedSlices):
        return tf.truediv(densify(x1), tf.convert_to_tensor(x2))
    if isinstance(x1, IndexedSlices):
        if _is_scalar(x2):
            return _with_values(x1, tf.truediv(x1.values, x2))
        divisor = tf.convert_to_tensor(x2)
        if tf.executing_eagerly() and bool(tf.reduce_any(tf.logical_or(tf.equal(divisor, 0),
                                                                        tf.math.is_nan(divisor)))):
            raise NotImplementedError("Dividing a tf.IndexedSlices by a dense tensor with zero or NaN entries "
                                      "(Keras widens the result to the union of rows) is not implemented in vfw's "
                                      "optimizers.")
        return _with_values(x1, tf.truediv(x1.values, tf.gather(divisor, x1.indices)))
    return tf.truediv(x1, x2)


def add(x1, x2):
    """``x1 + x2``; two IndexedSlices with one indices tensor add their values, else slices are densified."""
    return _union(tf.add, x1, x2)


def subtract(x1, x2):
    """``x1 - x2``; as ``add``."""
    return _union(tf.subtract, x1, x2)


def maximum(x1, x2):
    """``tf.maximum`` with IndexedSlices densified (Keras' ``densify_mixed``)."""
    return _union(tf.maximum, x1, x2)


def mean(x):
    """``tf.reduce_mean`` over all axes; an IndexedSlices' values summed over its dense size (repeats counted)."""
    if isinstance(x, IndexedSlices):
        total = tf.reduce_sum(x.values)
        return total / tf.cast(tf.reduce_prod(x.dense_shape), total.dtype)
    return tf.reduce_mean(x)


def _union(op, x1, x2):
    if isinstance(x1, IndexedSlices) and isinstance(x2, IndexedSlices):
        return _with_values(x1, op(x1.values, _same_rows(x1, x2).values))
    return op(densify(x1), densify(x2))


def _with_values(x, values):
    return IndexedSlices(values, x.indices, x.dense_shape)


def _is_scalar(x):
    shape = getattr(x, "shape", None)
    return shape is None or len(shape) == 0


def _rows_of(dense, slices):
    """A scalar as is; a dense tensor's rows at the slices' indices."""
    if _is_scalar(dense):
        return dense
    return tf.gather(tf.convert_to_tensor(dense), slices.indices)


def _same_rows(x1, x2):
    if x1.indices is not x2.indices:
        raise NotImplementedError("Combining two tf.IndexedSlices with different indices (Keras' union or "
                                  "intersection of their rows) is not implemented in vfw's optimizers.")
    return x2
