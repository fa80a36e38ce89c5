"""Reductions of tf.math: reduce_sum ... reduce_std, count_nonzero, argmax/argmin, zero_fraction,
l2_normalize, is_non_decreasing / is_strictly_increasing.

``axis`` is None (every axis), an int, or a list/tuple/tensor of ints (an empty list reduces
nothing); out-of-range and duplicate axes raise InvalidArgumentError as TF's kernels do.  Integer
means truncate toward zero; reductions over nothing give the identity (0, 1, the dtype's lowest
or highest value, NaN for a float mean).  Integer types the engine does not reduce natively
(8/16-bit) are reduced in a wider type and cast back (sums and products wrap as TF's do).
"""

import numpy as np

from vfw.core.graph.trace import _active as _tracing
from vfw.core.registry import make_op
from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, op_error
from vfw.frontends.tensorflow._math_binary import subtract
from vfw.frontends.tensorflow._math_common import (
    BOOL,
    FLOATS,
    STRING,
    OpTypes,
    Tensor,
    is_tensor_like,
    of_dtype,
    recording,
    result,
    run,
    scalar_like,
    tensor,
)
from vfw.frontends.tensorflow._math_logic import less, less_equal
from vfw.frontends.tensorflow._math_unary import is_finite, lgamma, sqrt, square

_INT32 = np.dtype(np.int32)
_INT64 = np.dtype(np.int64)


# -- axes ----------------------------------------------------------------------------------------
def reduction_axes(tf_op, x, axis):
    """The axes ``axis`` names for a reduction of ``x``: None (all), or a tuple of axes in ``[0, rank)``.

    Raises TypeError for non-integer axes, InvalidArgumentError for out-of-range or repeated ones.
    """
    if axis is None:
        return None
    if axis.__class__ is int:
        values = (axis,)
    elif axis.__class__ in (list, tuple) and all(v.__class__ is int for v in axis):
        values = axis
    else:
        t = tensor(axis) if is_tensor_like(axis) else convert_to_tensor(axis, _dtypes.int32)
        if t.array.dtype not in (_INT32, _INT64):
            raise op_error(f"Value for attr 'Tidx' of {_dtypes.of_array(t.array).name} is not in the list of "
                           "allowed values: int32, int64", tf_op)
        values = t.array.reshape(-1).tolist()
    rank = x.array.ndim
    if len(values) == 1 and -rank <= values[0] < rank:  # the common case
        return (values[0] % rank,)
    axes = []
    for v in values:
        if not -rank <= v < rank:
            raise op_error(f"Invalid reduction dimension ({v} for input with {rank} dimension(s)", tf_op)
        v %= rank
        if v in axes:
            raise op_error(f"Invalid reduction arguments: Axes contains duplicate dimension: {v}", tf_op)
        axes.append(v)
    return tuple(axes)


_REDUCERS = {}


def _reducer(engine_op, keepdims, axes):
    """The bound engine reduction (cached per keepdims and whether ``axes`` is empty)."""
    key = (engine_op, keepdims, axes == ())
    bound = _REDUCERS.get(key)
    if bound is None:
        attrs = {"keepdims": int(keepdims), "noop_with_empty_axes": int(axes == ())}
        bound = _REDUCERS[key] = make_op(engine_op, attrs)
    return bound


# Integer types the engine's reductions lack, and the type each is reduced in.
_WIDER = {np.dtype(n): np.dtype(w) for n, w in (("int8", "int64"), ("int16", "int64"), ("uint8", "uint64"),
                                                ("uint16", "uint64"))}


_AXES_ARRAYS = {}


def _axes_array(axes):
    """``axes`` as the engine's int64 input (cached: a few axes tuples recur)."""
    found = _AXES_ARRAYS.get(axes)
    if found is None:
        found = np.array(axes, _INT64)
        found.flags.writeable = False
        if len(_AXES_ARRAYS) < 256:
            _AXES_ARRAYS[axes] = found
    return found


def reduce(engine_op, tf_op, x, axes, keepdims):
    """``engine_op`` over ``axes`` (from ``reduction_axes``) of tensor ``x``."""
    bound = _reducer(engine_op, keepdims, axes)
    axes_array = None if axes is None else _axes_array(axes)
    if not recording(x) and x.array.dtype not in _WIDER:
        return result(bound.kernel(x.array, axes_array))
    d = x.array.dtype
    if d in _WIDER and not (engine_op in ("ReduceMax", "ReduceMin") and d.itemsize == 1):
        wide = run(bound, run("Cast", x, to=_WIDER[d]), axes_array, tf_op=tf_op)
        return run("Cast", wide, to=d, tf_op=tf_op)
    return run(bound, x, axes_array, tf_op=tf_op)


