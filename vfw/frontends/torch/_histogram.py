"""``torch.histogram`` / ``torch.histogramdd``: counts (optionally weighted or as densities) over bins.

Bins are ``[e_i, e_{i+1})``, the last one closed; values outside the edges are not counted.
Evenly spaced edges are computed as torch's ``linspace`` computes them (each edge one fused
multiply-add from the nearer end), so values on an edge fall in the bin torch puts them in.
"""

import numpy as np

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _dispatch, _dtype, return_types
from vfw.frontends.torch._creation import even_steps
from vfw.frontends.torch._pointwise import tensor_arg

__all__ = ["histogram", "histogramdd"]


def _bin_edges(name, samples, bins, ranges, np_dtype):
    """One edge array per dimension of ``samples`` ``(N, D)``."""
    dims = samples.shape[1]
    if isinstance(bins, CoreTensor) or (isinstance(bins, (list, tuple)) and bins
                                        and isinstance(bins[0], CoreTensor)):
        edge_list = [bins] if isinstance(bins, CoreTensor) else list(bins)
        if len(edge_list) != dims:
            raise RuntimeError(f"{name}: expected {dims} sequences of bin edges for each dimension but got "
                               f"{len(edge_list)}")
        return [np.asarray(e.array, np_dtype).reshape(-1) for e in edge_list]
    counts = [bins] * dims if isinstance(bins, (int, np.integer)) else list(bins)
    if len(counts) != dims:
        raise RuntimeError(f"{name}: expected {dims} bin counts but got {len(counts)}")
    if ranges is not None and len(ranges) != 2 * dims:
        raise RuntimeError(f"{name}: for a {dims}-dimensional histogram, range should have {2 * dims} elements, "
                           f"but got {len(ranges)}")
    edges = []
    for d, count in enumerate(counts):
        if count <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {count} for dimension {d}")
        if ranges is not None:
            low, high = ranges[2 * d], ranges[2 * d + 1]
        elif samples.shape[0]:
            low, high = samples[:, d].min(), samples[:, d].max()
        else:
            low, high = 0.0, 0.0
        if low > high:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {low:g} max {high:g} for "
                               f"dimension {d}")
        if low == high:  # an empty interval is widened as torch does
            low, high = (0.0, 1.0) if samples.shape[0] == 0 and ranges is None else (low - 0.5, high + 0.5)
        edges.append(even_steps(low, high, int(count) + 1, np_dtype))
    return edges


def _histogramdd(name, input, bins, range, weight, density):
    tensor_arg(input, name)
    values = input.array
    np_dtype = values.dtype
    if not _dtype.from_numpy_dtype(np_dtype).is_floating_point:
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{_dispatch.type_name(np_dtype)}'")
    samples = values.reshape(-1, values.shape[-1]) if name == "histogramdd" else values.reshape(-1, 1)
    edges = _bin_edges(name, samples, bins, range, np_dtype)
    inside = np.ones(samples.shape[0], bool)
    positions = []
    for d, e in enumerate(edges):
        column = samples[:, d]
        pos = np.searchsorted(e, column, side="right") - 1
        pos[column == e[-1]] = len(e) - 2  # the last bin is closed
        inside &= (pos >= 0) & (pos < len(e) - 1)
        positions.append(pos)
    shape = tuple(len(e) - 1 for e in edges)
    flat = np.ravel_multi_index([p[inside] for p in positions], shape) if inside.any() else np.zeros(0, np.int64)
    weights = None if weight is None else np.asarray(weight.array, np.float64).reshape(-1)[inside]
    hist = np.bincount(flat, weights, minlength=int(np.prod(shape))).reshape(shape)
    if density:
        widths = np.ones(shape)
        for d, e in enumerate(edges):
            widths = widths * np.diff(e).astype(np.float64).reshape((-1,) + (1,) * (len(edges) - d - 1))
        hist = hist / (hist.sum() * widths)
    return hist.astype(np_dtype), edges


def histogram(input, bins, *, range=None, weight=None, density=False, out=None):
    """Histogram of the values of ``input`` (any shape).

    Parameters
    ----------
    input : Tensor
        Floating point.
    bins : int or Tensor
        The number of equal-width bins over ``range`` (default: ``input``'s min and max), or the increasing bin
        edges.
    range : (float, float), optional
    weight : Tensor, optional
        Shaped like ``input``: each value counts with its weight.
    density : bool
        Divide each count by the total and the bin width (the histogram integrates to 1).

    Returns
    -------
    (hist, bin_edges) : torch.return_types.histogram
    """
    hist, edges = _histogramdd("histogram", input, bins, range, weight, density)
    return return_types.histogram((_dispatch.wrap(hist), _dispatch.wrap(edges[0])))


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """Histogram of the points in ``input`` ``(..., D)`` over a ``D``-dimensional grid of bins.

    ``bins``: an int (every dimension), ``D`` ints, or ``D`` tensors of edges; ``range``: ``2 D`` floats (min, max
    per dimension). Returns ``(hist, bin_edges)`` with ``D`` edge tensors.
    """
    hist, edges = _histogramdd("histogramdd", input, bins, range, weight, density)
    return return_types.histogramdd((_dispatch.wrap(hist), tuple(_dispatch.wrap(e) for e in edges)))


TENSOR_METHODS = {"histogram": histogram}
