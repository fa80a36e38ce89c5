"""``torch.multinomial``'s draws, as torch 2.13's CPU kernels make them (same generator words, same results).

* Without replacement, or one sample: exponential races.  One exponential per weight (torch's
  ``exponential_`` on a tensor shaped and typed like the weights, in memory order), then the
  categories with the largest ``weight / exponential`` (in the weights' dtype), in decreasing order:
  ``argmax`` for one sample, else ``topk`` with its order among ties.
* With replacement: per row, the cumulative weights summed one by one in float32 (float64 for
  float64 weights), divided by their total, the last one set to 1; then per sample one 53-bit
  uniform double and torch's binary search for the first category whose cumulative weight is not
  below it.  Rows are validated as they are drawn: a bad row raises after the rows before it
  took their draws, as in torch.
"""

import numpy as np

from vfw.frontends.torch._random_draws import F32, F64, I64, exponential, unit
from vfw.frontends.torch._topk_order import topk_indices


def multinomial_rows(gen, rows, k, replacement):
    """``k`` category indices (int64, ``(n, k)``) per row of the weights ``rows`` (``(n, c)``, a float dtype)."""
    if replacement and k > 1:
        return _with_replacement(gen, rows, k)
    return _races(gen, rows, k)


def _races(gen, rows, k):
    if not (rows.max() < np.inf and rows.min() >= 0):  # NaN fails both
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if (rows == 0).all(axis=1).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    with np.errstate(divide="ignore", invalid="ignore"):  # a zero exponential: inf, or nan for a zero weight
        ratio = rows / exponential(gen, rows.shape, 1.0, rows.dtype)
    if k == 1:
        return np.argmax(ratio, axis=1, keepdims=True).astype(I64, copy=False)  # first maximum, NaN above all
    return topk_indices(ratio.astype(F64), k)


def _with_replacement(gen, rows, k):
    n, c = rows.shape
    bad_row, error = _first_invalid_row(rows)
    if bad_row is not None:
        unit(gen, (bad_row, k), F64)  # the rows before it drew theirs
        raise RuntimeError(f"invalid multinomial distribution ({error})")
    cumulative = _running_sums(rows)
    cumulative /= cumulative[:, -1:]
    cumulative[:, -1] = 1
    u = unit(gen, (n, k), F64)
    # torch's binary search, step for step (NaN cumulative weights, from overflowing totals, steer it too)
    left = np.zeros((n, k), I64)
    right = np.full((n, k), c, I64)
    row = np.arange(n)[:, None]
    while True:
        open_ = right > left
        if not open_.any():
            return left
        mid = left + (right - left) // 2
        below = (cumulative[row, np.minimum(mid, c - 1)] < u) & open_
        left = np.where(below, mid + 1, left)
        right = np.where(open_ & ~below, mid, right)


def _first_invalid_row(rows):
    """``(row, message)`` for the first row torch's checks refuse (entries in order, then the total), or
    ``(None, None)``."""
    negative = ~(rows >= 0)  # NaN too: torch tests ``>= 0`` first
    infinite = ~negative & ~np.isfinite(rows)
    first_bad = np.argmax(negative | infinite, axis=1)
    entry_bad = (negative | infinite).any(axis=1)
    totals = _running_sums(rows)[:, -1]
    failing = entry_bad | ~(totals > 0)
    if not failing.any():
        return None, None
    r = int(np.argmax(failing))
    if entry_bad[r]:
        at = first_bad[r]
        return r, "encountering probability entry < 0" if negative[r, at] else \
            "encountering probability entry = infinity or NaN"
    return r, "sum of probabilities <= 0"


def _running_sums(rows):
    """Each row's cumulative sums, added one by one in float32 (float64 for float64 weights), as torch."""
    with np.errstate(over="ignore"):  # an infinite total is what torch's float sum gives too
        return np.cumsum(rows.astype(F64 if rows.dtype == F64 else F32), axis=1)
