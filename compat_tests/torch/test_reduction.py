"""vfw.torch reductions and scans against real torch: sum/mean/prod, max/min (all overloads), amax/amin,
argmax/argmin, aminmax, std/var, logsumexp, norm, all/any, count_nonzero, cumsum/cumprod, cummax/cummin,
logcumsumexp, diff, and torch.return_types."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compat_tests.torch import harness
from compat_tests.torch.harness import arrays, real, vt

NAN, INF = float("nan"), float("inf")
# (shape, dims to reduce over) pairs: 0-d, vectors, matrices, 3-d, and empty tensors.
SHAPE_DIMS = [((), [None, 0, -1]), ((5,), [None, 0, -1]), ((3, 4), [None, 0, 1, -1, (0, 1), (-1, 0)]),
              ((2, 3, 4), [None, 1, -3, (0, 2), [2, 1, 0], ()]), ((0, 3), [None, 0, 1]), ((2, 0), [1, (0, 1)])]
CASES = [(shape, dim) for shape, dims in SHAPE_DIMS for dim in dims]
DTYPES = ["float32", "float64", "int64", "int32", "bool", "float16", "uint8", "int16"]


def plain(result):
    """``result`` with torch.return_types objects as dicts of their fields (and type name).

    The harness compares plain tuples, lists and dicts; a return type is a tuple subclass
    whose type name it would compare as a value.
    """
    if isinstance(result, tuple) and hasattr(type(result), "n_fields"):
        return {"type": type(result).__name__, **{k: plain(v) for k, v in zip(type(result).__match_args__, result)}}
    if isinstance(result, (list, tuple)):
        return type(result)(plain(v) for v in result)
    return result


def flat(result):
    """The tensors of a (nested) result as one flat tuple, for ``check_grad``."""
    if isinstance(result, (list, tuple)):
        return tuple(t for v in result for t in flat(v))
    return (result,)


def check(fn, *args, **kwargs):
    return harness.check(lambda torch, *a: plain(fn(torch, *a)), *args, **kwargs)


def check_grad(fn, *args, **kwargs):
    return harness.check_grad(lambda torch, *a: flat(fn(torch, *a)), *args, **kwargs)


def _data(shape, dtype, seed=0):
    return arrays(shape, dtype=dtype, seed=seed, low=-3, high=3)


# -- sums, means, products -------------------------------------------------------------
@pytest.mark.parametrize("shape,dim", CASES)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("fn", ["sum", "nansum", "mean", "amax", "amin", "logsumexp", "count_nonzero"])
def test_reductions_over_dims(shape, dim, keepdim, fn):
    x = _data(shape, "float32")
    if fn == "count_nonzero":
        check(lambda torch, x: torch.count_nonzero(x, dim=dim), np.asarray(np.round(x), np.float32))
    elif fn == "logsumexp" and (dim is None or dim == ()):
        # dim is required; () reduces all (torch raises a shape error for () without keepdim: a torch bug)
        check(lambda torch, x: torch.logsumexp(x, (), keepdim=True), x)
    elif dim is None and fn in ("amax", "amin"):
        check(lambda torch, x: (getattr(x, fn)(), getattr(torch, fn)(x, keepdim=keepdim)), x)
    else:
        check(lambda torch, x: getattr(torch, fn)(x, dim, keepdim=keepdim), x)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn", [
    lambda torch, x: torch.sum(x), lambda torch, x: x.sum(1), lambda torch, x: x.sum((0, 1), keepdim=True),
    lambda torch, x: torch.sum(x, dim=0, dtype=torch.float64), lambda torch, x: torch.sum(x, dtype=torch.int8),
    lambda torch, x: torch.nansum(x, 1), lambda torch, x: torch.prod(x), lambda torch, x: x.prod(1, keepdim=True),
    lambda torch, x: torch.prod(x, 0, dtype=torch.int32), lambda torch, x: x.mean(), lambda torch, x: x.mean(0),
    lambda torch, x: x.mean(1, dtype=torch.float64), lambda torch, x: x.mean(dtype=torch.int64),
    lambda torch, x: x.nanmean(1), lambda torch, x: x.amax(1), lambda torch, x: x.amin((0, 1)),
    lambda torch, x: x.max(), lambda torch, x: x.min(), lambda torch, x: torch.logsumexp(x, 1),
    lambda torch, x: torch.count_nonzero(x), lambda torch, x: x.count_nonzero(1),
    lambda torch, x: (x.all(), x.any(), x.all(1), x.any(0, keepdim=True), torch.all(x, (0, 1))),
])
def test_reductions_dtypes(dtype, fn):
    check(fn, _data((3, 4), dtype, seed=1))


def test_sum_and_mean_details():
    x = _data((2, 3, 4), "float32")
    check(lambda torch, x: (x.sum(dim=[0, 2]), torch.sum(x, -1, True), torch.sum(input=x, dim=1),
                            x.sum(None, keepdim=True), torch.sum(x, ())), x)
    check(lambda torch, x: torch.sum(x, 3), x)  # dim out of range: IndexError
    check(lambda torch, x: torch.sum(x, (0, 0)), x)  # repeated dim: RuntimeError
    check(lambda torch, x: torch.sum(x, "a"), x)
    check(lambda torch, x: torch.sum(x, 1.5), x)
    check(lambda torch, x: torch.mean(x.long()), x)  # integer mean: RuntimeError
    check(lambda torch, x: torch.mean(x.bool(), 1), x)
    check(lambda torch, x: torch.nanmean(x.long()), x)
    check(lambda torch, x: torch.prod(x, (0, 1)), x)  # prod takes one dim: TypeError
    check(lambda torch, x: torch.prod(x, None), x)
    check(lambda torch, x: torch.tensor(2.0).sum(1), x)
    check(lambda torch, x: (torch.tensor(2.0).sum(0), torch.tensor(2.0).mean(-1, keepdim=True)), x)
    check(lambda torch, x: (torch.zeros(0, 3).sum(0), torch.zeros(0, 3).mean(0), torch.zeros(0, 3).prod(0),
                            torch.zeros(0, 3, dtype=torch.int32).prod(1)), x)
    check(lambda torch, x: torch.sum([1, 2]), x)


def test_nan_reductions():
    x = np.array([[1.0, NAN, 3.0], [NAN, NAN, NAN], [2.0, -1.0, 0.5]], np.float32)
    check(lambda torch, x: (x.sum(1), x.nansum(1), x.nanmean(1), x.nanmean(), x.mean(0), x.amax(1), x.max(),
                            x.min(1), x.argmax(1), x.argmin(), x.logsumexp(1), torch.nansum(x, dtype=torch.float64),
                            x.cummax(1), x.cummin(0), x.cumsum(1), x.cumprod(0), x.count_nonzero(), x.all(),
                            x.prod(1)), x)


def test_out_arguments():
    x = _data((3, 4), "float32")

    def fn(torch, x):
        res = []
        for name in ("sum", "mean", "amax", "amin", "logsumexp", "std", "var", "all", "any", "nansum", "cumsum",
                     "cumprod", "prod", "logcumsumexp"):
            o = torch.empty(0, dtype=torch.bool if name in ("all", "any") else torch.float32)
            r = getattr(torch, name)(x, 1, out=o)
            res += [r is o, o]
        vals, idx = torch.empty(0), torch.empty(0, dtype=torch.int64)
        r = torch.max(x, 1, out=(vals, idx))
        res += [r.values is vals, vals, idx, type(r).__name__, torch.argmax(x, out=torch.empty(0, dtype=torch.long))]
        r = torch.cummax(x, 1, out=(torch.empty(0), torch.empty(0, dtype=torch.int64)))
        res += [r, type(r).__name__, torch.aminmax(x, dim=0, out=(torch.empty(0), torch.empty(0))),
                torch.norm(x, out=torch.empty(0)), torch.max(x, x + 1, out=torch.empty(0))]
        return res
    check(fn, x)
    check(lambda torch, x: torch.sum(x, 1, out=torch.empty(0, dtype=torch.int64)), x)  # can't cast Float to Long


# -- max / min ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "int16", "uint8", "bool", "float16"])
@pytest.mark.parametrize("fn", [
    lambda torch, x, y: torch.max(x), lambda torch, x, y: torch.max(x, 1), lambda torch, x, y: torch.min(x, 0, True),
    lambda torch, x, y: x.max(dim=-1, keepdim=True), lambda torch, x, y: x.min(dim=0),
    lambda torch, x, y: torch.max(x, y), lambda torch, x, y: torch.min(x, other=y), lambda torch, x, y: x.max(y[0]),
    lambda torch, x, y: (torch.argmax(x), torch.argmin(x, 1), torch.argmax(x, 0, keepdim=True),
                         x.argmin(keepdim=True)),
    lambda torch, x, y: (torch.aminmax(x), torch.aminmax(x, dim=1), torch.aminmax(x, dim=0, keepdim=True)),
    lambda torch, x, y: (x.amax((0, 1)), x.amin(1, keepdim=True), torch.amax(x, dim=-1)),
])
def test_max_min_overloads(dtype, fn):
    check(fn, *arrays((4, 5), (4, 5), dtype=dtype, seed=2, low=-3, high=3))


def test_max_min_ties_nan_and_errors():
    ties = np.array([[1, 3, 3, 1], [2, 2, 0, 2]], np.float32)
    check(lambda torch, x: (torch.max(x, 1), torch.min(x, 1), x.argmax(1), x.argmin(0), x.argmax()), ties)
    nans = np.array([[1, NAN, 3, NAN], [NAN, 0, 0, 1]], np.float32)
    check(lambda torch, x: (torch.max(x, 1), torch.min(x, 0), x.argmax(1), x.argmin(1), x.max(), x.amin(0),
                            torch.max(x, x[:, :1]), torch.min(x[:1], x)), nans)
    x = _data((2, 3), "float32")
    for fn in [lambda torch, x: torch.max(torch.zeros(0)), lambda torch, x: torch.max(torch.zeros(0, 3), 0),
               lambda torch, x: torch.max(torch.zeros(0, 3), 1), lambda torch, x: torch.amax(torch.zeros(0, 3), 0),
               lambda torch, x: torch.amax(torch.zeros(0, 3), 1), lambda torch, x: torch.amax(torch.zeros(0)),
               lambda torch, x: torch.argmax(torch.zeros(0, 3)), lambda torch, x: torch.argmax(torch.zeros(0, 3), 1),
               lambda torch, x: torch.argmin(torch.zeros(0, 3), 0), lambda torch, x: torch.aminmax(torch.zeros(0)),
               lambda torch, x: torch.aminmax(torch.zeros(2, 0), dim=1), lambda torch, x: torch.max(x, 2),
               lambda torch, x: torch.max(x, None), lambda torch, x: torch.argmax(x.bool()),
               lambda torch, x: torch.max(x, keepdim=True), lambda torch, x: torch.min(x, dim=None),
               lambda torch, x: torch.min(torch.tensor(3.0), 0), lambda torch, x: torch.max(torch.tensor(3), -1, True),
               lambda torch, x: torch.argmax(torch.tensor(2.0)), lambda torch, x: torch.amax(x, (1, 1)),
               lambda torch, x: torch.max(x, torch.ones(3, dtype=torch.int64)), lambda torch, x: torch.max(x, 1.5)]:
        check(fn, x)


# -- std / var -------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda torch, x: (torch.var(x), torch.std(x), x.var(1), x.std(0, keepdim=True)),
    lambda torch, x: (torch.var(x, 1, True), torch.var(x, 1, False, True), torch.std(x, False), x.var(True)),
    lambda torch, x: (torch.var(x, dim=(0, 2), unbiased=False), torch.std(x, dim=[1], correction=0),
                      torch.var(x, correction=2.5), torch.std(x, 2, correction=0, keepdim=True), torch.var(x, ())),
    lambda torch, x: (torch.var_mean(x), torch.std_mean(x, 1), torch.var_mean(x, (0, 1), keepdim=True),
                      torch.std_mean(x, 1, False), torch.var_mean(x, dim=None, correction=0)),
    lambda torch, x: (torch.var(x[:, :1], 1), torch.std(x[:1, :1, :1]), torch.var(x, 1, correction=5)),
    lambda torch, x: (torch.var(torch.zeros(0)), torch.std(torch.zeros(2, 0), 1), torch.var(torch.tensor(2.0), 0)),
    lambda torch, x: (torch.std(x.half(), 1), torch.var(x.double(), 0)),
    lambda torch, x: torch.var(x.long()),
    lambda torch, x: torch.var(x, 1, unbiased=False, correction=0),
    lambda torch, x: torch.std(x, 3),
])
def test_std_var(fn):
    check(fn, _data((2, 3, 4), "float32", seed=3))


# -- logsumexp / norm ---------------------------------------------------------------------
def test_logsumexp():
    x = _data((3, 4), "float32", seed=4) * 30
    check(lambda torch, x: (torch.logsumexp(x, 1), x.logsumexp(0, keepdim=True), torch.logsumexp(x, (0, 1)),
                            torch.logsumexp(x.long(), 1), torch.logsumexp(x.bool(), 0), torch.logsumexp(x.half(), 1)),
          x)
    special = np.array([[-INF, -INF], [INF, 1.0], [INF, INF], [NAN, 1.0]], np.float32)
    check(lambda torch, x: (torch.logsumexp(x, 1), torch.logsumexp(torch.zeros(0, 3), 0)), special)
    check(lambda torch, x: torch.logsumexp(x), x)


@pytest.mark.parametrize("p", ["fro", 1, 2, 3, 0.5, 0, INF, -INF, -1, -2.5, None])
@pytest.mark.parametrize("dim", [None, 1, (0, 1), -1])
def test_norm(p, dim):
    x = _data((3, 4), "float32", seed=5)
    x[0, 1] = 0
    if p is None:
        check(lambda torch, x: (torch.norm(x, dim=dim), x.norm(dim=dim, keepdim=True)), x)
    else:
        check(lambda torch, x: (torch.norm(x, p, dim), x.norm(p=p, dim=dim, keepdim=True),
                                torch.norm(x.double(), p, dim)), x)


def test_norm_details():
    x = _data((2, 3, 4), "float32", seed=6)
    for fn in [lambda torch, x: torch.norm(x.half()), lambda torch, x: torch.norm(x, dtype=torch.float64),
               lambda torch, x: torch.norm(x, 2, (0, 1, 2)), lambda torch, x: torch.norm(x, "fro", (0, 1, 2)),
               lambda torch, x: torch.norm(x, "abc"), lambda torch, x: torch.norm(x.long()),
               lambda torch, x: torch.norm(x.bool()), lambda torch, x: torch.norm(x, dtype=torch.float16),
               lambda torch, x: torch.norm(x, dtype=torch.int64), lambda torch, x: torch.norm(torch.zeros(0)),
               lambda torch, x: torch.norm(torch.zeros(0), INF), lambda torch, x: torch.norm(x, "fro", ()),
               lambda torch, x: x.norm(1), lambda torch, x: torch.norm(x, 2, 3),
               lambda torch, x: (torch.norm(x, "nuc", (1, 2)), torch.norm(x[0], "nuc", keepdim=True)),
               lambda torch, x: torch.norm(x, "nuc"), lambda torch, x: torch.norm(x, "nuc", 1),
               lambda torch, x: torch.norm(x, "fro", (0, 1), True)]:
        check(fn, x)


# -- logical -------------------------------------------------------------------------------
def test_all_any():
    x = np.array([[0, 1, 2], [3, 0, 0]], np.float32)
    for dtype in ["float32", "int64", "uint8", "bool", "int8", "float16"]:
        check(lambda torch, x: (torch.all(x), torch.any(x), x.all(1), x.any(0), torch.all(x, 1, keepdim=True),
                                torch.any(x, (0, 1)), torch.all(x, keepdim=True), torch.any(x, dim=-1),
                                torch.count_nonzero(x, (0, 1)), torch.count_nonzero(x, 0)), x.astype(dtype))
    check(lambda torch, x: (torch.all(torch.zeros(0, 2)), torch.any(torch.zeros(0, 2), 0),
                            torch.all(torch.tensor(NAN)), torch.any(torch.tensor(0.0), 0)), x)
    check(lambda torch, x: torch.count_nonzero(x, (0, 0)), x)
    check(lambda torch, x: torch.all(x, 2), x)


# -- scans ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool", "float16", "uint8"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_scans(dtype, dim):
    x = _data((3, 4), dtype, seed=7)
    check(lambda torch, x: (torch.cumsum(x, dim), x.cumprod(dim), torch.cummax(x, dim), x.cummin(dim=dim),
                            torch.cumsum(x, dim, dtype=torch.float64), torch.cumprod(x, dim=dim, dtype=torch.int32)),
          x)
    if dtype.startswith("float"):
        check(lambda torch, x: torch.logcumsumexp(x * 20, dim), x)


def test_scan_details():
    x = np.array([[1, 3, 3, 2, 3], [5, -1, -1, 7, 7]], np.float32)
    check(lambda torch, x: (torch.cummax(x, 1), torch.cummin(x, 1), torch.cummax(x, 0)), x)
    for fn in [lambda torch, x: torch.cumsum(x), lambda torch, x: torch.cumsum(x, 2),
               lambda torch, x: torch.logcumsumexp(x.long(), 1), lambda torch, x: torch.cummax(x, 5),
               lambda torch, x: (torch.cumsum(torch.tensor(3.0), 0), torch.cummax(torch.tensor(3.0), 0),
                                 torch.cumprod(torch.tensor(2), -1), torch.logcumsumexp(torch.tensor(1.0), 0)),
               lambda torch, x: (torch.cumsum(torch.zeros(0, 2), 0), torch.cummin(torch.zeros(2, 0), 1),
                                 torch.cumprod(torch.zeros(0), 0)),
               lambda torch, x: torch.cumprod(torch.tensor([100, 100, 100], dtype=torch.int8), 0, dtype=torch.int8),
               lambda torch, x: torch.logcumsumexp(torch.tensor([-INF, -INF, 1, INF, NAN, 2.0]), 0),
               lambda torch, x: torch.logcumsumexp(torch.tensor([-1000.0, 0.0, 1.0]), 0)]:
        check(fn, x)

    def inplace(torch, x):
        y = x.clone()
        r = y.cumsum_(1)
        z = x.clone()
        z.cumprod_(0, dtype=torch.float64)
        return r is y, y, z
    check(inplace, x)


@pytest.mark.parametrize("fn", [
    lambda torch, x: (torch.diff(x), torch.diff(x, dim=0), torch.diff(x, n=2, dim=1), x.diff(3), x.diff(0)),
    lambda torch, x: (torch.diff(x, n=9), torch.diff(x, prepend=x[:, :2]), torch.diff(x, 1, 0, x[:1], x[-2:])),
    lambda torch, x: (torch.diff(x.long(), append=x[:, :1].double()), torch.diff(x > 0, dim=0),
                      torch.diff(x.int(), 2, 1, prepend=torch.zeros(3, 1, dtype=torch.int64))),
    lambda torch, x: torch.diff(torch.tensor(1.0)),
    lambda torch, x: torch.diff(x, prepend=3),
    lambda torch, x: torch.diff(x, prepend=torch.zeros(3)),
    lambda torch, x: torch.diff(x, dim=1, prepend=torch.zeros(2, 1)),
    lambda torch, x: torch.diff(x, -1),
])
def test_diff(fn):
    check(fn, _data((3, 4), "float32", seed=8))


# -- gradients -----------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda torch, x: (x.sum(), x.sum(1), x.sum((0, 1), keepdim=True), x.nansum(0)),
    lambda torch, x: (x.mean(), x.mean(1, keepdim=True), x.nanmean(0)),
    lambda torch, x: (x.prod(), x.prod(1), x.prod(0, keepdim=True)),
    lambda torch, x: (torch.max(x), torch.min(x, 1), torch.max(x, 0, keepdim=True), torch.max(x, x[:1] * 0.5)),
    lambda torch, x: (x.amax(), x.amin(1), x.amax((0, 1), keepdim=True), torch.aminmax(x, dim=0)),
    lambda torch, x: (x.std(), x.var(1), x.std(0, keepdim=True), torch.var(x, correction=0),
                      torch.std_mean(x, 1), torch.var_mean(x, 0, keepdim=True)),
    lambda torch, x: (torch.logsumexp(x, 1), torch.logsumexp(x, (0, 1))),
    lambda torch, x: (x.norm(), x.norm(1, 1), x.norm(3), x.norm(0.5, 0), x.norm(INF, 1), x.norm(-INF),
                      x.norm(-1.5, 1), x.norm(0)),
    lambda torch, x: (x.cumsum(1), x.cumprod(0), x.cumprod(1), torch.cummax(x, 1), x.cummin(0)),
    lambda torch, x: (torch.logcumsumexp(x, 1), torch.logcumsumexp(x * 50, 0)),
    lambda torch, x: (x.diff(), x.diff(2, 0), torch.diff(x, prepend=x[:, :1] * 2)),
])
def test_gradients(fn):
    check_grad(fn, _data((3, 4), "float32", seed=9))


def test_gradients_at_ties_and_zeros():
    ties = np.array([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], np.float32)
    check_grad(lambda torch, x: (x.max(), x.amax(1), torch.max(x, 1), x.min(), torch.min(x, 1, True),
                                 torch.amin(x, 0), torch.max(x, x[:, 1:2]), torch.norm(x, INF)), ties)
    zeros = np.array([[2.0, 0.0, 3.0, 0.0, 4.0], [0.0, 1.5, -2.0, 0.5, 3.0], [1.0, 0.0, 2.0, 0.5, 1.0]], np.float32)
    check_grad(lambda torch, x: (x.prod(1), x.prod(), x.cumprod(1), x.cumprod(0), x.norm(), x.norm(3, 1),
                                 x.norm(0.5), x.norm(1)), zeros)
    constant = np.ones((2, 3), np.float32)
    check_grad(lambda torch, x: (x.std(1), x.std(), torch.norm(x - 1)), constant)
    check_grad(lambda torch, x: (x.sum(), x.mean(0)), np.ones((0, 3), np.float32))
    check_grad(lambda torch, x: (x.sum(), x.max(), x.cumprod(0), x.std(0), x.logcumsumexp(0)),
               np.array(1.5, np.float32))


@settings(max_examples=25, deadline=None)
@given(shape=st.lists(st.integers(0, 4), min_size=0, max_size=3), seed=st.integers(0, 1000),
       keepdim=st.booleans(), data=st.data())
def test_reductions_hypothesis(shape, seed, keepdim, data):
    x = _data(tuple(shape), "float64", seed=seed)
    ndim = len(shape)
    dims = data.draw(st.lists(st.integers(-max(ndim, 1), max(ndim, 1) - 1), max_size=max(ndim, 1), unique=True))
    dims = tuple(d for d in dims if d % max(ndim, 1) not in {e % max(ndim, 1) for e in dims if e != d})
    check(lambda torch, x: (x.sum(dims, keepdim), torch.mean(x, dims, keepdim), torch.nansum(x, dims, keepdim),
                            torch.count_nonzero(x, dims), torch.all(x, dims, keepdim) if dims else torch.all(x),
                            torch.logsumexp(x, dims, keepdim) if dims else None), x)
    if shape and shape[0]:
        check(lambda torch, x: (torch.max(x, 0, keepdim), torch.cumsum(x, 0), torch.cummin(x, 0),
                                torch.var(x, 0), torch.cumprod(x, 0)), x)


# -- return types --------------------------------------------------------------------------
def test_return_types_behave_like_torch():
    x = _data((2, 3), "float32")

    def fn(torch, x):
        r = torch.max(x, 1)
        values, indices = r
        return (type(r).__name__, r.values, r.indices, r[0], values, indices, len(r), isinstance(r, tuple),
                r == (r[0], r[1]), type(r[:1]).__name__, hasattr(r, "_fields"), r.n_fields,
                torch.return_types.max((1, 2)), torch.return_types.max((1, 2)).indices, type(r.__reduce__()[1][0]),
                str(torch.return_types.topk((1, 2))), type(torch.sort(x)).__module__.endswith("return_types"))
    check(fn, x)
    check(lambda torch, x: torch.return_types.max((1, 2, 3)), x)

    def readonly(torch, x):
        torch.max(x, 1).values = 1
    check(readonly, x)
    for lib in (real, vt):
        r = lib.return_types.sort((1, 2))
        assert pickle.loads(pickle.dumps(r)) == r
        assert repr(r) == "torch.return_types.sort(\nvalues=1,\nindices=2)"
        assert repr(lib.aminmax(lib.tensor([1.0, 2.0]))).startswith("torch.return_types.aminmax(\nmin=tensor(1.)")


def test_bfloat16():
    x = _data((3, 5), "float32", seed=11)
    x[1, 2] = NAN
    check(lambda torch, x: [f(x.bfloat16()) for f in (
        lambda b: b.sum(1), lambda b: b.mean(0), lambda b: b.nansum(), lambda b: b.amax(1), lambda b: b.max(1),
        lambda b: b.argmin(0), lambda b: b.std(1), lambda b: b.var(0, keepdim=True), lambda b: b.logsumexp(1),
        lambda b: b.norm(), lambda b: b.prod(0), lambda b: b.cumsum(1), lambda b: b.cumprod(0),
        lambda b: b.cummax(1), lambda b: b.logcumsumexp(0), lambda b: b.all(1), lambda b: b.count_nonzero(0),
        lambda b: b.diff(), lambda b: torch.aminmax(b, dim=0))], x)


def test_numpy_style_keywords():
    x = _data((3, 4), "float32", seed=12)
    check(lambda torch, x: (x.sum(axis=1), torch.sum(x, axis=0, keepdims=True), x.mean(axis=(0, 1)),
                            torch.nansum(x, axis=1), x.prod(axis=0, keepdims=True), torch.max(x, axis=1),
                            x.min(axis=0, keepdims=True), x.amax(axis=1), torch.argmax(x, axis=0, keepdims=True),
                            torch.aminmax(x, axis=1), x.all(axis=1), torch.any(x, axis=0, keepdims=True),
                            torch.count_nonzero(x, axis=1), x.std(axis=1), torch.var(x, axis=0, keepdims=True),
                            torch.var_mean(x, axis=1), torch.logsumexp(x, axis=1, keepdims=True),
                            x.cumsum(axis=1), torch.cumprod(x, axis=0), torch.cummax(x, axis=1),
                            torch.logcumsumexp(x, axis=0), torch.diff(x, axis=0)), x)
    for fn in [lambda torch, x: x.sum(foo=1), lambda torch, x: torch.cumsum(x, axis=0, keepdims=True),
               lambda torch, x: torch.count_nonzero(x, axis=0, keepdims=True), lambda torch, x: torch.cumsum(x),
               lambda torch, x: torch.logsumexp(x, keepdims=True), lambda torch, x: torch.norm(x, axis=0)]:
        check(fn, x)
