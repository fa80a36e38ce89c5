"""Gathers, scatter updates and slice assignment of tf.Variable (a mixin of ``Variable``), and the engine-op
helper that variable updates share.

Updates compute the new value with engine ops (recorded when a graph trace is open, never by tapes: TF does not
differentiate through assignments) and give it to the variable with ``_write``.
"""

import numpy as np

from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dispatch, _dtypes, errors
from vfw.frontends.tensorflow._op_support import shape_text
from vfw.frontends.tensorflow._sparse_gradients import ROW_GATHER
from vfw.frontends.tensorflow._tensor import Tensor


class GatherScatterMethods:
    """``sparse_read``, ``gather_nd``, the ``scatter_*`` updates and ``v[key].assign(...)`` (TF's variable API).

    Mixed into ``Variable``, which provides ``_storage``, ``_dtype``, ``_as_tensor``, ``_write`` and ``_result``.
    """

    def sparse_read(self, indices, name=None):
        """Tensor: the rows ``indices`` of the value (``tf.gather(v, indices)``)."""
        index = _indices(indices, self._storage.array.shape[:1], "ResourceGather")
        return _dispatch.call(ROW_GATHER, self._as_tensor(), index, tf_op="ResourceGather")

    def gather_nd(self, indices, name=None):
        """Tensor: the slices of the value at the index tuples in the last dim of ``indices``."""
        index = _index_tuples(indices, self._storage.array.shape, "ResourceGatherNd")
        return _dispatch.call("GatherND", self._as_tensor(), index, tf_op="ResourceGatherNd")

    def scatter_nd_update(self, indices, updates, name=None):
        """Replace the slices at the index tuples ``indices`` with ``updates``; returns the variable."""
        return self._scatter_nd(indices, updates, "none", "ResourceScatterNdUpdate")

    def scatter_nd_add(self, indices, updates, name=None):
        """Add ``updates`` to the slices at the index tuples ``indices`` (duplicates add up)."""
        return self._scatter_nd(indices, updates, "add", "ResourceScatterNdAdd")

    def scatter_nd_sub(self, indices, updates, name=None):
        """Subtract ``updates`` from the slices at the index tuples ``indices``."""
        return self._scatter_nd(indices, _negated(updates, self._dtype), "add", "ResourceScatterNdSub")

    def scatter_nd_max(self, indices, updates, name=None):
        """Elementwise maximum of the slices at ``indices`` and ``updates``."""
        return self._scatter_nd(indices, updates, "max", "ResourceScatterNdMax")

    def scatter_nd_min(self, indices, updates, name=None):
        """Elementwise minimum of the slices at ``indices`` and ``updates``."""
        return self._scatter_nd(indices, updates, "min", "ResourceScatterNdMin")

    def _scatter_nd(self, indices, updates, reduction, tf_op):
        index = _index_tuples(indices, self._storage.array.shape, tf_op)
        updates = _dispatch.convert_to_tensor(updates, self._dtype)
        self._write(compute("ScatterND", tf_op, self._storage, index, updates, reduction=reduction))
        return self

    def scatter_update(self, sparse_delta, use_locking=False, name=None):
        """Replace the rows ``sparse_delta.indices`` with ``sparse_delta.values`` (a ``tf.IndexedSlices``)."""
        return self._scatter_rows(sparse_delta, "none", "ResourceScatterUpdate")

    def scatter_add(self, sparse_delta, use_locking=False, name=None):
        """Add ``sparse_delta.values`` to the rows ``sparse_delta.indices``."""
        return self._scatter_rows(sparse_delta, "add", "ResourceScatterAdd")

    def scatter_sub(self, sparse_delta, use_locking=False, name=None):
        """Subtract ``sparse_delta.values`` from the rows ``sparse_delta.indices``."""
        return self._scatter_rows(sparse_delta, "add", "ResourceScatterSub", negate=True)

    def scatter_mul(self, sparse_delta, use_locking=False, name=None):
        """Multiply the rows ``sparse_delta.indices`` by ``sparse_delta.values``."""
        return self._scatter_rows(sparse_delta, "mul", "ResourceScatterMul")

    def scatter_div(self, sparse_delta, use_locking=False, name=None):
        """Divide the rows ``sparse_delta.indices`` by ``sparse_delta.values`` (with repeated rows, the last
        division applies to the original row: TF divides repeatedly)."""
        rows, values = self._sparse_delta(sparse_delta, "ResourceScatterDiv")
        quotient = compute("Div", "ResourceScatterDiv", compute("Gather", None, self._storage, rows, axis=0), values)
        self._write(compute("ScatterND", "ResourceScatterDiv", self._storage, rows.reshape(-1, 1), quotient,
                            reduction="none"))
        return self

    def scatter_max(self, sparse_delta, use_locking=False, name=None):
        """Elementwise maximum of the rows ``sparse_delta.indices`` and ``sparse_delta.values``."""
        return self._scatter_rows(sparse_delta, "max", "ResourceScatterMax")

    def scatter_min(self, sparse_delta, use_locking=False, name=None):
        """Elementwise minimum of the rows ``sparse_delta.indices`` and ``sparse_delta.values``."""
        return self._scatter_rows(sparse_delta, "min", "ResourceScatterMin")

    def _sparse_delta(self, sparse_delta, tf_op):
        """The rows (checked int64) and values (as the variable's dtype) of a ``tf.IndexedSlices``."""
        if not (hasattr(sparse_delta, "indices") and hasattr(sparse_delta, "values")):
            raise TypeError(f"Argument `sparse_delta` must be a `tf.IndexedSlices`. Received arg: {sparse_delta}")
        rows = _indices(sparse_delta.indices, self._storage.array.shape[:1], tf_op)
        return rows, _dispatch.convert_to_tensor(sparse_delta.values, self._dtype)

    def _scatter_rows(self, sparse_delta, reduction, tf_op, negate=False):
        rows, values = self._sparse_delta(sparse_delta, tf_op)
        if negate:
            values = compute("Neg", None, values)
        self._write(compute("ScatterND", tf_op, self._storage, _row_index(sparse_delta.indices, rows), values,
                            reduction=reduction))
        return self

    def _assign_slice(self, key, value):
        """``v[key].assign(value)``: replace the elements the basic-indexing ``key`` selects."""
        value = _dispatch.convert_to_tensor(value, self._dtype)
        shape = self._storage.array.shape
        positions = np.arange(int(np.prod(shape, dtype=np.int64)), dtype=np.int64).reshape(shape)[_np_key(key)]
        if positions.shape != value.array.shape:
            raise _dispatch.op_error(f"sliced l-value shape {shape_text(positions.shape)} does not match r-value shape "
                                     f"{shape_text(value.array.shape)}. Automatic broadcasting not yet implemented.",
                                     "ResourceStridedSliceAssign")
        flat = compute("Reshape", None, self._storage, np.array([-1], np.int64))
        values = compute("Reshape", None, value, np.array([-1], np.int64))
        scattered = compute("ScatterND", "ResourceStridedSliceAssign", flat, positions.reshape(-1, 1), values,
                             reduction="none")
        self._write(compute("Reshape", None, scattered, np.array(shape, np.int64)))
        return self._result(True)

    def __getitem__(self, key):
        getitem = getattr(Tensor, "__getitem__", None)
        if getitem is None:
            raise TypeError(f"'{type(self).__name__}' object is not subscriptable")
        result = getitem(self._as_tensor(), key)
        result.assign = lambda value, use_locking=None, name=None: self._assign_slice(key, value)
        return result


