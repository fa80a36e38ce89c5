"""Ragged math: TF's elementwise ops, reductions and ``concat`` over ``tf.RaggedTensor``, and ``tf.ragged.range``.

TF dispatches its elementwise ops on ragged tensors to their flat values: the ragged operands must share their row
partitions, and a dense operand is broadcast against the ragged shape (a scalar, inner uniform dims, or for ragged
rank 1 a ``[nrows or 1, 1 or the common row length, ...]`` tensor).  Reductions over a ragged dimension reduce
each row's values with the unsorted segment ops (differentiable; empty rows give the ops' identities, a mean
NaN), ``concat`` joins rows (axis 0) or the rows' values (axis 1), ``gather`` takes whole rows (or gathers a
dense tensor at ragged indices).

The ops reach the namespaces as wrappers of the dense functions of the other families (this family comes last in
``_families.FAMILIES``): a wrapper checks its arguments for a ragged tensor and otherwise calls the dense function
unchanged.  The wrappers are made on first access by the module's ``__getattr__``, once every family is imported.
"""

import functools
import itertools

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.tensorflow import _dispatch, _dtypes, errors
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, op_error
from vfw.frontends.tensorflow._ragged import RaggedTensor, _row_ids, concat_rows, from_dense

_ELEMENTWISE = {
    "tf": ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp", "floor", "logical_not",
           "negative", "round", "sigmoid", "sign", "sin", "sinh", "sqrt", "square", "tan", "tanh", "cast",
           "saturate_cast", "zeros_like", "ones_like", "identity", "add", "subtract", "multiply", "divide", "truediv",
           "maximum", "minimum", "pow", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
           "logical_and", "logical_or", "atan2"],
    "math": ["abs", "acos", "acosh", "asin", "asinh", "atan", "atanh", "ceil", "cos", "cosh", "digamma", "erf",
             "erfc", "exp", "expm1", "floor", "is_finite", "is_inf", "is_nan", "lgamma", "log", "log1p",
             "log_sigmoid", "logical_not", "negative", "reciprocal", "rint", "round", "rsqrt", "sigmoid", "sign",
             "sin", "sinh", "softplus", "softsign", "sqrt", "square", "tan", "tanh", "add", "subtract", "multiply",
             "divide", "truediv", "floordiv", "floormod", "mod", "maximum", "minimum", "pow", "squared_difference",
             "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
             "logical_xor", "divide_no_nan", "atan2"],
    "nn": ["sigmoid", "softplus", "softsign", "tanh", "relu", "relu6", "elu", "selu", "gelu", "silu", "swish"],
    "dtypes": ["cast", "saturate_cast"],
}
_REDUCTIONS = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "reduce_any", "reduce_all"]

NAMESPACES = {"tf": _ELEMENTWISE["tf"] + _REDUCTIONS + ["concat", "gather", "where"],
              "math": _ELEMENTWISE["math"] + _REDUCTIONS,
              "nn": _ELEMENTWISE["nn"], "dtypes": _ELEMENTWISE["dtypes"], "ragged": ["range"]}


# -- operands ----------------------------------------------------------------------------------------------------
def _check_partitions(first, other):
    """TF's error unless the ragged tensors ``first`` and ``other`` have the same row partitions."""
    for a, b in itertools.zip_longest(first.nested_row_splits, other.nested_row_splits):
        if a is None or b is None or a.array.shape != b.array.shape or not np.array_equal(a.array, b.array):
            raise op_error("Condition x == y did not hold. Inputs must have identical ragged splits.",
                           "AssertEqual")


