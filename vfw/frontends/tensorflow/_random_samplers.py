"""TF's samplers over Philox streams that are more than a map of words: categorical, permutation, gamma, poisson.

Each function takes a stream (``key``, ``counter``, see ``_philox``) and numpy arguments and returns
the numpy result TF 2.21's CPU kernel computes from that stream:

* ``categorical``: row after row, each draw is a uniform double (two words) scaled by the row's
  total unnormalized probability and located in the running sums of ``exp(logit - max)`` over the
  finite logits (the first class whose running sum exceeds it).
* ``permutation``: forward Fisher-Yates, step ``i`` swapping ``i`` with ``i + word % (n - i)``.
* ``gamma`` (Marsaglia and Tsang's transformation-rejection; exponential draws for ``alpha == 1``)
  and ``poisson`` (products of uniforms for small rates, Hormann's transformed rejection PTRS for
  rates of at least 10): output ``o`` reads its own stream, 256 blocks after output ``o - 1``'s,
  taking normal and uniform doubles in pairs from blocks and each pair second value first.  The
  rejection loops run for all outputs at once, each pass over the outputs still drawing.
"""

import math

import numpy as np

from vfw.core.eager import run as run_engine
from vfw.frontends.tensorflow import _philox as philox

F64 = np.dtype(np.float64)
_SMALL_RATE = 10.0  # below it, Poisson counts come from products of uniforms
_INVERSION_SPACING = 42  # blocks between the streams of binomial outputs drawn by inversion


def categorical(key, counter, logits, count, out_dtype):
    """``count`` class indices per row of the 2-D float array ``logits`` (see the module doc)."""
    batch, classes = logits.shape
    if batch == 0 or count == 0:
        return np.zeros((batch, count), out_dtype)
    finite = np.isfinite(logits)
    peak = np.where(finite, logits, np.finfo(logits.dtype).min).max(axis=1).astype(F64)
    weights = np.where(finite, np.exp(logits.astype(F64) - peak[:, None]), 0.0)
    running = np.cumsum(weights, axis=1)
    draws = philox.unit_floats(philox.words(key, counter, batch * count * 2), F64).reshape(batch, count)
    wanted = draws * running[:, -1:]
    return _upper_bounds(running, wanted).astype(out_dtype)


def _upper_bounds(sorted_rows, queries):
    """For each row, how many entries of ``sorted_rows[row]`` (non-decreasing, finite) are ``<=`` each of
    ``queries[row]`` (exact).

    Complex numbers order lexicographically in numpy's sorts, so ``row + 1j * value`` lays all rows
    out in one sorted array, each query landing among the entries of its own row.
    """
    batch, classes = sorted_rows.shape
    rows = np.arange(batch, dtype=F64)[:, None]
    flat = (rows + 1j * sorted_rows).reshape(-1)
    found = np.searchsorted(flat, (rows + 1j * queries).reshape(-1), side="right").reshape(queries.shape)
    return found - np.arange(batch)[:, None] * classes


def permutation(key, counter, n):
    """TF's random permutation of ``range(n)`` (forward Fisher-Yates over the stream's words)."""
    if n <= 1:
        return np.arange(n)
    w = philox.words(key, counter, n - 1).astype(np.int64)
    steps = np.arange(n - 1)
    partners = (steps + w % (n - steps)).tolist()
    order = list(range(n))
    for i, j in enumerate(partners):  # each swap depends on the previous ones: a sequential walk
        order[i], order[j] = order[j], order[i]
    return np.array(order, np.int64)


