"""Small helpers shared by the op families: kernel factories, shape inference, gradient makers."""

import functools
import math

import numpy as np

from vfw.core.eager import execute
from vfw.core.errors import OpAttributeError, ShapeError
from vfw.core.graph.trace import _active as _tracing
from vfw.core.registry import TensorInfo, make_op
from vfw.core.tensor import Tensor


def normalize_axis(op_type, axis, ndim, name="axis"):
    """Map a possibly negative ``axis`` into ``[0, ndim)`` or raise a ShapeError."""
    if not -ndim <= axis < max(ndim, 1):
        raise ShapeError(f"{op_type}: {name}={axis} is out of range for a tensor of rank {ndim}")
    return axis % ndim if ndim else 0


def normalize_axes(op_type, axes, ndim, name="axes"):
    """Normalize each axis of ``axes``; repeated axes raise a ShapeError."""
    out = tuple(normalize_axis(op_type, a, ndim, name) for a in axes)
    if len(set(out)) != len(out):
        raise ShapeError(f"{op_type}: {name}={tuple(axes)} repeats an axis")
    return out


def positive(value):
    """Attribute check: every entry (or the value) is > 0."""
    values = value if isinstance(value, tuple) else (value,)
    return None if all(v > 0 for v in values) else "must be positive"


def non_negative(value):
    """Attribute check: every entry (or the value) is >= 0."""
    values = value if isinstance(value, tuple) else (value,)
    return None if all(v >= 0 for v in values) else "must be non-negative"


def require(op_type, condition, message, error=ShapeError):
    """Raise ``error(f"{op_type}: {message}")`` unless ``condition``."""
    if not condition:
        raise error(f"{op_type}: {message}")


def bad_attr(op_type, message):
    """An :class:`OpAttributeError` for a combination of attributes."""
    return OpAttributeError(f"{op_type}: {message}")


def ufunc_kernel(ufunc):
    """Kernel factory (no attributes): the ufunc itself is the kernel (its ``out=`` takes the buffer)."""

    def factory():
        return ufunc

    return factory


def same_as_first(attrs, infos):
    """Shape inference: one output shaped and typed like the first input."""
    return [TensorInfo(infos[0].shape, infos[0].dtype)]


def broadcast_shapes(*shapes):
    """Multidirectional (numpy/ONNX) broadcast of shapes whose dims may be ``None``."""
    rank = max(len(s) for s in shapes)
    out = []
    for dims in zip(*[(1,) * (rank - len(s)) + tuple(s) for s in shapes]):
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise ShapeError(f"shapes {', '.join(map(str, shapes))} cannot be broadcast together")
        if known:
            out.append(known.pop())
        elif None in dims:
            out.append(None)
        else:
            out.append(1)
    return tuple(out)


def broadcast_infer(attrs, infos):
    """Shape inference: one output, broadcast of all inputs, dtype of the first."""
    present = [i for i in infos if i is not None]
    if any(i.shape is None for i in present):
        return [TensorInfo(None, present[0].dtype)]
    return [TensorInfo(broadcast_shapes(*[i.shape for i in present]), present[0].dtype)]


def as_array(value, dtype):
    """Return ``value`` as an ndarray of ``dtype`` (full reductions give numpy scalars)."""
    if type(value) is np.ndarray and value.dtype == dtype:
        return value
    return np.asarray(value, dtype=dtype)


def in_dtype(x, dtype):
    """Array ``x`` as ``dtype`` (no copy when it already is)."""
    return x if x.dtype == dtype else x.astype(dtype)


def copy_out(y, out):
    """``y``, or ``y`` copied into ``out`` when a buffer is given."""
    if out is None:
        return y
    np.copyto(out, y)
    return out


# -- helpers for gradient makers (they compute with engine ops, see vfw.core.autograd) --
def int64s(values):
    """A constant int64 array (for axes/shape/pads inputs of engine ops).

    Tuples (shapes, mostly) give a cached read-only array: gradient makers ask
    for the same shapes on every step.
    """
    if type(values) is tuple:
        return _cached_int64s(values)
    return np.asarray(values, dtype=np.int64)


