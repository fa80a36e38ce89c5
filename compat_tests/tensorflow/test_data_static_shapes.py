"""tf.data functions are traced on TF's symbolic tensors: the shapes they see and the element specs they give.

Each check builds the same pipeline with real TensorFlow 2.21 and vfw.tensorflow and compares what the
user function sees while it is traced (the tensor's class name, its static shape, its str) and the
resulting ``element_spec`` (None for the dims that follow unknown input dims or the values).
"""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import real, vtf

pytest.importorskip("tensorflow")


def _batched(tf, drop=False):
    return tf.data.Dataset.from_tensor_slices(np.arange(30, dtype=np.float32).reshape(10, 3)).batch(4, drop)


def _counts(tf):
    return tf.data.Dataset.range(1, 6)


def _pairs(tf):
    return tf.data.Dataset.from_tensor_slices(np.ones((5, 2), np.int32))


# name -> (dataset, function): the function's result shape follows unknown dims or values in TF's trace
MAPPED = {
    "identity_of_partial_batch": (_batched, lambda tf: lambda x: x),
    "identity_of_full_batch": (lambda tf: _batched(tf, drop=True), lambda tf: lambda x: x),
    "range_of_value": (_counts, lambda tf: lambda p: tf.range(p, p + 3)),
    "fill_value_and_constant": (_counts, lambda tf: lambda p: tf.fill([p, 2], 1.0)),
    "zeros_of_element": (_pairs, lambda tf: lambda x: tf.zeros(x)),
    "zeros_of_entry": (_pairs, lambda tf: lambda x: tf.zeros(x[0])),
    "reshape_to_value": (_counts, lambda tf: lambda p: tf.reshape(tf.zeros([6]), [tf.cast(p, tf.int32), -1])),
    "tile_by_value": (_counts, lambda tf: lambda p: tf.tile([1, 2], [tf.cast(p, tf.int32)])),
    "slice_to_value": (_counts, lambda tf: lambda p: tf.range(10)[:p]),
    "boolean_mask": (_batched, lambda tf: lambda x: tf.boolean_mask(x, x[:, 0] > 3)),
    "where_indices": (_batched, lambda tf: lambda x: tf.where(x > 4)),
    "unique_of_values": (lambda tf: _counts(tf).batch(2), lambda tf: lambda x: tf.unique(x)[0]),
    "unique_of_one_value": (_counts, lambda tf: lambda p: tf.unique(p[None])[0]),
    "strings_split": (lambda tf: tf.data.Dataset.from_tensor_slices(["a b", "c"]), lambda tf: tf.strings.split),
    "elementwise": (_batched, lambda tf: lambda x: x * 2 + 1),
    "reduce_over_batch": (_batched, lambda tf: lambda x: tf.reduce_sum(x, 0)),
    "reduce_over_features": (_batched, lambda tf: lambda x: tf.reduce_sum(x, 1)),
    "transpose": (_batched, lambda tf: lambda x: tf.transpose(x)),
    "concat": (_batched, lambda tf: lambda x: tf.concat([x, x], 0)),
    "matmul": (_batched, lambda tf: lambda x: tf.matmul(x, tf.ones((3, 5)))),
    "shape_of": (_batched, lambda tf: lambda x: tf.shape(x)),
    "range_of_dynamic_dim": (_batched, lambda tf: lambda x: tf.range(tf.shape(x)[0])),
    "new_axis": (_batched, lambda tf: lambda x: x[None]),
    "python_number": (_batched, lambda tf: lambda x: 1),
    "padded_then_mapped": (lambda tf: _counts(tf).map(lambda p: tf.range(p)).padded_batch(2),
                           lambda tf: lambda x: x + 1),
    "tuple_of_components": (lambda tf: tf.data.Dataset.from_tensor_slices(
        (np.zeros((5, 2)), np.arange(5))).batch(2), lambda tf: lambda a, b: (b, a)),
}


@pytest.mark.parametrize("case", sorted(MAPPED))
def test_map_element_spec_is_tfs_static_shape(case):
    dataset, function = MAPPED[case]
    specs = [repr(dataset(tf).map(function(tf)).element_spec) for tf in (real, vtf)]
    assert specs[1] == specs[0]


def _seen_inside(tf, build):
    """What the function sees of its argument tensors while it is traced: (class name, static shape, str)."""
    seen = []

    def show(*xs):
        seen.extend((type(x).__name__, str(x.shape), str(x)) for x in xs)
        return xs[0] if len(xs) == 1 else xs

    spec = build(tf, show)
    return seen, repr(spec)


