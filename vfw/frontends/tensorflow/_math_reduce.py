"""Reductions of tf.math: reduce_sum ... reduce_std, count_nonzero, argmax/argmin, zero_fraction,
l2_normalize, is_non_decreasing / is_strictly_increasing.

``axis`` is None (every axis), an int, or a list/tuple/tensor of ints (an empty list reduces
nothing); out-of-range and duplicate axes raise InvalidArgumentError as TF's kernels do.  Integer
means truncate toward zero; reductions over nothing give the identity (0, 1, the dtype's lowest
or highest value, NaN for a float mean).  Integer types the engine does not reduce natively
(8/16-bit) are reduced in a wider type and cast back (sums and products wrap as TF's do).
"""

import numpy as np

from vfw.frontends.tensorflow import _dispatch, _dtypes
from vfw.frontends.tensorflow._dispatch import (
    call,
    convert_to_tensor,
    is_tensor_like,
    kernel_type_name,
    op,
    op_error,
    recording,
    wrap,
)
from vfw.frontends.tensorflow._math_binary import subtract
from vfw.frontends.tensorflow._math_logic import less, less_equal
from vfw.frontends.tensorflow._math_unary import is_finite, lgamma, sqrt, square
from vfw.frontends.tensorflow._op_support import (
    BOOL,
    FLOATS,
    INDEX_DTYPES,
    STRING,
    WIDER_INTS,
    OpTypes,
    attr_error,
    of_dtype,
    reduce,
    reshape,
    scalar_like,
    with_dtype,
    with_gradient,
)
from vfw.frontends.tensorflow._traced_shapes import pinned, reshaped_like

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
        t = with_dtype(axis, _dtypes.int32)
        if t.array.dtype not in INDEX_DTYPES:
            raise attr_error(tf_op, "Tidx", kernel_type_name(_dtypes.of_array(t.array)), "int32, int64")
        values = t.array.reshape(-1).tolist()
        pinned(t, values, "axis", tf_op)
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


def _reduction(name, tf_op, engine_op, allowed="F I U"):
    types = OpTypes(tf_op, allowed)
    kernel_types = types.kernels
    # The hot case, a full reduction that nothing records: the kernels bound once.
    full = {keep: op(engine_op, keepdims=int(keep)).kernel for keep in (False, True)}

    def fn(input_tensor, axis=None, keepdims=False, name=None):
        x = convert_to_tensor(input_tensor)
        a = x.array
        if a.dtype not in kernel_types:
            raise types.error(a.dtype)
        if axis is None and a.dtype not in WIDER_INTS and not recording(x):
            result = full[bool(keepdims)](a)
            if _dispatch.numerics_hook is not None:
                _dispatch.numerics_hook(tf_op, (x,), result, False)
            return wrap(result)
        return reduce(engine_op, x, reduction_axes(tf_op, x, axis), keepdims, tf_op)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{name}: ``{engine_op}`` over ``axis`` (all axes when None); ``keepdims`` keeps them as 1."
    return fn


reduce_sum = _reduction("reduce_sum", "Sum", "ReduceSum", "F I U C")
reduce_mean = _reduction("reduce_mean", "Mean", "ReduceMean", "F I U C")
reduce_prod = _reduction("reduce_prod", "Prod", "ReduceProd", "F I U C")
reduce_max = _reduction("reduce_max", "Max", "ReduceMax")
reduce_min = _reduction("reduce_min", "Min", "ReduceMin")


def _logical_reduction(tf_op, engine_op):
    def fn(input_tensor, axis=None, keepdims=False, name=None):
        (x,) = of_dtype(tf_op, [input_tensor], BOOL)
        return reduce(engine_op, x, reduction_axes(tf_op, x, axis), keepdims, tf_op)

    return fn


