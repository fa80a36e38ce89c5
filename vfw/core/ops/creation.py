"""Tensor creation and metadata ops: Shape, Size, Range, ConstantOfShape, EyeLike, Constant."""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable
from vfw.core.errors import DTypeError, OpInputError, ShapeError
from vfw.core.ops._common import bad_attr, require
from vfw.core.registry import Attr, TensorInfo, defop

_INT64 = np.dtype(np.int64)
_ANY = dt.ALL | {dt.string}


# -- Shape / Size ------------------------------------------------------------------
def _shape_infer(attrs, infos):
    shape = infos[0].shape
    if shape is None:
        return [TensorInfo((None,), _INT64)]
    dims = shape[attrs["start"]:attrs["end"]]
    value = None if None in dims else np.array(dims, dtype=_INT64)
    return [TensorInfo((len(dims),), _INT64, value)]


@defop("Shape", inputs="data:T", outputs="shape:int64", types={"T": _ANY},
       attrs={"start": Attr("int", 0), "end": Attr("int", None)}, infer=_shape_infer)
def shape(start, end):
    """The shape of ``data`` (dims ``start:end``, clamped like a Python slice) as a 1-D int64 tensor."""
    if start == 0 and end is None:
        def kernel(data, out=None):
            return np.array(data.shape, dtype=_INT64)
    else:
        def kernel(data, out=None):
            return np.array(data.shape[start:end], dtype=_INT64)
    return kernel


def _size_infer(attrs, infos):
    shape = infos[0].shape
    value = None if shape is None or None in shape else np.array(math.prod(shape), dtype=_INT64)
    return [TensorInfo((), _INT64, value)]


@defop("Size", inputs="data:T", outputs="size:int64", types={"T": _ANY}, infer=_size_infer)
def size():
    """The number of elements of ``data`` as an int64 scalar."""

    def kernel(data, out=None):
        return np.array(data.size, dtype=_INT64)

    return kernel


# -- Range -------------------------------------------------------------------------
_RANGE_TYPES = frozenset({dt.float16, dt.bfloat16, dt.float32, dt.float64, dt.int16, dt.int32, dt.int64})
_STASH = {1: np.dtype(np.float32), 11: np.dtype(np.float64)}