def compute(op_type, tf_op, *inputs, **attrs):
    """Run an engine op for an update, unrecorded by tapes (recorded by a graph trace)."""
    if not (_tracing and current_trace() is not None):
        inputs = [x.array if isinstance(x, CoreTensor) else x for x in inputs]  # arrays: nothing for a tape
    return _dispatch.call(op_type, *inputs, tf_op=tf_op, **attrs)


def _row_index(indices, rows):
    """ScatterND's ``(n, 1)`` index of the rows ``rows`` (the checked values of ``indices``).

    Under a graph trace, computed from the ``indices`` tensor by engine ops, so that each run of the
    graph scatters at that run's rows (a gradient's ids change from step to step).
    """
    if _tracing and current_trace() is not None and isinstance(indices, CoreTensor):
        as_int64 = compute("Cast", None, indices, to=np.dtype(np.int64))
        return compute("Reshape", None, as_int64, np.array([-1, 1], np.int64))
    return rows.reshape(-1, 1)


def _negated(values, dtype):
    values = _dispatch.convert_to_tensor(values, dtype)
    return compute("Neg", None, values)


def _index_array(indices, tf_op):
    array = _dispatch.convert_to_tensor(indices).array
    if array.dtype.kind not in "iu":
        raise _dispatch.op_error(f"Value for attr 'Tindices' of {_dtypes.of_array(array).name} is not in the list of "
                                 "allowed values: int32, int64", tf_op)
    return array.astype(np.int64)


def _indices(indices, dims, tf_op):
    """Row indices as int64, each in ``[0, dims[0])`` (TF does not wrap negative indices)."""
    index = _index_array(indices, tf_op)
    limit = dims[0] if dims else 0
    bad = (index < 0) | (index >= limit)
    if bad.any():
        position = np.argwhere(bad)[0]
        message = f"indices[{','.join(map(str, position))}] = {index[tuple(position)]} is not in [0, {limit})"
        if tf_op == "ResourceGather":  # TF's kernel error; a Python list takes TF's fallback path, without " name: "
            from vfw.frontends.tensorflow._image_patches import kernel_prefix  # (it imports the package)

            message = kernel_prefix(tf_op) + message
            if type(indices) is list:
                raise errors.InvalidArgumentError(None, None, f"{message} [Op:{tf_op}]")
        raise _dispatch.op_error(message, tf_op)
    return index


def _index_tuples(indices, shape, tf_op):
    """Index tuples (last dim) as int64, each addressing a slice of ``shape``."""
    index = _index_array(indices, tf_op)
    depth = index.shape[-1] if index.ndim else 0
    if not index.ndim or depth > len(shape):
        raise _dispatch.op_error(f"Index innermost dimension length must be <= params rank; saw: {depth} vs. "
                                 f"{len(shape)}", tf_op)
    tuples = index.reshape(-1, depth)
    bad = ((tuples < 0) | (tuples >= np.array(shape[:depth], np.int64))).any(axis=1)
    if bad.any():
        row = int(np.argmax(bad))
        raise _dispatch.op_error(f"indices[{row}] = [{', '.join(map(str, tuples[row]))}] does not index into shape "
                                 f"{shape_text(shape)}", tf_op)
    return index


def _np_key(key):
    """A TF slicing key (ints, slices, Ellipsis, newaxis, scalar tensors) as a numpy basic-indexing key."""
    def part(k):
        if isinstance(k, slice):
            return slice(*(None if b is None else int(b) for b in (k.start, k.stop, k.step)))
        if k is None or k is Ellipsis:
            return k
        return int(k)
    return tuple(part(k) for k in key) if isinstance(key, tuple) else part(key)
