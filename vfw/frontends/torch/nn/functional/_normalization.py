"""batch_norm, instance_norm, layer_norm, group_norm, local_response_norm, rms_norm, normalize.

Each is one engine op (BatchNormalization, InstanceNormalization, LayerNormalization, GroupNormalization, LRN,
RMSNormalization) behind torch's argument checks.  Where torch and the ONNX ops differ, this file adapts:

- Running statistics follow torch: ``running = (1 - momentum) * running + momentum * batch``, with the
  unbiased batch variance; BatchNormalization in training mode with ``momentum=0`` gives the batch mean and
  biased variance, and the buffers are updated here, in place.  As in torch, batch norm's writes count no
  version (an eval-mode node that saved the buffers still runs backward) and instance norm's count one.
- torch's CPU kernels take float32 parameters with float16/bfloat16 inputs ("mixed type"); the ONNX ops whose
  scale shares X's type then run on the input widened to float32 and round the result once, as torch does.
- LRN's window for an even ``size`` is torch's mirror image (one more channel below than above): the input is
  flipped along the channels around the op.
"""

import math
import numbers

import numpy as np

from vfw.core import autograd
from vfw.core import dtypes as dt
from vfw.core.graph.trace import _active as _tracing
from vfw.core.graph.trace import current_trace
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _arithmetic, _dispatch, _dtype, _half_steps, _joining, _layout
from vfw.frontends.torch._dispatch import call, cast, op, type_name
from vfw.frontends.torch._pointwise import tensor_arg
from vfw.frontends.torch.nn.functional._conv_layout import keep_layout

__all__ = ["batch_norm", "instance_norm", "layer_norm", "group_norm", "local_response_norm", "rms_norm", "normalize"]

_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
_HALVES = frozenset({_F16, dt.bfloat16})
_FLOATS = _HALVES | {_F32, _F64}
_C10_NAMES = {_F16: "c10::Half", dt.bfloat16: "c10::BFloat16", _F32: "float", _F64: "double"}


# -- argument checks ------------------------------------------------------------------------------------------
def _optional_tensors(fn, named):
    """torch's TypeError for an argument that is neither a tensor nor None; ``named``: (arg, position, value)."""
    for arg, pos, value in named:
        if value is not None and not isinstance(value, CoreTensor):
            raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be Tensor, not {type(value).__name__}")


def _float_arg(value, fn, arg, pos):
    """A float argument (a Python/numpy number or a one-element tensor), else torch's TypeError."""
    if isinstance(value, CoreTensor) and value.array.size == 1:
        return float(value.array.reshape(()))
    if not isinstance(value, numbers.Real):
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be float, not {type(value).__name__}")
    return float(value)


def _int_arg(value, fn, arg, pos):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{fn}(): argument '{arg}' (position {pos}) must be int, not {type(value).__name__}")
    return int(value)


def _verify_batch_size(size):
    """torch's ValueError when a channel would be normalized over a single value (training mode)."""
    count = size[0]
    for n in size[2:]:
        count *= n
    if count == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")


def _verify_spatial_size(size):
    """torch's ValueError when instance norm would normalize over a single value."""
    count = 1
    for n in size[2:]:
        count *= n
    if count == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {size}")


def _param_dtype(kernel, x, params):
    """The dtype torch's CPU kernels require of the (present) ``params`` for input ``x``; raises otherwise.

    Parameters share the input's dtype, except that float16/bfloat16 inputs may take float32 parameters
    (decided by the first one present).  Non-float inputs raise NotImplementedError naming ``kernel``.
    """
    xd = x.array.dtype
    if xd not in _FLOATS:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{type_name(xd)}'")
    present = [p.array.dtype for p in params if p is not None]
    want = _F32 if xd in _HALVES and present and present[0] == _F32 else xd
    for pd in present:
        if pd != want:
            if want == _F32:
                raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
            if xd in _HALVES:
                raise RuntimeError(f"expected scalar type {type_name(xd)} but found {type_name(pd)}")
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    return want


def _check_statistics_need_no_grad(running_mean, running_var):
    """torch's kernel has no gradient for the running statistics: it refuses ones that require grad."""
    if autograd.is_grad_enabled():
        for name, t in (("running_mean", running_mean), ("running_var", running_var)):
            if t is not None and t.requires_grad:
                raise RuntimeError(f"The function 'native_batch_norm' is not differentiable with respect to argument "
                                   f"'{name}'. This input cannot have requires_grad True.")