def _reduction(name, tf_op, engine_op, allowed="F I U"):
    types = OpTypes(tf_op, allowed)
    kernel_types = types.kernels
    # The hot case, a full reduction that nothing records: the kernels bound once.
    full = {keep: make_op(engine_op, {"keepdims": int(keep)}).kernel for keep in (False, True)}

    def fn(input_tensor, axis=None, keepdims=False, name=None):
        x = input_tensor if input_tensor.__class__ is Tensor else tensor(input_tensor)
        a = x.array
        if a.dtype not in kernel_types:
            raise types.error(a.dtype)
        if axis is None and not (_tracing or x.requires_grad) and a.dtype not in _WIDER:
            return result(full[bool(keepdims)](a))
        return reduce(engine_op, tf_op, x, reduction_axes(tf_op, x, axis), keepdims)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{name}: ``{engine_op}`` over ``axis`` (all axes when None); ``keepdims`` keeps them as 1."
    return fn


reduce_sum = _reduction("reduce_sum", "Sum", "ReduceSum")
reduce_mean = _reduction("reduce_mean", "Mean", "ReduceMean")
reduce_prod = _reduction("reduce_prod", "Prod", "ReduceProd")
reduce_max = _reduction("reduce_max", "Max", "ReduceMax")
reduce_min = _reduction("reduce_min", "Min", "ReduceMin")


def _logical_reduction(tf_op, engine_op):
    def fn(input_tensor, axis=None, keepdims=False, name=None):
        (x,) = of_dtype(tf_op, [input_tensor], BOOL)
        return reduce(engine_op, tf_op, x, reduction_axes(tf_op, x, axis), keepdims)

    return fn


reduce_any = _logical_reduction("Any", "ReduceMax")
reduce_any.__doc__ = "Logical OR over ``axis`` of a bool tensor (False over nothing)."
reduce_all = _logical_reduction("All", "ReduceMin")
reduce_all.__doc__ = "Logical AND over ``axis`` of a bool tensor (True over nothing)."

_EUCLIDEAN_NORM = OpTypes("EuclideanNorm", "F I U")


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """``sqrt(sum(x ** 2))`` over ``axis``; its gradient is NaN at a zero norm, as TF's.

    Integers square and sum in their own type (wrapping, as TF's kernel) and the root is truncated.
    """
    x = tensor(input_tensor)
    _EUCLIDEAN_NORM.check(x.array.dtype)
    axes = reduction_axes("EuclideanNorm", x, axis)
    if x.array.dtype in _WIDER:
        total = reduce("ReduceSum", "EuclideanNorm", square(x), axes, keepdims)
        root = run("Sqrt", run("Cast", total, to=np.dtype(np.float64)))
        return run("Cast", root, to=x.array.dtype)
    if recording(x) and x.array.dtype in FLOATS:  # the composition has TF's gradient (NaN at a zero norm)
        return sqrt(reduce("ReduceSumSquare", "EuclideanNorm", x, axes, keepdims))
    return reduce("ReduceL2", "EuclideanNorm", x, axes, keepdims)


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """``log(sum(exp(x)))`` over ``axis``, shifted by the (finite) maximum for stability."""
    x = tensor(input_tensor)
    axes = reduction_axes("Max", x, axis)
    raw_max = reduce_max(x, axis, keepdims=True)
    shift = run("Where", is_finite(raw_max), raw_max.array, scalar_like(0, raw_max))  # constant: no gradient
    total = reduce("ReduceSum", "Sum", run("Exp", subtract(x, shift)), axes, keepdims)
    return run("Add", run("Log", total), shift.array.reshape(total.array.shape))


def _not_integer(input_tensor):
    """The input of reduce_variance/std: TF refuses integers with TypeError (other non-floats fail in the mean)."""
    x = tensor(input_tensor)
    if x.array.dtype.kind in "iu":
        raise TypeError(f"Input must be either real or complex. Received integer type "
                        f"<dtype: '{_dtypes.of_array(x.array).name}'>.")
    return x


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """Variance (mean squared deviation from the mean) over ``axis`` of a float tensor."""
    x = _not_integer(input_tensor)
    means = reduce_mean(x, axis, keepdims=True)
    return reduce_mean(square(subtract(x, means)), axis, keepdims)


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """Standard deviation over ``axis`` of a float tensor."""
    return sqrt(reduce_variance(_not_integer(input_tensor), axis, keepdims))


def count_nonzero(input, axis=None, keepdims=None, dtype=_dtypes.int64, name=None):  # noqa: A002
    """Number of non-zero elements (non-empty strings, True) over ``axis``, as ``dtype`` (int64)."""
    x = tensor(input)
    zero = np.array(b"", object) if x.array.dtype == STRING else np.zeros((), x.array.dtype)
    nonzero = run("Cast", run("Not", run("Equal", x, zero, tf_op="NotEqual")), to=_INT64)
    counts = reduce("ReduceSum", "Sum", nonzero, reduction_axes("Sum", nonzero, axis), bool(keepdims))
    target = _dtypes.as_dtype(dtype).np
    return counts if target == _INT64 else run("Cast", counts, to=target)


def zero_fraction(value, name=None):
    """The fraction of zeros in ``value`` (float32; NaN when it is empty)."""
    x = tensor(value)
    size = np.float32(x.array.size)
    nonzero = run("Cast", count_nonzero(x), to=np.dtype(np.float32))
    return run("Div", run("Sub", np.asarray(size), nonzero), np.asarray(size))


