"""Quantized tensors: ``torch.quantize_per_tensor`` / ``quantize_per_channel``, the ``torch.quint8``... dtypes,
``torch.per_tensor_affine``... schemes, and fake quantization (``torch.fake_quantize_per_*_affine``).

A :class:`QuantizedTensor` holds its integer levels as an ordinary integer tensor (``int_repr()``) and its
quantization parameters; it stands for ``(levels - zero_point) * scale``.  Numerics follow torch's CPU kernels:

- per tensor, quint8/qint8 (fbgemm): ``level = round_half_even(float32(x * inv + zero_point))`` with
  ``inv = 1 / float32(scale)`` in float32 and the product and sum fused (rounded once);
- per tensor qint32, and per channel: ``round_half_even(float32(zero_point + float32(x * inv)))``;
- dequantization: ``float32(level - zero_point) * float32(scale)`` per tensor, ``(level - zero_point) * scale``
  in float64 rounded to float32 per channel.

Like sparse tensors, the dense engine never sees one: ``array`` raises torch's NotImplementedError
("... 'QuantizedCPU' backend"), so functions torch does not run on quantized tensors fail clearly.  The
view-like functions torch does run (reshape, view, indexing, transpose, clone, ``cat``...), ``relu``
and ``max``/``min`` run on the levels and keep the parameters.
"""

import functools

import numpy as np

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _dispatch, _dtype
from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch._tensor_str import _with_suffixes, tensor_repr

__all__ = ["quint8", "qint8", "qint32", "quint4x2", "quint2x4", "qscheme", "per_tensor_affine",
           "per_channel_affine", "per_tensor_symmetric", "per_channel_symmetric", "per_channel_affine_float_qparams",
           "quantize_per_tensor", "quantize_per_channel", "quantize_per_tensor_dynamic", "dequantize"]



class QuantizedDType(_dtype.dtype):
    """A quantized element type (``torch.qint8``...): ``np`` is its integer storage type; as a plain tensor dtype
    (``torch.zeros(3, dtype=torch.qint8)``) it is refused (``_dtype.to_np``), never silently an integer type."""

    __slots__ = ()

    def __reduce__(self):  # pickling and deepcopy (of a QConfig's observer arguments) find it by name here
        return (_by_name, (self.name,))


quint8 = QuantizedDType("quint8", np.uint8)
qint8 = QuantizedDType("qint8", np.int8)
qint32 = QuantizedDType("qint32", np.int32)
quint4x2 = QuantizedDType("quint4x2", np.uint8)
quint2x4 = QuantizedDType("quint2x4", np.uint8)
# Levels each quantized dtype holds (quint4x2/quint2x4 pack 4/2-bit levels; vfw keeps one per byte).
RANGES = {quint8: (0, 255), qint8: (-128, 127), qint32: (-2 ** 31, 2 ** 31 - 1), quint4x2: (0, 15),
          quint2x4: (0, 3)}
_TORCH_SCALAR_NAMES = {quint8: "QUInt8", qint8: "QInt8", qint32: "QInt32", quint4x2: "QUInt4x2",
                       quint2x4: "QUInt2x4"}
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


