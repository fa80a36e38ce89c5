"""tf.nn.fractional_max_pool and fractional_avg_pool (NHWC), with TF 2.21's pooling sequences.

Each spatial dimension of length ``n`` pools into ``m = floor(n / ratio)`` regions whose sizes are
``n // m`` or one more, laid out by a sequence ``0 = s_0 < s_1 < ... < s_m = n``; region ``i``
covers ``[s_i, s_{i+1})`` (also ``s_{i+1}`` when ``overlapping``, within the input).  As TF's
kernel, the sequences come from a Philox generator seeded by the op's seeds, fresh at each call,
heights first:

* random: the sizes (the larger ones first) shuffled (forward Fisher-Yates, step ``i`` swapping
  ``i`` with ``i + word % (m - i)``), one 32-bit word per step from a reserve of one word per region;
* pseudo-random: ``s_i = ceil(alpha * (i + u)) - 1`` for ``alpha = n / m`` and one uniform double
  ``u`` (two words of one block) scaled to ``(0, u_max)``, ``u_max`` keeping every size valid.

The maximum's gradient goes whole to the first maximal position of each region (row-major); the
average's is shared evenly over the region, as TF's gradient kernels do.
"""

import collections
import math

import numpy as np

from vfw.frontends.tensorflow import _philox as philox
from vfw.frontends.tensorflow import errors
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, op_error
from vfw.frontends.tensorflow._op_support import OpTypes, with_gradient
from vfw.frontends.tensorflow._random_common import Stream
from vfw.frontends.tensorflow._random_ops import get_seed

FractionalMaxPool = collections.namedtuple("FractionalMaxPool", ("output", "row_pooling_sequence",
                                                                 "col_pooling_sequence"))
FractionalAvgPool = collections.namedtuple("FractionalAvgPool", ("output", "row_pooling_sequence",
                                                                 "col_pooling_sequence"))
for _result in (FractionalMaxPool, FractionalAvgPool):
    _result.__module__ = "tensorflow.python.ops.gen_nn_ops"


