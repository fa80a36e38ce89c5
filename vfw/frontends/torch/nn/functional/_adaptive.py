"""Adaptive average / max pooling, fractional max pooling and max unpooling (listed in ``_pooling.__all__``).

Adaptive averages sum each window's gathered elements in torch's order (bit-identical to torch's
kernel); adaptive windows that tile the input evenly take maxima as plain MaxPool windows, other
sizes with the engine's AdaptiveMaxPool.  Max unpooling scatters each value to its
index within the output plane (the engine's MaxUnpool, whose gradient gathers them back).
Fractional max pooling draws torch's per-plane samples (``torch.rand``, so a seeded program gets
torch's windows) and runs the engine's FractionalMaxPool.
"""

import functools
import math

import numpy as np

from vfw.core.autograd import is_grad_enabled
from vfw.core.dtypes import FLOATS
from vfw.core.ops.vision import adaptive_windows
from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends.torch import _random, _shape
from vfw.frontends.torch._dispatch import call, cast, op, type_name
from vfw.frontends.torch._grad_fn_names import adaptive_avg_pool_name, names_grad_fn
from vfw.frontends.torch._pointwise import tensor_arg
from vfw.frontends.torch.nn.functional._conv_layout import keep_layout
from vfw.frontends.torch.nn.functional._spatial import batched, ints, is_int, unbatched

__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "adaptive_max_pool3d", "adaptive_max_pool1d_with_indices",
           "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices", "max_unpool1d", "max_unpool2d",
           "max_unpool3d", "fractional_max_pool2d", "fractional_max_pool3d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d_with_indices"]



def _output_size(fn, nd, output_size, in_sizes):
    """The requested output size per spatial dim (None keeps the input's), with torch's errors."""
    if isinstance(output_size, CoreTensor):
        output_size = output_size.array.tolist()
    if nd == 1:
        if isinstance(output_size, (tuple, list)):
            if len(output_size) != 1:
                raise RuntimeError(f"{fn}() argument 'output_size' should contain one int (got {len(output_size)})")
            output_size = output_size[0]
        sizes = [output_size]
    elif isinstance(output_size, (tuple, list)):
        if len(output_size) != nd:
            raise RuntimeError(f"{fn}: output_size must be {nd}")
        sizes = list(output_size)
    elif is_int(output_size) or output_size is None:
        sizes = [output_size] * nd
    else:
        raise TypeError(f"object of type '{type(output_size).__name__}' has no len()")
    sizes = [n if s is None else s for s, n in zip(sizes, in_sizes)]
    for s in sizes:
        if not is_int(s):
            raise TypeError(f"{fn}(): argument 'output_size' must be tuple of ints, but found element of type "
                            f"{type(s).__name__}")
    sizes = [int(s) for s in sizes]
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"{fn}: elements of output_size must be greater than or equal to 0 but received "
                           f"{{{', '.join(map(str, sizes))}}}")
    return sizes


def _adaptive_input(fn, nd, input):
    """``(batched input, whether a batch dim was added)`` with torch's rank / dtype / empty-dim errors."""
    tensor_arg(input, fn)
    x = input.array
    if x.ndim not in (nd + 1, nd + 2):
        if nd == 1:
            raise RuntimeError(f"Expected 2 to 3 dimensions, but got {x.ndim}-dimensional tensor for argument #1 "
                               f"'self' (while checking arguments for {fn})")
        raise RuntimeError(f"{fn}(): Expected {nd + 1}D or {nd + 2}D tensor, but got {list(x.shape)}")
    for d in range(x.ndim - nd - 1, x.ndim):
        if x.shape[d] == 0:
            raise RuntimeError(f"{fn}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(x.shape)} with dimension {d} being empty")
    if x.dtype not in FLOATS:
        raise NotImplementedError(f"\"{fn}\" not implemented for '{type_name(x.dtype)}'")
    return batched(input, nd, fn)


