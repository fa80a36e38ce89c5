"""tf.sparse arithmetic: add (sparse + sparse, sparse + dense), maximum, minimum, reduce_sum, reduce_max,
sparse_dense_matmul, softmax and the sparse segment reductions (segment_sum / segment_mean / segment_sqrt_n).

Entries are matched by their row-major linear positions (numpy); values are combined with differentiable
engine ops (gathers, segment sums, products), so gradients with respect to the values and the dense operands
are TF's. Like TF's kernels, two-operand ops expect their inputs in canonical (row-major, unique) order.
"""

import numpy as np

from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, kernel_type_name, op_error, wrap
from vfw.frontends.tensorflow._math_segment import unsorted_segment_sum
from vfw.frontends.tensorflow._op_support import reshape, shape_text
from vfw.frontends.tensorflow._sparse_ops import I64, linear_keys, sparse_of, take, to_dense
from vfw.frontends.tensorflow._sparse_tensor import SparseTensor, as_sparse, dense_shape_of, refuse_in_graph


def _segment_sum(values, groups, count):
    return unsorted_segment_sum(values, wrap(np.asarray(groups, I64)), count)


def _mismatch(tf_op, expected, got, position):
    return op_error(f"cannot compute {tf_op} as input #{position}(zero-based) was expected to be a "
                    f"{kernel_type_name(expected)} tensor but is a {kernel_type_name(got)} tensor", tf_op)


# -- two sparse operands ---------------------------------------------------------------------------------------
def _merge(a, b, tf_op):
    """How the entries of two sparse tensors of one shape pair up.

    Returns ``(groups, firsts, indices, sizes, shape)``: the group of each entry of ``a`` then ``b`` (groups
    numbered in row-major order of their index), the first entry of each group (``a``'s when both have
    one), each group's index and how many entries each group has.
    """
    if a.values.array.dtype != b.values.array.dtype:
        raise _mismatch(tf_op, b.dtype, a.dtype, 4) if tf_op else TypeError("dtypes differ")
    shape_a, shape_b = dense_shape_of(a), dense_shape_of(b)
    if len(shape_a) != len(shape_b):
        raise op_error(f"Operands do not have the same ranks; got shapes: {shape_text(shape_a)} and "
                       f"{shape_text(shape_b)}", tf_op)
    for d, (x, y) in enumerate(zip(shape_a, shape_b)):
        if x != y:
            raise op_error(f"Operands' shapes do not match: got {x} and {y} for dimension {d}", tf_op)
    indices = np.concatenate([a.indices.array, b.indices.array])
    keys = linear_keys(indices, shape_a)
    source = np.repeat([0, 1], [a.indices.array.shape[0], b.indices.array.shape[0]])
    order = np.lexsort((source, keys))
    starts = np.ones(order.size, bool)
    starts[1:] = keys[order][1:] != keys[order][:-1]
    groups = np.empty(order.size, I64)
    groups[order] = np.cumsum(starts) - 1
    firsts = order[starts]
    sizes = np.bincount(groups, minlength=firsts.size) if order.size else np.zeros(0, I64)
    return groups, firsts, indices[firsts], sizes, shape_a


def _sparse_add(a, b, threshold):
    groups, firsts, indices, sizes, shape = _merge(a, b, "SparseAdd")
    summed = _segment_sum(call("Concat", a.values, b.values, axis=0, tf_op="ConcatV2"), groups, firsts.size)
    magnitude = np.abs(summed.array)
    keep = np.flatnonzero((sizes == 1) | (magnitude >= np.asarray(threshold, magnitude.dtype)))
    return sparse_of(indices[keep], take(summed, keep), np.array(shape, I64))


