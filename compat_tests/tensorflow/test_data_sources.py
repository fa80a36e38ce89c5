"""tf.data sources and combinations against real TF 2.21: from_tensor_slices, from_tensors, range, counter,
from_generator, random, zip, concatenate, enumerate, choose/sample_from_datasets, iterators."""

import collections

import numpy as np
import pytest

from compat_tests.stable_ids import stable_id
from compat_tests.tensorflow.data_harness import check_dataset, check_value, no_global_seed  # noqa: F401
from compat_tests.tensorflow.harness import real, vtf

Point = collections.namedtuple("Point", "x y")

SLICE_INPUTS = [
    [1, 2, 3], [1.5, 2.5], [[1, 2], [3, 4]], [True, False], ["a", "bc"], [b"x", b"y"],
    np.arange(12, dtype=np.float64).reshape(4, 3), np.arange(6, dtype=np.uint8), np.zeros((0, 2), np.float32),
    ([1, 2], [[1.0], [2.0]]), {"b": [1, 2], "a": [3.0, 4.0]}, ([1, 2], {"k": (["u", "v"], [[1], [2]])}),
    Point([1, 2], [3.0, 4.0]), [np.array([1, 2]), np.array([3, 4])], [np.array([1, 2]), np.array([3.0, 4.0])],
    [2 ** 40, 1], (np.arange(3), [1, 2, 3]), [np.array([1], np.uint8)] * 2, [np.int64(1), np.int64(2)],
    [[np.array([1, 2])], [np.array([3, 4])]], [np.array([1.0], np.float16), np.array([2.0], np.float16)],
]


@pytest.mark.parametrize("value", SLICE_INPUTS, ids=repr)
def test_from_tensor_slices(value):
    check_dataset(lambda tf: tf.data.Dataset.from_tensor_slices(value))


def test_from_tensor_slices_of_tensors_and_variables():
    check_dataset(lambda tf: tf.data.Dataset.from_tensor_slices(tf.constant([[1, 2], [3, 4]], tf.int64)))
    check_dataset(lambda tf: tf.data.Dataset.from_tensor_slices((tf.Variable([1.0, 2.0]), tf.range(2))))
    check_dataset(lambda tf: tf.data.Dataset.from_tensor_slices([tf.constant([1, 2], tf.int64), tf.constant([3, 4],
                                                                                                            tf.int64)]))
    check_dataset(lambda tf: tf.data.Dataset.from_tensors([tf.constant(1, tf.uint8), tf.constant(2, tf.uint8)]))


@pytest.mark.parametrize("value", [1, None, (), ([1, 2], [1, 2, 3]), ([1], 2), {"a": []}, [[1], [2, 3]], [object()]],
                         ids=stable_id)
def test_from_tensor_slices_errors(value):
    check_dataset(lambda tf: tf.data.Dataset.from_tensor_slices(value))


@pytest.mark.parametrize("value", [1, 1.5, "s", [1, 2], np.zeros((2, 3)), (1, [2.0, 3.0]), {"a": 1, "b": (2, "s")},
                                   Point(1, 2.0), 2 ** 40, np.float16(1.5)], ids=repr)
def test_from_tensors(value):
    check_dataset(lambda tf: tf.data.Dataset.from_tensors(value))
    check_dataset(lambda tf: tf.data.Dataset.from_tensors(value).repeat(3).batch(2))


def test_from_tensors_of_a_dataset():
    check_dataset(lambda tf: tf.data.Dataset.from_tensors(tf.data.Dataset.range(3)))
    check_dataset(lambda tf: tf.data.Dataset.from_tensors((tf.data.Dataset.range(3), 1)))


@pytest.mark.parametrize("args", [(5,), (2, 5), (2, 10, 3), (5, 0, -2), (0,), (5, 2), (-3,), (1, 2, 5)], ids=repr)
def test_range(args):
    check_dataset(lambda tf: tf.data.Dataset.range(*args))
    check_dataset(lambda tf: tf.data.Dataset.range(*args, output_type=tf.int32))
    check_dataset(lambda tf: tf.data.Dataset.range(*args).batch(2))


@pytest.mark.parametrize("args", [(), (2.5,), (0, 5, 0), (1, 2, 3, 4)], ids=repr)
def test_range_errors(args):
    check_dataset(lambda tf: tf.data.Dataset.range(*args))


def test_range_tensor_arguments():
    check_dataset(lambda tf: tf.data.Dataset.range(tf.constant(4, tf.int64)))
    check_dataset(lambda tf: tf.data.Dataset.range(np.int32(3)))