@functools.lru_cache(maxsize=4096)
def _cached_int64s(values):
    array = np.asarray(values, dtype=np.int64)
    array.flags.writeable = False
    return array


def unbroadcast(grad, shape):
    """Sum ``grad`` over the dims that broadcasting added or stretched, so it has ``shape``.

    Parameters
    ----------
    grad : Tensor
    shape : tuple[int, ...]

    Returns
    -------
    Tensor
    """
    gshape = grad.array.shape
    if _tracing:
        from vfw.core.ops._varying_shapes import shape_varies  # (it imports this module)

        if shape_varies(grad):
            return _unbroadcast_varying(grad, tuple(shape))
    if gshape == tuple(shape):
        return grad
    lead = len(gshape) - len(shape)
    axes = list(range(lead)) + [lead + i for i, d in enumerate(shape) if d == 1 and gshape[lead + i] != 1]
    if axes:
        grad = execute("ReduceSum", grad, int64s(axes), keepdims=1)
    return reshape_to(grad, shape)


def _unbroadcast_varying(grad, shape):
    """``unbroadcast`` for a gradient whose shape follows each run of a traced graph: summed over its leading dims
    and over the dims of size 1 in ``shape`` whatever their size in this run, without reshaping to the traced
    ``shape`` (the dims of ``shape`` that vary, a frontend's guard checks)."""
    lead = grad.array.ndim - len(shape)
    ones = [lead + i for i, d in enumerate(shape) if d == 1]
    if ones:
        grad = execute("ReduceSum", grad, int64s(ones), keepdims=1)
    if lead > 0:
        grad = execute("ReduceSum", grad, int64s(tuple(range(lead))), keepdims=0)
    return grad


def reshape_to(x, shape):
    """Reshape tensor ``x`` to the concrete ``shape`` (a 0 in it is an empty dim, not "copy")."""
    return execute("Reshape", x, int64s(shape), allowzero=1)


def cast_to(t, dtype):
    """Tensor ``t`` as ``dtype`` (a Cast only when it differs; None stays None)."""
    return t if t is None or array_of(t).dtype == dtype else execute("Cast", t, to=dtype)


def padded_inputs(node, count):
    """``node.inputs`` and ``node.needs_input_grad`` padded with None/False to ``count`` entries
    (trailing optional inputs may be left out)."""
    missing = count - len(node.inputs)
    return node.inputs + (None,) * missing, node.needs_input_grad + (False,) * missing


def array_of(x):
    """The numpy array of a saved input (a Tensor, a constant array, or None)."""
    return x.array if isinstance(x, Tensor) else x


def conj(t):
    """``t`` conjugated when complex (itself otherwise): complex gradients multiply by conjugate factors."""
    return execute("Conj", t) if array_of(t).dtype.kind == "c" else t


# numpy's maximum/minimum (and fmax/fmin) run their SIMD loops for two arrays but not for an array and a scalar:
# float32 against a scalar is 3-4x slower from a few thousand elements (351k: 130 us against 35-47).  Against 0,
# they read a zeros array instead: one calloc'd buffer per dtype that is never written, so its pages stay the
# kernel's shared zero page (no memory used).  Against other bounds, np.clip with the other side unbounded is the
# same function (it differs only in the sign of a zero result, which a bound of 0 decides) in one fast pass.
_SCALAR_FAST_FROM = 4096
_ZEROS_MAX_BYTES = 1 << 28
_ZERO_BUFFERS = {}


def _zeros_view(shape, dtype):
    """A read-only zeros array of ``shape`` and ``dtype`` (a view of the shared buffer), None above its cap."""
    size = math.prod(shape)
    buffer = _ZERO_BUFFERS.get(dtype)
    if buffer is None or buffer.size < size:
        if size * dtype.itemsize > _ZEROS_MAX_BYTES:
            return None
        buffer = np.zeros(max(size, 1 << 20), dtype)
        buffer.flags.writeable = False
        _ZERO_BUFFERS[dtype] = buffer
    return buffer[:size].reshape(shape)


