"""Public methods and properties of TF's classes beyond the core API (TensorShape and DType trace types, TF 1
leftovers of Tensor/Variable/iterators, more RaggedTensor constructors) against real TF."""

import re

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, real, vtf

SHAPES = [[2, 3], [2, None], None, [], [1], [2, 3, 4], [None, 3]]


def check_message(fn):
    """Both libraries raise the same exception class name with the same message (the ``[Op:..]`` text kept)."""
    messages = []
    for lib in (real, vtf):
        with pytest.raises(Exception) as info:
            fn(lib)
        message = re.sub(r"^\{\{function_node [^}]*\}\} ", "", str(info.value))  # TF's kernel location
        messages.append((type(info.value).__name__, message.split("\n")[0]))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("dims", SHAPES, ids=repr)
@pytest.mark.parametrize("other", SHAPES, ids=repr)
def test_tensor_shape_rank_checks_and_trace_types(dims, other):
    check(lambda tf: tf.TensorShape(dims).assert_same_rank(tf.TensorShape(other)))
    check(lambda tf: tf.TensorShape(dims).is_subtype_of(tf.TensorShape(other)))
    check(lambda tf: tf.TensorShape(dims).most_specific_common_supertype([tf.TensorShape(other)]))
    check(lambda tf: tf.TensorShape(dims).most_specific_common_supertype([tf.TensorShape(other), tf.TensorShape(dims)]))


@pytest.mark.parametrize("dims", SHAPES, ids=repr)
def test_tensor_shape_assertions(dims):
    check(lambda tf: tf.TensorShape(dims).assert_is_fully_defined())
    for rank in range(-1, 5):
        check(lambda tf, rank=rank: tf.TensorShape(dims).with_rank_at_least(rank))
        check(lambda tf, rank=rank: tf.TensorShape(dims).with_rank_at_most(rank))
    check(lambda tf: tf.TensorShape(dims).most_specific_common_supertype([]))
    check(lambda tf: tf.TensorShape(dims).most_specific_common_supertype([[2, 3]]))
    check(lambda tf: tf.TensorShape(dims).is_subtype_of(tf.float32))
    check(lambda tf: tf.TensorShape(dims).flatten())
    check(lambda tf: tf.TensorShape(dims).to_tensors(tf.TensorShape(dims)))
    check(lambda tf: tf.TensorShape(dims).from_tensors(iter([])))
    check(lambda tf: tf.TensorShape(dims).placeholder_value(None))


def test_tensor_shape_messages():
    check_message(lambda tf: tf.TensorShape([2, None]).assert_is_fully_defined())
    check_message(lambda tf: tf.TensorShape(None).assert_is_fully_defined())
    check_message(lambda tf: tf.TensorShape([2, 3]).assert_same_rank([1]))
    check_message(lambda tf: tf.TensorShape([2, 3]).with_rank_at_least(3))
    check_message(lambda tf: tf.TensorShape([2, 3]).with_rank_at_most(1))


DTYPE_NAMES = ["float16", "bfloat16", "float32", "float64", "int8", "int32", "int64", "uint8", "uint64", "bool",
               "string", "complex64", "complex128", "qint8", "quint8", "qint32", "resource", "variant"]


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_dtype_is_numeric_and_trace_types(name):
    check(lambda tf: tf.as_dtype(name).is_numeric)
    for other in ("float32", "int32", "bool"):
        check(lambda tf, other=other: tf.as_dtype(name).is_subtype_of(tf.as_dtype(other)))
        check(lambda tf, other=other: tf.as_dtype(name).most_specific_common_supertype([tf.as_dtype(other)]))
    check(lambda tf: tf.as_dtype(name).most_specific_common_supertype([]))
    check(lambda tf: tf.as_dtype(name).most_specific_common_supertype([tf.as_dtype(name), tf.as_dtype(name)]))
    check(lambda tf: tf.as_dtype(name).flatten())
    check(lambda tf: tf.as_dtype(name).to_tensors(1))
    check(lambda tf: tf.as_dtype(name).from_tensors(iter([])))
    check(lambda tf: tf.as_dtype(name).placeholder_value(None))


def test_dtype_is_subtype_of_compares_like_equality():
    check(lambda tf: tf.float32.is_subtype_of(1))  # DataType enum 1 is DT_FLOAT
    check(lambda tf: tf.float32.is_subtype_of("float32"))
    check(lambda tf: tf.float32.is_subtype_of(tf.TensorShape([2])))