def _aligned(ragged, value):
    """``value`` (a non-ragged operand) as it lines up with the flat values of ``ragged``: scalars and other
    non-tensor arguments as they are, dense tensors broadcast against the ragged shape."""
    if not isinstance(value, (CoreTensor, np.ndarray, list)):
        return value
    dense = convert_to_tensor(value, dtype_hint=ragged.dtype)
    inner = ragged.flat_values.array.ndim - 1
    if dense.array.ndim <= inner:
        return dense
    if ragged.ragged_rank != 1 or dense.array.ndim > inner + 2:
        raise NotImplementedError(f"vfw.tensorflow broadcasts a dense tensor of shape {dense.shape} against a "
                                  f"ragged tensor of shape {ragged.shape} only along its inner dims, or for ragged "
                                  "rank 1 along [rows, row length]")
    from vfw.frontends.tensorflow._array_gather import gather
    from vfw.frontends.tensorflow._array_ops import reshape

    dims = [1] * (inner + 2 - dense.array.ndim) + list(dense.array.shape)
    splits = ragged.row_splits.array
    lengths = np.diff(splits)
    rows, width = dims[0], dims[1]
    if rows not in (1, len(lengths)) or (width != 1 and np.any(lengths != width)):
        raise op_error("Condition x == y did not hold. Inputs must have compatible shapes.", "AssertEqual")
    row_ids = _row_ids(splits)
    column_ids = np.arange(len(row_ids)) - splits[row_ids]
    index = (row_ids if rows != 1 else 0) * width + (column_ids if width != 1 else 0)
    return gather(reshape(dense, [rows * width] + dims[2:]), _dispatch.wrap(np.asarray(index, np.int64)))


def elementwise(fn, args, kwargs):
    """``fn`` applied to the flat values of the ragged operands among ``args``/``kwargs`` (same partitions) and to
    the other operands aligned with them, its result given their row partitions."""
    ragged = [a for a in itertools.chain(args, kwargs.values()) if isinstance(a, RaggedTensor)]
    first = ragged[0]
    for other in ragged[1:]:
        _check_partitions(first, other)

    def flat(value):
        return value.flat_values if isinstance(value, RaggedTensor) else _aligned(first, value)
    return first.with_flat_values(fn(*[flat(a) for a in args], **{k: flat(v) for k, v in kwargs.items()}))


def _operator(name):
    """A RaggedTensor operator: the tensor operator ``name`` on the flat values."""
    def method(self, *other):
        return elementwise(lambda flat, *rest: getattr(flat, name)(*rest), (self,) + other, {})
    method.__name__ = name
    return method


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__",
              "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__", "__lt__", "__le__",
              "__gt__", "__ge__", "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__neg__",
              "__abs__", "__invert__"):
    setattr(RaggedTensor, _name, _operator(_name))


def _equality(name, unequal):
    """RaggedTensor ``==`` / ``!=``: elementwise on the flat values, as TF's ``tensor_equals``; operands that do not
    line up (other partitions, shapes, dtypes; None) compare as a plain unequal Python bool."""
    def method(self, other):
        if other is None:
            return unequal
        try:
            return elementwise(lambda flat, rest: getattr(flat, name)(rest), (self, other), {})
        except (ValueError, TypeError, NotImplementedError, errors.OpError):
            return unequal
    method.__name__ = name
    return method


RaggedTensor.__eq__ = _equality("__eq__", False)
RaggedTensor.__ne__ = _equality("__ne__", True)


def _unhashable(self):
    raise TypeError("RaggedTensor is unhashable.")


RaggedTensor.__hash__ = _unhashable  # as TF's, once == is elementwise


