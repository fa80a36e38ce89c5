"""Timing helpers: interleaved rounds, medians, and a ratio table printer.

Machines here are small and shared, so candidates are timed in interleaved
rounds and compared by the median of their per-round times.
"""

import statistics
import time
import tracemalloc


def per_call_seconds(fn, calls):
    """Seconds per call of ``fn`` over ``calls`` back-to-back calls."""
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def calibrate(fn, target=0.01):
    """Number of calls of ``fn`` that takes about ``target`` seconds (at least 1)."""
    calls = 1
    while True:
        elapsed = per_call_seconds(fn, calls) * calls
        if elapsed >= target / 4 or calls >= 1 << 20:
            return max(1, int(calls * target / max(elapsed, 1e-9)))
        calls *= 4


def interleaved_medians(candidates, rounds=15, target=0.01, settle=0.0):
    """Median seconds per call of each candidate, timed in interleaved rounds.

    Parameters
    ----------
    candidates : dict[str, callable]
    rounds : int
    target : float
        Seconds each candidate runs per round.
    settle : float
        Seconds to sleep before each candidate's round, then one untimed call: the previous candidate's pool
        threads stop spinning first (OpenBLAS' workers spin about 0.1 s after a call and take the second core
        from the next candidate's threads), so each is timed as if it ran alone.

    Returns
    -------
    dict[str, float]
    """
    calls = {name: calibrate(fn, target) for name, fn in candidates.items()}
    samples = {name: [] for name in candidates}
    for _ in range(rounds):
        for name, fn in candidates.items():
            if settle:
                time.sleep(settle)
                fn()
            samples[name].append(per_call_seconds(fn, calls[name]))
    return {name: statistics.median(s) for name, s in samples.items()}


def peak_allocated_bytes(fn):
    """Peak bytes allocated (as seen by tracemalloc, which numpy reports to) during one call."""
    fn()  # warm caches first
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        result = fn()
        peak = tracemalloc.get_traced_memory()[1] - base
        del result
        return peak
    finally:
        tracemalloc.stop()


def print_table(title, header, rows):
    """Print an aligned text table."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    print(f"\n{title}")
    print("  ".join(str(h).ljust(w) for h, w in zip(header, widths)))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(str(x).ljust(w) for x, w in zip(row, widths)))
