"""tf.nn.isotonic_regression: the closest (least-squares) non-increasing sequence along an axis.

Computed by pooling adjacent violators: scanning a row left to right, a new element starts a
block, and while a block's mean exceeds the mean of the block before it (for the non-increasing
fit) the two merge.  The rows are scanned together (one pass over the positions, vectorised over
the rows).  Each output is its block's mean; ``segments`` numbers the blocks of a row from 0.
The gradient averages the output gradient over each block, as TF's does for 2-D inputs (TF's
gradient of other ranks is malformed: shaped ``(d0, -1)`` and averaging across rows, or an error
for scalars; vfw gives the per-row average, shaped like the input).
"""

import collections

import numpy as np

from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._array_transform import transpose
from vfw.frontends.tensorflow._dispatch import convert_to_tensor, host, op_error
from vfw.frontends.tensorflow._math_unary import negative
from vfw.frontends.tensorflow._op_support import OpTypes, with_gradient

IsotonicRegression = collections.namedtuple("IsotonicRegression", ("output", "segments"))
IsotonicRegression.__module__ = "tensorflow.python.ops.gen_nn_ops"

_TYPES = OpTypes("IsotonicRegression", "F I U", "F I")
_OUTPUT_DTYPES = {"float32": _dtypes.float32, "float16": _dtypes.float16, "bfloat16": _dtypes.bfloat16,
                  "int8": _dtypes.float32, "int16": _dtypes.float32}  # all others give float64


def _pool_adjacent_violators(rows):
    """Block means (float64) and block numbers of the non-increasing fit of each row of the 2-D ``rows``."""
    n_rows, width = rows.shape
    sums = np.zeros((n_rows, width))
    counts = np.zeros((n_rows, width), np.int64)
    top = np.full(n_rows, -1)  # the index of each row's last block
    every = np.arange(n_rows)
    for i in range(width):
        top += 1
        sums[every, top] = rows[:, i]
        counts[every, top] = 1
        while True:
            below = np.maximum(top - 1, 0)
            violating = (top > 0) & (sums[every, top] * counts[every, below] > sums[every, below] * counts[every, top])
            if not violating.any():
                break
            r, t = every[violating], top[violating]
            sums[r, t - 1] += sums[r, t]
            counts[r, t - 1] += counts[r, t]
            top[violating] -= 1
    block = np.arange(width)[None, :]
    blocks = np.where(block <= top[:, None], counts, 0)
    segments = np.repeat(np.broadcast_to(block, blocks.shape).reshape(-1), blocks.reshape(-1)).reshape(n_rows, width)
    means = np.where(blocks > 0, sums / np.maximum(blocks, 1), 0)
    return np.take_along_axis(means, segments, axis=1), segments.astype(np.int32)


def _segment_means(values, segments):
    """Each element replaced by the mean of ``values`` over its segment of its row (rows: the last axis)."""
    width = values.shape[-1]
    flat, seg = values.reshape(-1, width), segments.reshape(-1, width)
    totals = np.zeros(flat.shape, np.float64)
    sizes = np.zeros(flat.shape, np.float64)
    rows = np.arange(flat.shape[0])[:, None]
    np.add.at(totals, (rows, seg), flat)
    np.add.at(sizes, (rows, seg), 1)
    return (np.take_along_axis(totals, seg, 1) / np.take_along_axis(sizes, seg, 1)).astype(values.dtype).reshape(
        values.shape)


def _isotonic_last_axis(x, output_dtype):
    """The raw IsotonicRegression op on the last axis of ``x``: ``(output, segments)``."""
    def fit(a):
        width = a.shape[-1] if a.ndim else 1
        if a.size == 0:
            return np.zeros(a.shape, output_dtype.np), np.zeros(a.shape, np.int32)
        means, segments = _pool_adjacent_violators(a.reshape(-1, width).astype(np.float64))
        return means.astype(output_dtype.np).reshape(a.shape), segments.reshape(a.shape)

    results = {}

    def forward(t):
        results["output"], results["segments"] = host(fit, t)
        return results["output"]

    def backward(g, t):
        return (host(_segment_means, g, results["segments"]),)

    if x.dtype.is_floating:
        output = with_gradient(forward, backward, x)
    else:
        output = forward(x)
    return output, results["segments"]


def isotonic_regression(inputs, decreasing=True, axis=-1):
    """Isotonic regression of ``inputs`` along ``axis``.

    Parameters
    ----------
    inputs : Tensor
        Real numbers (int8/int16 give float32 results, other integers float64).
    decreasing : bool
        Fit non-increasing sequences (else non-decreasing ones).
    axis : int

    Returns
    -------
    tuple of Tensor
        ``(output, segments)``: the fit, and the int32 number of each element's block in its
        sequence.  An ``IsotonicRegression`` named tuple when ``decreasing`` and ``axis`` is the last.
    """
    tf_op = "IsotonicRegression"
    x = convert_to_tensor(inputs)
    _TYPES.check(x.array.dtype)
    output_dtype = _OUTPUT_DTYPES.get(x.dtype.name, _dtypes.float64)
    rank = x.array.ndim
    if axis != -1 and axis != rank - 1:
        if not -rank <= axis < rank:
            raise op_error(f"`dim` must be in the range [{-rank}, {rank}) where {rank} is the number of dimensions in "
                           f"the input. Received: dim={axis}", tf_op)
        axis %= rank
        order = list(range(axis)) + [rank - 1] + list(range(axis + 1, rank - 1)) + [axis]
        output, segments = isotonic_regression(transpose(x, order), decreasing, -1)
        return transpose(output, order), transpose(segments, order)
    if decreasing:
        return IsotonicRegression(*_isotonic_last_axis(x, output_dtype))
    output, segments = _isotonic_last_axis(negative(x), output_dtype)
    return negative(output), segments


NAMESPACES = {"nn": ["isotonic_regression"]}
