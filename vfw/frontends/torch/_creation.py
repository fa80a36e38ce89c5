"""Tensor creation: tensor, as_tensor, from_numpy, zeros/ones/full/empty(+_like), arange, linspace, eye."""

import math

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _device, _dispatch, _dtype, _memory_layout, _meta, _traced_sizes
from vfw.frontends.torch._tensor import _memory_format_name

_TRACED_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy", "zeros", "ones", "empty", "full", "zeros_like",
           "ones_like", "empty_like", "full_like", "arange", "range", "linspace", "logspace", "eye", "scalar_tensor"]


def factory_requires_grad(t):
    """``t.requires_grad_()`` for a factory's ``requires_grad=True``, with the factories' wording of the error."""
    if not (t.array.dtype.kind in "fc" or t.array.dtype == dt.bfloat16):
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return t.requires_grad_(True)


def _made(array, requires_grad=False, out=None, device=None, name="op"):
    """A freshly made array (or a tensor engine ops computed under a graph trace) with torch's factory keywords
    applied."""
    _device.check(device)
    t = array if isinstance(array, CoreTensor) else _dispatch.new_tensor(array)
    if _meta.wanted(device):
        _meta.mark(t)
    if requires_grad:
        factory_requires_grad(t)
    return _dispatch.finish(t, out, name) if out is not None else t


def _in_onnx_export():
    from vfw.frontends.torch.onnx import is_in_onnx_export

    return is_in_onnx_export()


