"""``torch.segment_reduce``: sum/mean/max/min/prod over consecutive segments of one axis.

Each position along ``axis`` gets the number of its segment (computed in numpy from ``lengths``/``offsets``, which
carry no gradient); the reduction is ``scatter_reduce`` into one slot per segment, so gradients follow torch's
(ties of max/min share the gradient equally, products with zeros handled by ``scatter_reduce``'s backward).
"""

import numpy as np

import vfw.frontends.torch as torch
from vfw.frontends.torch._dispatch import type_name
from vfw.frontends.torch._pointwise import tensor_arg

__all__ = ["segment_reduce"]

_SCATTER_MODE = {"sum": "sum", "mean": "sum", "max": "amax", "min": "amin", "prod": "prod"}
_EMPTY_VALUE = {"sum": 0.0, "mean": 0.0, "max": -np.inf, "min": np.inf, "prod": 1.0}


def _offsets(lengths, offsets, axis, size, unsafe):
    """The segment offsets (``batch + (segments + 1,)``, int64 numpy) from ``lengths`` or ``offsets``."""
    given = offsets if offsets is not None else lengths
    if given.dtype not in (torch.int32, torch.int64):
        raise NotImplementedError(f"\"_segment_reduce_{'offsets' if offsets is not None else 'lengths'}_cpu_kernel1\""
                                  f" not implemented for '{type_name(given.array.dtype)}'")
    if given.dim() - 1 != axis:
        raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of "
                           f"{'offsets' if offsets is not None else 'lengths'} but got {axis}.")
    values = given.numpy().astype(np.int64)
    if offsets is not None:
        return values
    if not unsafe and (values < 0).any():
        raise RuntimeError("lengths contains negative value!")
    if not unsafe and (values.sum(-1) != size).any():
        raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to sum to "
                           "data.size(lengths.dim()-1) when !unsafe.")
    zero = np.zeros(values.shape[:-1] + (1,), np.int64)
    return np.concatenate([zero, np.cumsum(values, -1)], -1)


def segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0, unsafe=False, initial=None):
    """Reduce ``data`` over consecutive segments of ``axis`` (torch.segment_reduce).

    Parameters
    ----------
    data : Tensor
        Floating input.
    reduce : str
        ``'sum'``, ``'mean'``, ``'max'``, ``'min'`` or ``'prod'``.
    lengths : Tensor, optional
        Integer segment lengths, shape ``data.shape[:axis] + (segments,)``.
    offsets : Tensor, optional
        Integer segment starts and the end, shape ``data.shape[:axis] + (segments + 1,)`` (used over ``lengths``).
    axis : int
        The reduced axis; it must be the last dim of ``lengths``/``offsets``.
    unsafe : bool
        Skip the checks of ``lengths``.
    initial : number, optional
        Folded into every segment's reduction (and the value of empty segments; else 0, NaN, -inf, inf, 1).

    Returns
    -------
    Tensor
        ``data`` with ``axis`` replaced by the segments.
    """
    tensor_arg(data, "segment_reduce", "data")
    if reduce not in _SCATTER_MODE:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    if not data.dtype.is_floating_point:
        raise NotImplementedError(f"\"_segment_reduce_cpu\" not implemented for "
                                  f"'{type_name(data.array.dtype)}'")
    axis = axis + data.dim() if axis < 0 else axis
    size = data.shape[axis]
    bounds = _offsets(lengths, offsets, axis, size, unsafe)
    segments = bounds.shape[-1] - 1
    # Segment of each position (batch + (size,)); positions outside every segment go to a spare slot dropped below.
    positions = np.arange(size)
    owner = (bounds[..., 1:, None] <= positions).sum(-2)
    inside = (positions >= bounds[..., :1]) & (positions < bounds[..., -1:])
    owner = np.where(inside, owner, segments)
    owner = owner.reshape(owner.shape + (1,) * (data.dim() - axis - 1))
    index = torch.from_numpy(np.ascontiguousarray(np.broadcast_to(owner, tuple(data.shape))))
    out_shape = list(data.shape)
    out_shape[axis] = segments + 1
    base = torch.full(out_shape, _EMPTY_VALUE[reduce], dtype=data.dtype)
    reduced = base.scatter_reduce(axis, index, data, _SCATTER_MODE[reduce], include_self=False)
    reduced = reduced.narrow(axis, 0, segments)
    if reduce == "mean":
        counts = np.diff(bounds, axis=-1).reshape(bounds.shape[:-1] + (segments,) + (1,) * (data.dim() - axis - 1))
        counts = torch.from_numpy(counts.astype(np.float64)).to(data.dtype)
        if initial is None:
            return reduced / counts  # an empty segment: 0 / 0 = NaN, as torch
        return torch.where(counts == 0, torch.tensor(float(initial), dtype=data.dtype), (reduced + initial) / counts)
    if initial is None:
        return reduced
    if reduce == "sum":
        return reduced + initial
    if reduce == "prod":
        return reduced * initial
    keep = reduced >= initial if reduce == "max" else reduced <= initial
    return torch.where(keep, reduced, torch.tensor(float(initial), dtype=data.dtype))