@functools.lru_cache(maxsize=64)
def _window_table(in_sizes, out_sizes):
    """``(index, counts)`` for torch's adaptive averaging of spatial ``in_sizes`` to ``out_sizes``.

    ``index`` is ``(K, P)``: column ``p`` lists output position ``p``'s window's flat input positions in
    row-major order, padded with ``prod(in_sizes)`` (a zero appended to the input) up to the largest window's
    ``K`` elements; ``counts`` holds one ``(P,)`` float64 array of window lengths per spatial dim.
    """
    windows = [adaptive_windows(n, o) for n, o in zip(in_sizes, out_sizes)]
    lengths = [ends - starts for starts, ends in windows]
    grids = np.meshgrid(*[np.arange(o) for o in out_sizes], indexing="ij")  # output coordinates, (P,) each
    grids = [g.ravel() for g in grids]
    offsets = np.meshgrid(*[np.arange(int(n.max(initial=0))) for n in lengths], indexing="ij")
    offsets = [o.ravel()[:, None] for o in offsets]  # (K, 1) each, row-major over the window
    coords = [windows[d][0][grids[d]] + offsets[d] for d in range(len(in_sizes))]
    inside = np.logical_and.reduce([offsets[d] < lengths[d][grids[d]] for d in range(len(in_sizes))])
    flat = np.ravel_multi_index([np.where(inside, c, 0) for c in coords], in_sizes)
    index = np.where(inside, flat, math.prod(in_sizes)).astype(np.int64)
    return index, tuple(lengths[d][grids[d]].astype(np.float64) for d in range(len(in_sizes)))


def _averaging_matrix(n_in, n_out, dtype):
    """``(n_out, n_in)``: row ``i`` averages the inputs of adaptive window ``i``."""
    starts, ends = adaptive_windows(n_in, n_out)
    pos = np.arange(n_in)
    inside = (pos >= starts[:, None]) & (pos < ends[:, None])
    return (inside / (ends - starts)[:, None]).astype(dtype)


