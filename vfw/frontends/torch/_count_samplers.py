"""torch's CPU Poisson and binomial samplers, replayed draw for draw, so that ``torch.poisson`` /
``torch.binomial`` (and the ``Poisson``, ``NegativeBinomial`` and ``Binomial`` distributions) give torch's counts
from the same seed.

torch draws each element in turn (a serial kernel, in the C order of the broadcast result) from the generator's
float64 uniforms (53 bits of one 64-bit word).  Poisson: rates below 10 multiply uniforms until the product falls
to ``exp(-rate)`` (Knuth's method), larger rates use Hörmann's transformed rejection with squeeze (PTRS, 1993).
Binomial (on the smaller of ``p`` and ``1 - p``): a mean below 10 sums geometric waiting times (inversion), a
larger one uses Hörmann's BTRS.  torch keeps counts and probabilities in the tensor's dtype inside these loops
(float32 products and logarithms next to float64 ones), which ``_Rounding`` mirrors.  Each element consumes a
varying number of draws from the one stream, so elements cannot be drawn as a vectorized block.
"""

import math

import numpy as np

from vfw.frontends.torch._random_draws import _LOW53, _words64

_INT64_MIN = -(2 ** 63)


def _uniform(gen):
    return float(_words64(gen, 1)[0] & _LOW53) * 2.0 ** -53


def _floor_int64(x):
    """``floor(x)`` converted to int64 as the CPU's conversion does: out-of-range and non-finite values (an
    infinite rate) become the "integer indefinite" value, int64's minimum."""
    if not math.isfinite(x) or not -2.0 ** 63 <= math.floor(x) < 2.0 ** 63:
        return _INT64_MIN
    return math.floor(x)


def _knuth(gen, rate):
    limit = math.exp(-rate)
    count, product = 0, 1.0
    while True:
        product *= _uniform(gen)
        if product <= limit:
            return count
        count += 1


def _transformed_rejection(gen, rate):
    sqrt_rate, log_rate = math.sqrt(rate), math.log(rate)
    b = 0.931 + 2.53 * sqrt_rate
    a = -0.059 + 0.02483 * b
    log_inv_alpha = math.log(1.1239 + 1.1328 / (b - 3.4))
    v_r = 0.9277 - 3.6224 / (b - 2)
    while True:
        u = _uniform(gen) - 0.5
        v = _uniform(gen)
        u_s = 0.5 - abs(u)
        k = _floor_int64((2 * a / u_s + b) * u + rate + 0.43)
        if u_s >= 0.07 and v <= v_r:  # the squeeze: accepted without evaluating the density
            return k
        if k < 0 or (u_s < 0.013 and v > u_s):
            continue
        if math.log(v) + log_inv_alpha - math.log(a / (u_s * u_s) + b) <= -rate + k * log_rate - math.lgamma(k + 1.0):
            return k


def poisson_draws(gen, rates):
    """Poisson counts for the float64 array ``rates`` (non-negative), in C order, as float64."""
    flat = rates.reshape(-1).tolist()
    counts = [0 if r == 0 else _knuth(gen, r) if r < 10 else _transformed_rejection(gen, r) for r in flat]
    return np.array(counts, np.float64).reshape(rates.shape)


def _stirling_tail(k):
    """``log(k!)`` minus its Stirling approximation ``(k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2``."""
    if k <= 9:
        k = math.floor(k)
        return math.lgamma(k + 1.0) - ((k + 0.5) * math.log(k + 1.0) - (k + 1.0) + 0.5 * math.log(2 * math.pi))
    k1_squared = (k + 1) * (k + 1)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / k1_squared) / k1_squared) / (k + 1)


class _Rounding:
    """Rounds a float64 to the tensor's dtype, where torch computes in that dtype (identity for float64)."""

    def __init__(self, dtype):
        self.dtype = None if dtype == np.float64 else dtype

    def __call__(self, x):
        return x if self.dtype is None else float(np.asarray(x, np.float64).astype(self.dtype))


def _inversion(gen, count, prob, rnd):
    log_q = rnd(math.log1p(-prob))
    waited, successes = 0.0, 0
    while True:
        u = _uniform(gen)
        waited += math.ceil(math.log(u) / log_q) if u > 0 else math.inf
        if waited > count:
            return successes
        successes += 1


def _btrs(gen, count, prob, rnd):
    spread = rnd(math.sqrt(rnd(rnd(count * prob) * rnd(1 - prob))))
    b = 1.15 + 2.53 * spread
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = rnd(count * prob) + 0.5
    v_r = 0.92 - 4.2 / b
    r = rnd(prob / rnd(1 - prob))
    alpha = (2.83 + 5.1 / b) * spread
    m = math.floor(rnd(rnd(count + 1) * prob))
    while True:
        u = _uniform(gen) - 0.5
        v = _uniform(gen)
        u_s = 0.5 - abs(u)
        k = rnd(math.floor((2 * a / u_s + b) * u + c))
        if k < 0 or k > count:
            continue
        if u_s >= 0.07 and v <= v_r:  # the squeeze: accepted without evaluating the density
            return k
        v = math.log(v * alpha / (a / (u_s * u_s) + b))
        rest = rnd(count - k)
        bound = ((m + 0.5) * math.log((m + 1) / (r * (count - m + 1)))
                 + rnd(count + 1) * math.log((count - m + 1) / rnd(rest + 1))
                 + (k + 0.5) * math.log(r * rnd(rest + 1) / rnd(k + 1))
                 + _stirling_tail(m) + _stirling_tail(count - m)
                 - rnd(_stirling_tail(k)) - rnd(_stirling_tail(rest)))
        if v <= bound:
            return k


def _one_binomial(gen, count, prob, rnd):
    if count <= 0 or prob <= 0:
        return 0.0
    if prob >= 1:
        return count
    if math.isnan(prob) or not math.isfinite(count):
        return math.nan  # torch's own loop never ends for a NaN or infinite count
    low = prob <= 0.5
    p = prob if low else rnd(1 - prob)
    successes = _btrs(gen, count, p, rnd) if rnd(count * p) >= 10 else _inversion(gen, count, p, rnd)
    return successes if low else rnd(count - successes)


def binomial_draws(gen, counts, probs):
    """Binomial counts for the broadcast arrays ``counts`` and ``probs`` (one float dtype), in C order."""
    counts, probs = np.broadcast_arrays(counts, probs)
    rnd = _Rounding(counts.dtype)
    pairs = zip(counts.astype(np.float64).reshape(-1).tolist(), probs.astype(np.float64).reshape(-1).tolist())
    draws = [_one_binomial(gen, n, p, rnd) for n, p in pairs]
    return np.array(draws, np.float64).astype(counts.dtype).reshape(counts.shape)