reduce_any = _logical_reduction("Any", "ReduceMax")
reduce_any.__doc__ = "Logical OR over ``axis`` of a bool tensor (False over nothing)."
reduce_all = _logical_reduction("All", "ReduceMin")
reduce_all.__doc__ = "Logical AND over ``axis`` of a bool tensor (True over nothing)."

_EUCLIDEAN_NORM = OpTypes("EuclideanNorm", "F I U C")


def _complex_euclidean_norm(x, axes, keepdims):
    """``sqrt(sum(x conj(x)))`` (complex, real-valued) with TF's gradient ``x g / norm`` (not conjugated)."""
    reduced = [axes is None or i in axes for i in range(x.array.ndim)]
    kept = tuple(1 if r else n for r, n in zip(reduced, x.array.shape))
    out = kept if keepdims else tuple(n for r, n in zip(reduced, x.array.shape) if not r)

    def norm(x):  # with the reduced dims kept
        return call("Sqrt", reduce("ReduceSum", call("Mul", x, call("Conj", x)), axes, True, "EuclideanNorm"))

    def backward(g, x):
        return (call("Div", x, call("Div", norm(x), reshape(g, kept))),)

    return with_gradient(lambda x: reshape(norm(x), out), backward, x)


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """``sqrt(sum(x ** 2))`` over ``axis``; its gradient is NaN at a zero norm, as TF's.

    Integers square and sum in their own type (wrapping, as TF's kernel) and the root is truncated.
    Complex tensors give ``sqrt(sum(|x| ** 2))`` as a complex tensor.
    """
    x = convert_to_tensor(input_tensor)
    _EUCLIDEAN_NORM.check(x.array.dtype)
    axes = reduction_axes("EuclideanNorm", x, axis)
    if x.array.dtype.kind == "c":
        return _complex_euclidean_norm(x, axes, keepdims)
    if x.array.dtype in WIDER_INTS:
        total = reduce("ReduceSum", square(x), axes, keepdims, "EuclideanNorm")
        root = call("Sqrt", call("Cast", total, to=np.dtype(np.float64)))
        return call("Cast", root, to=x.array.dtype)
    if recording(x) and x.array.dtype in FLOATS:  # the composition has TF's gradient (NaN at a zero norm)
        return sqrt(reduce("ReduceSumSquare", x, axes, keepdims, "EuclideanNorm"))
    return reduce("ReduceL2", x, axes, keepdims, "EuclideanNorm")


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """``log(sum(exp(x)))`` over ``axis``, shifted by the (finite) maximum for stability."""
    x = convert_to_tensor(input_tensor)
    axes = reduction_axes("Max", x, axis)
    raw_max = reduce_max(x, axis, keepdims=True)
    shift = call("Where", is_finite(raw_max), raw_max.array, scalar_like(0, raw_max))  # constant: no gradient
    total = reduce("ReduceSum", call("Exp", subtract(x, shift)), axes, keepdims, "Sum")
    return call("Add", call("Log", total), reshaped_like(shift, total))


def _not_integer(input_tensor):
    """The input of reduce_variance/std: TF refuses integers with TypeError (other non-floats fail in the mean)."""
    x = convert_to_tensor(input_tensor)
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
    x = convert_to_tensor(input)
    zero = np.array(b"", object) if x.array.dtype == STRING else np.zeros((), x.array.dtype)
    nonzero = call("Cast", call("Not", call("Equal", x, zero, tf_op="NotEqual")), to=_INT64)
    counts = reduce("ReduceSum", nonzero, reduction_axes("Sum", nonzero, axis), bool(keepdims), "Sum")
    target = _dtypes.as_dtype(dtype).np
    return counts if target == _INT64 else call("Cast", counts, to=target)


def zero_fraction(value, name=None):
    """The fraction of zeros in ``value`` (float32; NaN when it is empty)."""
    x = convert_to_tensor(value)
    size = np.float32(x.array.size)
    nonzero = call("Cast", count_nonzero(x), to=np.dtype(np.float32))
    return call("Div", call("Sub", np.asarray(size), nonzero), np.asarray(size))


