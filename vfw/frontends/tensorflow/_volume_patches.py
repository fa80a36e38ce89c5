"""tf.extract_volume_patches (TF's ExtractVolumePatches): every ``ksizes`` window of an NDHWC batch, flattened into
the depth of one output voxel.

As ``tf.image.extract_patches`` (``_image_patches``), the windows are one gather of precomputed flat voxel indices in
the zero-padded volume, so tapes and traces see ordinary differentiable tf ops (the gradient scatters back, summing
where windows overlap).
"""

import numpy as np

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, op_error
from vfw.frontends.tensorflow._op_support import OpTypes

_OP = "ExtractVolumePatches"
_TYPES = OpTypes(_OP, "F bfloat16 I U")
_KERNEL = "{{function_node __wrapped__ExtractVolumePatches_device_/job:localhost/replica:0/task:0/device:CPU:0}} "


def _attr(values, name):
    values = [int(v) for v in values]
    if len(values) < 5:
        raise op_error(f"Length for attr '{name}' of {len(values)} must be at least minimum 5\n\t; NodeDef: "
                       f"{{{{node {_OP}}}}}", _OP)
    return values


def _windows(size, extent, stride, padding):
    """``(tap positions [count, extent] in the padded dim, padding before, padding after)`` along one dim, with TF's
    output sizes (VALID: ``(size - extent + stride) // stride``; SAME: ``ceil(size / stride)``). SAME centres the
    windows as TF's kernel does: its leading padding ``((count - 1) * stride + extent - size) / 2`` (rounded toward
    zero) may be negative, which skips leading input positions."""
    if padding == "VALID":
        count, lead = (size - extent + stride) // stride, 0
        if count < 0:
            raise op_error(f"{_KERNEL}Computed output size would be negative: {count} [input_size: {size}, "
                           f"effective_filter_size: {extent}, stride: {stride}]", _OP)
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
    ksizes, strides = _attr(ksizes, "ksizes"), _attr(strides, "strides")
    if padding not in ("SAME", "VALID"):
        raise op_error(f"Value for attr 'padding' of \"{padding}\" is not in the list of allowed values: \"SAME\", "
                       f"\"VALID\"\n\t; NodeDef: {{{{node {_OP}}}}}", _OP)
    _TYPES.check(input.array.dtype)
    for values, what in ((ksizes, "ksizes"), (strides, "strides")):
        if len(values) != 5 or values[0] != 1 or values[4] != 1:
            raise op_error(f"{_KERNEL}Only support {what} across space.", _OP, tf.errors.UnimplementedError)
    if input.shape.rank != 5:
        raise op_error(f"{_KERNEL}input must be 5-dimensional[{','.join(str(d) for d in input.shape)}]", _OP)
    spatial = input.shape.as_list()[1:4]
    depth = input.shape[4]
    taps, pads, padded_sizes = [], [], []
    for axis, size in enumerate(spatial):
        positions, before, after = _windows(size, ksizes[axis + 1], strides[axis + 1], padding)
        taps.append(positions)
        pads.append([before, after])
        padded_sizes.append(size + before + after)
    padded = tf.pad(input, [[0, 0]] + pads + [[0, 0]]) if any(sum(p) for p in pads) else input
    # flat index into the padded volume of [out_planes, out_rows, out_cols, taps_planes, taps_rows, taps_cols]
    plane_taps, row_taps, col_taps = taps
    flat = ((plane_taps[:, None, None, :, None, None] * padded_sizes[1]
             + row_taps[None, :, None, None, :, None]) * padded_sizes[2]
            + col_taps[None, None, :, None, None, :])
    batch = tf.shape(input)[:1]
    voxels = tf.reshape(padded, tf.concat([batch, [int(np.prod(padded_sizes)), depth]], axis=0))
    gathered = tf.gather(voxels, flat.reshape(-1).astype(np.int32), axis=1)
    out_shape = list(flat.shape[:3]) + [ksizes[1] * ksizes[2] * ksizes[3] * depth]
    return tf.reshape(gathered, tf.concat([batch, out_shape], axis=0))


NAMESPACES = {"tf": ["extract_volume_patches"]}
TENSOR_METHODS = {}