def _range_values(start, limit, delta, stash_type):
    """Output of Range for 0-d arrays ``start``, ``limit``, ``delta`` (already checked to share a dtype)."""
    if start.ndim or limit.ndim or delta.ndim:
        for name, x in (("start", start), ("limit", limit), ("delta", delta)):
            require("Range", x.ndim == 0, f"input '{name}' must be a scalar, got shape {x.shape}")
    dtype = start.dtype
    if dtype.kind == "i":
        s, lim, d = int(start), int(limit), int(delta)
        require("Range", d != 0, "delta must not be 0", OpInputError)
        n = max(-((s - lim) // d), 0)  # exact ceil((limit - start) / delta) on Python ints
        return (np.arange(n, dtype=np.int64) * d + s).astype(dtype, copy=False)
    # float16/bfloat16 compute in the stash precision; float32/float64 in float64 (Python floats), then round once
    if dtype in (dt.float16, dt.bfloat16):
        work = _STASH[stash_type]
        s, lim, d = start.astype(work), limit.astype(work), delta.astype(work)
    else:
        work = np.float64
        s, lim, d = float(start), float(limit), float(delta)
    require("Range", d != 0, "delta must not be 0", OpInputError)
    steps = (lim - s) / d
    if not math.isfinite(steps):
        raise OpInputError(f"Range: the number of elements is not finite (start={s}, limit={lim}, delta={d})")
    n = max(math.ceil(steps), 0)
    return (np.arange(n, dtype=work) * d + s).astype(dtype, copy=False)


def _range_infer(attrs, infos):
    dtype = infos[0].dtype
    if any(i.value is None for i in infos):
        return [TensorInfo((None,), dtype)]
    values = [np.asarray(i.value, dtype=dtype) for i in infos]
    return [TensorInfo(_range_values(*values, attrs["stash_type"]).shape, dtype)]


@defop("Range", inputs="start:T limit:T delta:T", outputs="output:T", types={"T": _RANGE_TYPES},
       attrs={"stash_type": Attr("int", 1, choices=tuple(_STASH))}, infer=_range_infer,
       value_inputs=("start", "limit", "delta"))
def range_(stash_type):
    """``start + i * delta`` for i in ``[0, max(ceil((limit - start) / delta), 0))``.

    Integer ranges are exact; float16/bfloat16 ranges are computed in the ``stash_type``
    precision (1: float32, 11: float64), float32/float64 ranges in float64, then rounded once.
    """

    def kernel(start, limit, delta, out=None):
        return _range_values(start, limit, delta, stash_type)

    return kernel


# -- ConstantOfShape ----------------------------------------------------------------
_FILL_TYPES = dt.FIXED_SIZE  # complex too: zero gradients of complex tensors


def _fill_value(value):
    if value.size != 1:
        return f"must hold exactly one element, got shape {value.shape}"
    if value.dtype not in _FILL_TYPES:
        return f"dtype {value.dtype} is not supported"
    return None


def _target_shape(op, shape):
    if shape.ndim != 1:
        raise ShapeError(f"{op}: input must be a 1-D shape, got shape {shape.shape}")
    dims = tuple(shape.tolist())
    if any(d < 0 for d in dims):
        raise OpInputError(f"{op}: shape {dims} has negative dims")
    return dims


def _cos_infer(attrs, infos):
    dtype = attrs["value"].dtype if attrs["value"] is not None else dt.float32
    info = infos[0]
    if info.value is not None:
        return [TensorInfo(_target_shape("ConstantOfShape", np.asarray(info.value)), dtype)]
    if info.shape is None or len(info.shape) != 1 or info.shape[0] is None:
        return [TensorInfo(None, dtype)]
    return [TensorInfo((None,) * info.shape[0], dtype)]


@defop("ConstantOfShape", inputs="input:int64", outputs="output:T2", types={"T2": _FILL_TYPES},
       attrs={"value": Attr("tensor", None, check=_fill_value)}, infer=_cos_infer, value_inputs=("input",))
def constant_of_shape(value):
    """A tensor of shape ``input`` filled with the one-element tensor ``value`` (default float32 0)."""
    fill = np.zeros((), np.float32) if value is None else value.reshape(())

    def kernel(shape, out=None):
        dims = _target_shape("ConstantOfShape", shape)
        if out is not None:
            out[...] = fill
            return out
        return np.full(dims, fill, dtype=fill.dtype)

    return kernel


# -- EyeLike -----------------------------------------------------------------------
def _eye_dtype(value):
    return None if value in dt.ALL else f"{dt.type_name(value)} is not an EyeLike output type"


def _eye_infer(attrs, infos):
    return [TensorInfo(infos[0].shape, attrs["dtype"] or infos[0].dtype)]


@defop("EyeLike", inputs="input:T1", outputs="output:T2", types={"T1": dt.ALL, "T2": dt.ALL},
       attrs={"dtype": Attr("dtype", None, check=_eye_dtype), "k": Attr("int", 0)}, infer=_eye_infer)
def eye_like(dtype, k):
    """A 2-D tensor shaped like ``input`` with ones on diagonal ``k`` and zeros elsewhere (dtype of input
    unless ``dtype`` is given)."""

    def kernel(x, out=None):
        if x.ndim != 2:
            raise ShapeError(f"EyeLike: input must be 2-D, got shape {x.shape}")
        return np.eye(x.shape[0], x.shape[1], k, dtype=dtype or x.dtype)

    return kernel


# -- Constant ----------------------------------------------------------------------
_CONSTANT_ATTRS = ("value", "value_float", "value_floats", "value_int", "value_ints", "value_string",
                   "value_strings")


def _constant_array(attrs):
    """The array a Constant with bound ``attrs`` produces."""
    given = [name for name in _CONSTANT_ATTRS if attrs.get(name) is not None]
    if len(given) != 1:
        raise bad_attr("Constant", f"exactly one of {', '.join(_CONSTANT_ATTRS)} must be set, got "
                                   f"{', '.join(given) or 'none'}")
    name = given[0]
    value = attrs[name]
    if name in ("value_float", "value_floats"):
        return np.array(value, dtype=np.float32)
    if name in ("value_int", "value_ints"):
        return np.array(value, dtype=_INT64)
    if name in ("value_string", "value_strings"):
        return np.array(value, dtype=object)
    value = np.asarray(value)
    if value.dtype.kind in "US":
        return value.astype(object)
    try:
        dt.as_dtype(value.dtype)
    except DTypeError:
        raise bad_attr("Constant", f"attribute 'value' has unsupported dtype {value.dtype}") from None
    return value.copy()


def _constant_infer(attrs, infos):
    value = _constant_array(attrs)
    return [TensorInfo(value.shape, value.dtype, value)]


@defop("Constant", inputs="", outputs="output:T", types={"T": _ANY},
       attrs={"value": Attr("tensor", None), "value_float": Attr("float", None),
              "value_floats": Attr("floats", None), "value_int": Attr("int", None),
              "value_ints": Attr("ints", None), "value_string": Attr("string", None),
              "value_strings": Attr("strings", None)},
       infer=_constant_infer)
def constant(**attrs):
    """A constant tensor from exactly one of the ``value*`` attributes (``sparse_value`` is not supported)."""
    value = _constant_array(attrs)

    def kernel(out=None):
        return value.copy()  # a fresh array: callers may write into outputs

    return kernel


not_differentiable("Shape", "Size", "Range", "ConstantOfShape", "EyeLike", "Constant")