class _Draws:
    """Per-output Philox streams from which outputs take normal and uniform doubles as TF's kernels do.

    Output ``o`` reads blocks ``counter + spacing * o, +1, ...``; a normal (or uniform) is taken from the
    last block fetched for that distribution, second value first, and a new block is fetched when
    both are used.
    """

    def __init__(self, key, counter, n, spacing=philox.RESERVED_PER_OUTPUT):
        self.key = key
        self.counter = counter
        self.cursor = np.arange(n, dtype=np.uint64) * np.uint64(spacing)
        self.buffers = {kind: (np.zeros((n, 2)), np.zeros(n, np.int8)) for kind in ("normal", "uniform")}

    def take(self, kind, outputs):
        """The next double of ``kind`` for each output index in ``outputs`` (distinct indices)."""
        values, left = self.buffers[kind]
        empty = outputs[left[outputs] == 0]
        if empty.size:
            w = philox.blocks(self.key, self.counter, self.cursor[empty]).reshape(-1)
            self.cursor[empty] += np.uint64(1)
            pair = philox.box_muller(w, F64) if kind == "normal" else philox.unit_floats(w, F64)
            values[empty] = pair.reshape(-1, 2)
            left[empty] = 2
        left[outputs] -= 1
        return values[outputs, left[outputs]]


def _flat_order(per, params):
    """For each output ``o``: its parameter ``o // per`` and its flat position in the ``[per, params]`` result."""
    o = np.arange(per * params)
    if not o.size:
        return o, o
    return o // per, (o % per) * params + o // per


def gamma(key, counter, dims, alpha):
    """Gamma(alpha, 1) samples shaped ``dims + alpha.shape`` of alpha's dtype (see the module doc)."""
    a_flat = alpha.astype(F64).reshape(-1)
    param, where = _flat_order(math.prod(dims), a_flat.size)
    result = np.empty(param.size)
    draws = _Draws(key, counter, param.size)
    a = a_flat[param]
    exponential = np.nonzero(a == 1.0)[0]
    result[exponential] = -np.log1p(-draws.take("uniform", exponential))
    active = np.nonzero(a != 1.0)[0]
    small = a < 1
    d = a + np.where(small, 2.0 / 3, -1.0 / 3)
    c = 1.0 / 3 / np.sqrt(d)
    while active.size:
        x = draws.take("normal", active)
        v = 1 + c[active] * x
        positive = ~(v <= 0)  # NaN (from a negative or NaN alpha) goes on, and ends as NaN, as in TF
        active_pos, x, v = active[positive], x[positive], v[positive]
        v = v * v * v
        u = draws.take("uniform", active_pos)
        accept = (u < 1 - 0.0331 * (x * x) * (x * x)) | (np.log(u) < 0.5 * x * x + d[active_pos] * (1 - v + np.log(v)))
        done = active_pos[accept]
        value = d[done] * v[accept]
        boost = done[small[done]]
        if boost.size:
            value[small[done]] *= draws.take("uniform", boost) ** (1 / a[boost])
        result[done] = value
        finished = np.zeros(param.size, bool)
        finished[done] = True
        active = active[~finished[active]]
    out = np.empty(param.size, alpha.dtype)
    out[where] = _to_dtype(result, alpha.dtype)
    return out.reshape(tuple(dims) + alpha.shape)


def _to_dtype(values, dtype):
    """float64 values in ``dtype`` (through float32 for the half types, as TF's conversions go)."""
    if dtype.itemsize < 4:
        return values.astype(np.float32).astype(dtype)
    return values.astype(dtype)


