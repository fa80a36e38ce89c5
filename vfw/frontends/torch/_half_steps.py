"""torch's CPU rounding steps for float16/bfloat16 in functions the engine computes in float32 and rounds once.

The engine rounds a 2-byte float result once by design; torch 2.13's CPU kernels store some intermediate values
in the input's dtype, so their results differ in the last bit for a fraction of the elements.  The functions here
rebuild those kernels' steps from engine ops and casts (so they stay differentiable) and are used only for
float16/bfloat16 inputs (see :func:`applies`):

- ``log_softmax`` along the last dim: ``half((x - max) - half(log(half(sum(exp(x - max))))))``, the steps in
  float32 but the row sum and its log stored as half.
- ``logsumexp``: every step in half: ``half(x - max)``, its exp, the float32-accumulated sum, the log, ``+ max``.
- ``softmax`` along a dim that is not the last: torch walks the flattened (outer, inner) positions, a chunk of
  ``get_num_threads()`` per thread; full groups of 32 inner positions take a float32 path ``half(e / sum)``, the
  rest a scalar path that stores ``e = exp(x - max)`` as half first: ``half(half(e) / sum)``.
- ``batch_norm`` in training with half input and half (or no) parameters: the batch mean and
  ``1 / sqrt(var + eps)`` stored as half (bfloat16 also stores the sum of squared deviations, and that sum over
  the count), then ``x * alpha + beta`` fused in float32 with ``alpha = invstd * weight`` and
  ``beta = bias - mean * alpha``, rounded once.
"""

import numpy as np

from vfw.core import dtypes as dt
from vfw.core.graph.trace import _active as _tracing
from vfw.frontends.torch import _config
from vfw.frontends.torch._dispatch import call, cast, wrap

HALF_FLOATS = frozenset({np.dtype(np.float16), np.dtype(dt.bfloat16)})
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)
# Positions of torch's non-last-dim softmax kernel handled as one vector (Vectorized<2-byte float>::size, AVX512)
_SOFTMAX_VECTOR = 32


def applies(x):
    """Whether torch's half steps replace the engine op for the tensor ``x``: it holds float16 or bfloat16
    values, is not empty, and no graph is being traced (traced graphs keep the engine's single rounding: the steps read
    the data to find each row's maximum)."""
    return x.array.dtype in HALF_FLOATS and x.array.size != 0 and not _tracing


def _axes(*dims):
    return np.asarray(dims, np.int64)


def _detached_max(x, axes):
    """The maximum of ``x`` over ``axes`` (kept), outside autograd: it cancels in every result here, and leaving
    it out keeps ties from splitting a gradient that is zero anyway.  Infinite maxima count as 0, so all-``-inf``
    rows give ``-inf`` (not NaN from ``-inf - -inf``), as torch."""
    peak = np.max(x.array, axis=tuple(int(a) for a in axes), keepdims=True)
    return wrap(np.where(np.isinf(peak), np.zeros((), peak.dtype), peak))


def _rounded(t, half):
    """``t`` (float32) stored in ``half`` and read back as float32."""
    return cast(cast(t, half), _F32)


def log_softmax_last_dim(x):
    """``log_softmax(x, -1)`` of a non-empty half tensor ``x`` (rank >= 1) with torch's steps."""
    half, last = x.array.dtype, _axes(x.array.ndim - 1)
    wide = cast(x, _F32)
    shifted = call("Sub", wide, _detached_max(wide, last))
    row_sum = call("ReduceSum", call("Exp", shifted), last, keepdims=1)
    log_sum = _rounded(call("Log", _rounded(row_sum, half)), half)
    return cast(call("Sub", shifted, log_sum), half)


def logsumexp(x, dims, keepdim):
    """``logsumexp`` of a non-empty half tensor ``x`` over the dims ``dims`` (a tuple), every step in half."""
    axes = _axes(*dims)
    peak = _detached_max(x, axes)
    total = call("ReduceSum", call("Exp", call("Sub", x, peak)), axes, keepdims=1)
    result = call("Add", call("Log", total), peak)
    return result if keepdim else call("Squeeze", result, axes)


def softmax_inner_dim(x, dim):
    """``softmax(x, dim)`` of a non-empty half tensor ``x`` along ``dim``, not its last dim, with torch's steps."""
    half, axis, shape = x.array.dtype, _axes(dim), x.array.shape
    wide = cast(x, _F32)
    exps = call("Exp", call("Sub", wide, _detached_max(wide, axis)))
    total = call("ReduceSum", exps, axis, keepdims=1)
    outer, inner = int(np.prod(shape[:dim])), int(np.prod(shape[dim + 1:]))
    vector = wrap(_vector_positions(outer, inner, _config.get_num_threads()).reshape(
        shape[:dim] + (1,) + shape[dim + 1:]))
    numerator = call("Where", vector, exps, _rounded(exps, half))
    return cast(call("Div", numerator, total), half)


def _vector_positions(outer, inner, threads):
    """Which of the ``outer * inner`` flattened positions torch's kernel computes as part of a full vector.

    The positions are split into ``threads`` equal chunks (the last shorter); in each chunk a vector starts at
    a position whose inner index leaves ``_SOFTMAX_VECTOR`` positions in both its row and its chunk, otherwise
    the scalar path takes the rest of the row (or of the chunk)."""
    total = outer * inner
    chunk = -(-total // max(min(threads, total), 1))
    vector = np.zeros(total, bool)
    step = _SOFTMAX_VECTOR
    if inner < step or chunk < step:
        return vector
    for begin in range(0, total, chunk):  # a few chunks; the walk inside each is over row segments, not elements
        end, position = min(total, begin + chunk), begin
        while position < end:
            within = position % inner
            if within + step <= inner and position + step <= end:
                vector[position:position + step] = True
                position += step
            else:
                position += min(inner - within, end - position)
    return vector


def batch_norm_training(x, weight, bias, eps):
    """``batch_norm`` in training of a half tensor ``x`` (N, C, *) with half or absent ``weight``/``bias``: the
    normalized output only (running statistics are updated by the caller)."""
    half, c = x.array.dtype, x.array.shape[1]
    axes = _axes(0, *range(2, x.array.ndim))
    wide = cast(x, _F32)
    mean = call("ReduceMean", wide, axes, keepdims=1)
    squares = call("Mul", *(call("Sub", wide, mean),) * 2)
    if half == dt.bfloat16:  # the kernel stores the sum of squares in bfloat16, and that sum over the count
        count = np.asarray(x.array.size // max(c, 1), _F32)
        var = _rounded(call("Div", _rounded(call("ReduceSum", squares, axes, keepdims=1), half), count), half)
    else:
        var = call("ReduceMean", squares, axes, keepdims=1)
    invstd = _rounded(call("Reciprocal", call("Sqrt", call("Add", var, np.asarray(eps, _F32)))), half)
    shape = (1, c) + (1,) * (x.array.ndim - 2)
    alpha = invstd if weight is None else call("Mul", invstd, call("Reshape", cast(weight, _F32), _axes(*shape)))
    beta = call("Mul", _rounded(mean, half), alpha)
    beta = call("Neg", beta) if bias is None else call("Sub", call("Reshape", cast(bias, _F32), _axes(*shape)), beta)
    # torch's vector kernel fuses x * alpha + beta (one rounding to float32): the float64 product is exact
    fused = call("Add", call("Mul", cast(x, _F64), cast(alpha, _F64)), cast(beta, _F64))
    return cast(cast(fused, _F32), half)