def _against_scalar(ufunc, x, bound, out):
    if x.size >= _SCALAR_FAST_FROM and x.dtype.kind == "f":
        if bound == 0:
            zeros = None if np.signbit(bound) else _zeros_view(x.shape, x.dtype)
            if zeros is not None:
                return ufunc(x, zeros, out=out)
        elif x.dtype.itemsize >= 4 and bound == bound:  # not a nan bound; half types: clip would widen
            bound, inf = x.dtype.type(bound), x.dtype.type(np.inf)
            return np.clip(x, bound, inf, out=out) if ufunc is np.maximum else np.clip(x, -inf, bound, out=out)
    return ufunc(x, bound, out=out)


def maximum_scalar(x, bound, out=None):
    """``np.maximum(x, bound)`` for a scalar ``bound``, bit for bit, by a faster route on large float arrays."""
    return _against_scalar(np.maximum, x, bound, out)


def minimum_scalar(x, bound, out=None):
    """``np.minimum(x, bound)`` for a scalar ``bound``, bit for bit, by a faster route on large float arrays."""
    return _against_scalar(np.minimum, x, bound, out)


_GEMV_SUM_MAX = 4096  # summed elements per row up to which a GEMV's sum is as accurate as numpy's pairwise one
GEMV_SUM_FROM = 4096  # elements from which the GEMV is faster (16x16: numpy 1.3 us, GEMV 2.5; 64x64: even)


@functools.lru_cache(maxsize=32)
def _ones(width, dtype):
    ones = np.ones(width, dtype)
    ones.flags.writeable = False
    return ones


def trailing_sum(x, axis, keepdims=False, max_width=_GEMV_SUM_MAX):
    """Sums of a float32/float64 C-contiguous ``x`` over its trailing axes ``axis`` (an int or a tuple; shaped as
    numpy's reduction with ``keepdims``), as one GEMV against a vector of ones; None where numpy's reduction is the
    better route (also for ``axis`` None or empty).

    numpy's ``add.reduce`` over a short contiguous last axis runs a pairwise sum per row (16384 rows of 49: 0.46
    ms, against 0.075 ms for the GEMV; a million rows of 2: 15 ms against 0.2).  Both accumulate in ``x``'s dtype
    with errors of a few ulps for rows of up to ``_GEMV_SUM_MAX`` elements; longer rows (``max_width=None``
    allows them, for softmax's normalizers) are still 2-3x faster by GEMV, a few times less accurate.
    """
    if x.size < GEMV_SUM_FROM or x.dtype.char not in "fd" or axis is None or axis == () or not x.flags.c_contiguous:
        return None
    if type(axis) is int:
        axis = (axis,)
    lead = x.ndim - len(axis)
    if sorted(axis) != list(range(lead, x.ndim)):
        return None
    cols = math.prod(x.shape[lead:])
    if x.size < 2 * cols or cols < 2 or max_width is not None and cols > max_width:
        return None
    total = np.matmul(x.reshape(-1, cols), _ones(cols, x.dtype))
    return total.reshape(x.shape[:lead] + (1,) * len(axis) if keepdims else x.shape[:lead])


@functools.cache
def scalar(value, dtype):
    """A cached read-only 0-d constant of ``dtype``, for gradient formulas (engine ops never promote)."""
    a = np.asarray(value, dtype)
    a.flags.writeable = False
    return a


def zeros(shape, dtype):
    """A zero gradient tensor of ``shape`` and ``dtype``."""
    return Tensor.wrap(np.zeros(shape, dtype))


def zeros_like(x):
    """A zero gradient shaped and typed like the saved input ``x``."""
    a = array_of(x)
    return zeros(a.shape, a.dtype)


@functools.cache
def bound_op(op_type, **attrs):
    """A process-wide bound op for hot gradient makers: skips the workspace lookup.

    Only for stateless ops with hashable attributes; bound lazily, as op families register
    in any order.
    """
    return make_op(op_type, attrs)
