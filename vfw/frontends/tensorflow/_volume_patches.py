"""tf.extract_volume_patches (TF's ExtractVolumePatches): every ``ksizes`` window of an NDHWC batch, flattened into
the depth of one output voxel.

As ``tf.image.extract_patches`` (``_image_patches``), the windows are one gather of precomputed flat voxel indices in
the zero-padded volume, so tapes and traces see ordinary differentiable tf ops (the gradient scatters back, summing
where windows overlap).
"""

import numpy as np

from vfw.frontends.tensorflow._dispatch import convert_to_tensor
from vfw.frontends.tensorflow._image_patches import checked_arguments, gather_windows, valid_count
from vfw.frontends.tensorflow._op_support import OpTypes

_OP = "ExtractVolumePatches"
_TYPES = OpTypes(_OP, "F bfloat16 I U")


def _windows(size, extent, stride, padding):
    """``(tap positions [count, extent] in the padded dim, padding before, padding after)`` along one dim, with TF's
    output sizes (VALID: ``(size - extent + stride) // stride``; SAME: ``ceil(size / stride)``). SAME centres the
    windows as TF's kernel does: its leading padding ``((count - 1) * stride + extent - size) / 2`` (rounded toward
    zero) may be negative, which skips leading input positions."""
    if padding == "VALID":
        count, lead = valid_count(size, extent, stride, _OP), 0
    else:
        count = -(-size // stride)
        total = (count - 1) * stride + extent - size
        lead = total // 2 if total >= 0 else -(-total // 2)
    positions = np.arange(count)[:, None] * stride + np.arange(extent)[None, :] - lead  # in the input's coordinates
    before = max(lead, 0)
    after = max(int(positions.max()) - (size - 1), 0) if positions.size else 0
    return positions + before, before, after


def extract_volume_patches(input, ksizes, strides, padding, name=None):  # noqa: A002  (TF's argument name)
    """Extract ``ksizes`` patches from ``input`` and put them in the depth dimension.

    Parameters
    ----------
    input : Tensor
        ``[batch, planes, rows, cols, depth]`` of a real number dtype.
    ksizes, strides : sequence of 5 ints
        ``[1, size_planes, size_rows, size_cols, 1]`` and ``[1, stride_planes, stride_rows, stride_cols, 1]``.
    padding : {"VALID", "SAME"}
        "SAME" pads with zeros so that there are ``ceil(planes / stride_planes)`` output planes (rows, columns).

    Returns
    -------
    Tensor
        ``[batch, out_planes, out_rows, out_cols, size_planes * size_rows * size_cols * depth]``, each output voxel
        holding its window plane by plane, row by row, a voxel's channels together.
    """
    input = convert_to_tensor(input)  # noqa: A001
    ksizes, strides = checked_arguments(_OP, _TYPES, 5, input, padding, ksizes=ksizes, strides=strides)
    taps, pads = [], []
    for axis, size in enumerate(input.shape.as_list()[1:4], start=1):
        positions, before, after = _windows(size, ksizes[axis], strides[axis], padding)
        taps.append(positions)
        pads.append((before, after))
    return gather_windows(input, taps, pads)


NAMESPACES = {"tf": ["extract_volume_patches"]}
TENSOR_METHODS = {}