@pytest.mark.parametrize("value", [[1.0, 2.0], [1, 2], 3.0, [1.0, 2.0, 3.0], "a", np.array([1.0, 2.0], np.float64)],
                         ids=repr)
@pytest.mark.parametrize("spec", [([2], "float32"), ([None], "float32"), (None, "float32"), ([2], "int32")],
                         ids=repr)
def test_tensor_spec_trace_types(value, spec):
    check(lambda tf: tf.TensorSpec(*spec).to_tensors(value))
    check(lambda tf: [repr(s) for s in tf.TensorSpec(*spec).flatten()])
    check(lambda tf: tf.TensorSpec(*spec).from_tensors(iter([tf.constant([1.0, 2.0])])))


def test_tensor_spec_to_tensors_of_variable_and_tensor():
    check(lambda tf: tf.TensorSpec([None]).to_tensors(tf.Variable([1.0, 2.0])))
    check(lambda tf: tf.TensorSpec([2]).to_tensors(tf.constant([1, 2])))
    check(lambda tf: tf.TensorSpec([2]).from_tensors(iter([])))


# -- tf.Tensor -----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("member", ["op", "graph", "name", "value_index", "is_packed"])
def test_tensor_eager_properties(member):
    check(lambda tf: getattr(tf.constant([1.0]), member))
    if member != "is_packed":
        check_message(lambda tf: getattr(tf.constant([1.0]), member))


def test_tensor_eager_methods():
    check_message(lambda tf: tf.constant(1.0).eval())
    check_message(lambda tf: tf.constant(1.0).consumers())
    check_message(lambda tf: tf.constant(1.0).gpu())
    check(lambda tf: tf.constant([1, 2]).cpu())
    check(lambda tf: tf.constant(1.0).cpu() is not None)
    assert vtf.Tensor.OVERLOADABLE_OPERATORS == real.Tensor.OVERLOADABLE_OPERATORS


def test_tensor_cpu_is_a_differentiable_copy():
    def fn(tf, x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(x.cpu() * x)
        return x.cpu(), tape.gradient(y, x)

    check(fn, np.array([1.0, -2.0], np.float32))


# -- tf.Variable ---------------------------------------------------------------------------------------------------
def test_variable_count_up_to():
    def fn(tf, dtype):
        v = tf.Variable(3, dtype=dtype)
        return v.count_up_to(5), v.count_up_to(5), v.read_value()

    for dtype in ("int32", "int64"):
        check(fn, dtype)
    def past_limit(tf):
        v = tf.Variable(3)
        v.count_up_to(4)
        v.count_up_to(4)

    check_message(past_limit)
    check_message(lambda tf: tf.Variable(1.0).count_up_to(4))


def test_variable_legacy_members():
    check_message(lambda tf: tf.Variable(1.0).initialized_value())
    check_message(lambda tf: tf.Variable(1.0).eval())
    check_message(lambda tf: tf.Variable(1.0).to_proto())
    check_message(lambda tf: tf.Variable(1.0).create)
    check_message(lambda tf: tf.Variable(1.0).op)
    check_message(lambda tf: tf.Variable(1.0).graph)
    check(lambda tf: tf.Variable(1.0).is_initialized())

    def load(tf):
        v = tf.Variable([1.0, 2.0])
        return v.load([3.0, 4.0]), v.read_value()

    check(load)

    def read_no_copy(tf, x):
        v = tf.Variable(x)
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(v.read_value_no_copy() ** 2)
        return y, tape.gradient(y, v)

    check(read_no_copy, np.array([1.0, 3.0], np.float32))


@pytest.mark.parametrize("case", [
    ([1.0, 2.0, 3.0], [[5.0]], [[1]]),
    ([1.0, 2.0, 3.0], [5.0, 6.0], [2, 0]),
    ([[1.0, 2.0], [3.0, 4.0]], [[5.0], [6.0]], [[1], [0]]),
    ([[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0]], [1]),
    ([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]], [[[9.0, 9.5]], [[8.0, 8.5]]], [[1], [0]]),
], ids=repr)
def test_variable_batch_scatter_update(case):
    initial, values, indices = case

    def fn(tf):
        v = tf.Variable(initial)
        v.batch_scatter_update(tf.IndexedSlices(tf.constant(values), tf.constant(indices)))
        return v.read_value()

    check(fn)