def test_counter():
    check_dataset(lambda tf: tf.data.Dataset.counter(), limit=5)
    check_dataset(lambda tf: tf.data.Dataset.counter(start=2, step=3).take(4))
    check_dataset(lambda tf: tf.data.Dataset.counter(5, -2, dtype=tf.int32).take(4))
    check_dataset(lambda tf: tf.data.experimental.Counter(1).take(3))


def _gen(n=3):
    for i in range(int(n)):
        yield i, [i] * 2


def _sig(tf):
    return (tf.TensorSpec([], tf.int64), tf.TensorSpec([2], tf.int32))


def test_from_generator_signature_and_args():
    check_dataset(lambda tf: tf.data.Dataset.from_generator(_gen, output_signature=_sig(tf)))
    check_dataset(lambda tf: tf.data.Dataset.from_generator(_gen, output_signature=_sig(tf), args=(2,)))
    check_dataset(lambda tf: tf.data.Dataset.from_generator(_gen, output_signature=_sig(tf),
                                                            args=(tf.constant(1.0),)))
    check_dataset(lambda tf: tf.data.Dataset.from_generator(_gen, (tf.int64, tf.int32)))
    check_dataset(lambda tf: tf.data.Dataset.from_generator(_gen, (tf.int64, tf.int32), (tf.TensorShape([]), [2])))
    check_dataset(lambda tf: tf.data.Dataset.from_generator(
        lambda: iter([{"a": 1, "b": 2.0}]),
        output_signature={"a": tf.TensorSpec([], tf.int32), "b": tf.TensorSpec([], tf.float32)}))
    check_dataset(lambda tf: tf.data.Dataset.from_generator(
        lambda: iter([[1], [1, 2]]), output_signature=tf.TensorSpec([None], tf.int32)).padded_batch(2))


def test_from_generator_argument_types():
    seen = {}

    def generator(*args):
        seen.setdefault(len(seen), [(type(a).__name__, a) for a in args])
        return iter([1])

    for tf in (real, vtf):
        list(tf.data.Dataset.from_generator(generator, output_signature=tf.TensorSpec([], tf.int32),
                                            args=(2, "ab", [1, 2], 1.5)))
    (want, got) = (seen[0], seen[1])
    assert [t for t, _ in got] == [t for t, _ in want]
    for (_, w), (_, g) in zip(want, got):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


YIELDS = [([1.5], "int32", []), ([1], "float32", []), ([np.float64(1.5)], "float32", []),
          ([np.array([1, 2])], "int32", [2]), ([[1, 2, 3]], "int32", [2]), ([[1, 2]], "int32", []),
          ([None], "int32", []), ([(1,)], "int32", []),
          ([(1, 2)], "int32", [2]), (["ab", b"c"], "string", []), ([1], "bool", []), ([300], "uint8", []),
          (["a"], "int32", []), ([1], "string", [])]


@pytest.mark.parametrize("values,dtype,shape", YIELDS, ids=repr)
def test_from_generator_conversions(values, dtype, shape):
    check_dataset(lambda tf: tf.data.Dataset.from_generator(lambda: iter(values),
                                                            output_signature=tf.TensorSpec(shape, dtype)))


