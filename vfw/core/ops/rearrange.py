"""Ops that move or reinterpret tensor data (ONNX): BitCast, ReverseSequence, TensorScatter.

BitCast and TensorScatter are not differentiable here; ReverseSequence's gradient is the same
reversal of the output gradient.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.autograd import not_differentiable, register_gradient
from vfw.core.errors import DTypeError, IndexOutOfRangeError, ShapeError
from vfw.core.ops._common import execute, normalize_axis, require, same_as_first
from vfw.core.registry import Attr, TensorInfo, defop

_ANY = dt.ALL | {dt.string}


@defop("BitCast", inputs="input:T1", outputs="output:T2", types={"T1": dt.ALL, "T2": dt.ALL},
       attrs={"to": Attr("dtype", check=lambda d: None if d in dt.ALL else "must be a non-string type")},
       infer=lambda attrs, infos: [TensorInfo(infos[0].shape, attrs["to"])])
def bit_cast(to):
    """The input's bytes (little endian) read as ``to``, which must have the same width."""

    def kernel(x, out=None):
        if x.dtype.itemsize != to.itemsize:
            raise DTypeError(f"BitCast: {dt.type_name(x.dtype)} ({8 * x.dtype.itemsize} bits) and {dt.type_name(to)} "
                             f"({8 * to.itemsize} bits) differ in width")
        little = np.ascontiguousarray(x, dtype=x.dtype.newbyteorder("<"))
        return little.view(to.newbyteorder("<")).astype(to, copy=True).reshape(x.shape)

    return kernel


def _reversed_positions(lens, time, batch, time_axis, batch_axis, rank):
    """Index along the time axis each output element reads, shaped to broadcast over the input."""
    t = np.arange(time)[:, None]
    source = np.where(t < lens[None, :], lens[None, :] - 1 - t, t)  # (time, batch)
    if time_axis > batch_axis:
        source = source.T
    return source.reshape(source.shape + (1,) * (rank - 2))


@defop("ReverseSequence", inputs="input:T sequence_lens:int64", outputs="Y:T", types={"T": _ANY},
       attrs={"batch_axis": Attr("int", 1, choices=(0, 1)), "time_axis": Attr("int", 0, choices=(0, 1))},
       infer=same_as_first)
def reverse_sequence(batch_axis, time_axis):
    """Reverse the first ``sequence_lens[b]`` steps along ``time_axis`` of each batch item ``b``."""
    if batch_axis == time_axis:
        raise ShapeError(f"ReverseSequence: batch_axis and time_axis must differ, both are {batch_axis}")

    def kernel(x, sequence_lens, out=None):
        require("ReverseSequence", x.ndim >= 2, f"input must have rank >= 2, got shape {x.shape}")
        time, batch = x.shape[time_axis], x.shape[batch_axis]
        require("ReverseSequence", sequence_lens.shape == (batch,),
                f"sequence_lens must have shape ({batch},), got {sequence_lens.shape}")
        if batch and (sequence_lens.min() < 0 or sequence_lens.max() > time):
            raise IndexOutOfRangeError(f"ReverseSequence: sequence_lens {sequence_lens.tolist()} must lie in "
                                       f"[0, {time}]")
        index = _reversed_positions(sequence_lens, time, batch, time_axis, batch_axis, x.ndim)
        return np.take_along_axis(x, np.broadcast_to(index, x.shape), axis=time_axis)

    return kernel


@register_gradient("ReverseSequence")
def _reverse_sequence_grad(node, g):
    return execute("ReverseSequence", g, node.inputs[1], **node.attrs), None


@defop("TensorScatter", inputs="past_cache:T update:T write_indices?:int64", outputs="present_cache:T",
       types={"T": _ANY}, attrs={"mode": Attr("string", "linear", choices=("linear", "circular")),
                                 "axis": Attr("int", -2)},
       infer=same_as_first)
def tensor_scatter(mode, axis):
    """``past_cache`` with ``update`` written along ``axis`` from position ``write_indices[b]`` of each batch item
    (wrapping around in ``circular`` mode)."""

    def kernel(past, update, write_indices=None, out=None):
        ax = normalize_axis("TensorScatter", axis, past.ndim)
        require("TensorScatter", ax != 0, "axis cannot be the batch axis 0")
        if update.ndim != past.ndim or any(u != p for k, (u, p) in enumerate(zip(update.shape, past.shape))
                                           if k != ax) or update.shape[ax] > past.shape[ax]:
            raise ShapeError(f"TensorScatter: update {update.shape} must match past_cache {past.shape} except for "
                             f"a shorter axis {axis}")
        batch, length, capacity = past.shape[0], update.shape[ax], past.shape[ax]
        starts = np.zeros(batch, np.int64) if write_indices is None else write_indices
        require("TensorScatter", starts.shape == (batch,),
                f"write_indices must have shape ({batch},), got {starts.shape}")
        positions = starts[:, None] + np.arange(length)[None, :]  # (batch, length)
        if mode == "circular":
            positions %= max(capacity, 1)
        elif batch and length and (positions.min() < 0 or positions.max() >= capacity):
            raise IndexOutOfRangeError(f"TensorScatter: writing {length} steps from {starts.tolist()} overruns the "
                                       f"cache length {capacity}")
        shape = [1] * past.ndim
        shape[0], shape[ax] = batch, length
        index = np.broadcast_to(positions.reshape(shape), update.shape)
        present = past.copy()
        np.put_along_axis(present, index, update, axis=ax)
        return present

    return kernel


not_differentiable("BitCast", "TensorScatter")
