"""keras.tree and keras.utils.Config against Keras 3.15.1: leaf order (sorted dict keys, OrderedDict insertion
order, namedtuples, None as a leaf), rebuilt containers, paths, mismatch errors (type and message), traverse,
shape structures; Config's attribute/item access, freezing and errors."""

import collections
import copy
import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
keras = pytest.importorskip("keras")
from vfw.frontends.tensorflow import keras as vkeras  # noqa: E402

P = collections.namedtuple("P", ["b", "a"])
STRUCTURES = [
    {"b": [1, None, (2, 3)], "a": P(4, {"z": 5, "y": 6}), "c": collections.OrderedDict([("q", 7), ("p", 8)])},
    collections.defaultdict(int, {"b": 1, "a": 2}),
    [np.zeros(2), (), {}, [[]], "text"],
    None,
    5,
    (1, [2, {"k": (3,)}]),
]


def _outcome(fn):
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001  (the error and its message are what is compared)
        return type(e).__name__, str(e)


def _same(fn):
    want, got = _outcome(lambda: fn(keras)), _outcome(lambda: fn(vkeras))
    assert repr(got) == repr(want)


@pytest.mark.parametrize("structure", STRUCTURES)
@pytest.mark.parametrize("name", ["flatten", "flatten_with_path", "is_nested", "lists_to_tuples"])
def test_one_structure_functions(structure, name):
    _same(lambda k: getattr(k.tree, name)(structure))


@pytest.mark.parametrize("structure", STRUCTURES)
def test_map_and_pack(structure):
    _same(lambda k: k.tree.map_structure(lambda x: (x,), structure))
    _same(lambda k: k.tree.map_structure(lambda x: (x,), structure, none_is_leaf=False))
    _same(lambda k: k.tree.pack_sequence_as(structure, list(range(100, 100 + len(k.tree.flatten(structure))))))
    _same(lambda k: k.tree.pack_sequence_as(structure, [1] * (len(k.tree.flatten(structure)) + 1)))
    _same(lambda k: type(k.tree.map_structure(lambda x: x, structure)).__name__)


@pytest.mark.parametrize("a,b", [
    ([1, 2], (1, 2)), ([1], [1, 2]), ({"a": 1}, {"b": 1}), (P(1, 2), (1, 2)), ([1, [2]], [1, 2]),
    ({"a": [1, 2], "b": None}, {"b": 3, "a": [4, 5]}), ((1, (2,)), (3, (4,))),
])
def test_two_structure_functions(a, b):
    _same(lambda k: k.tree.assert_same_structure(a, b))
    _same(lambda k: k.tree.assert_same_paths(a, b))
    _same(lambda k: k.tree.map_structure(lambda x, y: (x, y), a, b))


def test_map_structure_up_to():
    _same(lambda k: k.tree.map_structure_up_to({"a": 1, "b": [1, 2, 3]}, str, {"a": [1, 2], "b": [3, 4, 5]}))
    _same(lambda k: k.tree.map_structure_up_to([1, (2, 3)], lambda x, y: (x, y), [[1], (2, 3)], [[4], (5, 6)]))
    _same(lambda k: k.tree.map_structure_up_to([1, 2], str, [1]))


@pytest.mark.parametrize("top_down", [True, False])
def test_traverse(top_down):
    structure = [1, (2, 3), {"a": [4]}]
    _same(lambda k: k.tree.traverse(lambda x: None, structure, top_down=top_down))
    _same(lambda k: k.tree.traverse(lambda x: x * 2 if isinstance(x, int) else None, structure, top_down=top_down))
    _same(lambda k: k.tree.traverse(lambda x: k.tree.MAP_TO_NONE if isinstance(x, tuple) else None, structure,
                                    top_down=top_down))
    _same(lambda k: k.tree.traverse(lambda x: len(x) if isinstance(x, tuple) else None, structure,
                                    top_down=top_down))


def test_map_shape_structure():
    _same(lambda k: k.tree.map_shape_structure(lambda s: ("shape", s),
                                               {"a": (1, 2), "b": [(3, None), (4,)], "c": [], "d": 7}))


def test_namespace_names():
    assert sorted(n for n in dir(vkeras.tree) if not n.startswith("_")) == \
        sorted(n for n in dir(keras.tree) if not n.startswith("_"))


def test_config():
    def use(k):
        c = k.utils.Config(a=1, b={"x": 2})
        c.d = 3
        c["e"] = 4
        out = [repr(c), c.a, c["b"], c.as_dict(), c.to_json(), len(c), list(c), "a" in c, c.frozen,
               list(c.keys()), list(c.items()), c.get("q", 5), c.pop("e"), repr(copy.deepcopy(c))]
        c.freeze()
        for change in (lambda: setattr(c, "z", 1), lambda: c.__setitem__("z", 1), lambda: c.update(z=1),
                       lambda: c.pop("a"), lambda: c.__delitem__("a"), lambda: c.zz, lambda: c.aa, lambda: c["zz"]):
            out.append(_outcome(change))
        c.unfreeze()
        c.update({"y": 2}, z=3)
        del c["a"]
        out += [repr(c), c.frozen, list(c.values())]
        return out
    _same(use)


@pytest.mark.parametrize("known,asked", [("a", "aa"), ("abc", "ab"), ("abcdefgh", "abcdexyz"),
                                         ("abcdefghij", "abcdefgxyz"), ("ab", "ba"), ("alpha", "alpah")])
def test_config_unknown_attribute_suggestions(known, asked):
    _same(lambda k: getattr(k.utils.Config(**{known: 1}), asked))