def _sparse_dense_add(st, dense):
    tf_op = "SparseTensorDenseAdd"
    dense = convert_to_tensor(dense, dtype_hint=st.dtype)
    if dense.array.dtype != st.values.array.dtype:
        raise _mismatch(tf_op, st.dtype, dense.dtype, 3)
    shape = dense_shape_of(st)
    if len(shape) != dense.array.ndim:
        raise op_error(f"Two operands have different ranks; received: {len(shape)} and {dense.array.ndim}", tf_op)
    for d, (x, y) in enumerate(zip(shape, dense.array.shape)):
        if x != y:
            raise op_error(f"Dimension {d} does not equal (no broadcasting is supported): sparse side {x} vs dense "
                           f"side {y}", tf_op)
    return call("ScatterND", dense, st.indices.array, st.values, reduction="add", tf_op=tf_op)


def add(a, b, threshold=0):
    """``a + b``: a SparseTensor for two SparseTensors, a dense tensor when one side is dense.

    Two sparse operands give the union of their entries; where both have an entry whose sum's magnitude
    is below ``threshold`` the entry is dropped.
    """
    a_sparse, b_sparse = isinstance(a, SparseTensor), isinstance(b, SparseTensor)
    if not (a_sparse or b_sparse):
        raise TypeError("At least one input should be SparseTensor; do you mean to use tf.add?")
    if a_sparse and b_sparse:
        return _sparse_add(a, b, threshold)
    return _sparse_dense_add(a, b) if a_sparse else _sparse_dense_add(b, a)


def _elementwise(name, tf_op, pick):
    def fn(sp_a, sp_b, name=None):
        a, b = as_sparse(sp_a, "sp_a"), as_sparse(sp_b, "sp_b")
        groups, firsts, indices, sizes, shape = _merge(a, b, tf_op)
        values = np.concatenate([a.values.array, b.values.array])
        # a lone entry meets an implicit zero; a pair starts from its own first value
        result = np.where(sizes == 2, values[firsts], np.zeros((), values.dtype)).astype(values.dtype)
        pick.at(result, groups, values)
        return sparse_of(indices, wrap(result), np.array(shape, I64))

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"The elementwise {name} of two SparseTensors of one shape, over the union of their entries "
                  "(a missing entry counts as zero).")
    return fn


maximum = _elementwise("maximum", "SparseSparseMaximum", np.maximum)
minimum = _elementwise("minimum", "SparseSparseMinimum", np.minimum)


# -- reductions ----------------------------------------------------------------------------------------------------
def _reduction(sp_input, axis, keepdims, tf_op):
    """The groups of a reduction: ``(st, group of each entry, kept dims, their sizes, output shape)``."""
    st = as_sparse(sp_input)
    shape = dense_shape_of(st)
    rank = len(shape)
    axes = range(rank) if axis is None else np.asarray(convert_to_tensor(axis).array).reshape(-1)
    reduced = set()
    for a in axes:
        if not -rank <= int(a) < rank:
            raise op_error(f"Invalid reduction dimension {int(a)}, for input with {rank} dimensions.", tf_op)
        reduced.add(int(a) % rank)
    kept = [d for d in range(rank) if d not in reduced]
    kept_shape = [shape[d] for d in kept]
    groups = linear_keys(st.indices.array[:, kept], kept_shape)
    out_shape = [1 if d in reduced else shape[d] for d in range(rank)] if keepdims else kept_shape
    return st, groups, kept, kept_shape, out_shape


def _sparse_result(values_of_groups, groups, kept, kept_shape, out_shape):
    """A SparseTensor of the non-empty groups (``values_of_groups(compact groups, count)`` gives their values);
    with keepdims (``out_shape`` longer than ``kept_shape``) the reduced dims are size-1 dims at index 0."""
    present, compact = np.unique(groups, return_inverse=True)
    values = values_of_groups(compact.reshape(-1), present.size)
    coords = np.zeros((present.size, len(out_shape)), I64)
    if kept_shape:
        columns = kept if len(out_shape) != len(kept_shape) else list(range(len(kept)))
        coords[:, columns] = np.stack(np.unravel_index(present, kept_shape), axis=1)
    return sparse_of(coords, values, np.array(out_shape, I64))