def poisson(key, counter, dims, rate, out_dtype):
    """Poisson(rate) samples shaped ``dims + rate.shape`` in ``out_dtype`` (see the module doc)."""
    rates = rate.astype(F64).reshape(-1)
    param, where = _flat_order(math.prod(dims), rates.size)
    lam = rates[param]
    result = np.zeros(param.size)
    draws = _Draws(key, counter, param.size)
    # Small rates: count uniforms until their running product falls to exp(-rate).
    active = np.nonzero(lam < _SMALL_RATE)[0]
    product = np.ones(param.size)
    limit = np.exp(-lam)
    while active.size:
        product[active] *= draws.take("uniform", active)
        done = product[active] <= limit[active]
        result[active[~done]] += 1
        active = active[~done]
    # Infinite rates give infinity (0 in integer outputs); NaN rates NaN (TF's kernel never ends on them).
    result[np.isinf(lam) & (lam > 0)] = np.inf
    result[np.isnan(lam)] = np.nan
    # Larger rates: transformed rejection with the dominating distribution (2a / (1/2 - |u|) + b) u + rate + 0.43.
    active = np.nonzero((lam >= _SMALL_RATE) & np.isfinite(lam))[0]
    log_rate = np.log(lam)
    b = 0.931 + 2.53 * np.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)
    while active.size:
        u = draws.take("uniform", active) - 0.5
        v = draws.take("uniform", active)
        ab, bb, rr = a[active], b[active], lam[active]
        u_shifted = 0.5 - np.abs(u)
        k = np.floor((2 * ab / u_shifted + bb) * u + rr + 0.43)
        quick = (k >= 0) & (u_shifted >= 0.07) & (v <= v_r[active])
        test = np.nonzero((k >= 0) & ~quick & ~((u_shifted < 0.013) & (v > u_shifted)))[0]
        accept = quick
        if test.size:
            kt, us = k[test], u_shifted[test]
            s = np.log(v[test] * inv_alpha[active[test]] / (ab[test] / (us * us) + bb[test]))
            t = -rr[test] + kt * log_rate[active[test]] - run_engine("Lgamma", kt + 1)
            accept[test[s <= t]] = True
        result[active[accept]] = k[accept]
        active = active[~accept]
    out = np.empty(param.size, out_dtype)
    out[where] = _to_dtype(result, out_dtype) if out_dtype.kind == "f" else np.where(np.isfinite(result), result, 0)
    return out.reshape(tuple(dims) + rate.shape)


def _stirling_tail(k):
    """``log(k!)`` minus its Stirling approximation ``(k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2``."""
    small = np.minimum(k, 9).astype(np.int64)
    table = np.array([math.lgamma(j + 1) - (j + 0.5) * math.log(j + 1) + (j + 1) - 0.5 * math.log(2 * math.pi)
                      for j in range(10)])
    square = (k + 1) * (k + 1)
    series = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / square) / square) / (k + 1)
    return np.where(k <= 9, table[small], series)


def _binomial_inversion(draws, outputs, count, prob):
    """Binomial(count, prob) counts (count * prob < 10): geometric waiting times summed until past ``count``."""
    result = np.zeros(outputs.size)
    total = np.zeros(outputs.size)
    active = np.arange(outputs.size)
    log_q = np.log1p(-prob)
    while active.size:
        u = draws.take("uniform", outputs[active])
        total[active] += np.ceil(np.log(u) / log_q[active])
        past = total[active] > count[active]
        result[active[~past]] += 1
        active = active[~past]
    return result


def _binomial_btrs(draws, outputs, count, prob):
    """Binomial(count, prob) counts (count * prob >= 10) by Hormann's transformed rejection BTRS."""
    stddev = np.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = np.floor((count + 1) * prob)
    result = np.zeros(outputs.size)
    active = np.arange(outputs.size)
    while active.size:
        u = draws.take("uniform", outputs[active]) - 0.5
        v = draws.take("uniform", outputs[active])
        us = 0.5 - np.abs(u)
        k = np.floor((2 * a[active] / us + b[active]) * u + c[active])
        quick = (us >= 0.07) & (v <= v_r[active])
        test = np.nonzero(~quick & (k >= 0) & (k <= count[active]))[0]
        accept = quick
        if test.size:
            i = active[test]
            kt, n, mt, rt = k[test], count[i], m[i], r[i]
            lhs = np.log(v[test] * alpha[i] / (a[i] / (us[test] * us[test]) + b[i]))
            bound = ((mt + 0.5) * np.log((mt + 1) / (rt * (n - mt + 1))) + (n + 1) * np.log((n - mt + 1) / (n - kt + 1))
                     + (kt + 0.5) * np.log(rt * (n - kt + 1) / (kt + 1)) + _stirling_tail(mt) + _stirling_tail(n - mt)
                     - _stirling_tail(kt) - _stirling_tail(n - kt))
            accept[test[lhs <= bound]] = True
        result[active[accept]] = k[accept]
        active = active[~accept]
    return result