SEEN = {
    "map_partial_batch": lambda tf, show: _batched(tf).map(show).element_spec,
    "map_full_batch": lambda tf, show: _batched(tf, drop=True).map(show).element_spec,
    "map_tuple": lambda tf, show: tf.data.Dataset.from_tensor_slices(
        (np.zeros((5, 2)), np.arange(5))).batch(2).map(show).element_spec,
    "map_dict": lambda tf, show: tf.data.Dataset.from_tensor_slices({"a": np.zeros((4, 2)), "b": np.zeros(4)}).map(
        lambda d: {"c": show(d["a"]), "d": show(d["b"])}).element_spec,
    "map_unknown_rank": lambda tf, show: tf.data.Dataset.from_generator(
        lambda: iter([np.zeros(3)]), output_signature=tf.TensorSpec(None, tf.float64)).map(show).element_spec,
    "filter": lambda tf, show: _batched(tf).filter(lambda x: show(x)[0, 0] > -1).element_spec,
    "flat_map": lambda tf, show: _batched(tf).flat_map(
        lambda x: tf.data.Dataset.from_tensor_slices(show(x))).element_spec,
    "interleave": lambda tf, show: _batched(tf).interleave(
        lambda x: tf.data.Dataset.from_tensors(show(x)), cycle_length=1).element_spec,
    "scan": lambda tf, show: _batched(tf).scan(tf.constant(0.0), lambda s, x: show(s, x)).element_spec,
    "take_while": lambda tf, show: _batched(tf).take_while(lambda x: show(x)[0, 0] < 100).element_spec,
    "reduce": lambda tf, show: _counts(tf).batch(2).reduce(
        tf.constant(0, tf.int64), lambda s, x: show(s) + tf.reduce_sum(show(x))).shape,
}


@pytest.mark.parametrize("case", sorted(SEEN))
def test_function_sees_symbolic_tensors_of_the_element_spec(case):
    (tf_seen, tf_spec), (vfw_seen, vfw_spec) = [_seen_inside(tf, SEEN[case]) for tf in (real, vtf)]
    assert vfw_spec == tf_spec
    assert tf_seen and all(kind == "SymbolicTensor" for kind, _, _ in tf_seen)
    # TF traces once; vfw traces on two stand-in elements (and `reduce` then runs eagerly per element): the first
    # trace shows what TF's shows.
    assert vfw_seen[:len(tf_seen)] == tf_seen


@pytest.mark.parametrize("targets", [False, True])
@pytest.mark.parametrize("batch_size", [3, None])
@pytest.mark.parametrize("length", [3, 4, 8])
def test_timeseries_dataset_spec_and_windows(targets, batch_size, length):
    data = np.arange(16.0).reshape(8, 2)

    def build(tf):
        return tf.keras.utils.timeseries_dataset_from_array(
            data, np.arange(8) if targets else None, sequence_length=4, sampling_rate=1 if length < 8 else 2,
            batch_size=batch_size)

    datasets = [build(tf) for tf in (real, vtf)]
    assert repr(datasets[1]) == repr(datasets[0])

    def elements(ds):
        return [[np.asarray(c).tolist() for c in (e if targets else (e,))] for e in ds]
    assert elements(datasets[1]) == elements(datasets[0])


def test_unique_inside_function_follows_each_call():
    def run(tf):
        shown = []

        @tf.function
        def distinct(x):
            y = tf.unique(x)[0]
            shown.append(str(y.shape))
            return tf.shape(y), tf.zeros_like(y) + 1, tf.unique_with_counts(x).count

        calls = [distinct(tf.constant(v)) for v in ([1, 1, 1], [1, 2, 3], [4, 4, 5])]
        return shown, [[t.numpy().tolist() for t in call] for call in calls]

    assert run(vtf) == run(real)


def test_fill_from_an_entry_of_an_unknown_dim_argument():
    def run(tf):
        shown = []

        @tf.function(input_signature=[tf.TensorSpec([None], tf.int64)])
        def filled(x):
            y = tf.fill([x[0], 2], 1.0)
            shown.append(str(y.shape))
            return y

        return shown, filled(tf.constant([3, 4], tf.int64)).numpy().tolist()

    assert run(vtf) == run(real)



@pytest.mark.parametrize("make", [lambda tf: tf.zeros((None, 4)), lambda tf: tf.constant([None, 2]),
                                  lambda tf: tf.ones([None]), lambda tf: tf.constant({"a": 1})],
                         ids=["zeros", "constant", "ones", "dict"])
def test_graph_constants_refuse_unconvertible_values_with_type_error(make):
    # eagerly TF raises ValueError ("Attempt to convert a value..."); while a graph is built, TypeError
    for lib in (real, vtf):
        with pytest.raises(ValueError, match="Attempt to convert a value"):
            make(lib)
        with pytest.raises(TypeError):
            lib.function(lambda lib=lib: make(lib))()
