"""vfw.torch indexing against real torch: x[key], x[key] = v, gather/scatter, index_*, masked_*, take/put, nonzero."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compat_tests.stable_ids import stable_id
from compat_tests.torch.harness import arrays, check, check_grad, real, vt

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # torch's deprecation notes (uint8, list keys)

X = arrays((2, 3, 4, 5))
MASK23 = arrays((2, 3), dtype="bool", seed=1)

# -- x[key] -------------------------------------------------------------------------------
KEYS = [
    0, -1, (0, 1), (slice(None), 1), (slice(1, 3),), (slice(None, None, 2), 1), (Ellipsis, 1), (None, 0),
    (0, None, Ellipsis, None), (0, 1, 2, 3), (Ellipsis,), (), (slice(1, 100), slice(-100, 2)), (slice(3, 1),),
    (slice(None), slice(1, None, 3), slice(-2, None)), (Ellipsis, Ellipsis), (0, Ellipsis, 1, Ellipsis),
    ([0, 1],), ([[0, 1], [1, 0]],), (slice(None), [0, 2]), ([-1, -2],), (slice(None), [-3]), ([],),
    (slice(None), 0, slice(None), [0, 1]), (0, slice(None), 1, [2, 3]), ([0], 1, slice(None), [2, 3]),
    ([0, 1, 1], [[0, 1]]), ([[0], [1]], [0, 1, 2]), (slice(None), [[0, 1]], [[2], [1]]),
    ([0, 1], slice(None), slice(None), [0, 1]), (slice(None), [0, 1], slice(1, 3), [0, 1]), (1, [0, 2], [1, 2]),
    (Ellipsis, [0, 1]), (Ellipsis, None, [1, 0]), (slice(None), None, [1, 0], [2, 3]),
    (True,), (slice(None), False), ([0, 1], True), ([0, 1], slice(None), True, [1, 2]), ([True, False],),
    (np.array([1, 0]),), (np.int64(1),), (np.array(1),), (slice(None), np.array([[2, 0]], np.int32)),
    # errors
    (5,), (None, 0, 7), (0, 0, 0, 0, 0), (slice(None), [0, 5]), 1.5, ([0, 1], [0, 5]), ([0, 1], slice(None), [0, 7]),
    ([0, 1, 1], [0, 1]), (slice(None), slice(None, None, -1)), (slice(None), slice(None, None, 0)), "a",
    (slice(None), [0.0]), (-3,),
]


@pytest.mark.parametrize("key", KEYS, ids=repr)
@pytest.mark.parametrize("dtype", ["float32", "int32"])
def test_getitem(key, dtype):
    check(lambda torch, x: x[key], X.astype(dtype))


@pytest.mark.parametrize("fn", [
    lambda torch, x, m: x[m],
    lambda torch, x, m: x[:, :, torch.ones(4, 5, dtype=torch.bool)],
    lambda torch, x, m: x[m, 1],
    lambda torch, x, m: x[m, [0]],
    lambda torch, x, m: x[m, :, [0]],
    lambda torch, x, m: x[:, m[0]],
    lambda torch, x, m: x[m[0, :2]],
    lambda torch, x, m: x[..., torch.zeros(4, 5, dtype=torch.bool)],
    lambda torch, x, m: x[torch.zeros(2, 3, dtype=torch.bool)],
    lambda torch, x, m: x[[[True, False, True], [False, False, True]]],
    lambda torch, x, m: x[torch.tensor(1)],
    lambda torch, x, m: x[torch.tensor(-3)],
    lambda torch, x, m: x[torch.tensor(1), 1:],
    lambda torch, x, m: x[torch.tensor([1])],
    lambda torch, x, m: x[torch.tensor([0, 1], dtype=torch.int32)],
    lambda torch, x, m: x[torch.tensor([[1, 0], [0, 0]])],
    lambda torch, x, m: x[torch.tensor([0, 1], dtype=torch.int16)],
    lambda torch, x, m: x[torch.tensor([0.0])],
    lambda torch, x, m: x[torch.tensor(True)],
    lambda torch, x, m: x[torch.tensor(False), 0],
    lambda torch, x, m: x[torch.tensor([1, 0], dtype=torch.uint8)],
    lambda torch, x, m: x[torch.tensor([1, 0, 1], dtype=torch.uint8)],
    lambda torch, x, m: x[torch.ones(3, dtype=torch.bool)],
    lambda torch, x, m: x[torch.tensor(1):],
    lambda torch, x, m: x[:, ::torch.tensor(2)],
    lambda torch, x, m: x[0, 0, 0, 0][None],
    lambda torch, x, m: x[0, 0, 0, 0][...],
    lambda torch, x, m: x[0, 0, 0, 0][0],
    lambda torch, x, m: x[0, 0, 0, 0][True],
    lambda torch, x, m: x[0, 0, 0, 0][False],
    lambda torch, x, m: x[0, 0, 0, 0][torch.tensor([0, 0])],
    lambda torch, x, m: x[0, 0, 0, 0][[0, 1]],
    lambda torch, x, m: x[:0][[]],
    lambda torch, x, m: x[:, :0, [0, 1]],
    lambda torch, x, m: x[:0][m[:0]],
    lambda torch, x, m: x[0][0][0][0],
])
def test_getitem_tensor_keys(fn):
    check(fn, X, MASK23)


def test_getitem_list_key_as_tuple():
    # torch (still) reads a list holding sequences or slices as a tuple of indices
    check(lambda torch, x: (x[[[0, 1], [1, 0]]], x[[0, slice(None)]], x[[0, 1, None]]), X)


def test_getitem_dtypes_and_empty():
    for dtype in ["float64", "float16", "int64", "bool", "uint8", "int8"]:
        check(lambda torch, x: (x[1], x[:, 1:], x[[1, 0]], x[x != 0]), arrays((3, 2), dtype=dtype))
    check(lambda torch, x: (x[0], x[:, [0, 0]], x[..., None]), arrays((0, 3)))


def test_basic_index_is_view_and_advanced_is_copy():
    def fn(torch, x):
        v = x[:, 1]
        v[0] = 100.0
        x[1, 2] = -100.0
        c = x[[0, 1]]
        c[0] = 55.0
        m = x[x > 0]
        m[0] = 77.0
        return x, v, c, x[0][None][...]
    check(fn, arrays((2, 3)))
    x = vt.from_numpy(arrays((3, 4)))
    assert x[:, 1:3]._base is x and x[0][1:]._base is x and x[0, 0]._version == x._version


RANDOM_KEYS = st.lists(st.one_of(st.integers(-4, 3), st.none(), st.just(Ellipsis), st.booleans(),
                                  st.builds(slice, st.one_of(st.none(), st.integers(-5, 5)),
                                            st.one_of(st.none(), st.integers(-5, 5)),
                                            st.one_of(st.none(), st.integers(1, 3))),
                                  st.lists(st.integers(-3, 2), min_size=1, max_size=3)), max_size=4)


def _usable(items):
    # torch mis-handles a second Ellipsis after an index (x[..., ..., 0] raises); vfw ignores it
    return items.count(Ellipsis) <= 1


@settings(max_examples=60, deadline=None)
@given(RANDOM_KEYS)
def test_getitem_random_keys(items):
    if _usable(items):
        check(lambda torch, x: x[tuple(items)], arrays((3, 4, 3)))


@settings(max_examples=30, deadline=None)
@given(RANDOM_KEYS)
def test_getitem_random_keys_grad(items):
    key = tuple(items)
    if not _usable(items):
        return
    try:
        real.zeros(3, 4, 3)[key]
    except (IndexError, ValueError):
        return  # errors are compared by test_getitem_random_keys
    check_grad(lambda torch, x: x[key], arrays((3, 4, 3)))


@settings(max_examples=40, deadline=None)
@given(RANDOM_KEYS, st.sampled_from([2.5, -1, "tensor"]))
def test_setitem_random_keys(items, value):
    def fn(torch, x):
        y = x.clone()
        y[tuple(items)] = torch.tensor(7.5) if value == "tensor" else value
        return y
    if _usable(items):
        check(fn, arrays((3, 4, 3)))


GRAD_KEYS = [0, (slice(None), 1), (slice(1, None, 2), None, Ellipsis, -1), (Ellipsis,), ([0, 1, 1],),
             (slice(None), [[2, 0], [1, 1]]), ([1, 0], slice(None), [3, 3]), ([0], 1, slice(None), [2, 0]),
             (slice(None), [0, 1], [[2], [1]]), (True,), (0, False), (slice(None), None, [1, 0], [2, 3])]


@pytest.mark.parametrize("key", GRAD_KEYS, ids=repr)
def test_getitem_grad(key):
    check_grad(lambda torch, x: x[key], arrays((2, 3, 4, 3)))


def test_getitem_grad_masks_and_tensor_keys():
    m = arrays((2, 3), dtype="bool", seed=3)
    check_grad(lambda torch, x, m: x[m], arrays((2, 3, 4)), m)
    check_grad(lambda torch, x, m: x[m, 1:3], arrays((2, 3, 4)), m)
    check_grad(lambda torch, x, m: x[:, m[0]], arrays((2, 3, 4)), m)
    check_grad(lambda torch, x, m: x[m, [0]], arrays((2, 3, 4)), m)
    check_grad(lambda torch, x: x[torch.tensor(1), torch.tensor([0, 0, 2])], arrays((2, 3, 4)))
    check_grad(lambda torch, x: x[torch.tensor(True)], arrays((2, 3)))
    check_grad(lambda torch, x: x[1][2][3], arrays((2, 3, 4)))
    check_grad(lambda torch, x: x[torch.tensor(1):, ::torch.tensor(2)], arrays((2, 3, 4)))


def test_getitem_in_traced_function():
    from vfw.core.graph.function import function

    @function
    def f(x, i):
        return x[:, 1:3], x[i], x[0, None], x[i, 1:]

    a = arrays((3, 4))
    i = np.array([2, 0])
    f(vt.from_numpy(a), vt.from_numpy(i))
    got = f(vt.from_numpy(a + 1), vt.from_numpy(i))
    t = real.from_numpy(a + 1)
    want = (t[:, 1:3], t[i], t[0, None], t[i, 1:])
    for w, g in zip(want, got):
        np.testing.assert_array_equal(g.numpy(), w.numpy())


# -- x[key] = value --------------------------------------------------------------------------------
def _assign(key, value, dtype="float32", through_view=False):
    def fn(torch, x):
        y = x.to(getattr(torch, dtype)).clone()
        v = value(torch) if callable(value) else value
        if through_view:
            y[0][key] = v
        else:
            y[key] = v
        return y
    return fn


SET_CASES = [
    (0, 5), (0, 2.7, "int64"), (0, lambda t: t.tensor([1.0, 2, 3, 4], dtype=t.float64)), (0, lambda t: t.ones(1, 4)),
    (0, lambda t: t.ones(1, 1, 4)), (0, lambda t: t.ones(2, 4)), ((slice(None), 0), [7, 8, 9]),
    ([True, False, True], -1), ((np.array([[0, 0]]),), lambda t: t.tensor([[1.0, 2, 3, 4], [5, 6, 7, 8]])),
    ((np.array([0, 2]), np.array([1, 3])), lambda t: t.tensor([10.0, 20])), (Ellipsis, 1),
    (None, lambda t: t.zeros(3, 4)), (5, 1), ((0, 5), 1), (np.array([0, 5]), 1), (np.array([0.0, 5]), 1),
    (slice(None, None, -1), 1), (0, "a"), (0, None),
    (0, lambda t: t.tensor(True)), (0, 1 + 2j), (0, True, "bool"), (0, 2, "bool"), (0, 1.5, "uint8"), (0, -1, "uint8"),
    (0, 300, "uint8"), (0, -200, "int8"), (0, float("inf"), "float16"), (0, float("nan"), "int32"), (0, 3.5e38),
    (0, 2 ** 63), (0, np.ones(4)), (0, np.float64(2.5)), (0, 7, "bfloat16"),
    ((slice(1, 3), slice(None, None, 2)), lambda t: t.tensor([[1.0], [2.0]])),
    ((slice(None), [0, 0]), lambda t: t.tensor([1.0, 2.0])), ((slice(None), 1), lambda t: t.tensor(5)),
    (np.array([[True, False, True, True]] * 3), lambda t: t.arange(9.0)), (np.zeros((3, 4), bool), 1.0),
    ((1, slice(None)), lambda t: t.tensor([1.0, 2.0, 3.0])),
]


@pytest.mark.parametrize("case", SET_CASES, ids=stable_id)
@pytest.mark.parametrize("through_view", [False, True])
def test_setitem(case, through_view):
    key, value = case[0], case[1]
    dtype = case[2] if len(case) > 2 else "float32"
    check(_assign(key, value, dtype, through_view), arrays((3, 4)))


def test_setitem_zero_dim_and_empty():
    def fn(torch, x):
        s = x[0, 0]
        s[...] = 9.0
        s[None] = 8.0
        e = torch.zeros(0, 3)
        e[:, 1] = 5.0
        e[[]] = 1.0
        return x, s, e
    check(fn, arrays((2, 2)))


@pytest.mark.parametrize("fn", [
    lambda x: x.__setitem__(slice(0, None, 2), x[1::2]),
    lambda x: x.__setitem__(slice(0, 2), x[0:2]),
    lambda x: x.__setitem__([0, 1], x[4:]),
    lambda x: x.__setitem__(slice(None, 3), x[3:]),
    lambda x: x.__setitem__(slice(1, None), x[:-1]),
    lambda x: x.__setitem__(x > 2, x[:3]),
])
def test_setitem_overlapping_value(fn):
    def run(torch, x):
        fn(x)
        return x
    check(run, arrays((6,)))


def test_setitem_refused_on_leaf_requiring_grad():
    for lib in (real, vt):
        x = lib.zeros(3, requires_grad=True)
        with pytest.raises(RuntimeError):
            x[0] = 1.0
        with lib.no_grad():
            x[0] = 1.0
        assert x.detach().numpy()[0] == 1.0 and x.requires_grad


# (Duplicate positions are left out: torch gives every duplicate value the gradient of its position although only
# one of them is written; vfw gives it to the value written.)
@pytest.mark.parametrize("key", [0, (slice(None), 1), ([0, 2],), (slice(None), [3, 1]), (Ellipsis, None),
                                 (np.array([True, False, True]),), ([1, 0], [3, 3])], ids=repr)
def test_setitem_grad(key):
    def fn(torch, x, v):
        y = x.clone()
        y[key] = v
        return y * 1.5
    target = np.zeros((3, 4))[key].shape
    v = arrays(target[-1:] if target else (), seed=2)
    check_grad(fn, arrays((3, 4)), v)


def test_setitem_grad_number_and_overwrite():
    def fn(torch, x, v):
        y = x * 2.0
        y[0] = 3.0
        y[:, 1] = v
        y[y > 0.5] = 0.0
        return y
    check_grad(fn, arrays((3, 4)), arrays((3,), seed=1))


# -- gather / scatter -----------------------------------------------------------------------------
IDX = np.array([[0, 1], [2, 0]])


@pytest.mark.parametrize("fn", [
    lambda torch, x: torch.gather(x, 1, torch.tensor([[0, 1], [2, 0]])),
    lambda torch, x: x.gather(0, torch.tensor([[0, 1, 2, 0], [1, 1, 1, 1]])),
    lambda torch, x: x.gather(-1, torch.tensor([[3], [0], [1]], dtype=torch.int32)),
    lambda torch, x: torch.gather(x, 1, torch.zeros(2, 5, dtype=torch.long)),
    lambda torch, x: torch.gather(x, 0, torch.zeros(0, 2, dtype=torch.long)),
    lambda torch, x: torch.gather(x, dim=1, index=torch.tensor([[0, 1], [0, 1]]), sparse_grad=False),
    lambda torch, x: torch.gather(x[0, 0], 0, torch.tensor(0)),
    lambda torch, x: torch.gather(x[0, 0], 0, torch.tensor([0, 0])),
    lambda torch, x: torch.gather(x, 1, torch.tensor([[0, 1]]), out=torch.empty(0)),
    lambda torch, x: torch.gather(x, 1, torch.tensor([[0, 5]])),
    lambda torch, x: torch.gather(x, 1, torch.tensor([[0, -1]])),
    lambda torch, x: torch.gather(x, 1, torch.tensor([[0.0, 1]])),
    lambda torch, x: torch.gather(x, 1, torch.tensor([0, 1])),
    lambda torch, x: torch.gather(x, 1, torch.zeros(4, 1, dtype=torch.long)),
    lambda torch, x: torch.gather(x, 2, torch.tensor([[0]])),
])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_gather(fn, dtype):
    check(fn, arrays((3, 4), dtype=dtype))


SCATTER_FNS = [
    lambda torch, x, i, s: x.scatter(1, i, s),
    lambda torch, x, i, s: torch.scatter(x, 0, i, s),
    lambda torch, x, i, s: x.scatter(1, i, 5),
    lambda torch, x, i, s: x.scatter(1, i, value=2.5),
    lambda torch, x, i, s: x.scatter(1, i, src=s, reduce="add"),
    lambda torch, x, i, s: x.scatter(1, i, 2, reduce="multiply"),
    lambda torch, x, i, s: x.scatter(1, i, s, reduce="mean"),
    lambda torch, x, i, s: x.scatter(1, i.int(), s),
    lambda torch, x, i, s: x.scatter(1, i, s.double() if x.dtype != torch.float64 else s.float()),
    lambda torch, x, i, s: x.scatter(1, torch.tensor([[0, 7]]), s),
    lambda torch, x, i, s: x.scatter(1, torch.tensor([[0, -1]]), 1),
    lambda torch, x, i, s: x.scatter(1, torch.tensor([0]), 1),
    lambda torch, x, i, s: x.scatter(1, torch.zeros(4, 1, dtype=torch.long), 1),
    lambda torch, x, i, s: x.scatter(1, torch.zeros(0, dtype=torch.long), 1),
    lambda torch, x, i, s: x.scatter(1, torch.zeros(2, 1, dtype=torch.long), s[:1, :1]),
    lambda torch, x, i, s: x.clone().scatter_(1, i, s),
    lambda torch, x, i, s: x.clone().scatter_(1, i, 3, reduce="add"),
    lambda torch, x, i, s: torch.scatter(x, 1, i, s, out=torch.empty(0, dtype=x.dtype)),
    lambda torch, x, i, s: x.scatter_add(1, i, s),
    lambda torch, x, i, s: torch.scatter_add(x, 0, torch.tensor([[2, 2, 2, 2], [2, 0, 0, 2]]), s),
    lambda torch, x, i, s: x.clone().scatter_add_(1, i, s),
    lambda torch, x, i, s: x.scatter_add(1, i, s[:1, :1]),
    lambda torch, x, i, s: x.scatter_add(1, i.float(), s),
    lambda torch, x, i, s: torch.scatter_add(x, 1, i, s, out=torch.empty(0, dtype=x.dtype)),
]


@pytest.mark.parametrize("fn", SCATTER_FNS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
def test_scatter(fn, dtype):
    x, s = arrays((3, 4), (3, 4), dtype=dtype, seed=4)
    check(fn, x, np.array([[0, 1], [2, 0]]), s)


def test_scatter_zero_dim():
    check(lambda torch: (torch.tensor(2.0).scatter(0, torch.tensor(0), torch.tensor(5.0)),
                         torch.tensor(2.0).scatter(0, torch.tensor([0]), 5.0),
                         torch.tensor(2.0).scatter_add(0, torch.tensor(0), torch.tensor(5.0))))


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin", "foo"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "int64", "float16"])
def test_scatter_reduce(reduce, include_self, dtype):
    x, s = arrays((3, 4), (3, 4), dtype=dtype, seed=5, low=-5, high=5)
    idx = np.array([[0, 1, 0, 0], [2, 0, 2, 2]])
    check(lambda torch, x, i, s: (x.scatter_reduce(1, i, s, reduce, include_self=include_self),
                                  torch.scatter_reduce(x, 0, i, s, reduce=reduce, include_self=include_self)),
          x, idx, s)
    check(lambda torch, x, i, s: x.clone().scatter_reduce_(1, i, s, reduce, include_self=include_self), x, idx, s)


def test_scatter_reduce_bool_and_errors():
    b = np.array([True, False])
    check(lambda torch, x: x.scatter_reduce(0, torch.tensor([0, 0]), torch.tensor([True, True]), "sum"), b)
    check(lambda torch, x: x.scatter_reduce(0, torch.tensor([0, 0]), torch.tensor([True, True]), "amin",
                                            include_self=False), b)
    check(lambda torch, x: x.scatter_reduce(0, torch.tensor([0, 0]), torch.tensor([True, True]), "mean"), b)
    check(lambda torch, x: x.scatter_reduce(0, torch.tensor([0]), torch.tensor([1.0]), "sum"), arrays((2,)).astype(
        "float64"))
    check(lambda torch, x: x.scatter_reduce(0, torch.tensor([0]), torch.tensor([1.0]), "sum", out=torch.empty(0)),
          arrays((2,)))
    check(lambda torch, x: torch.scatter_reduce(x, 0, torch.tensor([0]), torch.tensor([1.0]), "sum",
                                                out=torch.empty(0)), arrays((2,)))


# -- index_select / index_add / index_copy / index_fill ---------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda torch, x: torch.index_select(x, 1, torch.tensor([0, 3, 3])),
    lambda torch, x: x.index_select(0, torch.tensor([2, 0], dtype=torch.int32)),
    lambda torch, x: x.index_select(-1, torch.tensor(1)),
    lambda torch, x: x.index_select(1, torch.tensor([], dtype=torch.long)),
    lambda torch, x: torch.index_select(x, 1, torch.tensor([1]), out=torch.empty(0, dtype=x.dtype)),
    lambda torch, x: torch.index_select(x[0, 0], 0, torch.tensor(0)),
    lambda torch, x: torch.index_select(x[0, 0], 0, torch.tensor([0, 0])),
    lambda torch, x: x.index_select(1, torch.tensor([0, 4])),
    lambda torch, x: x.index_select(1, torch.tensor([0, -1])),
    lambda torch, x: x.index_select(1, torch.tensor([[0, 1]])),
    lambda torch, x: x.index_select(1, torch.tensor([1.0])),
    lambda torch, x: x.index_select(2, torch.tensor([1])),
])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float16"])
def test_index_select(fn, dtype):
    check(fn, arrays((3, 4), dtype=dtype))


@pytest.mark.parametrize("fn", [
    lambda torch, x, s: x.index_add(0, torch.tensor([0, 0]), s[:2], alpha=2),
    lambda torch, x, s: torch.index_add(x, 1, torch.tensor([3, 1, 3], dtype=torch.int32), s[:, :3]),
    lambda torch, x, s: torch.index_add(x, 1, torch.tensor([3]), s[:, :1], out=torch.empty(0, dtype=x.dtype)),
    lambda torch, x, s: x.clone().index_add_(0, torch.tensor([2]), s[:1], alpha=-1),
    lambda torch, x, s: x.index_add(0, torch.tensor(1), s[:1]),
    lambda torch, x, s: x.index_add(0, torch.tensor([0, 5]), s[:2]),
    lambda torch, x, s: x.index_add(0, torch.tensor([0, -1]), s[:2]),
    lambda torch, x, s: x.index_add(0, torch.tensor([0, 1]), s[:2, :3]),
    lambda torch, x, s: x.index_add(0, torch.tensor([[0, 1]]), s[:2]),
    lambda torch, x, s: x.index_add(0, torch.tensor([0.0, 1]), s[:2]),
    lambda torch, x, s: x.index_add(0, torch.tensor([0, 1]), s[:2].half()),
    lambda torch, x, s: x.index_copy(1, torch.tensor([0, 2]), s[:, :2]),
    lambda torch, x, s: x.index_copy(1, torch.tensor([0, 0]), s[:, :2]),
    lambda torch, x, s: torch.index_copy(x, 0, torch.tensor([1]), s[:1], out=torch.empty(0, dtype=x.dtype)),
    lambda torch, x, s: x.clone().index_copy_(0, torch.tensor(2), s[:1]),
    lambda torch, x, s: x.index_copy(1, torch.tensor([0, 5]), s[:, :2]),
    lambda torch, x, s: x.index_copy(1, torch.tensor([0, -1]), s[:, :2]),
    lambda torch, x, s: x.index_copy(1, torch.tensor([0, 2]), s[:, :3]),
    lambda torch, x, s: x.index_copy(1, torch.tensor([0, 2], dtype=torch.int32), s[:, :2]),
    lambda torch, x, s: x.index_copy(1, torch.tensor([[0]]), s[:, :1]),
    lambda torch, x, s: x.index_copy(1, torch.tensor([0]), s[:, :1].half()),
    lambda torch, x, s: x.index_fill(1, torch.tensor([0, 2]), -1),
    lambda torch, x, s: x.index_fill(1, torch.tensor([0, -1]), 2.7),
    lambda torch, x, s: x.index_fill(0, torch.tensor(1), torch.tensor(3)),
    lambda torch, x, s: x.clone().index_fill_(1, torch.tensor([3, 3]), 1),
    lambda torch, x, s: x.index_fill(1, torch.tensor([0, 2], dtype=torch.int32), 1),
    lambda torch, x, s: x.index_fill(1, torch.tensor([5]), 1),
    lambda torch, x, s: x.index_fill(1, torch.tensor([[1]]), 1),
    lambda torch, x, s: x.index_fill(1, torch.tensor([1]), torch.tensor([1.0])),
])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_index_add_copy_fill(fn, dtype):
    x, s = arrays((3, 4), (3, 4), dtype=dtype, seed=6)
    check(fn, x, s)


@pytest.mark.parametrize("fn", [
    lambda torch, x: x.index_add(0, torch.tensor([0]), torch.tensor([2.0])),
    lambda torch, x: x.index_add(0, torch.tensor([0]), torch.tensor(2.0)),
    lambda torch, x: x.index_add(0, torch.tensor(0), torch.tensor(2.0)),
    lambda torch, x: x.index_add(0, torch.tensor([0, 0]), torch.tensor(2.0)),
    lambda torch, x: x.index_add(0, torch.tensor([1]), torch.tensor(2.0)),
    lambda torch, x: x.index_copy(0, torch.tensor(0), torch.tensor(4.0)),
    lambda torch, x: x.index_copy(0, torch.tensor([0]), torch.tensor([4.0])),
    lambda torch, x: x.index_copy(0, torch.tensor([1]), torch.tensor(4.0)),
    lambda torch, x: x.index_fill(0, torch.tensor(0), 7.0),
    lambda torch, x: x.index_fill(0, torch.tensor([-1]), 7.0),
    lambda torch, x: x.index_fill(0, torch.tensor([1]), 7.0),
    lambda torch, x: x.index_select(0, torch.tensor([1])),
])
def test_index_ops_zero_dim(fn):
    check(fn, np.array(1.0, np.float32))


def test_index_ops_rank_mismatch():
    x = arrays((3, 4))
    check(lambda torch, x: x.index_add(0, torch.tensor([0]), torch.ones(4)), x)
    check(lambda torch, x: x[0].index_add(0, torch.tensor([0]), torch.ones(1, 1)), x)
    check(lambda torch, x: x.index_add(1, torch.tensor([0, 1]), torch.ones(3)), x)
    check(lambda torch, x: x.index_add(0, torch.tensor([0]), torch.tensor(1.0)), x)
    check(lambda torch, x: x.index_copy(0, torch.tensor([0]), torch.ones(4)), x)
    check(lambda torch, x: x.index_copy(1, torch.tensor([0, 2]), torch.ones(2, 2)), x)
    check(lambda torch, x: x.index_copy(0, torch.tensor([0]), torch.tensor(1.0)), x)


# -- masked ops ---------------------------------------------------------------------------------
M34 = arrays((3, 4), dtype="bool", seed=7)


@pytest.mark.parametrize("fn", [
    lambda torch, x, m: x.masked_fill(m, 2),
    lambda torch, x, m: torch.masked_fill(x, m[0], 2.5),
    lambda torch, x, m: x.masked_fill(m[:, :1], torch.tensor(-1.5)),
    lambda torch, x, m: x.masked_fill(m, torch.tensor(2, dtype=torch.float64)),
    lambda torch, x, m: x[0].masked_fill(m, 1),
    lambda torch, x, m: x.clone().masked_fill_(m, 0),
    lambda torch, x, m: x.clone().masked_fill_(m[1], True),
    lambda torch, x, m: x[0].clone().masked_fill_(m, 1),
    lambda torch, x, m: x.masked_fill(m, torch.tensor([2.5])),
    lambda torch, x, m: x.masked_fill(m.long(), 2),
    lambda torch, x, m: x.masked_fill(m[:2], 2),
    lambda torch, x, m: x.masked_select(m),
    lambda torch, x, m: torch.masked_select(x[0], m),
    lambda torch, x, m: torch.masked_select(x, m[:, :1], out=torch.empty(0, dtype=x.dtype)),
    lambda torch, x, m: x.masked_select(m.long()),
    lambda torch, x, m: x.masked_scatter(m, torch.arange(100, 120).to(x.dtype)),
    lambda torch, x, m: x.masked_scatter(m[0], torch.ones(4, 5, dtype=x.dtype)),
    lambda torch, x, m: x.clone().masked_scatter_(m, torch.arange(12).to(x.dtype)),
    lambda torch, x, m: x.masked_scatter(m, torch.arange(3).to(x.dtype)),
    lambda torch, x, m: x.masked_scatter(m, torch.arange(12).double() if x.dtype != torch.float64 else
                                         torch.arange(12).float()),
])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_masked(fn, dtype):
    check(fn, arrays((3, 4), dtype=dtype, seed=8), M34)


# -- take / take_along_dim / put / index_put ------------------------------------------------------
@pytest.mark.parametrize("fn", [
    lambda torch, x: x.take(torch.tensor([[0, 11], [-1, 3]])),
    lambda torch, x: torch.take(x, torch.tensor(5)),
    lambda torch, x: torch.take(x, torch.tensor([], dtype=torch.long)),
    lambda torch, x: torch.take(x, torch.tensor([1, 2]), out=torch.empty(0, dtype=x.dtype)),
    lambda torch, x: torch.take(x[0, 0], torch.tensor([0, 0])),
    lambda torch, x: x.take(torch.tensor([12])),
    lambda torch, x: x.take(torch.tensor([-13])),
    lambda torch, x: x.take(torch.tensor([1], dtype=torch.int32)),
    lambda torch, x: torch.take_along_dim(x, torch.tensor([[0], [1], [2]]), 1),
    lambda torch, x: torch.take_along_dim(x, torch.tensor([[0, 1]]), dim=1),
    lambda torch, x: torch.take_along_dim(x, torch.tensor([[0, -1]]), dim=1),
    lambda torch, x: torch.take_along_dim(x, torch.tensor([[2, 0, 1, 1]]), dim=0),
    lambda torch, x: x.take_along_dim(torch.tensor([5, 0])),
    lambda torch, x: x.take_along_dim(torch.tensor([[5, 0]])),
    lambda torch, x: torch.take_along_dim(x, torch.tensor([[1]]), 1, out=torch.empty(0, dtype=x.dtype)),
    lambda torch, x: torch.take_along_dim(x, torch.tensor([[[0, 1]]]), dim=1),
    lambda torch, x: torch.take_along_dim(x, torch.tensor([[0, 1], [1, 0]]), dim=1),
    lambda torch, x: torch.take_along_dim(x, torch.tensor([[1]], dtype=torch.int32), 1),
    lambda torch, x: torch.take_along_dim(x, torch.tensor([[1]]), 2),
    lambda torch, x: x.put(torch.tensor([0, -1]), torch.tensor([9, 8]).to(x.dtype)),
    lambda torch, x: x.clone().put_(torch.tensor([0, 0]), torch.tensor([9, 8]).to(x.dtype), accumulate=True),
    lambda torch, x: torch.put(x, torch.tensor([[0, 1]]), torch.tensor([9, 8]).to(x.dtype)),
    lambda torch, x: x.put(torch.tensor([0, 12]), torch.tensor([9, 8]).to(x.dtype)),
    lambda torch, x: x.put(torch.tensor([0, 1]), torch.tensor([9, 8, 7]).to(x.dtype)),
    lambda torch, x: x.put(torch.tensor([0, 1], dtype=torch.int32), torch.tensor([9, 8]).to(x.dtype)),
    lambda torch, x: x.put(torch.tensor([0]), torch.tensor([9.0], dtype=torch.float64 if x.dtype != torch.float64
                                                           else torch.float32)),
])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_take_put(fn, dtype):
    check(fn, arrays((3, 4), dtype=dtype, seed=9))


@pytest.mark.parametrize("fn", [
    lambda torch, x: x.index_put((torch.tensor([0, 1]), torch.tensor([1, 1])), torch.tensor(5).to(x.dtype)),
    lambda torch, x: x.index_put((torch.tensor([0, 0]), torch.tensor([1, 1])), torch.tensor([5, 6]).to(x.dtype),
                                 accumulate=True),
    lambda torch, x: torch.index_put(x, [torch.tensor([0, 0])], torch.tensor([5]).to(x.dtype), accumulate=True),
    lambda torch, x: x.index_put((torch.tensor([True, False, True]),), torch.tensor(5).to(x.dtype)),
    lambda torch, x: x.index_put((torch.tensor([[True, False, True, False]] * 3),), torch.tensor(1).to(x.dtype),
                                 accumulate=True),
    lambda torch, x: x.index_put((torch.tensor([0, 1], dtype=torch.int32),), torch.ones(1, dtype=x.dtype)),
    lambda torch, x: x.clone().index_put_((torch.tensor([0, 0]),), torch.tensor([1, 2, 3, 4]).to(x.dtype),
                                          accumulate=True),
    lambda torch, x: torch.index_put_(x.clone(), (torch.tensor([2]),), torch.tensor([1]).to(x.dtype)),
    lambda torch, x: x.index_put((torch.tensor([0, 1]),), 5.0),
    lambda torch, x: x.index_put((torch.tensor([0, 1]),), torch.tensor(5, dtype=torch.int8)),
    lambda torch, x: x.index_put((torch.tensor([0, 5]),), torch.tensor([1]).to(x.dtype), accumulate=True),
    lambda torch, x: x.index_put((torch.tensor([1]).short(),), torch.ones(1, dtype=x.dtype)),
    lambda torch, x: x.index_put([torch.tensor([0, 1]), torch.tensor([1, 2]), torch.tensor([0])],
                                 torch.tensor([1]).to(x.dtype)),
    lambda torch, x: x.index_put((None, torch.tensor([0, 1])), torch.tensor(5).to(x.dtype)),
])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_index_put(fn, dtype):
    check(fn, arrays((3, 4), dtype=dtype, seed=10))


# -- nonzero / argwhere / where(cond) -------------------------------------------------------------
@pytest.mark.parametrize("x", [arrays((3, 4), dtype="int64", low=-1, high=1), arrays((5,), dtype="bool"),
                               np.array(3.0), np.array(0.0), np.zeros((0, 3), np.float32),
                               arrays((2, 2, 3), low=-1, high=1).round()], ids=lambda a: str(a.shape))
def test_nonzero(x):
    check(lambda torch, x: (torch.nonzero(x), x.nonzero(as_tuple=True), torch.argwhere(x), x.argwhere(),
                            torch.nonzero(x, out=torch.empty(0, dtype=torch.long))), x)


def test_where_single_argument_is_nonzero_as_tuple():
    for x in (arrays((3, 4), dtype="bool"), np.array(1), np.array([1, 0]), np.array(0)):
        want = real.where(real.from_numpy(x))
        got = vt.where(vt.from_numpy(x))
        assert len(want) == len(got)
        for w, g in zip(want, got):
            np.testing.assert_array_equal(g.numpy(), w.numpy())
            assert str(g.dtype) == str(w.dtype)


# -- gradients --------------------------------------------------------------------------------------
def test_grad_gather_scatter():
    idx = np.array([[0, 1, 1], [2, 0, 0]])
    check_grad(lambda torch, x, i: torch.gather(x, 1, i), arrays((2, 4)), idx)
    check_grad(lambda torch, x, i: x.gather(0, i), arrays((3, 3)), idx)
    check_grad(lambda torch, x, i, s: x.scatter(1, i[:, :2], s), arrays((2, 4)), idx, arrays((2, 2), seed=1))
    check_grad(lambda torch, x, i, s: x.scatter_add(1, i, s), arrays((2, 4)), idx, arrays((2, 3), seed=1))
    check_grad(lambda torch, x, i: x.scatter(1, i, 2.0), arrays((2, 4)), idx)
    check_grad(lambda torch, x, i, s: x.scatter_reduce(1, i, s, "sum", include_self=False), arrays((2, 4)), idx,
               arrays((2, 3), seed=1))
    check_grad(lambda torch, x, i, s: x.scatter_reduce(1, i, s, "mean"), arrays((2, 4)), idx, arrays((2, 3), seed=1))


def test_grad_index_ops():
    check_grad(lambda torch, x: torch.index_select(x, 1, torch.tensor([0, 3, 3])), arrays((3, 4)))
    check_grad(lambda torch, x, s: x.index_add(0, torch.tensor([0, 0, 2]), s, alpha=2.0), arrays((3, 4)),
               arrays((3, 4), seed=1))
    check_grad(lambda torch, x, s: x.index_copy(1, torch.tensor([3, 0]), s), arrays((3, 4)), arrays((3, 2), seed=1))
    check_grad(lambda torch, x, v: x.index_fill(1, torch.tensor([1]), v), arrays((3, 4)), np.array(2.0, np.float32))


def test_grad_masked_and_take():
    m = arrays((3, 4), dtype="bool", seed=3)
    check_grad(lambda torch, x, m: x.masked_fill(m, 0.5), arrays((3, 4)), m)
    check_grad(lambda torch, x, m, v: x.masked_fill(m[0], v), arrays((3, 4)), m, np.array(-1.0, np.float32))
    check_grad(lambda torch, x, m: x.masked_select(m), arrays((3, 4)), m)
    check_grad(lambda torch, x, m: x.masked_select(m[:, :1]), arrays((3, 4)), m)
    check_grad(lambda torch, x, m, s: x.masked_scatter(m, s), arrays((3, 4)), m, arrays((13,), seed=2))
    check_grad(lambda torch, x: torch.take_along_dim(x, torch.tensor([[0, 3, 3]]), 1), arrays((3, 4)))
    check_grad(lambda torch, x: torch.take_along_dim(x, torch.tensor([5, 5, 0])), arrays((3, 4)))
    check_grad(lambda torch, x: torch.take(x, torch.tensor([[5, 5], [0, -1]])), arrays((3, 4)))
    check_grad(lambda torch, x, s: x.put(torch.tensor([5, 5, 0]), s, accumulate=True), arrays((3, 4)),
               arrays((3,), seed=2))
    check_grad(lambda torch, x, v: x.index_put((torch.tensor([0, 2]), torch.tensor([1, 1])), v), arrays((3, 4)),
               arrays((2,), seed=2))


def test_inplace_refused_on_leaf_and_grad_through_inplace():
    check(lambda torch, x: x.requires_grad_().masked_fill_(x > 0, 1.0), arrays((3,)))
    check(lambda torch, x: x.requires_grad_().scatter_(0, torch.tensor([0]), 1.0), arrays((3,)))

    def fn(torch, x, s):
        y = x * 1.0
        y.index_add_(0, torch.tensor([1, 1]), s)
        y.masked_fill_(y > 1.0, 0.0)
        y.scatter_(0, torch.tensor([0]), s[:1])
        return y
    check_grad(fn, arrays((3,)), arrays((2,), seed=1))


def test_no_warnings_from_plain_indexing():
    x = vt.from_numpy(arrays((3, 4)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x[0], x[:, [1, 2]], x[x > 0]
