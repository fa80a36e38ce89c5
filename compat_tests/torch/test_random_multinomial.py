"""torch.multinomial draws against real torch 2.13, value by value, and the topk tie order they rely on.

vfw replays torch's CPU algorithms on torch's Mersenne Twister stream (exponential races and
``topk`` without replacement or for one sample, float32/float64 cumulative sums and a binary search
per 53-bit uniform with replacement), so a seed gives torch's indices and leaves the generator
where torch leaves it (each case also compares the next draw).
"""

import math

import numpy as np
import pytest

from compat_tests.torch.harness import check, real
from vfw.frontends.torch._topk_order import topk_indices


def _weights(seed, shape, zeros=0.3, dtype="float32"):
    rng = np.random.default_rng(seed)
    w = rng.random(shape) * 10.0 ** rng.uniform(-2, 2, shape)
    w[rng.random(shape) < zeros] = 0
    w.reshape(-1, shape[-1])[:, 0] += 0.5  # no row sums to zero
    return w.astype(dtype)


def _seeded(draw, seed):
    def run(torch):
        torch.manual_seed(seed)
        return draw(torch), torch.rand(2)  # the next draw: the stream state
    return run


CASES = [  # (shape, num_samples, replacement, zero fraction, dtype)
    ((7,), 1, False, 0.3, "float32"), ((7,), 3, False, 0.3, "float32"), ((7,), 7, False, 0.5, "float32"),
    ((40,), 12, False, 0.0, "float64"), ((300,), 4, False, 0.6, "float32"), ((4, 9), 9, False, 0.4, "float32"),
    ((3, 200), 2, False, 0.9, "float64"), ((5,), 1, True, 0.3, "float32"), ((5,), 30, True, 0.3, "float32"),
    ((100,), 64, True, 0.5, "float64"), ((4, 6), 10, True, 0.3, "float32"), ((2, 1000), 3, True, 0.2, "float64"),
    ((6,), 6, False, 0.5, "float16"), ((3, 5), 8, True, 0.2, "float16"), ((6,), 4, False, 0.3, "bfloat16"),
    ((3, 5), 8, True, 0.2, "bfloat16"),
]


@pytest.mark.parametrize("seed", [0, 5, 2**33 + 1])
@pytest.mark.parametrize("shape,k,replacement,zeros,dtype", CASES, ids=str)
def test_multinomial_draws_match_torch(shape, k, replacement, zeros, dtype, seed):
    w = _weights(seed + len(shape), shape, zeros, "float64")

    def draw(torch):
        weights = torch.from_numpy(w).to(getattr(torch, dtype))
        return torch.multinomial(weights, k, replacement)
    check(_seeded(draw, seed))


def test_multinomial_with_a_generator_and_methods_match_torch():
    w = _weights(1, (3, 8))

    def draw(torch):
        g = torch.Generator().manual_seed(42)
        x = torch.from_numpy(w)
        return (torch.multinomial(x, 5, generator=g), x.multinomial(20, True, generator=g),
                torch.multinomial(x[0], 1, generator=g), torch.rand(3, generator=g))
    check(draw)


def test_multinomial_out_matches_torch():
    w = _weights(2, (10,))

    def draw(torch):
        out = torch.empty(0, dtype=torch.int64)
        return torch.multinomial(torch.from_numpy(w), 4, out=out), out
    check(_seeded(draw, 3))


@pytest.mark.parametrize("weights,k,replacement", [
    ([[1.0, 2.0], [-1.0, 1.0]], 3, True), ([[1.0, 2.0], [0.0, 0.0]], 2, True), ([[1.0, 2.0], [1.0, math.inf]], 2, True),
    ([[1.0, 2.0], [math.nan, 1.0]], 2, True), ([[1.0, 2.0], [0.0, 0.0]], 2, False),
    ([[1.0, -2.0], [0.0, 1.0]], 1, True),
])
def test_multinomial_errors_leave_the_generator_where_torch_does(weights, k, replacement):
    # With replacement torch checks each row as it draws: the rows before a bad one took their draws.
    def draw(torch):
        try:
            torch.multinomial(torch.tensor(weights), k, replacement)
        except RuntimeError as e:
            return str(e)
        return "no error"
    check(_seeded(draw, 0))


@pytest.mark.parametrize("weights,k,replacement", [
    ([3e38, 3e38, 1.0], 4, True),  # the float32 total overflows: torch's search still picks a category
    ([3e38, 3e38, 1.0], 2, False), ([1e-45, 0.0, 0.0], 3, True), ([0.0, 1.0, 0.0, 2.0, 0.0], 5, False),
])
def test_multinomial_edge_weights_match_torch(weights, k, replacement):
    check(_seeded(lambda torch: torch.multinomial(torch.tensor(weights), k, replacement), 1))


def test_cumulative_sums_are_float32_for_float32_and_half_weights():
    # 2**24 + 1 is 2**24 in float32: the ones after it get no share of a float32 cumulative sum (as torch), but
    # do of a float64 one.
    def draw(torch):
        w = torch.ones(2**16 + 1, dtype=torch.float64)
        w[0] = 2.0**24
        return ((torch.multinomial(w.float(), 300, True) > 0).sum(), (torch.multinomial(w, 300, True) > 0).sum())
    check(_seeded(draw, 4))


# -- topk's order among equal values ---------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 16, 17, 40, 64, 129, 700, 3000])
def test_topk_order_among_ties_matches_torch(n):
    # partial sort when 64 * k <= n, else nth_element and a sort of the first k - 1: equal values end up in the
    # order those library algorithms leave them, NaN above everything.
    rng = np.random.default_rng(n)
    for trial in range(12):
        row = rng.integers(0, 1 + trial % 4, n).astype(np.float64)
        if trial % 3 == 0:
            row[rng.random(n) < 0.1] = np.nan
        if trial % 5 == 1:
            row += rng.random(n) * (rng.random(n) < 0.5)
        for k in sorted({1, n, max(1, n // 64), max(1, n // 2), int(rng.integers(1, n + 1))}):
            want = real.topk(real.from_numpy(row), k).indices.numpy()
            np.testing.assert_array_equal(topk_indices(row[None, :], k)[0], want, err_msg=f"n={n} k={k}")


def test_weighted_sampler_over_zero_weights_matches_torch_without_replacement():
    def draw(torch):
        import importlib
        data = importlib.import_module(f"{torch.__name__}.utils.data")
        g = torch.Generator().manual_seed(9)
        return list(data.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0, 2.0, 0.0], 6, replacement=False, generator=g))
    check(draw)