def test_from_generator_errors():
    check_dataset(lambda tf: tf.data.Dataset.from_generator(_gen))
    check_dataset(lambda tf: tf.data.Dataset.from_generator(_gen, output_types=tf.int32,
                                                            output_signature=tf.TensorSpec([], tf.int32)))
    check_dataset(lambda tf: tf.data.Dataset.from_generator(iter([1]), output_signature=tf.TensorSpec([], tf.int32)))
    check_dataset(lambda tf: tf.data.Dataset.from_generator(
        lambda: iter([(1, 2)]), output_signature=[tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.int32)]))
    check_dataset(lambda tf: tf.data.Dataset.from_generator(_gen, output_signature=1))
    check_dataset(lambda tf: tf.data.Dataset.from_generator(
        lambda: iter([1]), output_signature=(tf.TensorSpec([], tf.int32), tf.TensorSpec([], tf.int32))))
    check_dataset(lambda tf: tf.data.Dataset.from_generator(
        lambda: iter([[1, 2]]), output_signature=(tf.TensorSpec([], tf.int64), tf.TensorSpec([], tf.int32))))
    check_dataset(lambda tf: tf.data.Dataset.from_generator(lambda: (1 // 0 for _ in range(2)),
                                                            output_signature=tf.TensorSpec([], tf.int32)))
    check_dataset(lambda tf: tf.data.Dataset.from_generator(lambda: (int("x") for _ in range(2)),
                                                            output_signature=tf.TensorSpec([], tf.int32)))


def test_from_generator_runs_the_generator_per_iteration():
    check_value(lambda tf: (lambda d: [list(d), list(d)])(tf.data.Dataset.from_generator(
        lambda: iter([1, 2]), output_signature=tf.TensorSpec([], tf.int32))))


def test_zip():
    check_dataset(lambda tf: tf.data.Dataset.zip(tf.data.Dataset.range(5),
                                                 tf.data.Dataset.range(3, output_type=tf.int32)))
    check_dataset(lambda tf: tf.data.Dataset.zip((tf.data.Dataset.range(3), (tf.data.Dataset.range(4),
                                                                             tf.data.Dataset.from_tensors("a").repeat()))))
    check_dataset(lambda tf: tf.data.Dataset.zip({"b": tf.data.Dataset.range(2), "a": tf.data.Dataset.range(3)}))
    check_dataset(lambda tf: tf.data.Dataset.zip(datasets=(tf.data.Dataset.range(2), tf.data.Dataset.range(2))))
    check_dataset(lambda tf: tf.data.Dataset.zip(tf.data.Dataset.range(2)))
    check_dataset(lambda tf: tf.data.Dataset.zip(Point(tf.data.Dataset.range(2), tf.data.Dataset.range(2))))
    check_dataset(lambda tf: tf.data.Dataset.zip(tf.data.Dataset.range(2).repeat(), tf.data.Dataset.range(3)))
    check_dataset(lambda tf: tf.data.Dataset.zip(tf.data.Dataset.range(2).repeat(), tf.data.Dataset.range(3).filter(
        lambda x: x > 0)))
    check_dataset(lambda tf: tf.data.Dataset.zip(tf.data.Dataset.range(2), 1))
    check_dataset(lambda tf: tf.data.Dataset.zip())


def test_concatenate():
    check_dataset(lambda tf: tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(5, 7)))
    check_dataset(lambda tf: tf.data.Dataset.from_tensors([1, 2]).concatenate(tf.data.Dataset.from_tensors([1, 2, 3])))
    check_dataset(lambda tf: tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(3, output_type=tf.int32)))
    check_dataset(lambda tf: tf.data.Dataset.range(3).concatenate(tf.data.Dataset.range(3).repeat()), limit=8)
    check_dataset(lambda tf: tf.data.Dataset.range(3).concatenate(tf.data.Dataset.zip(tf.data.Dataset.range(3),
                                                                                      tf.data.Dataset.range(3))))
    check_dataset(lambda tf: tf.data.Dataset.from_tensor_slices({"a": [1]}).concatenate(
        tf.data.Dataset.from_tensor_slices({"a": [2, 3]}).filter(lambda d: d["a"] > 2)))


def test_enumerate():
    check_dataset(lambda tf: tf.data.Dataset.from_tensor_slices(["a", "b"]).enumerate())
    check_dataset(lambda tf: tf.data.Dataset.range(3).enumerate(start=5))
    check_dataset(lambda tf: tf.data.Dataset.range(3).apply(tf.data.experimental.enumerate_dataset(2)))


def test_choose_from_datasets():
    def choose(tf, choices, **kwargs):
        sources = [tf.data.Dataset.from_tensors("a").repeat(), tf.data.Dataset.from_tensors("b").repeat(2)]
        return tf.data.Dataset.choose_from_datasets(sources, tf.data.Dataset.from_tensor_slices(
            tf.constant(choices, tf.int64)), **kwargs)

    check_dataset(lambda tf: choose(tf, [0, 1, 1, 0]))
    check_dataset(lambda tf: choose(tf, [1, 1, 1, 0]))
    check_dataset(lambda tf: choose(tf, [1, 1, 1, 0], stop_on_empty_dataset=False))
    check_dataset(lambda tf: choose(tf, [0, 2]))
    check_dataset(lambda tf: tf.data.Dataset.choose_from_datasets([tf.data.Dataset.range(2)],
                                                                  tf.data.Dataset.range(1, output_type=tf.int32)))
    check_dataset(lambda tf: tf.data.Dataset.choose_from_datasets([], tf.data.Dataset.range(1)))
    check_dataset(lambda tf: tf.data.experimental.choose_from_datasets(
        [tf.data.Dataset.range(3), tf.data.Dataset.range(10, 13)], tf.data.Dataset.range(2).repeat(3)))