# -- argmax / argmin -----------------------------------------------------------------------------
_ARG_TYPES = {"ArgMax": OpTypes("ArgMax", "F I U bool"), "ArgMin": OpTypes("ArgMin", "F I U bool")}
_ARG_OUTPUTS = {"ArgMax": ("int16", "uint16", "int32", "int64"), "ArgMin": ("int32", "int64")}
_ARG_OPS = {}


def _arg(tf_op, input, axis, output_type):
    x = tensor(input)
    _ARG_TYPES[tf_op].check(x.array.dtype)
    out = _dtypes.as_dtype(output_type)
    if out.name not in _ARG_OUTPUTS[tf_op]:
        raise op_error(f"Value for attr 'output_type' of {out.name} is not in the list of allowed values: "
                       f"{', '.join(_ARG_OUTPUTS[tf_op])}", tf_op)
    if axis is None:
        axis = 0
    if tf_op == "ArgMax" and not (isinstance(axis, (int, np.integer)) or is_tensor_like(axis)):
        raise TypeError("axis must be int or Tensor with integer datatype")  # tf.argmax's own check
    dim = tensor(axis) if is_tensor_like(axis) else convert_to_tensor(axis, _dtypes.int32)
    if dim.array.dtype not in (_INT32, _INT64):
        raise op_error(f"Value for attr 'Tidx' of {_dtypes.of_array(dim.array).name} is not in the list of allowed "
                       "values: int32, int64", tf_op)
    if dim.array.ndim:
        raise op_error(f"dim must be a scalar, but received tensor of shape: [{','.join(map(str, dim.array.shape))}]",
                       tf_op)
    axis = int(dim.array)
    rank = x.array.ndim
    if not -rank <= axis < rank:
        raise op_error(f"Expected dimension in the range [{-rank}, {rank}), but got {axis}", tf_op)
    axis = int(axis) % rank
    if x.array.shape[axis] == 0:
        raise op_error(f"Reduction axis {axis} is empty in shape [{','.join(map(str, x.array.shape))}]", tf_op)
    x = run("Cast", x, to=np.dtype(np.uint8)) if x.array.dtype == BOOL else x
    if x.array.dtype in FLOATS:
        # TF's kernels skip NaN (it compares false): search with NaN as the worst value instead.
        worst = -np.inf if tf_op == "ArgMax" else np.inf
        x = run("Where", run("IsNaN", x), scalar_like(worst, x), x)
    key = (tf_op, axis)
    bound = _ARG_OPS.get(key)
    if bound is None:
        bound = _ARG_OPS[key] = make_op(tf_op, {"axis": axis, "keepdims": 0})
    indices = run(bound, x, tf_op=tf_op)
    return indices if out.np == _INT64 else run("Cast", indices, to=out.np)


def argmax(input, axis=None, output_type=_dtypes.int64, name=None):  # noqa: A002
    """Index of the largest value along ``axis`` (0 when None): the first of ties; NaN is skipped."""
    return _arg("ArgMax", input, axis, output_type)


def argmin(input, axis=None, output_type=_dtypes.int64, name=None):  # noqa: A002
    """Index of the smallest value along ``axis`` (0 when None): the first of ties; NaN is skipped."""
    return _arg("ArgMin", input, axis, output_type)


def lbeta(x, name=None):
    """``log(|Beta(x)|)`` over the last axis: ``sum(lgamma(x)) - lgamma(sum(x))`` (-inf for an empty axis)."""
    x = tensor(x)
    return subtract(reduce_sum(lgamma(x), [-1]), lgamma(reduce_sum(x, [-1])))


# -- monotonicity ------------------------------------------------------------------------------
def _monotonic(x, strict):
    x = tensor(x)
    if x.array.dtype == BOOL:
        raise TypeError("Expected x to be numeric, got tf.bool")
    flat = run("Reshape", x, np.array([-1], _INT64))
    n = flat.array.shape[0]
    if n < 2:
        return result(np.asarray(True))
    head = run("Slice", flat, np.array([0], _INT64), np.array([n - 1], _INT64))
    tail = run("Slice", flat, np.array([1], _INT64), np.array([n], _INT64))
    return reduce_all((less if strict else less_equal)(head, tail))


def is_non_decreasing(x, name=None):
    """Whether the elements of ``x`` (flattened) never decrease (True for fewer than two elements)."""
    return _monotonic(x, False)


def is_strictly_increasing(x, name=None):
    """Whether the elements of ``x`` (flattened) always increase (True for fewer than two elements)."""
    return _monotonic(x, True)


NAMESPACES = {
    "tf": ["reduce_sum", "reduce_mean", "reduce_prod", "reduce_max", "reduce_min", "reduce_any", "reduce_all",
           "reduce_logsumexp", "argmax", "argmin"],
    "math": ["reduce_sum", "reduce_mean", "reduce_prod", "reduce_max", "reduce_min", "reduce_any", "reduce_all",
             "reduce_logsumexp", "reduce_euclidean_norm", "reduce_variance", "reduce_std", "count_nonzero",
             "zero_fraction", "argmax", "argmin", "lbeta", "is_non_decreasing", "is_strictly_increasing"],
}
TENSOR_METHODS = {}