def _np_dtype(dtype, default=None):
    return _dtype.to_np(dtype) if dtype is not None else (default if default is not None else
                                                           _dtype.default_float_np())


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of ``data`` (numbers, nested sequences, arrays or tensors).

    The dtype is inferred as torch does (bool, int64, the default float dtype, complex) unless given.
    """
    if isinstance(data, CoreTensor):
        warn_for_user("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
                      "or sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor("
                      "sourceTensor).", UserWarning)
    if isinstance(data, str):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    return _made(_dispatch.array_from(data, _dtype.to_np(dtype)), requires_grad, device=device)


def as_tensor(data, dtype=None, device=None):
    """``data`` as a tensor, sharing memory with a tensor or numpy array when the dtype allows."""
    _device.check(device)
    np_dtype = _dtype.to_np(dtype)
    if isinstance(data, CoreTensor):
        return _dispatch.to_tensor(data, np_dtype)
    if isinstance(data, np.ndarray) and (np_dtype is None or np_dtype == data.dtype):
        return from_numpy(data)
    return _dispatch.wrap(_dispatch.array_from(data, np_dtype))


_asarray_default_warned = False


def _warn_asarray_default_once():
    """torch's one warning per process that ``asarray`` now keeps a tensor's ``requires_grad`` by default."""
    global _asarray_default_warned
    if not _asarray_default_warned:
        _asarray_default_warned = True
        warn_for_user("torch.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of False. "
                      "Pass requires_grad=False explicitly to get the old behavior and silence this warning.",
                      UserWarning)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None):
    """Like ``as_tensor``; ``copy=True`` always copies (a tensor's copy keeps its history).

    ``requires_grad=None`` keeps a tensor's ``requires_grad`` and history; ``False`` detaches a result with
    history and, as torch, clears the flag of a leaf returned as it is; ``True`` sets it.
    """
    if requires_grad is None and isinstance(obj, CoreTensor) and obj.requires_grad:
        _warn_asarray_default_once()
    t = as_tensor(obj, dtype, device)
    if copy and (t is obj or isinstance(obj, np.ndarray) and np.shares_memory(t.array, obj)):
        t = t.clone()
    if requires_grad:
        factory_requires_grad(t)
    elif requires_grad is not None and t.requires_grad:
        t = t.detach() if t.grad_node is not None else t.requires_grad_(False)
    return t


def from_numpy(ndarray):
    """A tensor sharing memory with ``ndarray``."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _dtype.from_numpy_dtype(ndarray.dtype)
    return _dispatch.wrap(ndarray)


def _sized(fill, size, kwargs, name):
    out = kwargs.pop("out", None)
    dtype = kwargs.pop("dtype", None)
    requires_grad = kwargs.pop("requires_grad", False)
    device = kwargs.pop("device", None)
    for k in ("layout", "pin_memory", "names"):
        kwargs.pop(k, None)
    if kwargs:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    shape = _dispatch.dims_of(size)
    if any(d < 0 for d in shape):
        if name == "zeros":  # (torch checks zeros' sizes in its own kernel, with its own words)
            raise RuntimeError("zeros: Dimension size must be non-negative.")
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
    np_dtype = _np_dtype(dtype, None if out is None else out.array.dtype)
    return _made(fill(shape, np_dtype), requires_grad, out, device, name)


def zeros(*size, **kwargs):
    """A tensor of zeros of shape ``size`` (default dtype unless ``dtype`` is given)."""
    return _sized(np.zeros, size, kwargs, "zeros")


def ones(*size, **kwargs):
    """A tensor of ones of shape ``size``."""
    return _sized(np.ones, size, kwargs, "ones")


def empty(*size, memory_format=None, **kwargs):
    """An uninitialized tensor of shape ``size`` (vfw fills it with zeros), laid out in ``memory_format``
    (``torch.contiguous_format`` by default, or ``channels_last(_3d)`` for 4-d (5-d) sizes)."""
    layout = "contiguous_format" if memory_format is None else _memory_format_name(memory_format, "empty")
    if layout == "preserve_format":
        raise RuntimeError("unsupported memory format Preserve")
    return _sized(lambda shape, dt: _memory_layout.cloned(np.zeros(shape, dt), layout), size, kwargs, "empty")


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A tensor of shape ``size`` filled with ``fill_value`` (dtype inferred from the value)."""
    np_dtype = _dtype.to_np(dtype) if dtype is not None else _dispatch.infer_dtype(
        fill_value.item() if isinstance(fill_value, CoreTensor) else fill_value)
    value = fill_value.array if isinstance(fill_value, CoreTensor) else fill_value
    return _sized(lambda shape, dt: np.full(shape, _dispatch.scalar_array(value, dt), dt), (size,),
                  {"out": out, "dtype": np_dtype, "device": device, "requires_grad": requires_grad}, "full")


def _like(fill, input, dtype, requires_grad, device, name, memory_format):
    if not isinstance(input, CoreTensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    np_dtype = _dtype.to_np(dtype) if dtype is not None else input.array.dtype
    values = fill(input.array.shape, np_dtype)
    layout = _memory_format_name(memory_format, name)
    if layout == "preserve_format" and not input.array.flags.c_contiguous:  # torch keeps a permuted dim order
        laid_out = _memory_layout.empty_like(input.array, np_dtype)
        np.copyto(laid_out, values)
        values = laid_out
    elif layout in ("channels_last", "channels_last_3d"):
        values = _memory_layout.cloned(values, layout)
    if device is None and getattr(input, "_meta", False):  # (a *_like tensor lives where input does)
        device = _meta.META
    return _made(values, requires_grad, device=device)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    """Zeros shaped (and typed, unless ``dtype``) like ``input``."""
    return _like(np.zeros, input, dtype, requires_grad, device, "zeros_like", memory_format)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    """Ones shaped like ``input``."""
    return _like(np.ones, input, dtype, requires_grad, device, "ones_like", memory_format)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None):
    """An uninitialized tensor shaped like ``input`` (vfw fills it with zeros)."""
    return _like(np.zeros, input, dtype, requires_grad, device, "empty_like", memory_format)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    """``input``-shaped tensor filled with ``fill_value`` (``input``'s dtype unless ``dtype``)."""
    def fill(shape, dt):
        return np.full(shape, _dispatch.scalar_array(fill_value, dt), dt)
    return _like(fill, input, dtype, requires_grad, device, "full_like", memory_format)


def _number(x, name, fn):
    if isinstance(x, CoreTensor):
        if x.array.size != 1:
            raise TypeError(f"{fn}(): argument '{name}' must be Number, not Tensor (of shape "
                            f"{list(x.array.shape)})")
        return x.array.reshape(()).item()
    if not isinstance(x, (int, float, np.number, bool)):
        raise TypeError(f"{fn}(): argument '{name}' must be Number, not {type(x).__name__}")
    return x.item() if isinstance(x, np.number) else x


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """Values from ``start`` up to (not including) ``end`` in steps of ``step``.

    int64 when all bounds are integers, else the default float dtype (unless ``dtype``).
    """
    if end is None:
        start, end = 0, start
    start, end, step = (_number(v, n, "arange") for v, n in ((start, "start"), (end, "end"), (step, "step")))
    if step == 0:
        raise RuntimeError("step must be nonzero")
    for v in (start, end):
        if not math.isfinite(v):
            raise RuntimeError(f"unsupported range: {start:g} -> {end:g}")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if any(isinstance(v, float) for v in (start, end, step)):
        np_dtype = _np_dtype(dtype)
    else:
        np_dtype = _dtype.to_np(dtype) if dtype is not None else np.dtype(np.int64)
    _refuse_complex(np_dtype, "arange_cpu")
    if np_dtype.kind not in "iub":
        n = math.ceil((end - start) / step)
        values = start + step * np.arange(n, dtype=np.float64)
    else:
        values = _integer_steps(start, end, step, np_dtype)
    return _made(values.astype(np_dtype), requires_grad, out, device, "arange")


def _integer_steps(start, end, step, np_dtype):
    """arange's values for an integer or bool dtype: torch steps in int64 from the truncated ``start`` by the
    truncated ``step``; the count is ceil((end - start) / step) of the given bounds, except for int64, where
    it comes from the truncated bounds too (so a fractional step of an int64 range can give more values)."""
    int_start, int_step = int(start), int(step)
    if np_dtype == np.int64:
        if int_step == 0:
            raise ValueError("step must be nonzero")
        int_end = int(end)
        sign = 1 if int_step > 0 else -1
        span = int_end - int_start + int_step - sign
        n = max(abs(span) // abs(int_step) * (1 if (span >= 0) == (int_step > 0) else -1), 0)  # C's division
    else:
        n = math.ceil((end - start) / step)
    return int_start + int_step * np.arange(n, dtype=np.int64)


def _refuse_complex(np_dtype, kernel):
    """torch's error for a complex dtype its ``kernel`` lacks."""
    if np_dtype.kind == "c":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_dispatch.type_name(np_dtype)}\'')


def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,  # noqa: A001
          requires_grad=False):
    """Deprecated torch.range: like arange but including ``end``; default float dtype."""
    warn_for_user("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning)
    if end is None:
        start, end = 0, start
    n = int(math.floor((end - start) / step)) + 1
    _refuse_complex(_np_dtype(dtype), "range_cpu")
    values = start + step * np.arange(n, dtype=np.float64)
    return _made(values.astype(_np_dtype(dtype)), requires_grad, out, device, "range")


def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    start, end = _number(start, "start", "linspace"), _number(end, "end", "linspace")
    steps = _steps(steps, "linspace")
    np_dtype = _np_dtype(dtype)
    if np_dtype in _TRACED_FLOATS and _traced_sizes.tracing() and _in_onnx_export():
        # ops on the size, so that an export with dynamic axes recomputes the values for each run's size (only
        # there: the ops round twice where the eager kernel rounds once, a last-bit difference)
        return _made(_traced_sizes.linspace(start, end, steps, np_dtype), requires_grad, out, device,
                            "linspace")
    if np_dtype in dt.FLOATS:  # bfloat16 included (numpy's kind for it is "V")
        values = even_steps(start, end, steps, np_dtype)
    elif np_dtype.kind == "c":  # real bounds: the real parts step, the imaginary parts are 0
        values = even_steps(start, end, steps, np.empty(0, np_dtype).real.dtype).astype(np_dtype)
    else:
        values = np.trunc(np.linspace(start, end, steps, dtype=np.float64)).astype(np_dtype)
    return _made(values, requires_grad, out, device, "linspace")


def even_steps(start, end, steps, np_dtype):
    """``steps`` values from ``start`` to ``end`` as torch's kernel computes them in ``np_dtype``: the step
    rounded to the dtype, the first half counted from ``start`` and the rest back from ``end``, each value one
    fused multiply-add (wide arithmetic rounded once; numpy's linspace differs in the last bit)."""
    start, end = np_dtype.type(start), np_dtype.type(end)
    if steps <= 1:
        return np.full(steps, start, np_dtype)
    step = (end - start) / np_dtype.type(steps - 1)
    i = np.arange(steps)
    wide = np.longdouble
    from_start = wide(start) + wide(step) * i
    from_end = wide(end) - wide(step) * (steps - 1 - i)
    return np.where(i < steps // 2, from_start, from_end).astype(np_dtype)


def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    """``steps`` values from ``base**start`` to ``base**end``, evenly spaced in the exponent."""
    start, end = _number(start, "start", "logspace"), _number(end, "end", "logspace")
    steps = _steps(steps, "logspace")
    values = np.power(float(base), np.linspace(start, end, steps, dtype=np.float64))
    return _made(values.astype(_np_dtype(dtype)), requires_grad, out, device, "logspace")


def _steps(steps, fn):
    if isinstance(steps, CoreTensor):
        steps = int(steps.array)
    if not isinstance(steps, (int, np.integer)) or isinstance(steps, bool):
        raise TypeError(f"{fn}(): argument 'steps' must be int, not {type(steps).__name__}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return int(steps)


def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """An ``n x m`` identity matrix (``m = n`` by default)."""
    m = n if m is None else m
    for v, name in ((n, "n"), (m, "m")):
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise TypeError(f"eye(): argument '{name}' must be int, not {type(v).__name__}")
        if v < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {v}")
    np_dtype = _np_dtype(dtype)
    if np_dtype.kind != "c" and _traced_sizes.tracing():  # ops on the sizes: an export recomputes it per run
        return _made(_traced_sizes.eye(n, m, np_dtype), requires_grad, out, device, "eye")
    return _made(np.eye(n, m, dtype=np_dtype), requires_grad, out, device, "eye")


def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False):
    """A 0-dim tensor holding ``s`` (default float dtype unless ``dtype``)."""
    return _made(_dispatch.scalar_array(_number(s, "s", "scalar_tensor"), _np_dtype(dtype)), requires_grad,
                 device=device)


def _new_device(self, device):
    """A ``new_*`` method's device: ``self``'s unless given."""
    return _meta.META if device is None and self._meta else device


def _new_factory(fill):
    def method(self, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
        if not size:
            raise TypeError(f'new_{fill.__name__}() missing 1 required positional arguments: "size"')
        return fill(*size, dtype=self.dtype if dtype is None else dtype, device=_new_device(self, device),
                    requires_grad=requires_grad)
    return method


def _new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):
    return full(size, fill_value, dtype=self.dtype if dtype is None else dtype, device=_new_device(self, device),
                requires_grad=requires_grad)


def _new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    return tensor(data, dtype=self.dtype if dtype is None else dtype, device=_new_device(self, device),
                  requires_grad=requires_grad)


def zero_(self):
    """Fill with zeros in place; returns self."""
    _dispatch.check_inplace(self, "zero_")
    return _dispatch.assign(self, _dispatch.wrap(np.zeros((), self.array.dtype)), "zero_")


def fill_(self, value):
    """Fill with ``value`` (a number or a 0-dim tensor, whose gradient flows) in place; returns self."""
    _dispatch.check_inplace(self, "fill_")
    if isinstance(value, CoreTensor):
        if value.array.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value.array.ndim} dimensions.")
        return copy_(self, value)
    return _dispatch.assign(self, _dispatch.wrap(_dispatch.scalar_array(value, self.array.dtype)), "fill_")


def copy_(self, src, non_blocking=False):
    """Copy ``src`` (broadcast, converted to this dtype) into this tensor in place; gradients flow to ``src``."""
    _dispatch.check_inplace(self, "copy_")
    src = _dispatch.to_tensor(src)
    try:
        fits = np.broadcast_shapes(src.array.shape, self.array.shape) == self.array.shape
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(f"copy_: the size of tensor a {list(src.array.shape)} cannot be broadcast to the size "
                           f"of tensor b {list(self.array.shape)}")
    return _dispatch.assign(self, _dispatch.cast(src, self.array.dtype), "copy_")


def _zeros_of_new(*size, **kwargs):  # (torch.zeros' own size check is not new_zeros')
    return _sized(np.zeros, size, kwargs, "new_zeros")


_zeros_of_new.__name__ = "zeros"
TENSOR_METHODS = {"new_zeros": _new_factory(_zeros_of_new), "new_ones": _new_factory(ones),
                  "new_empty": _new_factory(empty), "new_full": _new_full, "new_tensor": _new_tensor, "zero_": zero_,
                  "fill_": fill_, "copy_": copy_}