class qscheme:  # noqa: N801  (torch's name)
    """A quantization scheme (``torch.per_tensor_affine``...)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))


def _by_name(name):
    """The quantized dtype or scheme called ``name`` (what pickles of them name)."""
    return globals()[name]


per_tensor_affine = qscheme("per_tensor_affine")
per_channel_affine = qscheme("per_channel_affine")
per_tensor_symmetric = qscheme("per_tensor_symmetric")
per_channel_symmetric = qscheme("per_channel_symmetric")
per_channel_affine_float_qparams = qscheme("per_channel_affine_float_qparams")


def _backend_error(*_):
    raise NotImplementedError(
        "Could not run this operation with arguments from the 'QuantizedCPU' backend. vfw.torch runs on quantized "
        "tensors only what torch runs on them (dequantize(), int_repr(), views, indexing, clone, cat, relu...): call "
        ".dequantize() first")


def _warn_deprecated():
    warn_for_user("torch.quantize_per_tensor, torch.quantize_per_channel and other quantized tensor creation functions "
                  "that produce tensors with dtype torch.quint8, torch.qint8, and torch.qint32 are deprecated and will "
                  "be removed in a future PyTorch release. Please see https://github.com/pytorch/pytorch/issues/184982 "
                  "for more information.", UserWarning)


class QuantizedTensor(Tensor):
    """A quantized tensor: integer levels (``int_repr()``) and torch's quantization parameters.

    Made by :func:`quantize_per_tensor`, :func:`quantize_per_channel` and :func:`quantize_per_tensor_dynamic`.
    """

    __slots__ = ("_levels", "_qdtype", "_scale", "_zero_point", "_axis")

    array = property(_backend_error, doc="Refused: a quantized tensor's elements are levels (NotImplementedError).")
    is_quantized = True

    # -- what it is --------------------------------------------------------------------
    @property
    def shape(self):
        return self._levels.shape

    def size(self, dim=None):
        return self._levels.size(dim)

    @property
    def dtype(self):
        return self._qdtype

    @property
    def ndim(self):
        return self._levels.ndim

    def dim(self):
        return self._levels.dim()

    def numel(self):
        return self._levels.numel()

    def stride(self, dim=None):
        return self._levels.stride(dim)

    def is_contiguous(self, memory_format=None):
        return self._levels.is_contiguous()

    def element_size(self):
        return self._levels.element_size()

    def __len__(self):
        return len(self._levels)

    def is_floating_point(self):
        return False

    def qscheme(self):
        """torch.qscheme: ``per_tensor_affine`` or ``per_channel_affine``."""
        return per_tensor_affine if self._axis is None else per_channel_affine

    def q_scale(self):
        """float: the scale of a per-tensor quantized tensor."""
        self._require_scheme(per_tensor_affine, "q_scale")
        return self._scale

    def q_zero_point(self):
        """int: the zero point of a per-tensor quantized tensor."""
        self._require_scheme(per_tensor_affine, "q_zero_point")
        return self._zero_point

    def q_per_channel_scales(self):
        """Tensor (float64): the scales of a per-channel quantized tensor."""
        self._require_scheme(per_channel_affine, "q_per_channel_scales")
        return _dispatch.wrap(self._scale.copy())

    def q_per_channel_zero_points(self):
        """Tensor (int64): the zero points of a per-channel quantized tensor."""
        self._require_scheme(per_channel_affine, "q_per_channel_zero_points")
        return _dispatch.wrap(self._zero_point.copy())

    def q_per_channel_axis(self):
        """int: the channel axis of a per-channel quantized tensor."""
        self._require_scheme(per_channel_affine, "q_per_channel_axis")
        return self._axis

    def _require_scheme(self, scheme, name):
        if self.qscheme() is not scheme:
            kind = "Tensor" if scheme is per_tensor_affine else "Channel"
            raise RuntimeError(f"Expected quantizer->qscheme() == kPer{kind}Affine to be true, but got false.  "
                               f"({name} of a {self.qscheme()!r} tensor)")

    def int_repr(self):
        """Tensor: the integer levels (uint8 for quint8, int8 for qint8, int32 for qint32), a copy."""
        return self._levels.clone()

    def dequantize(self):
        """Tensor (float32): ``(levels - zero_point) * scale``."""
        levels = self._levels.array.astype(np.int64)
        if self._axis is None:
            values = (levels - self._zero_point).astype(_F32) * np.float32(self._scale)
        else:
            shape = (1,) * self._axis + (-1,) + (1,) * (levels.ndim - self._axis - 1)
            values = ((levels - self._zero_point.reshape(shape)) * self._scale.reshape(shape)).astype(_F32)
        return _dispatch.wrap(values)

    def __repr__(self):
        values = tensor_repr(self.dequantize())[:-1]
        suffixes = [f"size={tuple(self._levels.shape)}", f"dtype={self._qdtype!r}",
                    f"quantization_scheme={self.qscheme()!r}"]
        if self._axis is None:
            suffixes += [f"scale={self._scale!r}", f"zero_point={self._zero_point}"]
        else:
            suffixes += [f"scale={tensor_repr(_dispatch.wrap(self._scale))}",
                         f"zero_point={tensor_repr(_dispatch.wrap(self._zero_point))}", f"axis={self._axis}"]
        return _with_suffixes(values, suffixes, len("tensor("), 80) + ")"

    __str__ = __repr__

    # -- refused as torch refuses --------------------------------------------------------
    def numpy(self, *, force=False):
        raise TypeError(f"Got unsupported ScalarType {_TORCH_SCALAR_NAMES[self._qdtype]}")

    __array__ = numpy

    def tolist(self):
        raise RuntimeError("load_scalar: invalid type")

    def requires_grad_(self, requires_grad=True):
        if requires_grad:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        return self

    def _same_parameters(self, levels):
        return _make(levels, self._qdtype, self._scale, self._zero_point, self._axis)

    def _per_tensor_only(self, name):
        if self._axis is not None:
            raise NotImplementedError(f"{name}: vfw.torch runs it on per-tensor quantized tensors only (got a "
                                      "per_channel_affine tensor); dequantize() first")


def _levels_method(name, per_channel=False):
    """A method of :class:`QuantizedTensor` that runs the tensor method ``name`` on the levels."""

    def method(self, *args, **kwargs):
        if not per_channel:
            self._per_tensor_only(name)
        result = getattr(self._levels, name)(*args, **kwargs)
        if isinstance(result, tuple):
            return tuple(self._same_parameters(r) for r in result)
        return self._same_parameters(result)

    method.__name__ = name
    method.__doc__ = f"``Tensor.{name}`` on the levels; the quantization parameters stay."
    return method


for _name in ("reshape", "view", "flatten", "t", "transpose", "permute", "unsqueeze", "squeeze", "flip", "narrow",
              "expand", "repeat", "chunk", "split", "__getitem__", "reshape_as", "view_as", "select"):
    setattr(QuantizedTensor, _name, _levels_method(_name))
for _name in ("clone", "contiguous", "detach"):
    setattr(QuantizedTensor, _name, _levels_method(_name, per_channel=True))
del _name


def _relu(self):
    """``max(x, 0)``: levels below the zero point become the zero point."""
    self._per_tensor_only("relu")
    levels = self._levels.array
    return self._same_parameters(_dispatch.wrap(np.maximum(levels, np.asarray(self._zero_point).astype(levels.dtype))))


def _extreme(name):
    def method(self, dim=None, keepdim=False):
        self._per_tensor_only(name)
        if dim is not None:
            raise NotImplementedError(f"{name}: vfw.torch reduces quantized tensors only in full (no dim)")
        # Levels order as values do (the scale is positive): the extreme level is the extreme value's.
        return self._same_parameters(getattr(self._levels, name)())
    method.__name__ = name
    return method


QuantizedTensor.relu = _relu
QuantizedTensor.max = _extreme("max")
QuantizedTensor.min = _extreme("min")


def _make(levels, qdtype, scale, zero_point, axis=None):
    if _unrouted:
        _route(_unrouted.pop())
    t = object.__new__(QuantizedTensor)
    t._levels = levels
    t._qdtype = qdtype
    t._scale = scale
    t._zero_point = zero_point
    t._axis = axis
    t.requires_grad = False
    t.grad_node = None
    return t


def is_quantized(t):
    """bool: whether ``t`` is a quantized tensor."""
    return type(t) is QuantizedTensor


# -- quantizing ----------------------------------------------------------------------------
def _check_input(x, qdtype, name):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")
    if qdtype not in RANGES:
        raise RuntimeError(f"ScalarType {_torch_scalar_name(qdtype)} is not supported in new_qtensor.")
    if x.array.dtype != _F32:
        raise RuntimeError(f"Quantize only works on Float Tensor, got {_torch_scalar_name(x.dtype)}")


def _torch_scalar_name(d):
    names = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
             "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
    return names.get(getattr(d, "name", ""), str(d))


def _number(value, kind, name):
    """A Python float/int from a number or a one-element tensor."""
    if isinstance(value, Tensor):
        if value.numel() != 1:
            raise RuntimeError(f"quantize_per_tensor: {name} must hold one value, got a tensor of shape "
                               f"{tuple(value.shape)}")
        value = value.array.reshape(()).item()
    return kind(value)


def _check_zero_point(zero_point, qdtype, op):
    low, high = RANGES[qdtype]
    below = np.min(zero_point) < low
    if below or np.max(zero_point) > high:
        value = np.min(zero_point) if below else np.max(zero_point)
        raise RuntimeError(f"{op} zero_point {value} is {'below lower' if below else 'above upper'} bound.")


def _quantize_levels(x32, scale32, zero_point, qdtype, fused):
    """The clamped levels of float32 ``x32`` (see the module docstring for the two roundings)."""
    inv = np.float32(1.0) / scale32
    if fused:  # x * inv + zero_point rounded once: the float64 product of two float32s is exact
        levels = np.rint((x32.astype(_F64) * inv.astype(_F64) + zero_point).astype(_F32))
    else:
        levels = np.rint(np.asarray(zero_point).astype(_F32) + x32 * inv)
    low, high = RANGES[qdtype]
    storage = qdtype.np
    return np.clip(levels.astype(_F64), low, high).astype(storage)


def quantize_per_tensor(input, scale, zero_point, dtype):  # noqa: A002  (torch's name)
    """Quantize float32 ``input`` to ``dtype`` (torch.quint8, qint8, qint32) with one scale and zero point.

    Parameters
    ----------
    input : Tensor (float32)
    scale : float or Tensor
        One value (a one-element tensor for torch's tensor overload).
    zero_point : int or Tensor
    dtype : torch.dtype
        ``torch.quint8``, ``torch.qint8``, ``torch.qint32`` (``quint4x2``/``quint2x4`` too).

    Returns
    -------
    QuantizedTensor
        Levels ``clamp(round(input / scale) + zero_point)``; ``dequantize()`` maps them back.
    """
    _warn_deprecated()
    _check_input(input, dtype, "quantize_per_tensor")
    scale_value = float(np.float32(_number(scale, float, "scale"))) if isinstance(scale, Tensor) else float(scale)
    zero_value = _number(zero_point, int, "zero_point")
    _check_zero_point(zero_value, dtype, "quantize_tensor_per_tensor_affine")
    levels = _quantize_levels(input.array, np.float32(scale_value), zero_value, dtype,
                              fused=dtype in (quint8, qint8))
    return _make(_dispatch.wrap(levels), dtype, scale_value, zero_value)


def quantize_per_channel(input, scales, zero_points, axis, dtype):  # noqa: A002  (torch's name)
    """Quantize float32 ``input`` with one scale and zero point per slice along ``axis``.

    Parameters
    ----------
    input : Tensor (float32)
    scales : Tensor
        1-D, ``input.shape[axis]`` values (kept as float64).
    zero_points : Tensor
        1-D integer tensor of the same length (kept as int64).
    axis : int
    dtype : torch.dtype

    Returns
    -------
    QuantizedTensor
    """
    _warn_deprecated()
    _check_input(input, dtype, "quantize_per_channel")
    ndim = input.array.ndim
    if not 0 <= axis < ndim:
        raise RuntimeError(f"Channel axis out of range in per channel affine quantization. Got: {axis}Expected: "
                           f"[0, {ndim})")
    channels = input.array.shape[axis]
    for what, param in (("scales", scales), ("zero_points", zero_points)):
        if not isinstance(param, Tensor) or param.array.ndim != 1 or param.array.shape[0] != channels:
            raise RuntimeError(f"quantize_per_channel: {what} must be a 1-D tensor of length {channels} "
                               f"(input.size({axis})), got {getattr(param, 'shape', type(param).__name__)}")
    if zero_points.array.dtype.kind not in "iu":
        raise RuntimeError("quantize_per_channel: zero_points must be an integer tensor, got "
                           f"{zero_points.dtype}")
    scale = scales.array.astype(_F64)
    zero_point = zero_points.array.astype(np.int64)
    _check_zero_point(zero_point, dtype, "quantize_tensor_per_channel_affine")
    shape = (1,) * axis + (-1,) + (1,) * (ndim - axis - 1)
    levels = _quantize_levels(input.array, scale.astype(_F32).reshape(shape), zero_point.reshape(shape), dtype,
                              fused=False)
    return _make(_dispatch.wrap(levels), dtype, scale, zero_point, axis)


_SMALL_SCALE = np.float32(6.1e-5)  # fbgemm's smallest scale


def choose_qparams(min_value, max_value, qmin, qmax, preserve_sparsity=False):
    """``(scale, zero_point)`` (float64, int64 arrays) of fbgemm's rule for float32 ranges, elementwise.

    The range is widened to include 0; ``preserve_sparsity`` (symmetric schemes) makes it symmetric with
    ``-(range // 2 + 1)`` and ``range // 2`` levels on each side and the zero point in the middle.  The scale is
    ``(max - min) / (qmax - qmin)`` (0.1 when that vanishes, at least 6.1e-5 with the range stretched to match), the
    zero point that of whichever end loses less, rounded and clamped.  Precision follows fbgemm: the ends are
    float32, the scale and zero point float64.
    """
    low = np.minimum(np.asarray(min_value, np.float32), np.float32(0))
    high = np.maximum(np.asarray(max_value, np.float32), np.float32(0))
    symmetric = (low < 0) & (high > 0) & preserve_sparsity
    if np.any(symmetric):
        sym_min, sym_max = -((qmax - qmin) // 2 + 1), (qmax - qmin) // 2
        widest = np.maximum(np.abs(low / np.float32(sym_min)), np.abs(high / np.float32(sym_max))).astype(_F64)
        low = np.where(symmetric, (widest * sym_min).astype(np.float32), low)
        high = np.where(symmetric, (widest * sym_max).astype(np.float32), high)
    scale = (high.astype(_F64) - low) / (qmax - qmin)
    with np.errstate(divide="ignore"):
        vanished = (scale.astype(np.float32) == 0) | np.isinf(np.float32(1.0) / scale.astype(np.float32))
    scale = np.where(vanished, 0.1, scale)
    small = scale < _SMALL_SCALE
    if np.any(small):
        stretch = np.where(small, _SMALL_SCALE / np.where(small, scale, 1).astype(np.float32), 1).astype(np.float32)
        span = np.float32(_SMALL_SCALE * (qmax - qmin))
        low, high = (np.where(small & (high == 0), -span, np.where(small & (low != 0), low * stretch, low)),
                     np.where(small & (low == 0), span, np.where(small & (high != 0), high * stretch, high)))
        scale = np.where(small, np.float64(_SMALL_SCALE), scale)
    from_min = qmin - low / scale
    from_max = qmax - high / scale
    error_min = abs(qmin) - np.abs(low / scale)
    error_max = abs(qmax) - np.abs(high / scale)
    initial = np.where(error_min < error_max, from_min, from_max)
    initial = np.where(symmetric, (qmin + qmax) / 2, initial)
    zero_point = np.rint(np.clip(initial, qmin, qmax)).astype(np.int64)
    return scale, zero_point


def quantize_per_tensor_dynamic(input, dtype, reduce_range):  # noqa: A002  (torch's name)
    """Quantize with a scale and zero point chosen from ``input``'s range (fbgemm's rule).

    Parameters
    ----------
    input : Tensor (float32)
    dtype : torch.dtype
        ``torch.quint8`` or ``torch.qint8``.
    reduce_range : bool
        Use 7 bits (half the range), as fbgemm's kernels need on x86.
    """
    _check_input(input, dtype, "quantize_per_tensor_dynamic")
    if dtype not in (quint8, qint8):
        raise RuntimeError(f"quantize_per_tensor_dynamic: dtype must be torch.quint8 or torch.qint8, got {dtype!r}")
    qmin, qmax = RANGES[dtype]
    if reduce_range:
        qmin, qmax = qmin // 2, qmax // 2
    array = input.array
    low, high = (float(array.min()), float(array.max())) if array.size else (0.0, 0.0)
    scale, zero_point = choose_qparams(low, high, qmin, qmax)
    return quantize_per_tensor(input, float(scale), int(zero_point), dtype)


def dequantize(tensor):
    """``tensor.dequantize()``; a list or tuple of tensors gives a tuple. Float tensors come back as they are."""
    if isinstance(tensor, (list, tuple)):
        return tuple(dequantize(t) for t in tensor)
    return tensor.dequantize() if is_quantized(tensor) else tensor


# -- functions that run on quantized tensors ------------------------------------------------
def _joined(fn_name):
    """``torch.cat``/``torch.stack`` of quantized tensors: in the first tensor's parameters (the others
    requantized when theirs differ)."""

    def join(tensors, dim=0, *, out=None):
        first = tensors[0]
        first._per_tensor_only(fn_name)
        levels = []
        for t in tensors:
            same = t._qdtype is first._qdtype and t._scale == first._scale and t._zero_point == first._zero_point
            if not same:
                warn_for_user("All inputs of this cat operator must share the same quantization parameters. "
                              "Otherwise large numerical inaccuracies may occur.", UserWarning)
            levels.append(t._levels if same else _requantized(t, first))
        return first._same_parameters(_plain_joins[fn_name](levels, dim))

    return join


def _requantized(t, like):
    values = t.dequantize().array
    return _dispatch.wrap(_quantize_levels(values, np.float32(like._scale), like._zero_point, like._qdtype,
                                           fused=like._qdtype in (quint8, qint8)))


_QUANTIZED_FUNCTIONS = {"cat": _joined("cat"), "concat": _joined("cat"), "concatenate": _joined("cat"),
                        "stack": _joined("stack")}


def install(namespace):
    """Let ``namespace``'s ``cat``/``stack``/``relu``/``reshape``/``flatten``... (vfw.torch's) take quantized
    tensors: they run the quantized form when their first tensor argument is quantized.

    The routing wrappers are put in place when the first quantized tensor is made, so that programs that never
    quantize do not pay for the type test on every call."""
    _unrouted.append(namespace)


_unrouted = []


def _route(namespace):
    for name in ("relu", "reshape", "flatten", "transpose", "permute", "unsqueeze", "squeeze", "flip", "narrow",
                 "clone", "detach", "t", "chunk", "split", "select", "max", "min", "int_repr", "q_scale",
                 "q_zero_point", "q_per_channel_scales", "q_per_channel_zero_points", "q_per_channel_axis"):
        if name in namespace:
            namespace[name] = _routed(namespace[name], getattr(QuantizedTensor, name), first_of_list=False)
    # The joins run the plain functions on the levels.
    _plain_joins.update(cat=namespace["cat"], stack=namespace["stack"])
    for name, quantized in _QUANTIZED_FUNCTIONS.items():
        if name in namespace:
            namespace[name] = _routed(namespace[name], quantized, first_of_list=True)


_plain_joins = {}


def _routed(original, quantized, first_of_list):
    @functools.wraps(original)
    def routed(*args, **kwargs):
        first = args[0] if args else next(iter(kwargs.values()), None)
        if first_of_list and isinstance(first, (list, tuple)) and first:
            first = first[0]
        if type(first) is QuantizedTensor:
            return quantized(*args, **kwargs)
        return original(*args, **kwargs)

    return routed