def _random_sizes(n, m, stream):
    sizes = np.full(m, n // m, np.int64)
    sizes[:n % m] += 1
    counter = stream.reserve(-(-m // 4))
    w = philox.words(stream.key, counter, max(m - 1, 0)).tolist()
    for i in range(m - 1):
        j = i + w[i] % (m - i)
        sizes[i], sizes[j] = sizes[j], sizes[i]
    return sizes


def _pseudo_random_sizes(n, m, stream):
    alpha = n / m
    k = n // m
    u_max = min((k + 2) / alpha - 1, (n + 1 - k) / alpha - (m - 1))
    u = float(philox.unit_floats(philox.words(stream.key, stream.reserve(1), 2), philox.F64)[0]) * u_max
    bounds = [1] + [int(math.ceil(alpha * (i + u))) for i in range(1, m)] + [n + 1]
    return np.diff(np.array(bounds, np.int64))


def _sequence(n, m, stream, pseudo_random):
    sizes = (_pseudo_random_sizes if pseudo_random else _random_sizes)(n, m, stream)
    return np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)


def _regions(sequence, n, overlapping):
    """``(taps, inside)``: the input index of each tap of each region (padded to the longest) and which are real."""
    starts, ends = sequence[:-1], sequence[1:] + (1 if overlapping else 0)
    ends = np.minimum(ends, n)
    width = int((ends - starts).max()) if starts.size else 0
    taps = starts[:, None] + np.arange(width)[None, :]
    return np.minimum(taps, n - 1), taps < ends[:, None]


class _Pooling:
    """The regions of a fractional pooling of an NHWC input: gathers their taps as ``(b, oh, ow, kh*kw, c)``."""

    def __init__(self, shape, rows, cols, overlapping):
        self.shape = shape
        self.rows, row_inside = _regions(rows, shape[1], overlapping)
        self.cols, col_inside = _regions(cols, shape[2], overlapping)
        self.inside = (row_inside[:, None, :, None] & col_inside[None, :, None, :]).reshape(
            rows.size - 1, cols.size - 1, -1)

    def taps(self, x):
        t = x[:, self.rows[:, None, :, None], self.cols[None, :, None, :], :]  # b oh ow kh kw c
        return t.reshape(t.shape[:3] + (-1, t.shape[-1]))

    def spread(self, per_tap, like):
        """Sum ``per_tap`` values ``(b, oh, ow, kh*kw, c)`` into an array shaped like ``like`` at their taps."""
        out = np.zeros_like(like)
        kh, kw = self.rows.shape[1], self.cols.shape[1]
        rows = np.broadcast_to(self.rows[:, None, :, None], self.inside.shape[:2] + (kh, kw)).reshape(
            self.inside.shape)
        cols = np.broadcast_to(self.cols[None, :, None, :], self.inside.shape[:2] + (kh, kw)).reshape(
            self.inside.shape)
        b = np.arange(like.shape[0])[:, None, None, None, None]
        c = np.arange(like.shape[3])[None, None, None, None, :]
        np.add.at(out, (b, rows[None, ..., None], cols[None, ..., None], c),
                  np.where(self.inside[None, ..., None], per_tap, 0))
        return out

    def max(self, x):
        taps = self.taps(x)
        lowest = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        taps = np.where(self.inside[None, ..., None], taps, np.asarray(lowest, x.dtype))
        best = np.argmax(taps, axis=3)
        return np.take_along_axis(taps, best[:, :, :, None], axis=3)[:, :, :, 0], best

    def max_gradient(self, g, x):
        _, best = self.max(x)
        chosen = np.arange(self.inside.shape[2])[None, None, None, :, None] == best[:, :, :, None, :]
        return self.spread(np.where(chosen, g[:, :, :, None, :], 0).astype(x.dtype), x)

    def count(self):
        return self.inside.sum(axis=2)[None, :, :, None]

    def mean(self, x):
        total = np.where(self.inside[None, ..., None], self.taps(x), 0).sum(axis=3)
        if x.dtype.kind == "f":
            return (total / self.count()).astype(x.dtype)
        return (np.sign(total) * (np.abs(total) // self.count())).astype(x.dtype)  # C's truncating division

    def mean_gradient(self, g, x):
        share = (g / self.count()).astype(x.dtype)
        return self.spread(np.broadcast_to(share[:, :, :, None, :], (g.shape[0],) + self.inside.shape + (g.shape[3],)),
                           x)


def _ratios(kind, pooling_ratio):
    """``pooling_ratio`` as TF's op attribute: four floats (a max pool's Python wrapper checks and widens it)."""
    if kind == "max":
        if isinstance(pooling_ratio, (list, tuple)):
            if pooling_ratio[0] != 1.0 or pooling_ratio[-1] != 1.0:
                raise ValueError("`pooling_ratio` should have first and last elements with value 1.0. "
                                 f"Received: pooling_ratio={pooling_ratio}")
            if any(r < 1.0 for r in pooling_ratio):
                raise ValueError(f"`pooling_ratio` elements should be >= 1.0. Received: pooling_ratio={pooling_ratio}")
            if len(pooling_ratio) == 2:
                pooling_ratio = [1.0, pooling_ratio[0], pooling_ratio[1], 1.0]
        else:
            pooling_ratio = [1.0, pooling_ratio, pooling_ratio, 1.0]
    elif not isinstance(pooling_ratio, (list, tuple)):
        raise TypeError(f"Expected list for 'pooling_ratio' argument to 'fractional_avg_pool' Op, not {pooling_ratio}.")
    return [float(r) for r in pooling_ratio]


def _pool(kind, value, pooling_ratio, pseudo_random, overlapping, seed):
    tf_op = "FractionalMaxPool" if kind == "max" else "FractionalAvgPool"
    ratios = _ratios(kind, pooling_ratio)
    x = convert_to_tensor(value)
    OpTypes(tf_op, "float32 float64 int32 int64").check(x.array.dtype)
    if len(ratios) < 4:
        raise op_error(f"Length for attr 'pooling_ratio' of {len(ratios)} must be at least minimum 4", tf_op)
    for r in ratios:
        if r < 1:
            raise op_error(f"pooling_ratio cannot be smaller than 1, got: {r:g}", tf_op)
    if ratios[0] != 1.0 or ratios[3] != 1.0:
        raise op_error(f"Fractional {'max' if kind == 'max' else 'average'} pooling is not yet supported on the batch "
                       "nor channel dimension.", tf_op, errors.UnimplementedError)
    if x.array.ndim != 4:
        raise op_error("tensor_in must be 4-dimensional", tf_op)
    for d in range(4):
        if x.array.shape[d] < ratios[d]:
            raise op_error(f"Pooling ratio is higher than input dimension size for dimension {d}. Input dim size: "
                           f"{x.array.shape[d]} pooling ratio: {ratios[d]:g}", tf_op)
    seeds = (0, 0) if seed == 0 else get_seed(seed)
    stream = Stream.of_seeds(*seeds)
    sizes = [int(math.floor(x.array.shape[d] / ratios[d])) for d in (1, 2)]
    rows = _sequence(x.array.shape[1], sizes[0], stream, pseudo_random)
    cols = _sequence(x.array.shape[2], sizes[1], stream, pseudo_random)
    pooling = _Pooling(x.array.shape, rows, cols, overlapping)
    apply, gradient = ((lambda a: pooling.max(a)[0], pooling.max_gradient) if kind == "max"
                       else (pooling.mean, pooling.mean_gradient))

    def forward(t):
        return host(apply, t)

    def backward(g, t):
        return (host(gradient, g, t),)

    output = with_gradient(forward, backward, x) if x.dtype.is_floating else forward(x)
    result = FractionalMaxPool if kind == "max" else FractionalAvgPool
    return result(output, convert_to_tensor(rows), convert_to_tensor(cols))


def fractional_max_pool(value, pooling_ratio, pseudo_random=False, overlapping=False, seed=0, name=None):
    """Max pooling over regions of pseudo-random sizes (Graham, "Fractional Max-Pooling", 2014).

    Parameters
    ----------
    value : Tensor, shape ``(batch, height, width, channels)``
        float32, float64, int32 or int64.
    pooling_ratio : float or sequence of 4 float
        How many times smaller the output is per dimension (``[1, rh, rw, 1]``; each >= 1).
    pseudo_random : bool
        Pseudo-random region sequences instead of random ones.
    overlapping : bool
        Each region also takes the first row/column of the next.
    seed : int
        0 for a random sequence at each call; else an op seed (with the global seed).

    Returns
    -------
    FractionalMaxPool
        ``(output, row_pooling_sequence, col_pooling_sequence)``: the pooled tensor and the int64
        region boundaries.
    """
    return _pool("max", value, pooling_ratio, pseudo_random, overlapping, seed)


def fractional_avg_pool(value, pooling_ratio, pseudo_random=False, overlapping=False, seed=0, name=None):
    """Average pooling over regions of pseudo-random sizes; arguments and results as ``fractional_max_pool``."""
    return _pool("avg", value, pooling_ratio, pseudo_random, overlapping, seed)


NAMESPACES = {"nn": ["fractional_max_pool", "fractional_avg_pool"]}