def binomial(key, counter, dims, counts, probs, out_dtype):
    """Binomial(counts, probs) samples shaped ``dims`` (which end with the parameters' shape, ``counts`` and
    ``probs`` broadcast to it).

    A probability above 1/2 samples the failures (``count - Binomial(count, 1 - prob)``); with
    ``count * prob`` (in the parameters' dtype) below 10 the count comes by inversion from a stream
    42 blocks per output apart, else by BTRS from streams 256 blocks apart.
    """
    n = math.prod(dims)
    params = counts.size
    param, where = _flat_order(n // params if params else 0, params)
    count = counts.reshape(-1)[param]
    prob = probs.reshape(-1)[param]
    flipped = prob > 0.5
    p = np.where(flipped, prob.dtype.type(1) - prob, prob)  # in the parameters' dtype, as TF
    count64, p64 = count.astype(F64), p.astype(F64)
    result = np.where(prob >= 1, count64, 0.0)
    result[np.isnan(prob) | np.isnan(count64)] = np.nan  # TF's kernel never ends on a NaN count
    live = np.nonzero((count64 > 0) & (prob > 0) & (prob < 1))[0]
    with np.errstate(over="ignore"):
        large = (count[live] * p[live]) >= 10
    btrs, inversion = live[large], live[~large]
    result[btrs] = _binomial_btrs(_Draws(key, counter, n), btrs, count64[btrs], p64[btrs])
    result[inversion] = _binomial_inversion(_Draws(key, counter, n, spacing=_INVERSION_SPACING), inversion,
                                            count64[inversion], p64[inversion])
    result[live] = np.where(flipped[live], count64[live] - result[live], result[live])
    out = np.empty(n, out_dtype)
    with np.errstate(invalid="ignore"):
        out[where] = result.astype(out_dtype) if out_dtype.kind != "f" else _to_dtype(result, out_dtype)
    return out.reshape(dims)


def parameterized_truncated_normal(key, counter, lead, means, stddevs, minvals, maxvals):
    """Normal samples truncated to ``[minvals, maxvals]``, shaped ``lead + params`` (the parameters, of one float
    dtype, broadcast to ``params``); computed in the parameters' dtype, as TF's kernel.

    The parameter sets are sampled in order, each taking ``prod(lead)`` samples from where the
    previous one stopped (at a block boundary).  Per set, in normalized units: when the interval
    reaches 1.3 standard deviations past the mean on one side and the mean on the other, normal
    draws are kept when inside; when it is narrower than Robert's cutoff, uniform proposals on it
    are kept with probability ``exp((min^2 - z^2) / 2)`` (``min^2`` for a positive lower bound, 0
    otherwise), the uniforms of a block against those of the next; otherwise one-sided exponential
    proposals (rate ``(min + sqrt(min^2 + 4)) / 2``) past the lower bound, from pairs of uniforms.
    A bound below the mean's side is flipped first, so the lower bound is the one to sample from.
    """
    dtype = means.dtype.type
    per = math.prod(lead)
    flat = [np.asarray(p).reshape(-1) for p in (means, stddevs, minvals, maxvals)]
    out = np.empty((per, flat[0].size), means.dtype)
    block = 0
    for b in range(flat[0].size):  # each set starts where the previous one stopped: a sequential walk
        out[:, b], block = _truncated_set(key, counter, block, per, *(dtype(p[b]) for p in flat))
    return out.reshape(tuple(lead) + means.shape)


def _truncated_set(key, counter, block, count, mean, stddev, low, high):
    """``count`` samples of one parameter set from block ``block`` on; returns them and the next free block."""
    t = type(mean)
    if (np.isinf(low) and low < 0) or high < mean:
        low, high, stddev = high, low, -stddev
    lo = (low - mean) / stddev
    hi = (high - mean) / stddev
    root = np.sqrt(lo * lo + t(4))
    cutoff = t(2) * np.exp(t(0.5) + (lo * (lo - root)) / t(4)) / (lo + root)
    dtype = np.dtype(t)
    per_block = 2 if dtype == F64 else 4  # uniforms or normals in a block
    per_round = per_block  # candidates from one round of blocks
    if (lo < -1.3 and hi >= 0) or (hi > 1.3 and lo <= 0):
        def candidates(w):
            z = philox.box_muller(w, dtype).astype(dtype)
            return z, (z >= lo) & (z <= hi)
        blocks_per_round = 1
    elif hi - lo < cutoff:
        floor = t(0) if lo < 0 else lo * lo

        def candidates(w):
            u = philox.unit_floats(w, dtype).reshape(-1, 2, per_block)
            z = u[:, 0] * (hi - lo) + lo
            return z.reshape(-1), (u[:, 1] <= np.exp((floor - z * z) / t(2))).reshape(-1)
        blocks_per_round = 2
    else:
        rate = (lo + np.sqrt(lo * lo + t(4))) / t(2)

        def candidates(w):
            u = philox.unit_floats(w, dtype).reshape(-1, 2)
            z = -np.log(u[:, 0]) / rate + lo
            x = rate - z if lo < rate else np.full_like(z, lo - rate)
            return z, (u[:, 1] <= np.exp(-x * x / t(2))) & (z < hi)
        blocks_per_round = 1
        per_round = per_block // 2
    values = []
    found = 0
    rounds = -(-count // per_round) + 1  # enough when few are rejected; doubled while short
    while found < count:
        n_blocks = rounds * blocks_per_round
        z, keep = candidates(philox.blocks(key, counter, np.arange(block, block + n_blocks, dtype=np.uint64))
                             .reshape(-1))
        kept = np.cumsum(keep)
        if found + kept[-1] >= count:  # stop at the block holding the last sample needed
            last = int(np.searchsorted(kept, count - found))
            values.append(z[:last + 1][keep[:last + 1]])
            return np.concatenate(values) * stddev + mean, block + (last // per_round + 1) * blocks_per_round
        values.append(z[keep])
        found += int(kept[-1])
        block += n_blocks
        rounds *= 2
    return np.zeros(0, type(mean)), block


def gamma_alpha_derivative(alpha, x):
    """``d x / d alpha`` of Gamma(alpha, 1) samples ``x`` at a fixed value of their CDF (implicit
    reparameterization: ``-(dP/dalpha) / (dP/dx)`` with ``P`` the regularized lower incomplete gamma).

    ``dP/dalpha`` sums the series ``P = sum_n e^-x x^(alpha+n) / Gamma(alpha+n+1)`` differentiated term by
    term (each term times ``log x - digamma(alpha+n+1)``), terms scaled by the largest one; all
    elements iterate together until their terms past the largest are negligible.  As TF: NaN where
    ``alpha`` is not positive, 0 where ``x`` is 0 or infinite.
    """
    a = np.broadcast_to(alpha, x.shape).astype(F64).reshape(-1)
    v = x.astype(F64).reshape(-1)
    out = np.where(a > 0, 0.0, np.nan)
    ok = np.nonzero((v > 0) & (a > 0) & np.isfinite(v) & np.isfinite(a))[0]
    a, v = a[ok], v[ok]
    log_v = np.log(v)
    peak = np.maximum(0.0, np.floor(v - a))  # the index of the largest term
    log_peak = -v + (a + peak) * log_v - run_engine("Lgamma", a + peak + 1)
    log_term = -v + a * log_v - run_engine("Lgamma", a + 1) - log_peak
    psi = run_engine("Digamma", a + 1)
    total = np.zeros(ok.size)
    live = np.arange(ok.size)
    n = 0
    while live.size:
        weight = np.exp(log_term[live])
        total[live] += weight * (log_v[live] - psi[live])
        step = a[live] + n + 1
        log_term[live] += log_v[live] - np.log(step)
        psi[live] += 1 / step
        n += 1
        live = live[(n <= peak[live]) | (weight > 1e-17)]
    log_density = -v + (a - 1) * log_v - run_engine("Lgamma", a)
    out[ok] = -total * np.exp(log_peak - log_density)
    return out.reshape(x.shape)