def reduce_sum(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The sum of ``sp_input``'s entries over ``axis`` (all dims by default): a dense tensor, or a SparseTensor
    of the non-empty sums with ``output_is_sparse``. Differentiable with respect to the values."""
    st, groups, kept, kept_shape, out_shape = _reduction(sp_input, axis, keepdims, "SparseReduceSum")
    if output_is_sparse:
        return _sparse_result(lambda g, n: _segment_sum(st.values, g, n), groups, kept, kept_shape, out_shape)
    total = _segment_sum(st.values, groups, int(np.prod(kept_shape, dtype=np.int64)))
    return reshape(total, out_shape)


def reduce_max(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The maximum of ``sp_input``'s stored entries over ``axis`` (implicit zeros not counted): a dense tensor
    (0 where no entry was stored), or a SparseTensor of the non-empty groups with ``output_is_sparse``."""
    st, groups, kept, kept_shape, out_shape = _reduction(sp_input, axis, keepdims, "SparseReduceMax")

    def group_max(compact, count):
        values = st.values.array
        identity = np.finfo(values.dtype).min if values.dtype.kind == "f" else np.iinfo(values.dtype).min
        result = np.full(count, identity, values.dtype)
        np.maximum.at(result, compact, values)
        return wrap(result)

    result = _sparse_result(group_max, groups, kept, kept_shape, out_shape)
    return result if output_is_sparse else to_dense(result)


# -- products ------------------------------------------------------------------------------------------------------
def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """The matrix product of a 2-D SparseTensor and a dense matrix (either side may be the sparse one).

    Parameters
    ----------
    sp_a : SparseTensor ``[m, k]`` (or a dense matrix when ``b`` is sparse)
    b : Tensor ``[k, n]`` (or a SparseTensor)
    adjoint_a, adjoint_b : bool
        Use the (conjugate) transpose of that operand.

    Returns
    -------
    Tensor ``[m, n]``, differentiable with respect to the sparse values and the dense operand.
    """
    if isinstance(b, SparseTensor) and not isinstance(sp_a, SparseTensor):
        # a @ B = (B^T @ a^T)^T
        product = sparse_dense_matmul(b, sp_a, adjoint_a=not adjoint_b, adjoint_b=not adjoint_a)
        return call("Transpose", product, perm=[1, 0], tf_op="Transpose")
    tf_op = "SparseTensorDenseMatMul"
    st = as_sparse(sp_a, "sp_a")
    dense = convert_to_tensor(b, dtype_hint=st.dtype)
    if dense.array.dtype != st.values.array.dtype:
        raise _mismatch(tf_op, st.dtype, dense.dtype, 3)
    if dense.array.ndim != 2:
        raise op_error("Tensor 'b' is not a matrix", tf_op)
    shape = dense_shape_of(st)
    if len(shape) != 2:
        raise op_error(f"Tensor 'a_shape' is not a vector of 2 entries: {shape_text(shape)}", tf_op)
    rows_of, inner_of = (1, 0) if adjoint_a else (0, 1)
    m, k = shape[rows_of], shape[inner_of]
    if adjoint_b:
        dense = call("Transpose", dense, perm=[1, 0], tf_op="Transpose")
    if dense.array.shape[0] != k:
        a_dims = f"[{m}, {k})" if not adjoint_a else f"[{k}, {m})"
        raise op_error(f"Cannot multiply A and B because inner dimension does not match: {k} vs. "
                       f"{dense.array.shape[0]}.  Did you forget a transpose?  Dimensions of A: {a_dims}.  "
                       f"Dimensions of B: {shape_text(list(b.shape) if hasattr(b, 'shape') else dense.array.shape)}",
                       tf_op)
    rows, inner = st.indices.array[:, rows_of], st.indices.array[:, inner_of]
    for what, ids, size, column in (("k", inner, k, inner_of), ("m", rows, m, rows_of)):
        bad = (ids < 0) | (ids >= size)
        if bad.any():
            i = int(np.argmax(bad))
            raise op_error(f"{what} ({ids[i]}) from index[{i},{column}] out of bounds (>={size})", tf_op)
    nnz = rows.size
    terms = call("Mul", reshape(st.values, [nnz, 1]), take(dense, inner), tf_op="Mul")
    return _segment_sum(terms, rows, m)


def softmax(sp_input, name=None):
    """The softmax of each innermost row of ``sp_input`` over its stored entries (a SparseTensor of the same
    indices); differentiable with respect to the values."""
    st = as_sparse(sp_input)
    shape = dense_shape_of(st)
    if len(shape) < 2:
        raise op_error(f"Input should have rank >= 2, but received shape: {shape_text(shape)}", "SparseSoftmax")
    if st.values.array.dtype.kind != "f":
        raise op_error(f"Value for attr 'T' of {st.dtype.name} is not in the list of allowed values: half, float, "
                       "double", "SparseSoftmax")
    groups = linear_keys(st.indices.array[:, :-1], shape[:-1])
    present, compact = np.unique(groups, return_inverse=True)
    compact = compact.reshape(-1)
    peak = np.full(present.size, -np.inf, st.values.array.dtype)
    np.maximum.at(peak, compact, st.values.array)  # a constant shift: it cancels in the gradient
    exps = call("Exp", call("Sub", st.values, wrap(peak[compact]), tf_op="Sub"), tf_op="Exp")
    totals = _segment_sum(exps, compact, present.size)
    return sparse_of(st.indices, call("Div", exps, take(totals, compact), tf_op="RealDiv"), st.dense_shape)


# -- sparse segment reductions on dense data -------------------------------------------------------------------
def _sparse_segment(name, tf_op, scale):
    def fn(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
        refuse_in_graph(tf_op)
        x = convert_to_tensor(data)
        rows = np.asarray(convert_to_tensor(indices).array).reshape(-1).astype(I64)
        ids = np.asarray(convert_to_tensor(segment_ids).array).reshape(-1).astype(I64)
        if rows.size != ids.size:
            raise op_error(f"segment_ids and indices should have same size. segment_ids.shape = [{ids.size}] "
                           f"indices.shape = [{rows.size}]", tf_op)
        if x.array.ndim < 1:
            raise op_error("Shape must be at least rank 1 but is rank 0", tf_op)
        if np.any(np.diff(ids) < 0):
            raise op_error("segment ids are not increasing", tf_op)
        count = int(ids[-1]) + 1 if ids.size else 0
        if num_segments is not None:
            count = int(np.asarray(convert_to_tensor(num_segments).array))
            if ids.size and ids[-1] >= count:
                raise op_error("segment ids must be < num_segments", tf_op)
        bad = np.flatnonzero((rows < 0) | (rows >= x.array.shape[0]))
        if bad.size:
            raise op_error(f"Bad: indices[{bad[0]}] == {rows[bad[0]]} out of range [0, {x.array.shape[0]})", tf_op)
        total = _segment_sum(take(x, rows), ids, count)
        if scale is None:
            return total
        sizes = np.bincount(ids, minlength=count)[:count].astype(x.array.dtype)
        divisor = scale(np.maximum(sizes, 1)).reshape((count,) + (1,) * (x.array.ndim - 1))
        return call("Div", total, divisor.astype(x.array.dtype), tf_op="RealDiv")

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"``{name}``: the rows ``data[indices]`` reduced into segments by the sorted ``segment_ids`` "
                  "(``num_segments``, default the last id + 1); differentiable with respect to ``data``.")
    return fn


segment_sum = _sparse_segment("segment_sum", "SparseSegmentSum", None)
segment_mean = _sparse_segment("segment_mean", "SparseSegmentMean", lambda n: n)
segment_sqrt_n = _sparse_segment("segment_sqrt_n", "SparseSegmentSqrtN", np.sqrt)


NAMESPACES = {"sparse": ["add", "maximum", "minimum", "reduce_sum", "reduce_max", "sparse_dense_matmul", "softmax",
                         "segment_sum", "segment_mean", "segment_sqrt_n"]}
TENSOR_METHODS = {}
