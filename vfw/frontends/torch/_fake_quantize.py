"""Fake quantization for quantization-aware training: ``torch.fake_quantize_per_tensor_affine`` and
``torch.fake_quantize_per_channel_affine`` over the engine's FakeQuantizeAffine op (its gradient is torch's
straight-through estimator: the output gradient where the level falls inside ``[quant_min, quant_max]``)."""

import numpy as np

from vfw.frontends.torch import _dispatch
from vfw.frontends.torch._tensor import Tensor

__all__ = ["fake_quantize_per_tensor_affine", "fake_quantize_per_channel_affine"]

_I32 = np.dtype(np.int32)
_F32 = np.dtype(np.float32)


def _check_range(quant_min, quant_max, zero_points):
    if quant_min > quant_max:
        raise RuntimeError("`quant_min` should be less than or         equal to `quant_max`.")
    if np.any(zero_points < quant_min) or np.any(zero_points > quant_max):
        raise RuntimeError("`zero_point` must be between `quant_min` and `quant_max`.")


def _run(input, scale, zero_point, quant_min, quant_max, axis=None):  # noqa: A002
    if not isinstance(input, Tensor) or input.array.dtype.kind != "f":
        raise RuntimeError(f"fake quantization takes a floating tensor, got {getattr(input, 'dtype', input)!r}")
    _check_range(quant_min, quant_max, zero_point)
    return _dispatch.call("FakeQuantizeAffine", input, _dispatch.wrap(scale), _dispatch.wrap(zero_point),
                          quant_min=int(quant_min), quant_max=int(quant_max), axis=axis)


def fake_quantize_per_tensor_affine(input, scale, zero_point, quant_min, quant_max):  # noqa: A002
    """Quantize and dequantize ``input`` with one scale and zero point, keeping its dtype.

    Parameters
    ----------
    input : Tensor
        Floating tensor of any shape.
    scale : float or Tensor
        One value (a one-element float32 tensor in torch's tensor overload).
    zero_point : int or Tensor
        One value (a one-element int32 tensor in the tensor overload).
    quant_min, quant_max : int
        The range of levels, e.g. 0 and 255 for quint8.

    Returns
    -------
    Tensor
        ``(clamp(round(input / scale) + zero_point, quant_min, quant_max) - zero_point) * scale``, its gradient
        the incoming one where the unclamped level lies in the range and zero elsewhere.
    """
    values = []
    for value in (scale, zero_point):
        if isinstance(value, Tensor):
            if value.numel() != 1:
                raise RuntimeError(f"a Tensor with {value.numel()} elements cannot be converted to Scalar")
            value = value.array.reshape(()).item()
        values.append(value)
    scale_array = np.array(values[0], _F32)
    zero_point_array = np.array(int(values[1]), _I32)
    return _run(input, scale_array, zero_point_array, quant_min, quant_max)


def fake_quantize_per_channel_affine(input, scale, zero_point, axis, quant_min, quant_max):  # noqa: A002
    """Quantize and dequantize ``input`` with one scale and zero point per slice along ``axis``.

    Parameters
    ----------
    input : Tensor
    scale : Tensor
        1-D float tensor, ``input.size(axis)`` values.
    zero_point : Tensor
        1-D int32 tensor of the same length.
    axis : int
    quant_min, quant_max : int

    Returns
    -------
    Tensor
        As :func:`fake_quantize_per_tensor_affine`, slice by slice.
    """
    ndim = input.array.ndim
    if not -max(ndim, 1) <= axis < max(ndim, 1):
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(ndim, 1)}, {max(ndim, 1) - 1}], "
                         f"but got {axis})")
    if axis < 0:
        raise RuntimeError("`axis` must be between 0 and number of dimensions of input")
    if zero_point.array.dtype != _I32:
        if zero_point.array.dtype.kind == "f":
            raise NotImplementedError("fake_quantize_per_channel_affine: vfw.torch takes int32 zero points only "
                                      "(torch's float zero points round differently)")
        found = _dispatch.type_name(zero_point.array.dtype)
        raise RuntimeError(f"Zero-point must be Int32, Float or Half, found {found}")
    if scale.array.ndim != 1 or zero_point.array.shape != scale.array.shape or scale.array.shape[0] != (
            input.array.shape[axis] if ndim else 1):
        raise RuntimeError("dimensions of scale and zero-point are not consistent with input tensor")
    return _run(input, scale.array.astype(_F32), zero_point.array, quant_min, quant_max, axis=axis)
