"""default_collate / default_convert against real torch 2.13: values, dtypes, shapes, container types, errors."""

import collections

import numpy as np
import pytest

from compat_tests.torch.data.common import LIBS, check_same

Point = collections.namedtuple("Point", "x y")


class Frozen(collections.abc.Mapping):
    """An immutable mapping type that can be rebuilt from a dict."""

    def __init__(self, items):
        self._items = dict(items)

    def __getitem__(self, key):
        return self._items[key]

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)


class Tagged(list):
    """A list subclass with an attribute: collate keeps both."""

    tag = "t"


def plain(x):
    """``x`` with mappings as dicts and sequences as lists/tuples, for the value comparison."""
    if isinstance(x, collections.abc.Mapping):
        return {k: plain(v) for k, v in x.items()}
    if isinstance(x, tuple):
        return tuple(plain(v) for v in x)
    if isinstance(x, list):
        return [plain(v) for v in x]
    return x


def structure(x):
    """Container types of a result (the value comparison sees lists, tuples and dicts only)."""
    if isinstance(x, (list, tuple)):
        return type(x).__name__, [structure(v) for v in x]
    if isinstance(x, collections.abc.Mapping):
        return type(x).__name__, {k: structure(v) for k, v in x.items()}
    return type(x).__name__ if isinstance(x, (str, bytes, int, float, np.ndarray, np.generic)) else "other"


BATCHES = [
    lambda torch: [torch.tensor([1., 2.]), torch.tensor([3., 4.])],
    lambda torch: [torch.tensor(1), torch.tensor(2)],
    lambda torch: [torch.zeros(2, 3, dtype=torch.float16), torch.ones(2, 3, dtype=torch.float16)],
    lambda torch: [torch.zeros(0, 2), torch.zeros(0, 2)],
    lambda torch: [torch.tensor([True]), torch.tensor([False])],
    lambda torch: [torch.zeros(2), torch.zeros(3)],
    lambda torch: [torch.zeros(2), torch.zeros(2, dtype=torch.int64)],
    lambda torch: [np.arange(3), np.arange(3, 6)],
    lambda torch: [np.zeros((2, 2), np.float32), np.ones((2, 2), np.float32)],
    lambda torch: [np.zeros(2, np.int16), np.zeros(3, np.int16)],
    lambda torch: [np.array(["a"]), np.array(["b"])],
    lambda torch: [np.array([b"a"]), np.array([b"b"])],
    lambda torch: [np.array([None], dtype=object)],
    lambda torch: [np.float32(1.5), np.float32(2)],
    lambda torch: [np.float64(1.5), np.float64(2)],
    lambda torch: [np.int32(1), np.int32(2)],
    lambda torch: [np.uint8(1), np.uint8(200)],
    lambda torch: [np.bool_(True), np.bool_(False)],
    lambda torch: [np.array(2.5), np.array(3.5)],
    lambda torch: [np.str_("a"), np.str_("b")],
    lambda torch: [1, 2, 3],
    lambda torch: [1.5, 2.0],
    lambda torch: [True, False],
    lambda torch: [2 ** 40, -1],
    lambda torch: ["a", "bc"],
    lambda torch: [b"a", b"bc"],
    lambda torch: [(1, "a"), (2, "b")],
    lambda torch: [[1, 2.5], [3, 4.5]],
    lambda torch: [[1, 2], [3]],
    lambda torch: [(torch.tensor([1]), 2.0), (torch.tensor([3]), 4.0)],
    lambda torch: [{"a": 1, "b": torch.zeros(2)}, {"a": 2, "b": torch.ones(2)}],
    lambda torch: [collections.OrderedDict(b=1, a=2.0), collections.OrderedDict(b=3, a=4.0)],
    lambda torch: [Frozen({"k": 1}), Frozen({"k": 2})],
    lambda torch: [{"nested": {"x": [1, 2]}}, {"nested": {"x": [3, 4]}}],
    lambda torch: [Point(1, 2.0), Point(3, 4.0)],
    lambda torch: [Point(torch.zeros(1), "s"), Point(torch.ones(1), "t")],
    lambda torch: [Tagged([1, 2]), Tagged([3, 4])],
    lambda torch: [range(2), range(2)],
    lambda torch: [None, None],
    lambda torch: [object()],
    lambda torch: [1j],
    lambda torch: [],
    lambda torch: [{1, 2}],
]


@pytest.mark.parametrize("make", BATCHES)
def test_default_collate(make):
    def f(torch, data):
        out = data.default_collate(make(torch))
        return plain(out), structure(out)
    check_same(f, message=False)


SAMPLES = [
    lambda torch: np.arange(3),
    lambda torch: np.zeros((2, 0), np.float16),
    lambda torch: np.array(["a", "b"]),
    lambda torch: np.array([None], dtype=object),
    lambda torch: np.float32(2.5),
    lambda torch: np.int8(-3),
    lambda torch: np.bool_(True),
    lambda torch: np.str_("x"),
    lambda torch: np.bytes_(b"x"),
    lambda torch: torch.tensor([1, 2]),
    lambda torch: 3,
    lambda torch: 2.5,
    lambda torch: "s",
    lambda torch: b"s",
    lambda torch: None,
    lambda torch: (np.int64(1), 2),
    lambda torch: [np.int64(1), "a"],
    lambda torch: {"a": np.float64(1.5), "b": [np.arange(2)]},
    lambda torch: Frozen({"a": np.int16(4)}),
    lambda torch: Point(np.float32(1), 2),
    lambda torch: Tagged([np.int64(1)]),
    lambda torch: range(3),
]


@pytest.mark.parametrize("make", SAMPLES)
def test_default_convert(make):
    def f(torch, data):
        out = data.default_convert(make(torch))
        return plain(out), structure(out)
    check_same(f)


@LIBS
def test_collate_keeps_container_types_and_attributes(lib, data):
    out = data.default_collate([Tagged([1, 2]), Tagged([3, 4])])
    assert type(out) is Tagged and out.tag == "t"
    point = data.default_collate([Point(1, 2), Point(3, 4)])
    assert type(point) is Point
    frozen = data.default_collate([Frozen({"k": 1}), Frozen({"k": 2})])
    assert type(frozen) is Frozen
    od = data.default_collate([collections.OrderedDict(b=1, a=2)] * 2)
    assert type(od) is collections.OrderedDict and list(od) == ["b", "a"]


@LIBS
def test_collate_with_a_custom_map(lib, data):
    from importlib import import_module
    collate_module = import_module(data.__name__ + "._utils.collate")

    class Box:
        def __init__(self, v):
            self.v = v

    def collate_box(batch, *, collate_fn_map=None):
        return [b.v for b in batch]
    fn_map = {**collate_module.default_collate_fn_map, Box: collate_box}
    out = collate_module.collate([(Box(1), 2.0), (Box(3), 4.0)], collate_fn_map=fn_map)
    assert out[0] == [1, 3] and out[1].dtype == lib.float64
    assert collate_module.default_collate is data.default_collate
    with pytest.raises(TypeError, match="found <class"):
        collate_module.collate([Box(1)], collate_fn_map=collate_module.default_collate_fn_map)


@LIBS
def test_collate_error_messages(lib, data):
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        data.default_collate([[1, 2], [3]])
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy arrays, numbers, dicts "
                                        "or lists; found <class 'NoneType'>"):
        data.default_collate([None])
    with pytest.raises(TypeError, match="found <U1"):
        data.default_collate([np.array(["a"])])
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got \[2\] at entry 0 and "
                                           r"\[3\] at entry 1"):
        data.default_collate([lib.zeros(2), lib.zeros(3)])