def _check_counts(c, named, message):
    """Each present tensor of ``named`` ((name, tensor) pairs) must hold ``c`` elements."""
    for name, t in named:
        if t is not None and t.array.size != c:
            raise RuntimeError(message(name, t))


def _vector(t, c, dtype, fill):
    """Per-channel values: ``t`` as shape (c,), or a constant ``fill`` when ``t`` is None."""
    if t is None:
        return np.full(c, fill, dtype)
    return t if t.array.ndim == 1 else t.reshape(c)


def _in_dtype(x, dtype, run):
    """``run(x)`` for an op whose parameters must share X's dtype: widened to ``dtype`` and rounded back."""
    if x.array.dtype == dtype:
        return run(x)
    return cast(run(cast(x, dtype)), x.array.dtype)


def _normalized_shape(fn, value):
    """``normalized_shape`` as a tuple of ints (a list, tuple or torch.Size), else torch's TypeError."""
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{fn}(): argument 'normalized_shape' (position 2) must be tuple of ints, not "
                        f"{type(value).__name__}")
    for i, n in enumerate(value):
        if isinstance(n, bool) or not isinstance(n, numbers.Integral):
            raise TypeError(f"{fn}(): argument 'normalized_shape' (position 2) must be tuple of ints, but found "
                            f"element of type {type(n).__name__} at pos {i}")
    shape = tuple(int(n) for n in value)
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           "element, but got normalized_shape = []")
    return shape


def _check_trailing(x, shape, pattern):
    """The input must end with ``shape``; ``pattern`` formats torch's expected-shape text."""
    size = x.array.shape
    if len(size) < len(shape) or size[len(size) - len(shape):] != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape {pattern(shape)}, but "
                           f"got input of size{list(size)}")


def _check_affine_shapes(shape, weight, bias):
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.array.shape != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(t.array.shape)} and normalized_shape = {list(shape)}")


# -- running statistics ---------------------------------------------------------------------------------------
def _update_running(buffer, batch, momentum, correction=None):
    """``buffer = (1 - momentum) * buffer + momentum * batch``, written into the buffer's memory (in float64, as
    torch's CPU kernels accumulate; ``batch`` is first multiplied by ``correction`` in its own dtype when given).
    Version counters are the callers' business.

    ``batch`` is a tensor, or an array computed in numpy.  Under a graph trace a tensor's update is computed with
    engine ops and the write recorded, so that every run of the graph updates the buffer (an array's cannot be:
    the caller's version bump makes the trace refuse it).
    """
    _dispatch.check_writeable(buffer, "batch_norm")
    trace = current_trace() if _tracing else None
    if trace is not None and isinstance(batch, CoreTensor):
        value = _dispatch.wrap(batch.array)  # the statistics carry no gradient
        if correction is not None:
            value = call(op("Mul"), value, np.asarray(correction, value.array.dtype))
        kept = call(op("Mul"), cast(_dispatch.wrap(buffer.array), _F64), np.asarray(1.0 - momentum, _F64))
        new = call(op("Add"), kept, call(op("Mul"), cast(value, _F64), np.asarray(momentum, _F64)))
        trace.record_write(buffer, new)
        np.copyto(buffer.array, new.array, casting="unsafe")
        return
    if isinstance(batch, CoreTensor):
        batch = batch.array if correction is None else batch.array * correction
    new = buffer.array.astype(_F64) * (1.0 - momentum) + np.asarray(batch, _F64) * momentum
    np.copyto(buffer.array, new, casting="unsafe")