# -- argmax / argmin -----------------------------------------------------------------------------
_ARG_TYPES = {"ArgMax": OpTypes("ArgMax", "F I U bool"), "ArgMin": OpTypes("ArgMin", "F I U bool")}
_ARG_OUTPUTS = {"ArgMax": ("int16", "uint16", "int32", "int64"), "ArgMin": ("int32", "int64")}


def _arg(tf_op, input, axis, output_type):
    x = convert_to_tensor(input)
    _ARG_TYPES[tf_op].check(x.array.dtype)
    out = _dtypes.as_dtype(output_type)
    if out.name not in _ARG_OUTPUTS[tf_op]:
        raise attr_error(tf_op, "output_type", out.name, ", ".join(_ARG_OUTPUTS[tf_op]))
    if axis is None:
        axis = 0
    if tf_op == "ArgMax" and not (isinstance(axis, (int, np.integer)) or is_tensor_like(axis)):
        raise TypeError("axis must be int or Tensor with integer datatype")  # tf.argmax's own check
    dim = with_dtype(axis, _dtypes.int32)
    if dim.array.dtype not in INDEX_DTYPES:
        raise attr_error(tf_op, "Tidx", _dtypes.of_array(dim.array).name, "int32, int64")
    if dim.array.ndim:
        raise op_error(f"dim must be a scalar, but received tensor of shape: [{','.join(map(str, dim.array.shape))}]",
                       tf_op)
    axis = int(dim.array)
    pinned(dim, (axis,), "axis", tf_op)
    rank = x.array.ndim
    if not -rank <= axis < rank:
        raise op_error(f"Expected dimension in the range [{-rank}, {rank}), but got {axis}", tf_op)
    axis = int(axis) % rank
    if x.array.shape[axis] == 0:
        raise op_error(f"Reduction axis {axis} is empty in shape [{','.join(map(str, x.array.shape))}]", tf_op)
    x = call("Cast", x, to=np.dtype(np.uint8)) if x.array.dtype == BOOL else x
    if x.array.dtype in FLOATS:
        # TF's kernels skip NaN (it compares false): search with NaN as the worst value instead.
        worst = -np.inf if tf_op == "ArgMax" else np.inf
        x = call("Where", call("IsNaN", x), scalar_like(worst, x), x)
    indices = call(tf_op, x, axis=axis, keepdims=0, tf_op=tf_op)
    return indices if out.np == _INT64 else call("Cast", indices, to=out.np)


def argmax(input, axis=None, output_type=_dtypes.int64, name=None):  # noqa: A002
    """Index of the largest value along ``axis`` (0 when None): the first of ties; NaN is skipped."""
    return _arg("ArgMax", input, axis, output_type)


def argmin(input, axis=None, output_type=_dtypes.int64, name=None):  # noqa: A002
    """Index of the smallest value along ``axis`` (0 when None): the first of ties; NaN is skipped."""
    return _arg("ArgMin", input, axis, output_type)


def lbeta(x, name=None):
    """``log(|Beta(x)|)`` over the last axis: ``sum(lgamma(x)) - lgamma(sum(x))`` (-inf for an empty axis)."""
    x = convert_to_tensor(x)
    return subtract(reduce_sum(lgamma(x), [-1]), lgamma(reduce_sum(x, [-1])))


# -- monotonicity ------------------------------------------------------------------------------
def _monotonic(x, strict):
    x = convert_to_tensor(x)
    if x.array.dtype == BOOL:
        raise TypeError("Expected x to be numeric, got tf.bool")
    flat = call("Reshape", x, np.array([-1], _INT64))
    n = flat.array.shape[0]
    if n < 2:
        return wrap(np.asarray(True))
    head = call("Slice", flat, np.array([0], _INT64), np.array([n - 1], _INT64))
    tail = call("Slice", flat, np.array([1], _INT64), np.array([n], _INT64))
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