def _exported_avg_pool(x4, sizes, nd):
    """Adaptive average pooling as torch.onnx.export writes it: windows that tile the input evenly are an
    AveragePool (GlobalAveragePool for a 1x1 output), others one averaging matrix product per spatial dim."""
    shape = x4.array.shape
    in_sp = shape[2:]
    if all(s and n % s == 0 for n, s in zip(in_sp, sizes)):
        kernel = tuple(n // s for n, s in zip(in_sp, sizes))
        return call(op("AveragePool", kernel_shape=kernel, strides=kernel), x4)
    y = x4
    lead = shape[:2]
    for axis in range(nd - 1, -1, -1):  # last dim first: (..., n) @ (n, m) moves the last dim
        done = y.array.shape[3 + axis:]  # dims already pooled, after this one
        rows = _shape.reshape_to(y, lead + y.array.shape[2:2 + axis] + (in_sp[axis], math.prod(done)))
        matrix = _averaging_matrix(in_sp[axis], sizes[axis], y.array.dtype)
        y = _shape.reshape_to(call(op("MatMul"), matrix, rows), lead + shape[2:2 + axis] + (sizes[axis],) + done)
    return y


def adaptive_avg_pool(input, sizes, nd, fn):
    """Adaptive average pooling of a batched or unbatched ``input`` to spatial ``sizes`` (validated).

    As torch's CPU kernel, so that the numbers agree to the bit: a 1x..x1 output is the mean over the spatial
    dims; otherwise each window is summed in row-major order, one element after another, and divided by its
    length along each dim in turn (``sum / kh / kw``).  Summing the gathered windows over their leading axis
    accumulates them in that order; half precision sums in float32 and rounds once.
    """
    x4, added = _adaptive_input(fn, nd, input)
    from vfw.frontends.torch.onnx import is_in_onnx_export  # the onnx module imports nn: only when called

    if is_in_onnx_export():
        return unbatched(_exported_avg_pool(x4, sizes, nd), added)
    shape = x4.array.shape
    lead, in_sp = shape[:2], tuple(shape[2:])
    axes = np.arange(2, 2 + nd, dtype=np.int64)
    if all(s == 1 for s in sizes):
        return unbatched(call(op("ReduceMean", keepdims=1), x4, axes), added)
    dtype = x4.array.dtype
    work = np.float32 if dtype.itemsize < 4 else dtype
    x = cast(x4, work) if work != dtype else x4
    if all(s and n % s == 0 for n, s in zip(in_sp, sizes)):  # even windows: a reshape lines them up, no gather
        kernel = [n // s for n, s in zip(in_sp, sizes)]
        split = _shape.reshape_to(x, lead + tuple(d for pair in zip(sizes, kernel) for d in pair))
        perm = tuple(3 + 2 * i for i in range(nd)) + (0, 1) + tuple(2 + 2 * i for i in range(nd))
        total = call(op("ReduceSum", keepdims=0), _shape.reshape_to(call(op("Transpose", perm=perm), split),
                                                                   (math.prod(kernel),) + lead + tuple(sizes)),
                     np.array([0], np.int64))
        for k in kernel:
            total = call(op("Div"), total, np.asarray(k, work))
        return unbatched(cast(total, dtype) if work != dtype else total, added)
    index, counts = _window_table(in_sp, tuple(sizes))
    # spatial positions first, (n, c) planes as rows: the gather's gradient then scatters whole rows
    planes = math.prod(lead)
    rows = call(op("Transpose", perm=(1, 0)), _shape.reshape_to(x, (planes, math.prod(in_sp))))
    rows = call(op("Concat", axis=0), rows, np.zeros((1, planes), work))  # the padding's zero
    total = call(op("ReduceSum", keepdims=0), call(op("Gather", axis=0), rows, index), np.array([0], np.int64))
    for count in counts:
        total = call(op("Div"), total, count.astype(work)[:, None])
    y = _shape.reshape_to(call(op("Transpose", perm=(1, 0)), total), lead + tuple(sizes))
    return unbatched(cast(y, dtype) if work != dtype else y, added)


def _adaptive_avg(fn, nd, input, output_size):
    tensor_arg(input, fn)
    sizes = _output_size(fn, nd, output_size, input.array.shape[-nd:])
    return keep_layout(input, adaptive_avg_pool(input, sizes, nd, fn))


@names_grad_fn(adaptive_avg_pool_name(1))
def adaptive_avg_pool1d(input, output_size):
    """Average pooling of ``(N, C, L)`` or ``(C, L)`` to ``output_size`` positions, over PyTorch's adaptive
    windows (position ``i`` averages inputs ``floor(i L / out)`` to ``ceil((i + 1) L / out)``)."""
    return _adaptive_avg("adaptive_avg_pool1d", 1, input, output_size)


@names_grad_fn(adaptive_avg_pool_name(2))
def adaptive_avg_pool2d(input, output_size):
    """Adaptive average pooling of ``(N, C, H, W)`` or ``(C, H, W)``; ``output_size`` is an int or a pair (None
    keeps that dim's size).  See :func:`adaptive_avg_pool1d`."""
    return _adaptive_avg("adaptive_avg_pool2d", 2, input, output_size)


@names_grad_fn(adaptive_avg_pool_name(3))
def adaptive_avg_pool3d(input, output_size):
    """Adaptive average pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)``; see :func:`adaptive_avg_pool2d`."""
    return _adaptive_avg("adaptive_avg_pool3d", 3, input, output_size)


def plane_indices(flat, spatial):
    """MaxPool's indices (counted from the tensor's start) as torch's, counted from each ``(n, c)`` plane's start.

    The remainder by the plane's size rather than the subtraction of each plane's start: no constant holds the
    batch size, so ``torch.onnx.export`` with a dynamic batch follows it.
    """
    return call(op("Mod"), flat, np.int64(math.prod(spatial)))


def _adaptive_max(fn, nd, input, output_size, return_indices):
    tensor_arg(input, fn)
    sizes = _output_size(fn, nd, output_size, input.array.shape[-nd:])
    x4, added = _adaptive_input(fn, nd, input)
    shape = x4.array.shape
    in_sp = shape[2:]
    if all(s and n % s == 0 for n, s in zip(in_sp, sizes)):  # even windows: MaxPool, Indices made per plane
        kernel = tuple(n // s for n, s in zip(in_sp, sizes))
        y, flat = call(op("MaxPool", kernel_shape=kernel, strides=kernel), x4)
        if return_indices:
            flat = plane_indices(flat, in_sp)
    else:
        y, flat = call(op("AdaptiveMaxPool", output_size=tuple(sizes)), x4)
    y = unbatched(y, added)
    return keep_layout(input, (y, unbatched(flat, added)) if return_indices else y)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """:func:`adaptive_max_pool1d` returning ``(values, indices)``."""
    return _adaptive_max("adaptive_max_pool1d", 1, input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """:func:`adaptive_max_pool2d` returning ``(values, indices)``."""
    return _adaptive_max("adaptive_max_pool2d", 2, input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """:func:`adaptive_max_pool3d` returning ``(values, indices)``."""
    return _adaptive_max("adaptive_max_pool3d", 3, input, output_size, True)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max pooling of ``(N, C, L)`` or ``(C, L)`` over PyTorch's adaptive windows.

    Parameters
    ----------
    input : Tensor
    output_size : int
    return_indices : bool
        Also return the flat index of each maximum within its ``(n, c)`` plane.
    """
    return _adaptive_max("adaptive_max_pool1d", 1, input, output_size, return_indices)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Adaptive max pooling of ``(N, C, H, W)`` or ``(C, H, W)``; see :func:`adaptive_max_pool1d`."""
    return _adaptive_max("adaptive_max_pool2d", 2, input, output_size, return_indices)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Adaptive max pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)``; see :func:`adaptive_max_pool1d`."""
    return _adaptive_max("adaptive_max_pool3d", 3, input, output_size, return_indices)


def _unpool_output_size(input, kernel, stride, padding, output_size, nd):
    """torch's default or checked requested output size of max unpooling."""
    in_sp = input.array.shape[-nd:]
    default = [(n - 1) * s + k - 2 * p for n, s, k, p in zip(in_sp, stride, kernel, padding)]
    if output_size is None:
        return default
    output_size = list(output_size)
    if len(output_size) == nd + 2:
        output_size = output_size[2:]
    if len(output_size) != nd:
        raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} elements, but it has a length "
                         f"of '{len(output_size)}'")
    for d, (size, base, s) in enumerate(zip(output_size, default, stride)):
        if not base - s < size < base + s:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {base - s} and '
                             f'{base + s})')
    return output_size


def _max_unpool(nd, input, indices, kernel_size, stride, padding, output_size):
    fn = f"max_unpool{nd}d"
    tensor_arg(input, fn)
    tensor_arg(indices, fn, "indices", 2)
    kernel = ints(kernel_size, nd, fn, "kernel_size")
    stride = kernel if stride is None else ints(stride, nd, fn, "stride")
    padding = ints(padding, nd, fn, "padding")
    x, idx = input.array, indices.array
    # torch runs 1-d unpooling as 2-d with a trailing unit dim (and words its errors so)
    dims = max(nd, 2)
    rank = x.ndim + (1 if nd == 1 else 0)
    if rank not in (dims + 1, dims + 2):
        raise RuntimeError(f"Input to max_unpooling{dims}d should be a {dims + 1}d or {dims + 2}d Tensor, but got a "
                           f"tensor with {rank} dimensions.")
    if idx.dtype != np.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {type_name(idx.dtype)}")
    if idx.shape != x.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(x.shape)}) but "
                           f"got indices tensor with shape: {list(idx.shape)}")
    if x.dtype not in FLOATS:
        raise NotImplementedError(f"\"max_unpool{dims}d\" not implemented for '{type_name(x.dtype)}'")
    out_sp = _unpool_output_size(input, kernel, stride, padding, output_size, nd)
    x4, added = batched(input, nd, fn)
    plane = math.prod(out_sp)
    if idx.size and (idx.min() < 0 or idx.max() >= plane):
        bad = idx.min() if idx.min() < 0 else idx.max()
        raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                           f"{'x'.join(map(str, out_sp))}")
    n, c = x4.array.shape[:2]
    # torch's indices count within each (n, c) plane; MaxUnpool's (ONNX's) from the tensor's start
    starts = (np.arange(n * c, dtype=np.int64) * plane).reshape((n, c) + (1,) * nd)
    full = call(op("Add"), _shape.reshape_to(indices, x4.array.shape), starts)
    y = call(op("MaxUnpool", kernel_shape=kernel), x4, full, np.asarray((n, c) + tuple(out_sp), np.int64))
    return unbatched(y, added)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of max_pool1d: each value of ``(N, C, L)`` (or ``(C, L)``) goes to its index, zeros elsewhere.

    Parameters
    ----------
    input : Tensor
    indices : Tensor
        int64, the indices max_pool1d returned (flat positions within each output plane).
    kernel_size, stride, padding : int or tuple
        The pooling's (stride defaults to ``kernel_size``).
    output_size : sequence of int, optional
        The exact output size, when several are possible.
    """
    return _max_unpool(1, input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of max_pool2d on ``(N, C, H, W)`` or ``(C, H, W)``; see :func:`max_unpool1d`."""
    return _max_unpool(2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Partial inverse of max_pool3d on ``(N, C, D, H, W)`` or ``(C, D, H, W)``; see :func:`max_unpool1d`."""
    return _max_unpool(3, input, indices, kernel_size, stride, padding, output_size)


_FRACTIONAL_AXES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _fractional_output(fn, nd, x, output_size, output_ratio):
    if output_size is None and output_ratio is None:
        raise ValueError(f"{fn} requires specifying either an output_size or an output_ratio")
    if output_size is not None:
        return ints(output_size, nd, fn, "output_size")
    if nd == 2 and len(output_ratio) > 2:  # (a float ratio fails in len() with torch's TypeError)
        raise ValueError("fractional_max_pool2d requires output_ratio to either be a single Int or tuple of Ints.")
    ratios = tuple(output_ratio) if isinstance(output_ratio, (tuple, list)) else (output_ratio,) * nd
    return [int(n * r) for n, r in zip(x.shape[-nd:], ratios)]


def _fractional_samples(fn, nd, input, samples, batch):
    """torch's per-plane samples: drawn with ``rand`` (torch's stream) when not given, else checked."""
    x = input.array
    if samples is None:
        return _random.rand(batch, x.shape[-nd - 1], nd, dtype=input.dtype)
    if samples.requires_grad and is_grad_enabled():
        raise RuntimeError(f"The function '{fn}' is not differentiable with respect to argument 'random_samples'. "
                           "This input cannot have requires_grad True.")
    s = samples.array
    if s.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {s.ndim}")
    if s.dtype != x.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if s.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got {s.shape[2]}.")
    if s.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if s.shape[1] != x.shape[-nd - 1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    return samples if s.shape[0] == batch else samples[:batch]


def _fractional(nd, input, kernel_size, output_size, output_ratio, return_indices, _random_samples):
    fn = f"fractional_max_pool{nd}d"
    tensor_arg(input, fn)
    x = input.array
    out = _fractional_output(fn, nd, x, output_size, output_ratio)
    if x.ndim < nd + 1:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-x.ndim}, {x.ndim - 1}], but got "
                         f"{-nd - 1})")
    if x.ndim > nd + 2:
        raise RuntimeError(f"{fn}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(x.shape)}")
    if x.dtype not in FLOATS:
        raise NotImplementedError(f"\"check_uniform_bounds\" not implemented for '{type_name(x.dtype)}'")
    kernel = ints(kernel_size, nd, fn, "kernel_size",
                  f"{fn}: kernel_size must either be a single Int or tuple of Ints")
    if any(o < 0 for o in out):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(out)}: "
                           f"{list(x.shape[:-nd]) + list(out)}")
    for d in range(x.ndim - nd - 1, x.ndim):
        if x.shape[d] == 0:
            raise RuntimeError(f"{fn}(): Expected input to have non-zero size for non-batch dimensions, but got"
                               f"{list(x.shape)} with dimension {d} being empty.")
    for name, n, k, o in zip(_FRACTIONAL_AXES[nd], x.shape[-nd:], kernel, out):
        if o + k - 1 > n:
            raise RuntimeError(f"{fn}(): pool {name} {k} too large relative to input {name} {n}")
    x4, added = batched(input, nd, fn)
    samples = _fractional_samples(fn, nd, input, _random_samples, x4.array.shape[0])
    if nd == 2:  # torch's 2-d samples are (width, height): the engine takes them in axis order
        samples = call(op("Gather", axis=2), samples, np.array([1, 0]))
    y, idx = call(op("FractionalMaxPool", kernel_shape=kernel, output_size=tuple(out)), x4, samples)
    y = unbatched(y, added)
    return (y, unbatched(idx, added)) if return_indices else y


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """:func:`fractional_max_pool2d` returning ``(values, indices)``."""
    return _fractional(2, input, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """:func:`fractional_max_pool3d` returning ``(values, indices)``."""
    return _fractional(3, input, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Fractional max pooling of ``(N, C, H, W)`` or ``(C, H, W)``: pseudo-random window positions.

    Parameters
    ----------
    input : Tensor
    kernel_size : int or pair
    output_size : int or pair, optional
    output_ratio : float or pair, optional
        Output size as a fraction of the input's (one of ``output_size`` and ``output_ratio``).
    return_indices : bool
        Also return the flat index of each maximum within its plane.
    _random_samples : Tensor, optional
        ``(N, C, 2)`` in ``[0, 1)``; drawn with ``torch.rand`` (the global generator) when not given.
    """
    return _fractional(2, input, kernel_size, output_size, output_ratio, return_indices, _random_samples)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """Fractional max pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)``; see :func:`fractional_max_pool2d`
    (``_random_samples`` is ``(N, C, 3)``)."""
    return _fractional(3, input, kernel_size, output_size, output_ratio, return_indices, _random_samples)