@pytest.mark.parametrize("weights", [None, [0.2, 0.8], [0.5, 0.0, 0.5], np.array([1.0, 3.0])], ids=repr)
def test_sample_from_datasets_draws_tfs_choices(weights):
    def sample(tf, **kwargs):
        sources = [tf.data.Dataset.from_tensors(i).repeat() for i in range(2 if weights is None else len(weights))]
        return tf.data.Dataset.sample_from_datasets(sources, weights=weights, seed=3, **kwargs).take(40)

    check_dataset(sample)
    check_value(lambda tf: (lambda d: [list(d), list(d)])(sample(tf, rerandomize_each_iteration=True)))


def test_sample_from_datasets_stops():
    check_dataset(lambda tf: tf.data.Dataset.sample_from_datasets(
        [tf.data.Dataset.range(3), tf.data.Dataset.range(10, 14)], seed=1))
    check_dataset(lambda tf: tf.data.Dataset.sample_from_datasets(
        [tf.data.Dataset.range(3), tf.data.Dataset.range(10, 14)], seed=1, stop_on_empty_dataset=True))
    check_dataset(lambda tf: tf.data.Dataset.sample_from_datasets([tf.data.Dataset.range(2)], seed=1))
    check_dataset(lambda tf: tf.data.Dataset.sample_from_datasets([tf.data.Dataset.range(2)] * 2, weights=[1.0]))


@pytest.mark.parametrize("rerandomize", [None, False, True])
def test_random(rerandomize):
    check_value(lambda tf: (lambda d: [list(d.take(5)), list(d.take(5))])(
        tf.data.Dataset.random(seed=7, rerandomize_each_iteration=rerandomize)))
    check_dataset(lambda tf: tf.data.Dataset.random(seed=1), limit=3)


def test_from_list():
    check_dataset(lambda tf: tf.data.experimental.from_list([(1, "a"), (2, "b")]))
    check_dataset(lambda tf: tf.data.experimental.from_list([[1, 2], [3]]))


def test_len_bool_repr_and_cardinality():
    check_value(lambda tf: len(tf.data.Dataset.range(4)))
    check_value(lambda tf: len(tf.data.Dataset.range(4).repeat()))
    check_value(lambda tf: len(tf.data.Dataset.range(4).filter(lambda x: x > 1)))
    check_value(lambda tf: bool(tf.data.Dataset.range(0)))
    check_value(lambda tf: tf.data.Dataset.range(4).cardinality())
    check_value(lambda tf: tf.data.experimental.cardinality(tf.data.Dataset.range(4).repeat()))
    check_value(lambda tf: (tf.data.INFINITE_CARDINALITY, tf.data.UNKNOWN_CARDINALITY, tf.data.AUTOTUNE,
                            tf.data.experimental.AUTOTUNE, tf.data.experimental.INFINITE_CARDINALITY))


def test_iterators():
    check_value(lambda tf: (lambda it: [next(it), it.get_next(), it.element_spec, list(it)])(
        iter(tf.data.Dataset.range(4))))
    check_value(lambda tf: (lambda it: [it.get_next() for _ in range(3)])(iter(tf.data.Dataset.range(2))))
    check_value(lambda tf: (lambda it: [next(it) for _ in range(3)])(iter(tf.data.Dataset.range(2))))
    check_value(lambda tf: (lambda o: [o.has_value(), o.get_value()])(
        iter(tf.data.Dataset.range(2)).get_next_as_optional()))
    check_value(lambda tf: (lambda o: [o.has_value(), o.element_spec])(
        iter(tf.data.Dataset.range(0)).get_next_as_optional()))
    check_value(lambda tf: iter(tf.data.Dataset.range(0)).get_next_as_optional().get_value())
    check_value(lambda tf: isinstance(iter(tf.data.Dataset.range(0)), tf.data.Iterator))


def test_as_numpy_iterator():
    check_value(lambda tf: list(tf.data.Dataset.zip({"a": tf.data.Dataset.range(2),
                                                     "b": tf.data.Dataset.from_tensors("x").repeat()}
                                                    ).as_numpy_iterator()))
    check_value(lambda tf: list(tf.data.Dataset.from_tensor_slices(Point([1, 2], [[1.0], [2.0]])).as_numpy_iterator()))
    check_value(lambda tf: list(tf.data.Dataset.range(3).batch(2).as_numpy_iterator()))
    check_value(lambda tf: tf.data.Dataset.range(3).window(2).as_numpy_iterator())


def test_get_single_element():
    check_value(lambda tf: tf.data.Dataset.from_tensors((1, "a")).get_single_element())
    check_value(lambda tf: tf.data.Dataset.range(2).get_single_element())
    check_value(lambda tf: tf.data.Dataset.range(0).get_single_element())
    check_value(lambda tf: tf.data.experimental.get_single_element(tf.data.Dataset.range(1)))