# -- tf.RaggedTensor -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("starts", [[0, 1, 3], [0, 0, 4], [0], [1, 1, 3], [0, 3, 1], [[0]], [0, 5]], ids=repr)
def test_ragged_from_row_starts(starts):
    check(lambda tf: tf.RaggedTensor.from_row_starts([1, 2, 3, 4], starts).to_list())
    check(lambda tf: tf.RaggedTensor.from_row_starts([1, 2, 3, 4], starts).row_splits)


@pytest.mark.parametrize("limits", [[1, 3, 4], [0, 4], [4], [1, 3, 3], [], [3, 1, 4], [[4]]], ids=repr)
def test_ragged_from_row_limits(limits):
    check(lambda tf: tf.RaggedTensor.from_row_limits([1, 2, 3, 4], limits).to_list())
    check(lambda tf: tf.RaggedTensor.from_row_limits([[1, 2], [3, 4]], limits).row_splits)


@pytest.mark.parametrize("rowids,nrows", [
    ([[0, 0, 1, 3]], [4]), ([[0, 0, 1, 3]], None), ([[0, 1, 1], [0, 0, 1, 2, 2]], None),
    ([[0, 1, 1], [0, 0, 1, 2, 2]], [3, 4]), ([[0, 0, 1, 3]], [4, 5]), ([[0, 2, 1, 3]], None),
], ids=repr)
def test_ragged_from_nested_value_rowids(rowids, nrows):
    flat = list(range(sum(1 for _ in rowids[-1])))

    def fn(tf):
        rt = tf.RaggedTensor.from_nested_value_rowids(flat, rowids, nrows)
        return rt.to_list(), rt.shape, rt.nested_row_splits

    check(fn)


def test_ragged_with_row_splits_dtype_and_protocol():
    check(lambda tf: tf.ragged.constant([[1], [2, 3]]).with_row_splits_dtype(tf.int64).row_splits)
    check(lambda tf: tf.ragged.constant([[[1]], [[2, 3]]]).with_row_splits_dtype("int32").to_list())
    check_message(lambda tf: tf.ragged.constant([[1], [2, 3]]).with_row_splits_dtype(tf.float32))
    check(lambda tf: tf.ragged.constant([[1], [2, 3]]).get_shape())
    check(lambda tf: tf.ragged.constant([[[1]], [[2, 3]]], ragged_rank=1).get_shape())
    check(lambda tf: tf.ragged.constant([[1], [2, 3]]).consumers())


# -- iterators, checkpoints ----------------------------------------------------------------------------------------
def test_dataset_iterator_tf1_members():
    def fn(tf):
        dataset = tf.data.Dataset.from_tensor_slices(({"a": [1, 2]}, [[1.0], [2.0]]))
        iterator = iter(dataset)
        first = iterator.next()
        return first, iterator.next(), iterator.output_types, iterator.output_shapes

    check(fn)
    check(lambda tf: [iter(tf.data.Dataset.range(1)).next() for _ in range(2)])
    check(lambda tf: next(iter(tf.data.Dataset.range(0))))
    classes, structures = [], []
    for lib in (real, vtf):
        iterator = iter(lib.data.Dataset.from_tensors((lib.constant([1]), lib.ragged.constant([[1], [2, 3]]))))
        classes.append([getattr(cls, "__name__", type(cls).__name__) for cls in iterator.output_classes])
        structures.append((iterator.output_types, iterator.output_shapes))
    assert classes[0] == classes[1]
    check(lambda tf: structures[0] if tf is real else structures[1])


def test_checkpoint_sync(tmp_path):
    for lib in (real, vtf):
        checkpoint = lib.train.Checkpoint(v=lib.Variable(1.0))
        checkpoint.write(str(tmp_path / lib.__name__ / "ckpt"))
        assert checkpoint.sync() is None


@pytest.mark.parametrize("values, ids, validate", [
    ([1.0, 2, 3, 4, 5, 6], [2, 0, 3, 1], True), ([1.0, 2, 3], [0, 0, 1, 1], True),
    ([1.0, 2, 3, 4, 5, 6], [2, 0, 3, 1], False), ([1.0, 2, 3, 4], [2, 0, 3, 1], True)])
def test_from_value_rowids_checks_in_tfs_order(values, ids, validate):
    # with validate, TF's assertions on the ids (sorted, in range) run before the static shape check
    outcomes = []
    for tf in (real, vtf):
        try:
            outcomes.append(tf.RaggedTensor.from_value_rowids(values, ids, validate=validate).to_list())
        except Exception as error:  # noqa: BLE001  (the exception class is the compared outcome)
            outcomes.append(type(error).__name__)
    assert outcomes[1] == outcomes[0]
