"""tf.IndexedSlices: rows ``values`` at ``indices`` of a tensor of shape ``dense_shape`` (a sparse gradient form).

A tape gives one as the gradient of a source whose only uses are gathers on axis 0 (as TF; see
``_sparse_gradients``). It converts to a dense tensor wherever a tensor is expected (duplicate
indices summed), differentiably; ``tf.clip_by_norm``/``clip_by_value``/``clip_by_global_norm`` and
``global_norm`` work on its values, and variables' ``scatter_*`` methods apply it row-wise.
"""

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor
from vfw.frontends.tensorflow._math_segment import unsorted_segment_sum
from vfw.frontends.tensorflow._shape import TensorShape


class IndexedSlices:
    """Rows of a dense tensor: ``dense[indices[k]] = values[k]`` (summed over repeated indices), zero elsewhere.

    Parameters
    ----------
    values : tensor of shape ``[n, ...]``
    indices : 1-D integer tensor of length ``n``
    dense_shape : 1-D integer tensor, optional
        The dense tensor's shape (needed to convert to a tensor).
    """

    def __init__(self, values, indices, dense_shape=None):
        self._values = convert_to_tensor(values)
        self._indices = convert_to_tensor(indices)
        self._dense_shape = None if dense_shape is None else convert_to_tensor(dense_shape)

    values = property(lambda self: self._values, doc="Tensor: the rows.")
    indices = property(lambda self: self._indices, doc="Tensor: the row index of each row of ``values``.")
    dense_shape = property(lambda self: self._dense_shape, doc="Tensor or None: the dense tensor's shape.")

    @property
    def dtype(self):
        """DType: the values' dtype."""
        return _dtypes.of_array(self._values.array)

    @property
    def shape(self):
        """TensorShape: the dense shape (unknown without ``dense_shape``)."""
        if self._dense_shape is None:
            return TensorShape(None)
        return TensorShape([int(d) for d in self._dense_shape.array])

    @property
    def device(self):
        """str: the device of the values."""
        return self._values.device

    def _as_tensor(self):
        if self._dense_shape is None:
            raise ValueError(f"Tensor conversion requested for IndexedSlices for argument `value` without "
                             f"dense_shape: {self!s}")
        return unsorted_segment_sum(self._values, self._indices, self._dense_shape[0])

    def __neg__(self):
        return IndexedSlices(-self._values, self._indices, self._dense_shape)

    def __str__(self):
        # TF's str shows the parts as tensors (its repr is object's default, as here)
        shape = "" if self._dense_shape is None else f", dense_shape={self._dense_shape!s}"
        return f"IndexedSlices(indices={self._indices!s}, values={self._values!s}{shape})"


NAMESPACES = {"tf": ["IndexedSlices"]}
TENSOR_METHODS = {}