# -- batch_norm / instance_norm -------------------------------------------------------------------------------
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Normalize each channel (dim 1) over the batch and spatial dims, then scale and shift.

    Parameters
    ----------
    input : Tensor
        Shape ``(N, C, *)``.
    running_mean, running_var : Tensor or None
        Shape ``(C,)``.  Used to normalize when not ``training``; updated in place when ``training``.
    weight, bias : Tensor, optional
        Shape ``(C,)``.
    training : bool
        Normalize with the batch statistics (and update the running ones).
    momentum : float
        Weight of the batch statistics in the running update.
    eps : float
        Added to the variance.

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    fn = "batch_norm"
    if training:  # asked of the input before any type check, as torch's Python code does
        _verify_batch_size(input.size())
    tensor_arg(input, fn)
    _optional_tensors(fn, (("running_mean", 2, running_mean), ("running_var", 3, running_var), ("weight", 4, weight),
                           ("bias", 5, bias)))
    if not isinstance(training, (bool, np.bool_)):
        raise TypeError(f"{fn}(): argument 'training' (position 6) must be bool, not {type(training).__name__}")
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    momentum = _float_arg(momentum, fn, "momentum", 7)
    eps = _float_arg(eps, fn, "eps", 8)
    if training and (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    if not training:
        for name, t in (("running_mean", running_mean), ("running_var", running_var)):
            if t is None:
                raise RuntimeError(f"{name} must be defined in evaluation mode")
    shape = input.array.shape
    if len(shape) < 2 and training:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    c = shape[1] if len(shape) >= 2 else 0
    stats = (("running_mean", running_mean), ("running_var", running_var))
    _check_counts(c, stats + (("weight", weight), ("bias", bias)),
                  lambda name, t: f"{name} should contain {c} elements not {t.array.size}")
    for _, t in stats:
        if t is not None and t.array.ndim != 1:
            raise RuntimeError(f"TensorAccessor expected 1 dims but tensor has {t.array.ndim}")
    pdt = _param_dtype(fn, input, (weight, bias, running_mean, running_var))
    _check_statistics_need_no_grad(running_mean, running_var)
    return keep_layout(input, _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps, pdt))


def _batch_norm(x, running_mean, running_var, weight, bias, training, momentum, eps, pdt):
    """batch_norm on checked arguments; ``pdt`` is the dtype of the parameters (see ``_param_dtype``)."""
    c = x.array.shape[1]
    scale, shift = _vector(weight, c, pdt, 1.0), _vector(bias, c, pdt, 0.0)
    if not training:
        return call(op("BatchNormalization", epsilon=eps), x, scale, shift, running_mean, running_var)[0]
    # momentum=0: the op's running outputs are the batch mean and biased variance (given constant inputs).
    sdt = _F64 if pdt == _F64 else _F32
    y, mean, var = call(op("BatchNormalization", epsilon=eps, momentum=0.0, training_mode=1), x, scale, shift,
                        np.zeros(c, sdt), np.ones(c, sdt))
    if pdt in _HALVES and _half_steps.applies(x):  # torch rounds the statistics to half first
        y = _half_steps.batch_norm_training(x, weight, bias, eps)
    count = x.array.size // max(c, 1)
    if running_mean is not None and count:  # an empty batch leaves the statistics as they are, as in torch
        _update_running(running_mean, mean, momentum)
        _update_running(running_var, var, momentum, count / (count - 1))
        # torch's kernel writes the buffers without counting a version (a node that saved them in eval mode
        # still runs backward, on the new values); the write stamp still tells tracers that memory changed.
        autograd.write_stamp()
    return y


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Normalize each channel of each instance over its spatial dims, then scale and shift.

    Parameters
    ----------
    input : Tensor
        Shape ``(N, C, *)``.
    running_mean, running_var : Tensor, optional
        Shape ``(C,)``.  Updated in place (averaged over the instances) when ``use_input_stats``, else used to
        normalize.
    weight, bias : Tensor, optional
        Shape ``(C,)``.
    use_input_stats : bool
        Normalize with each instance's statistics.
    momentum, eps : float

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    fn = "instance_norm"
    if use_input_stats:  # asked of the input before any type check, as torch's Python code does
        _verify_spatial_size(input.size())
    tensor_arg(input, fn)
    _optional_tensors(fn, (("running_mean", 2, running_mean), ("running_var", 3, running_var), ("weight", 4, weight),
                           ("bias", 5, bias)))
    momentum = _float_arg(momentum, fn, "momentum", 7)
    eps = _float_arg(eps, fn, "eps", 8)
    if (running_mean is None) != (running_var is None):
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    if not use_input_stats and running_mean is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    shape = input.array.shape
    if len(shape) < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but got {len(shape)})")
    n, c = shape[:2]
    # torch runs batch norm on the input viewed as (1, N * C, *), with the per-channel tensors repeated N times.
    _check_counts(c, (("weight", weight), ("bias", bias), ("running_mean", running_mean),
                      ("running_var", running_var)),
                  lambda name, t: f"{name} should contain {n * c} elements not {t.array.size * n}")
    pdt = _param_dtype("batch_norm", input, (weight, bias))
    _check_statistics_need_no_grad(running_mean, running_var)
    if not use_input_stats:
        # torch normalizes with copies of the statistics (repeated per instance): later writes into the
        # buffers do not concern this call's backward.
        return _batch_norm(input, running_mean.clone(), running_var.clone(), weight, bias, False, momentum, eps,
                           pdt)
    bound = op("InstanceNormalization", epsilon=eps)
    y = _in_dtype(input, pdt, lambda x: call(bound, x, _vector(weight, c, pdt, 1.0), _vector(bias, c, pdt, 0.0)))
    if running_mean is not None:
        _update_from_instances(input.array, running_mean, running_var, momentum)
    return y


