"""vfw.torch sorting, selection and searching against real torch: sort, argsort, msort, topk, kthvalue,
median, nanmedian, mode, quantile, nanquantile, unique, unique_consecutive, searchsorted, bucketize,
bincount, histc.

Among equal elements sort(stable=False), topk and mode follow torch's CPU algorithms (libstdc++'s
introsort, introselect and heap selection, replayed), so their indices are compared with ties too
(test_indices_among_ties_are_torchs); kthvalue picks ties in stable order, which torch's own
quickselect does not promise.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compat_tests.torch.harness import arrays
from compat_tests.torch.test_reduction import check, check_grad

NAN, INF = float("nan"), float("inf")
DTYPES = ["float32", "float64", "int64", "int32", "int16", "uint8", "float16"]


def distinct(shape, dtype="float32", seed=0):
    """Values without ties (a permutation), so every index result is defined."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    values = rng.permutation(n) - n // 3
    if dtype == "uint8":
        values = values + n // 3
    return values.reshape(shape).astype(dtype)


def with_ties(shape, dtype="float32", seed=0):
    return arrays(shape, dtype=dtype, seed=seed, low=-2, high=2).round().astype(dtype)


# -- sort / argsort / msort ------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES + ["bool"])
@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 3, 4)])
def test_sort_stable_with_ties(dtype, shape):
    x = with_ties(shape, dtype, seed=1) if dtype != "bool" else arrays(shape, dtype="bool", seed=1)
    check(lambda torch, x: (torch.sort(x, stable=True), torch.sort(x, stable=True, dim=0, descending=True),
                            x.sort(dim=-1, descending=True, stable=True), torch.argsort(x, stable=True),
                            torch.argsort(x, dim=0, descending=True, stable=True), torch.msort(x)), x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sort_and_topk_distinct(dtype):
    x = distinct((4, 6), dtype, seed=2)
    check(lambda torch, x: (torch.sort(x), x.sort(0), torch.argsort(x, 1, True), x.argsort(),
                            torch.topk(x, 2), torch.topk(x, 3, 0, largest=False), x.topk(k=1, dim=-1),
                            torch.topk(x, 6, sorted=True), torch.topk(x, 0), torch.kthvalue(x, 2),
                            torch.kthvalue(x, 4, 0, True), x.kthvalue(k=6, dim=1)), x)


def tie_rows(shape, dtype, seed, levels):
    """Rows of few distinct values (a NaN among them for floats), so ties reach every partitioning step."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, levels, shape).astype(dtype)
    if np.dtype(dtype).kind == "f":
        x[rng.random(shape) < 0.05] = NAN
    return x


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "uint8", "float16", "bool"])
@pytest.mark.parametrize("n,levels", [(12, 3), (17, 2), (40, 5), (300, 4), (1500, 7)])
def test_indices_among_ties_are_torchs(dtype, n, levels):
    x = tie_rows((3, n), dtype, n, levels)
    k, small_k = max(1, n // 3), max(1, n // 70)  # nth_element then a sort; a heap (64 * k <= n)

    def fn(torch, x):
        picks = [torch.sort(x), torch.sort(x, dim=0, descending=True), torch.sort(x, stable=False, descending=True),
                 torch.argsort(x), torch.msort(x.t().contiguous())]
        if dtype != "bool":  # torch's topk has no bool kernel
            picks += [torch.topk(x, k), torch.topk(x, small_k), torch.topk(x, k, largest=False),
                      torch.topk(x, small_k, largest=False), torch.topk(x, k, sorted=False),
                      torch.topk(x, k, largest=False, sorted=False), x.t().topk(2, dim=0)]
        if dtype not in ("float32", "float64", "float16"):  # torch's mode has no order among NaN
            picks += [torch.mode(x), torch.mode(x.t(), 0)]
        return picks

    check(fn, x)


def test_sort_nan_and_special_values():
    x = np.array([[1.0, NAN, -INF, 0.0, -0.5, INF, NAN, 2.0]], np.float32)
    check(lambda torch, x: (torch.sort(x, stable=True), torch.sort(x, descending=True, stable=True), x.sort(0, True),
                            torch.topk(x, 3), torch.topk(x, 3, largest=False), torch.kthvalue(x, 6),
                            torch.argsort(x, stable=True), torch.msort(x[0])), x)


@pytest.mark.parametrize("fn", [
    lambda torch, x: (torch.sort(torch.tensor(3.0)), torch.topk(torch.tensor(2.0), 1),
                      torch.kthvalue(torch.tensor(1.5), 1), torch.argsort(torch.tensor(1))),
    lambda torch, x: (torch.sort(torch.zeros(0)), torch.sort(torch.zeros(2, 0), 0), torch.topk(torch.zeros(0, 3), 2),
                      torch.kthvalue(torch.zeros(0, 3), 1), torch.msort(torch.zeros(0, 2))),
    lambda torch, x: torch.topk(x, 5),
    lambda torch, x: torch.topk(x, -1),
    lambda torch, x: torch.topk(x, 1.5),
    lambda torch, x: torch.kthvalue(x, 0),
    lambda torch, x: torch.kthvalue(x, 5),
    lambda torch, x: torch.kthvalue(torch.tensor(1.0), 2),
    lambda torch, x: torch.sort(x, 2),
    lambda torch, x: torch.sort(x, 0, True, stable=True),
    lambda torch, x: torch.argsort(x, 0, True, True),
    lambda torch, x: torch.topk(x, 2, dim=-3),
    lambda torch, x: torch.sort(x, out=(torch.empty(0), torch.empty(0, dtype=torch.int64))),
    lambda torch, x: torch.topk(x, 2, out=(torch.empty(0), torch.empty(0, dtype=torch.int64))),
    lambda torch, x: torch.kthvalue(x, 2, out=(torch.empty(0), torch.empty(0, dtype=torch.int64))),
    lambda torch, x: torch.msort(x, out=torch.empty(0)),
    lambda torch, x: torch.topk(x, torch.tensor(2)),
    lambda torch, x: [v.sort(descending=True).values for v in torch.topk(x, 3, sorted=False)],
])
def test_sort_edge_cases(fn):
    check(fn, distinct((3, 4), seed=3))


# -- median / nanmedian / mode ---------------------------------------------------------------
def _median_values(torch, x, dim):
    """Median values, and whether the returned indices point at them: torch's index among equal values
    comes from its selection algorithm (vfw takes the first in stable sorted order)."""
    values, indices = torch.median(x, dim, keepdim=True)
    return values, bool((x.gather(dim, indices) == values).all())


@pytest.mark.parametrize("dtype", DTYPES)
def test_median_and_mode(dtype):
    x = with_ties((4, 7), dtype, seed=4)
    check(lambda torch, x, y: (torch.median(x), _median_values(torch, x, 1), _median_values(torch, x, 0),
                               torch.mode(x), x.mode(0), torch.mode(x, dim=1, keepdim=True), x.nanmedian(),
                               torch.median(y, 1), torch.nanmedian(y, 0, keepdim=True), y.median(-1, True)),
          x, distinct((4, 7), dtype))
    flags = arrays((4, 7), dtype="bool", seed=4)
    check(lambda torch, x: (torch.mode(x), x.mode(0, keepdim=True)), flags)
    check(lambda torch, x: torch.median(x), flags)  # NotImplementedError for bool


@pytest.mark.parametrize("seed", range(6))
def test_median_mode_ties_random(seed):
    x = arrays((5, 9), dtype="int64", seed=seed, low=0, high=3)
    check(lambda torch, x: (_median_values(torch, x, 1), _median_values(torch, x, 0), x.mode(1), x.mode(0),
                            x.median(), x.double().median()), x)


def test_median_nan_handling():
    x = np.array([[2.0, NAN, 1.0, NAN, 3.0], [NAN, NAN, NAN, NAN, NAN], [4.0, 1.0, 3.0, 2.0, 0.0],
                  [1.0, NAN, 7.0, 6.0, 5.0]], np.float32)
    check(lambda torch, x: (torch.median(x, 1), torch.nanmedian(x, 1), torch.median(x), torch.nanmedian(x),
                            torch.nanmedian(x[2:]), torch.mode(x, 1), torch.median(x[2], 0)), x)


@pytest.mark.parametrize("fn", [
    lambda torch, x: (torch.median(torch.tensor(2.0), 0), torch.mode(torch.tensor(3)), torch.median(torch.tensor(1.0))),
    lambda torch, x: (torch.median(torch.zeros(0)), torch.nanmedian(torch.zeros(0)),
                      torch.median(torch.zeros(0, 3), 1), torch.mode(torch.zeros(0, 3), 1)),
    lambda torch, x: torch.median(torch.zeros(3, 0), 1),
    lambda torch, x: torch.mode(torch.zeros(3, 0), 1),
    # (torch.median of an empty integer tensor returns an arbitrary value: left out)
    lambda torch, x: torch.median(x, keepdim=True),
    lambda torch, x: torch.median(x, 2),
    lambda torch, x: torch.median(x, 1, out=(torch.empty(0), torch.empty(0, dtype=torch.int64))),
    lambda torch, x: torch.median(x, out=torch.empty(0)),
    lambda torch, x: torch.mode(x, 0, out=(torch.empty(0), torch.empty(0, dtype=torch.int64))),
])
def test_median_mode_edge_cases(fn):
    check(fn, distinct((3, 4), seed=5))


# -- quantile ----------------------------------------------------------------------------------
@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_quantile(interpolation, dtype):
    x = arrays((3, 8), dtype=dtype, seed=6)
    q = np.array([0.0, 0.125, 0.3, 0.5, 0.875, 1.0], dtype)
    check(lambda torch, x, q: (torch.quantile(x, 0.3, interpolation=interpolation),
                               torch.quantile(x, q, dim=1, interpolation=interpolation),
                               torch.quantile(x, q[1], 0, keepdim=True, interpolation=interpolation),
                               x.quantile(q, keepdim=True, interpolation=interpolation),
                               torch.nanquantile(x, q, 1, interpolation=interpolation)), x, q)


def test_nanquantile_and_nan_rows():
    x = np.array([[1.0, NAN, 4.0, 8.0, 2.0], [NAN, NAN, NAN, NAN, NAN], [3.0, 1.0, 2.0, 5.0, 4.0]], np.float32)
    q = np.array([0.1, 0.5, 0.9], np.float32)
    for mode in ("linear", "nearest", "midpoint"):
        check(lambda torch, x, q, mode=mode: (torch.quantile(x, q, 1, interpolation=mode), torch.nanquantile(x, q, 1),
                                              torch.nanquantile(x, 0.5, interpolation=mode), torch.quantile(x, 0.25),
                                              torch.nanquantile(x, q, 0, keepdim=True)), x, q)


@pytest.mark.parametrize("fn", [
    lambda torch, x: torch.quantile(x.long(), 0.5),
    lambda torch, x: torch.quantile(x.half(), 0.5),
    lambda torch, x: torch.quantile(x, 1.5),
    lambda torch, x: torch.quantile(x, torch.tensor([0.5, 2.0])),
    lambda torch, x: torch.quantile(x, torch.tensor([[0.5]])),
    lambda torch, x: torch.quantile(x, torch.tensor(0.5, dtype=torch.float64)),
    lambda torch, x: torch.quantile(x, 0.5, interpolation="foo"),
    lambda torch, x: torch.quantile(torch.zeros(0), 0.5),
    lambda torch, x: torch.quantile(x, 0.5, dim=2),
    lambda torch, x: (torch.quantile(x, 1), torch.quantile(torch.tensor(2.0), 0.3, dim=0, keepdim=True),
                      torch.quantile(x, torch.tensor([]), 1), torch.quantile(x, torch.tensor(0.25), 0)),
    lambda torch, x: torch.quantile(x, 0.5, 1, out=torch.empty(0)),
])
def test_quantile_edge_cases(fn):
    check(fn, arrays((3, 4), seed=7))


# -- gradients ---------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda torch, x: (torch.sort(x)[0], torch.sort(x, 0, descending=True)[0], torch.msort(x)),
    lambda torch, x: (torch.topk(x, 2)[0], torch.topk(x, 2, 0, largest=False)[0], torch.kthvalue(x, 3)[0],
                      torch.kthvalue(x, 2, 0, keepdim=True)[0]),
    lambda torch, x: (torch.median(x), torch.median(x, 1)[0], torch.nanmedian(x, 0, True)[0], torch.mode(x, 1)[0]),
    lambda torch, x: (torch.quantile(x, 0.3), torch.quantile(x, torch.tensor([0.2, 0.9]), 1),
                      torch.nanquantile(x, 0.5, 0, interpolation="midpoint"),
                      torch.quantile(x, 0.7, 1, interpolation="nearest")),
])
def test_gradients(fn):
    check_grad(fn, distinct((4, 5), seed=8) / 3)


def test_gradients_at_ties():
    x = np.array([[1.0, 2.0, 2.0, 3.0], [2.0, 2.0, 2.0, 2.0], [5.0, 1.0, 5.0, 0.0]], np.float32)
    check_grad(lambda torch, x: (torch.median(x), torch.median(x[0]), torch.nanmedian(x), torch.mode(x, 1)[0],
                                 torch.sort(x, dim=1, stable=True)[0]), x)


# -- unique ------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "int64", "int32", "uint8", "bool", "float16"])
def test_unique(dtype):
    x = with_ties((4, 6), dtype, seed=9) if dtype != "bool" else arrays((4, 6), dtype="bool", seed=9)
    check(lambda torch, x: (torch.unique(x), torch.unique(x, return_inverse=True),
                            torch.unique(x, return_counts=True), x.unique(sorted=False, return_inverse=True,
                                                                          return_counts=True),
                            torch.unique(x, dim=0, return_inverse=True, return_counts=True),
                            torch.unique(x > 0, dim=1, return_counts=True),
                            torch.unique_consecutive(x, return_inverse=True, return_counts=True),
                            x.unique_consecutive(dim=1), torch.unique_consecutive(x[0])), x)


def test_unique_details():
    x = np.array([[1.0, NAN, 2.0], [NAN, 1.0, 1.0], [1.0, NAN, 2.0]], np.float32)
    check(lambda torch, x: (torch.unique(x), torch.unique(x, return_inverse=True, return_counts=True),
                            torch.unique_consecutive(torch.tensor([NAN, NAN, 1.0])),
                            torch.unique(torch.tensor(3), return_inverse=True),
                            torch.unique_consecutive(torch.tensor(1), return_inverse=True, return_counts=True),
                            torch.unique(torch.zeros(0), return_inverse=True, return_counts=True),
                            torch.unique_consecutive(torch.zeros(0), return_inverse=True, return_counts=True),
                            torch.unique(torch.tensor([[1, 2], [1, 2]]), dim=-1, return_inverse=True),
                            torch.unique(torch.tensor([[3, 1], [2, 1], [3, 1]]), dim=0, return_inverse=True)), x)
    check(lambda torch, x: torch.unique(torch.tensor(1), dim=0), x)
    check(lambda torch, x: torch.unique(x, dim=2), x)


# -- searching ---------------------------------------------------------------------------------
@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
def test_searchsorted(side, dtype):
    seq = np.sort(with_ties((12,), dtype, seed=10) * 2)
    rows = np.sort(with_ties((3, 7), dtype, seed=11) * 2, axis=1)
    vals = with_ties((3, 5), dtype, seed=12) * 3
    right = side == "right"
    check(lambda torch, s, r, v: (torch.searchsorted(s, v, side=side), torch.searchsorted(s, v, right=right),
                                  torch.searchsorted(r, v, side=side), torch.searchsorted(r, v, out_int32=True),
                                  torch.searchsorted(s, v[0], right=right), torch.searchsorted(s, 1, side=side),
                                  torch.bucketize(v, s, right=right), torch.bucketize(v, s, out_int32=True),
                                  torch.bucketize(2, s, right=right), torch.searchsorted(r[:, :0], v, side=side)),
          seq, rows, vals)


def test_searchsorted_details():
    s = np.array([[7.0, 1.0, 5.0, 3.0], [8.0, 2.0, 6.0, 4.0]], np.float32)
    sorter = np.argsort(s, axis=1)
    check(lambda torch, s, srt: (torch.searchsorted(s, torch.tensor([[3.0, 4.0], [5.0, 9.0]]), sorter=srt),
                                 torch.searchsorted(s[0].long(), torch.tensor([1.5, 7.5])),
                                 torch.searchsorted(torch.tensor([1.0, 3.0]), torch.tensor([2, 3])),
                                 torch.searchsorted(torch.tensor([1, 3]), 2.5),
                                 torch.bucketize(torch.tensor([1.5]), torch.tensor([1, 2])),
                                 torch.searchsorted(torch.tensor([1, 3]), torch.tensor([[2]]),
                                                    out=torch.empty(0, dtype=torch.int64))), s, sorter)
    for fn in [lambda torch, s: torch.searchsorted(torch.tensor(1), torch.tensor([1])),
               lambda torch, s: torch.searchsorted(s, torch.tensor([[1.0], [2.0], [3.0]])),
               lambda torch, s: torch.searchsorted(s, torch.tensor([1.0]), right=True, side="left"),
               lambda torch, s: torch.searchsorted(s, torch.tensor([1.0]), side="foo"),
               lambda torch, s: torch.searchsorted(torch.tensor([False, True]), torch.tensor([True])),
               lambda torch, s: torch.bucketize(torch.tensor([1]), torch.tensor([[1, 2]]))]:
        check(fn, s)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(0, 8), m=st.integers(1, 6), rows=st.integers(1, 3), seed=st.integers(0, 10**6),
       right=st.booleans())
def test_searchsorted_batched_hypothesis(n, m, rows, seed, right):
    rng = np.random.default_rng(seed)
    seq = np.sort(rng.integers(-4, 5, (rows, n)), axis=1)
    vals = rng.integers(-5, 6, (rows, m))
    check(lambda torch, s, v: torch.searchsorted(s, v, right=right), seq, vals)


# -- counting ----------------------------------------------------------------------------------
def test_bincount():
    x = np.array([1, 1, 3, 0, 7, 3, 3], np.int64)
    w = arrays((7,), seed=13)
    check(lambda torch, x, w: (torch.bincount(x), x.bincount(minlength=10), torch.bincount(x, w),
                               torch.bincount(x, w.double()), torch.bincount(x, x), torch.bincount(x, w.half()),
                               torch.bincount(x.int()), torch.bincount(x.byte()),
                               torch.bincount(torch.tensor([], dtype=torch.int64)),
                               torch.bincount(torch.tensor([], dtype=torch.int64), minlength=3)), x, w)
    for fn in [lambda torch, x, w: torch.bincount(torch.tensor([1, -1])),
               lambda torch, x, w: torch.bincount(x.reshape(7, 1)),
               lambda torch, x, w: torch.bincount(w),
               lambda torch, x, w: torch.bincount(x > 2),
               lambda torch, x, w: torch.bincount(x, w[:3]),
               lambda torch, x, w: torch.bincount(x, minlength=-1)]:
        check(fn, x, w)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_histc(dtype):
    x = arrays((40,), dtype=dtype, seed=14, low=-3, high=3)
    check(lambda torch, x: (torch.histc(x), torch.histc(x, bins=7), torch.histc(x, 5, -1, 1), x.histc(4, min=0, max=3),
                            torch.histc(x.reshape(4, 10), bins=3), torch.histc(torch.ones(2, dtype=x.dtype), 4),
                            torch.histc(torch.zeros(0, dtype=x.dtype), 3)), x)
    edges = np.array([0.3, 0.6, 0.9, 0.1, 0.7, 1.0, 5.0, 2.0], dtype)
    check(lambda torch, x: (torch.histc(x, 3, 0.1, 0.7), torch.histc(x, 8, 1, 5), torch.histc(x, 6)), edges)
    for fn in [lambda torch, x: torch.histc(x.long(), 3), lambda torch, x: torch.histc(x, 0),
               lambda torch, x: torch.histc(x, 3, 3, 1), lambda torch, x: torch.histc(torch.tensor([NAN, 1.0]), 2),
               lambda torch, x: torch.histc(torch.tensor([INF, 1.0]), 2),
               lambda torch, x: torch.histc(x, 3, 0, 2, out=torch.empty(0, dtype=x.dtype))]:
        check(fn, x)


def test_bfloat16():
    x = distinct((3, 6), seed=15) / 4
    x[1, 2] = NAN
    check(lambda torch, x: [f(x.bfloat16()) for f in (
        lambda b: b.sort(1), lambda b: b.sort(0, True), lambda b: b.argsort(), lambda b: b.topk(2),
        lambda b: b.kthvalue(3), lambda b: b.median(1), lambda b: b.nanmedian(), lambda b: b.mode(1),
        lambda b: b.unique(return_counts=True), lambda b: torch.searchsorted(b.sort().values, b),
        lambda b: b[0].histc(4), lambda b: torch.msort(b))], x)


def test_numpy_style_keywords():
    x = distinct((3, 4), seed=16)
    check(lambda torch, x: (torch.sort(x, axis=0), x.argsort(axis=0), torch.topk(x, 2, axis=0),
                            torch.kthvalue(x, 2, axis=0, keepdims=True), torch.median(x, axis=1),
                            x.nanmedian(axis=0, keepdims=True), torch.mode(x, axis=0),
                            torch.quantile(x, 0.5, axis=1, keepdims=True), x.nanquantile(0.3, axis=0)), x)
    for fn in [lambda torch, x: torch.sort(x, keepdims=True), lambda torch, x: torch.topk(x, 1, keepdims=True),
               lambda torch, x: torch.unique(x, axis=0), lambda torch, x: torch.median(x, foo=1)]:
        check(fn, x)


def test_searchsorted_nan_in_sequence():
    # NaN in the sequence: torch's binary search treats it as smaller than every value.
    rng = np.random.default_rng(17)
    for n in (1, 2, 5, 8, 13):
        seq = np.sort(rng.uniform(-2, 2, (3, n)).astype(np.float32), axis=1)
        seq[rng.random((3, n)) < 0.3] = NAN
        vals = np.concatenate([rng.uniform(-3, 3, (3, 6)), np.full((3, 1), NAN)], axis=1).astype(np.float32)
        check(lambda torch, s, v: (torch.searchsorted(s, v), torch.searchsorted(s, v, right=True),
                                   torch.searchsorted(s[0], v), torch.bucketize(v, s[1], right=True),
                                   torch.bucketize(v, s[2])), seq, vals)