# -- reductions ----------------------------------------------------------------------------------------------------
def _segment_reduce(kind, values, ids, count):
    """``values`` reduced by segment ``ids`` into ``count`` segments, as TF's ragged reduction ``kind``."""
    from vfw.frontends.tensorflow import _math_segment
    from vfw.frontends.tensorflow._creation import cast

    ids = _dispatch.wrap(ids)
    if kind in ("reduce_any", "reduce_all"):
        reduce = _math_segment.unsorted_segment_max if kind == "reduce_any" else _math_segment.unsorted_segment_min
        reduced = reduce(cast(values, _dtypes.int32), ids, count)
        return _dispatch.wrap(reduced.array > 0)
    if kind == "reduce_mean":
        sums = _math_segment.unsorted_segment_sum(values, ids, count)
        sizes = np.bincount(ids.array, minlength=count).reshape((count,) + (1,) * (values.array.ndim - 1))
        if values.dtype.is_integer:
            sums = cast(sums, _dtypes.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            return sums / _dispatch.wrap(sizes.astype(sums.array.dtype))
    reduce = {"reduce_sum": _math_segment.unsorted_segment_sum, "reduce_max": _math_segment.unsorted_segment_max,
              "reduce_min": _math_segment.unsorted_segment_min,
              "reduce_prod": _math_segment.unsorted_segment_prod}[kind]
    return reduce(values, ids, count)


def _reduce(kind, dense_fn, ragged, axis, keepdims):
    """TF's ragged reduction ``kind`` of ``ragged`` along one ``axis`` (or all)."""
    if axis is None:
        if kind == "reduce_mean" and ragged.dtype.is_integer:
            return _reduce(kind, dense_fn, RaggedTensor(ragged.flat_values, _dispatch.wrap(
                np.array([0, ragged.flat_values.array.shape[0]], np.int64))), 1, False)[0]
        return dense_fn(ragged.flat_values, keepdims=keepdims)
    axes = np.atleast_1d(np.asarray(axis.array if isinstance(axis, CoreTensor) else axis)).tolist()
    if len(axes) != 1:
        raise NotImplementedError("vfw.tensorflow reduces a ragged tensor along one axis (or all) at a time.")
    rank, depth = ragged.shape.rank, ragged.ragged_rank
    axis = axes[0] + rank if axes[0] < 0 else axes[0]
    if not 0 <= axis < rank:
        raise ValueError(f"axis={axes[0]} out of bounds: expected {-rank}<=axis<{rank}")
    if axis > depth:
        return ragged.with_flat_values(dense_fn(ragged.flat_values, axis - depth, keepdims=keepdims))
    if axis == depth:  # the innermost ragged dim: each innermost row's values reduced
        splits = ragged.nested_row_splits[-1].array
        reduced = _segment_reduce(kind, ragged.flat_values, _row_ids(splits), len(splits) - 1)
        if keepdims:
            from vfw.frontends.tensorflow._array_ops import expand_dims

            reduced = expand_dims(reduced, 1)
        if depth == 1:
            return reduced
        outer = ragged.nested_row_splits[:-1]
        return RaggedTensor.from_nested_row_splits(reduced, list(outer), validate=False)
    if axis == 0 and depth == 1 and not keepdims:  # column by column across the rows
        splits = ragged.row_splits.array
        lengths = np.diff(splits)
        row_ids = _row_ids(splits)
        columns = np.arange(len(row_ids)) - splits[row_ids]
        return _segment_reduce(kind, ragged.flat_values, columns, int(lengths.max()) if lengths.size else 0)
    raise NotImplementedError(f"vfw.tensorflow reduces a ragged tensor of ragged rank {depth} along its innermost "
                              "ragged dim, its uniform inner dims, all dims, or (ragged rank 1) axis 0; not "
                              f"axis {axes[0]}{' with keepdims' if keepdims else ''}.")


def _ragged_operands(values):
    """``values`` (tensors and ragged tensors) all as ragged tensors of the highest ragged rank among them."""
    depth = max(v.ragged_rank for v in values if isinstance(v, RaggedTensor))
    return [v if isinstance(v, RaggedTensor) else from_dense(convert_to_tensor(v).array, depth) for v in values]


def _concat(values, axis):
    """``tf.concat`` of a list holding ragged tensors: rows after rows (axis 0) or each row's values joined
    (axis 1, ragged rank 1)."""
    from vfw.frontends.tensorflow._array_gather import gather
    from vfw.frontends.tensorflow._array_ops import concat

    parts = _ragged_operands(values)
    rank = parts[0].shape.rank
    for part in parts[1:]:
        if part.shape.rank != rank:
            raise ValueError(f"Rank mismatch: {parts[0].shape} vs {part.shape}")
        if part.dtype != parts[0].dtype:
            raise op_error(f"Tensors in list passed to 'values' of 'ConcatV2' Op have types [{parts[0].dtype.name}, "
                           f"{part.dtype.name}] that don't all match.", "ConcatV2")
    axis = axis + rank if axis < 0 else axis
    if axis == 0:
        return concat_rows(parts)
    if axis == 1 and parts[0].ragged_rank == 1 and all(p.ragged_rank == 1 for p in parts):
        nrows = {len(p) for p in parts}
        if len(nrows) > 1:
            raise op_error("Input tensors at index 0 (=x) and 1 (=y) must have the same number of rows",
                           "RaggedTensorConcat")
        all_splits = [p.row_splits.array for p in parts]
        offsets = np.cumsum([0] + [s[-1] for s in all_splits[:-1]])
        # each row's values from every part in turn: the positions in the parts' values concatenated
        pieces = [(_row_ids(s), np.arange(s[-1]) + o) for s, o in zip(all_splits, offsets)]
        row_of = np.concatenate([p[0] for p in pieces])
        order = np.argsort(row_of, kind="stable")
        positions = np.concatenate([p[1] for p in pieces])[order]
        flat = gather(concat([p.values for p in parts], 0), _dispatch.wrap(positions.astype(np.int64)))
        return RaggedTensor(flat, _dispatch.wrap(np.sum(all_splits, axis=0).astype(np.int64)))
    raise NotImplementedError("vfw.tensorflow concatenates ragged tensors along axis 0, or axis 1 at ragged rank 1.")


def _gather(dense, params, indices, axis, batch_dims):
    """``tf.gather`` with ragged ``params`` (whole rows, at dense indices of any rank: their dims become uniform
    row partitions; a scalar index gives the row itself) or ragged ``indices`` (into dense ``params``)."""
    if (axis not in (None, 0) or batch_dims != 0) or (params.__class__ is RaggedTensor
                                                     and indices.__class__ is RaggedTensor):
        raise NotImplementedError("vfw.tensorflow gathers ragged tensors along axis 0 without batch_dims, and not "
                                  "ragged params at ragged indices.")
    if indices.__class__ is RaggedTensor:
        return indices.with_flat_values(dense(params, indices.flat_values))
    from vfw.frontends.tensorflow._ragged import _take

    positions = convert_to_tensor(indices)
    if not positions.dtype.is_integer:
        raise op_error(f"Value for attr 'Tindices' of {_dispatch.kernel_type_name(positions.dtype)} is not in the "
                       "list of allowed values: int32, int64", "RaggedGather")
    nrows, flat = len(params), positions.array.reshape(-1)
    bad = np.flatnonzero((flat < 0) | (flat >= nrows))
    if bad.size:
        raise op_error(f"indices[{bad[0]}] = {flat[bad[0]]} is not in [0, {nrows})", "RaggedGather")
    if positions.array.ndim == 0:
        return params[int(flat[0])]
    gathered = _take(params, flat.astype(np.int64))
    for width in reversed(positions.array.shape[1:]):
        gathered = RaggedTensor.from_uniform_row_length(gathered, width)
    return gathered


def _true_coordinates(condition):
    """``tf.where`` of a ragged ``condition``: the int64 coordinates ``[n, rank]`` of its true entries (each flat
    value's row, then its position in each ragged dimension, then its inner indices)."""
    nested = [splits.array for splits in condition.nested_row_splits]
    rows = _row_ids(nested[-1])
    coordinates = [np.arange(len(rows)) - nested[-1][rows]]
    for splits in reversed(nested[:-1]):
        outer = _row_ids(splits)[rows]
        coordinates.insert(0, rows - splits[outer])
        rows = outer
    coordinates.insert(0, rows)
    true = np.nonzero(condition.flat_values.array)
    columns = [c[true[0]] for c in coordinates] + list(true[1:])
    return _dispatch.wrap(np.stack(columns, axis=1).astype(np.int64).reshape(-1, len(columns)))


# -- the dispatching wrappers ------------------------------------------------------------------------------------
def _original(name):
    """The dense function the other families give ``name`` (tf.math's first, then tf's, then tf.nn's; in each, the
    last family's, as :func:`_families.names` builds the namespaces: a later family overrides, e.g. complex ``abs``)."""
    from vfw.frontends.tensorflow import _families

    for namespace in ("math", "tf", "nn", "dtypes"):
        for family in reversed(_families.FAMILIES):
            if family.__name__ != __name__ and name in family.NAMESPACES.get(namespace, ()):
                return getattr(family, name)
    raise AttributeError(name)


def _has_ragged(args, kwargs):
    for a in args:
        if a.__class__ is RaggedTensor:
            return True
    for a in kwargs.values():
        if a.__class__ is RaggedTensor:
            return True
    return False


def _dispatching(name):
    """``name``'s dense function, also taking ragged tensors."""
    dense, kind = _original(name), name
    if kind == "concat":
        def fn(values, axis, name="concat"):
            if isinstance(values, (list, tuple)) and any(isinstance(v, RaggedTensor) for v in values):
                return _concat(list(values), int(axis))
            return dense(values, axis, name)
    elif kind == "gather":
        def fn(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
            if params.__class__ is RaggedTensor or indices.__class__ is RaggedTensor:
                return _gather(dense, params, indices, axis, batch_dims)
            return dense(params, indices, validate_indices, axis, batch_dims, name)
    elif kind == "where":
        def fn(condition, x=None, y=None, name=None):
            if not _has_ragged((condition, x, y), {}):
                return dense(condition, x, y, name)
            if x is None and y is None:
                return _true_coordinates(condition)
            return elementwise(dense, (condition, x, y), {})
    elif kind in _REDUCTIONS:
        def fn(input_tensor, axis=None, keepdims=False, name=None):
            if input_tensor.__class__ is RaggedTensor:
                return _reduce(kind, dense, input_tensor, axis, bool(keepdims))
            return dense(input_tensor, axis, keepdims, name)
    else:
        def fn(*args, **kwargs):
            if _has_ragged(args, kwargs):
                return elementwise(dense, args, kwargs)
            return dense(*args, **kwargs)
    return functools.update_wrapper(fn, dense)


def __getattr__(name):
    if name not in _WRAPPED_NAMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    dense = _original(name)
    # an alias (tf.nn.swish is tf.nn.silu) gets the same wrapper
    wrapped = next((globals()[other] for other in _WRAPPED_NAMES if other in globals() and
                    globals()[other].__wrapped__ is dense), None) or _dispatching(name)
    globals()[name] = wrapped
    return wrapped


_WRAPPED_NAMES = {name for namespace, names in NAMESPACES.items() if namespace != "ragged" for name in names}


# -- tf.ragged.range -----------------------------------------------------------------------------------------------
def range(starts, limits=None, deltas=1, dtype=None, name=None, row_splits_dtype=_dtypes.int64):  # noqa: A001
    """The ragged tensor whose row ``i`` is ``range(starts[i], limits[i], deltas[i])`` (scalars broadcast;
    ``range(limits)`` when only one bound is given).

    Raises
    ------
    InvalidArgumentError
        For a zero delta, or bounds of different lengths.
    """
    if limits is None:
        starts, limits = 0, starts
    given = [starts, limits, deltas]
    if dtype is None:
        tensors = [v for v in given if isinstance(v, CoreTensor) or not isinstance(v, (int, float))]
        dtype = convert_to_tensor(tensors[0] if tensors else limits).dtype
    starts, limits, deltas = (convert_to_tensor(v, dtype=dtype).array for v in given)
    if np.any(deltas == 0):
        raise op_error("Requires delta != 0", "RaggedRange")
    sizes = {a.size for a in (starts, limits, deltas) if a.ndim}
    if len(sizes) > 1:
        raise op_error("starts, limits, and deltas must have the same shape", "RaggedRange")
    starts, limits, deltas = np.broadcast_arrays(starts, limits, deltas)
    starts, limits, deltas = starts.reshape(-1), limits.reshape(-1), deltas.reshape(-1)
    lengths = np.maximum(np.ceil((limits - starts) / deltas), 0).astype(np.int64)
    row_ids = np.repeat(np.arange(len(lengths)), lengths)
    steps = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    values = (starts[row_ids] + steps * deltas[row_ids]).astype(starts.dtype)
    return RaggedTensor(_dispatch.wrap(values), _dispatch.wrap(np.concatenate([[0], np.cumsum(lengths)])))