def _update_from_instances(x, running_mean, running_var, momentum):
    """torch's instance-norm update: each instance's statistics update a copy of the buffers, and their average
    is copied in (one version each; an empty batch gives NaN, as in torch)."""
    n, c = x.shape[:2]
    spatial = math.prod(x.shape[2:])
    per_instance = x.reshape(n, c, spatial).astype(_F64)
    means = np.add.reduce(per_instance, axis=2) / spatial
    variances = np.add.reduce(np.square(per_instance - means[:, :, None]), axis=2) / (spatial - 1)
    for buffer, value in ((running_mean, means), (running_var, variances)):
        _update_running(buffer, np.add.reduce(value, axis=0) / n, momentum)
        _dispatch.bump_version(buffer)


# -- layer_norm / rms_norm / group_norm -----------------------------------------------------------------------
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalize over the last ``len(normalized_shape)`` dims, then scale and shift elementwise.

    Parameters
    ----------
    input : Tensor
        Shape ``(*, *normalized_shape)``.
    normalized_shape : list or tuple of int, or torch.Size
    weight, bias : Tensor, optional
        Shape ``normalized_shape``.
    eps : float

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    fn = "layer_norm"
    tensor_arg(input, fn)
    shape = _normalized_shape(fn, normalized_shape)
    _optional_tensors(fn, (("weight", 3, weight), ("bias", 4, bias)))
    _check_affine_shapes(shape, weight, bias)
    _check_trailing(input, shape, lambda s: "[*, " + ", ".join(map(str, s)) + "]")
    eps = _float_arg(eps, fn, "eps", 5)
    pdt = _param_dtype("LayerNormKernelImpl", input, (weight, bias))
    bound = op("LayerNormalization", axis=input.array.ndim - len(shape), epsilon=eps)
    scale = np.ones((), pdt) if weight is None else weight

    def run(x):
        return (call(bound, x, scale) if bias is None else call(bound, x, scale, bias))[0]

    return _in_dtype(input, pdt, run)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """Divide by the root mean square over the last ``len(normalized_shape)`` dims, then scale elementwise.

    Parameters
    ----------
    input : Tensor
        Shape ``(*, *normalized_shape)``.
    normalized_shape : list or tuple of int, or torch.Size
    weight : Tensor, optional
        Shape ``normalized_shape``.
    eps : float, optional
        Added to the mean square; default: the machine epsilon of the dtype the input is computed in
        (float32 for half inputs).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    fn = "rms_norm"
    tensor_arg(input, fn)
    shape = _normalized_shape(fn, normalized_shape)
    _optional_tensors(fn, (("weight", 3, weight),))
    _check_affine_shapes(shape, weight, None)
    _check_trailing(input, shape, lambda s: "[*" + ", ".join(map(str, s)) + "]")
    xd = input.array.dtype
    if xd not in _FLOATS:
        raise NotImplementedError(f"\"rms_norm\" not implemented for '{type_name(xd)}'")
    eps = float(np.finfo(_F64 if xd == _F64 else _F32).eps) if eps is None else _float_arg(eps, fn, "eps", 4)
    scale = np.ones((), xd) if weight is None else weight
    if weight is not None and weight.array.dtype != xd:
        _warn_dtype_mismatch_once(xd, weight.array.dtype)
        # torch multiplies by the weight in the promoted dtype, then converts to the input's
        scale = cast(weight, _dtype.promote_types(xd, weight.array.dtype))
    return cast(call(op("RMSNormalization", axis=input.array.ndim - len(shape), epsilon=eps), input, scale), xd)


_mismatch_warned = []


def _warn_dtype_mismatch_once(input_dtype, weight_dtype):
    """torch's warning (given once per process) that mixed dtypes leave its fused rms_norm kernel."""
    if not _mismatch_warned:
        _mismatch_warned.append(True)
        warn_for_user(f"Mismatch dtype between input and weight: input dtype = {_C10_NAMES[input_dtype]}, weight "
                      f"dtype = {_C10_NAMES.get(weight_dtype, weight_dtype.name)}, Cannot dispatch to fused "
                      "implementation.", UserWarning)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalize each instance over groups of channels, then scale and shift per channel.

    Parameters
    ----------
    input : Tensor
        Shape ``(N, C, *)``, ``C`` divisible by ``num_groups``.
    num_groups : int
    weight, bias : Tensor, optional
        Shape ``(C,)``.
    eps : float

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    fn = "group_norm"
    if input.dim() < 2:  # asked of the input before any type check, as torch's Python code does
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    tensor_arg(input, fn)
    groups = _int_arg(num_groups, fn, "num_groups", 2)
    _optional_tensors(fn, (("weight", 3, weight), ("bias", 4, bias)))
    shape = input.array.shape
    if len(shape) < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {len(shape)}")
    _verify_batch_size([shape[0] * shape[1] // groups, groups] + list(shape[2:]))
    if groups <= 0:
        raise RuntimeError(f"Expected num groups to be greater than 0, got {groups}")
    c = shape[1]
    if c % groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(shape)} and num_groups={groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t.array.shape != (c,):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(t.array.shape)} and input of shape {list(shape)}")
    eps = _float_arg(eps, fn, "eps", 5)
    pdt = _param_dtype("GroupNormKernelImpl", input, (weight, bias))
    bound = op("GroupNormalization", num_groups=groups, epsilon=eps)
    scale, shift = _vector(weight, c, pdt, 1.0), _vector(bias, c, pdt, 0.0)
    return keep_layout(input, _in_dtype(input, pdt, lambda x: call(bound, x, scale, shift)))


# -- local_response_norm / normalize --------------------------------------------------------------------------
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """``input / (k + alpha * mean of input^2 over size neighbouring channels)^beta``.

    The window of channel ``c`` is ``[c - size // 2, c + (size - 1) // 2]`` (zeros beyond the edges count).

    Parameters
    ----------
    input : Tensor
        Shape ``(N, C, *)`` with at least one spatial dim.
    size : int
    alpha, beta, k : float

    Returns
    -------
    Tensor
        Same shape as ``input`` (integer inputs give the default float dtype).
    """
    fn = "local_response_norm"
    dim = input.dim()  # asked of the input before any type check, as torch's Python code does
    tensor_arg(input, fn)
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.array.size == 0:
        return input
    size = _int_arg(size, fn, "size", 2)
    if size <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {size} kW: 1")
    xd = input.array.dtype
    if xd == np.bool_:
        raise NotImplementedError("\"avg_pool2d\" not implemented for 'Bool'")
    if xd not in _FLOATS:
        return _integer_lrn(input, size, alpha, beta, k)
    bound = op("LRN", size=size, alpha=float(alpha), beta=float(beta), bias=float(k))
    if size % 2:
        return call(bound, input)
    return _layout.flip(call(bound, _layout.flip(input, (1,))), (1,))


def _integer_lrn(input, size, alpha, beta, k):
    """torch's result for integer inputs: the window average of the squares is an integer division."""
    squares = input * input
    n, c, *rest = input.array.shape

    def zeros(channels):
        return _dispatch.wrap(np.zeros([n, channels] + rest, squares.array.dtype))

    padded = _joining.cat([zeros(size // 2), squares, zeros((size - 1) // 2)], 1)
    total = padded.narrow(1, 0, c)
    for start in range(1, size):  # one slice per window tap
        total = total + padded.narrow(1, start, c)
    div = _arithmetic.div(total, size, rounding_mode="floor").mul(alpha).add(k).pow(beta)
    return input / div


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input / max(||input||_p along dim, eps)``.

    Parameters
    ----------
    input : Tensor
        Floating point, any shape.
    p : float
        The norm's exponent.
    dim : int
    eps : float
        Lower bound of the divisor.
    out : Tensor, optional

    Returns
    -------
    Tensor
        Same shape as ``input``.
    """
    if out is None:
        denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
        return input / denom
    denom = input.norm(p, dim, keepdim=True).clamp_min_(eps).expand_as(input)
    return _arithmetic.div(input, denom, out=out)
