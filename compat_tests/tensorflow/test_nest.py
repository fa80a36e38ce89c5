"""tf.nest of vfw.tensorflow against real TF 2.21: ordering, packing, mapping and structure errors."""

import collections

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, real, vtf

P = collections.namedtuple("P", "x y")
P2 = collections.namedtuple("P", "x y")  # another class, same name and fields: the same structure for TF
Q = collections.namedtuple("Q", "x y")

STRUCTURES = [
    None, 1, "ab", [], (), {}, [[], [()]], {"b": 1, "a": [2, (3, 4)]}, [1, {"x": None}, "ab"], {(1, 2): "a", (0, 5): 2},
    {1: "a", "b": 2}, collections.OrderedDict([("b", 1), ("a", 2)]), P(1, [2, 3]), {1, 2}, range(3),
    collections.defaultdict(list, {"b": 1, "a": 2}), {"a": {"c": 1, "b": 2}, "0": 3}, (1, P(2, {"z": 3, "y": (4,)})),
]


@pytest.mark.parametrize("structure", STRUCTURES, ids=repr)
def test_flatten_and_is_nested(structure):
    check(lambda tf: tf.nest.flatten(structure))
    check(lambda tf: tf.nest.is_nested(structure))


@pytest.mark.parametrize("structure", [s for s in STRUCTURES if not isinstance(s, (set, range, dict))
                                       or isinstance(s, dict) and not {1, "b"} <= set(s)], ids=repr)
def test_pack_sequence_as_round_trip(structure):
    def case(tf):
        leaves = tf.nest.flatten(structure)
        packed = tf.nest.pack_sequence_as(structure, [f"v{i}" for i in range(len(leaves))])
        return repr(packed), type(packed).__name__
    check(case)


@pytest.mark.parametrize("args", [
    ([1, (2, 3)], ["a", "b", "c"]), ([1, (2, 3)], ["a", "b"]), ({"b": 1, "a": 2}, [10, 20]), (1, [5]), (1, [5, 6]),
    (1, 5), ([1, 2], 5), (P(1, 2), [3, 4]), ([1, [], 2], [3, 4]), ([1, 2], (3, 4)), ([1, 2], np.array([3, 4])),
    (collections.OrderedDict([("b", 1), ("a", 2)]), [10, 20]), ([], []), ([[]], []), ("ab", ["c"]),
], ids=repr)
def test_pack_sequence_as(args):
    check(lambda tf: (lambda r: (repr(r), type(r).__name__))(tf.nest.pack_sequence_as(*args)))


@pytest.mark.parametrize("args,kwargs", [
    (([1, (2, 3)], [4, (5, 6)]), {}), (([1, (2, 3)], [4, [5, 6]]), {}),
    (([1, (2, 3)], [4, [5, 6]]), {"check_types": False}),
    (([1, (2, 3)], [4, (5,)]), {}), (({"a": 1}, {"b": 1}), {}), (({"a": 1}, collections.OrderedDict(a=1)), {}),
    ((P(1, 2), P(1, 2)), {}), ((P(1, 2), P2(1, 2)), {}), ((P(1, 2), Q(1, 2)), {}), ((P(1, 2), (1, 2)), {}),
    ((P(1, 2), (1, 2)), {"check_types": False}), ((P(1, 2), Q(1, 2)), {"check_types": False}), ((1, [1]), {}),
    (("ab", 1), {}), (([], ()), {}), (([[]], [1]), {}), (({"a": 1}, [1]), {}), (({"a": 1}, {"a": 1, "b": 2}), {}),
    (({"a": 1}, {"a": [1]}), {}), (([1, 2], [3, 4]), {"expand_composites": True}), ((None, None), {}),
    (([None], [1]), {}), (({"a": (1, [2])}, {"a": (3, [4])}), {}),
], ids=repr)
def test_assert_same_structure(args, kwargs):
    check(lambda tf: tf.nest.assert_same_structure(*args, **kwargs))


@pytest.mark.parametrize("case", [
    lambda tf: tf.nest.map_structure(lambda x: x * 2, [1, (2, 3)]),
    lambda tf: tf.nest.map_structure(lambda x, y: x + y, [1, (2, 3)], [10, (20, 30)]),
    lambda tf: tf.nest.map_structure(lambda x, y: x + y, [1, (2, 3)], [10, [20, 30]]),
    lambda tf: tf.nest.map_structure(lambda x, y: x + y, [1, (2, 3)], [10, [20, 30]], check_types=False),
    lambda tf: tf.nest.map_structure(lambda x, y: x + y, [1, (2, 3)], [10, (20,)]),
    lambda tf: tf.nest.map_structure(lambda x: x, [1], foo=1), lambda tf: tf.nest.map_structure(lambda x: x),
    lambda tf: tf.nest.map_structure(lambda x: x * 2, {"b": 1, "a": 2}),
    lambda tf: tf.nest.map_structure(lambda x: x, 3),
    lambda tf: tf.nest.map_structure(lambda x: None, [1, 2]),
    lambda tf: tf.nest.map_structure(lambda x, y: (x, y), {"a": 1}, collections.OrderedDict(a=2)),
    lambda tf: repr(tf.nest.map_structure(lambda x: x, P(1, [2]))),
    lambda tf: tf.nest.map_structure(lambda x, y: x, [1, 2], [3, 4, 5]), lambda tf: tf.nest.map_structure(3, [1]),
    lambda tf: tf.nest.map_structure(lambda t: t * 2, {"w": tf.constant([1.0, 2.0]), "b": (tf.constant(3),)}),
    lambda tf: tf.nest.flatten([tf.constant(1), {"a": tf.constant(2)}]),
])
def test_map_structure(case):
    check(case)


def test_namespace():
    assert sorted(n for n in dir(vtf.nest) if not n.startswith("_") and callable(getattr(vtf.nest, n))
                  and n in dir(real.nest)) == sorted(n for n in dir(real.nest) if not n.startswith("_"))
