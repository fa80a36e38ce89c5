"""AutoGraph's ``for`` over tf.data datasets and iterators inside tf.function against TF 2.21: a graph loop that
reads the dataset at every call (a reshuffled order, new random draws, a generator run again), never the elements
read while tracing."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check, vtf


def twice(f, *args):
    """Two calls of the tf.function ``f`` and its tracing count."""
    return f(*args), f(*args), f.experimental_get_tracing_count()


def test_shuffled_captured_dataset_reshuffles_at_every_call():
    def case(tf):
        ds = tf.data.Dataset.range(8).shuffle(8, seed=3)

        @tf.function
        def order():
            seen = tf.constant([], tf.int64)
            for x in ds:
                tf.autograph.experimental.set_loop_options(shape_invariants=[(seen, tf.TensorShape([None]))])
                seen = tf.concat([seen, [x]], 0)
            return seen

        first, second, count = twice(order)
        assert not np.array_equal(first.numpy(), second.numpy())  # (a replayed first order would fail here)
        return first, second, count
    check(case)


def test_random_map_and_batches_draw_anew():
    def case(tf):
        tf.random.set_seed(5)
        ds = tf.data.Dataset.range(6).map(lambda x: tf.cast(x, tf.float32) + tf.random.uniform([], seed=2))
        ds = ds.shuffle(6, seed=1).batch(4)

        @tf.function
        def total():
            s = tf.constant(0.0)
            for batch in ds:
                s += tf.reduce_sum(batch * tf.range(1.0, 1.0 + tf.cast(tf.size(batch), tf.float32)))
            return s
        return twice(total)
    check(case, rtol=1e-5)


def test_dataset_argument_traced_once_per_element_spec():
    def case(tf):
        @tf.function
        def total(ds):
            s = tf.constant(0, tf.int64)
            for x in ds:
                s += x
            return s
        return (total(tf.data.Dataset.range(3)), total(tf.data.Dataset.range(7)),
                total(tf.data.Dataset.range(2, 5)), total.experimental_get_tracing_count())
    check(case)


def test_partial_last_batch_shapes_follow_each_element():
    def case(tf):
        ds = tf.data.Dataset.from_tensor_slices(np.arange(20, dtype=np.float32).reshape(10, 2)).batch(4)

        @tf.function
        def stats():
            rows = tf.constant(0)
            acc = tf.zeros([2])
            last = tf.zeros([0, 2])
            for batch in ds:
                tf.autograph.experimental.set_loop_options(shape_invariants=[(last, tf.TensorShape([None, 2]))])
                rows += tf.shape(batch)[0]
                acc += tf.reduce_mean(batch, axis=0)
                last = batch * 2.0
            return rows, acc, last
        return twice(stats)
    check(case)


def test_nested_elements_and_variable_updates():
    def case(tf):
        v = tf.Variable(0.0)
        ds = tf.data.Dataset.from_tensor_slices(({"a": np.array([1.0, 2.0, 3.0], np.float32),
                                                  "b": np.array([[1, 2], [3, 4], [5, 6]], np.int32)},
                                                 np.array([4.0, 5.0, 6.0], np.float32)))

        @tf.function
        def step():
            count = tf.constant(0)
            for features, label in ds:
                v.assign_add(features["a"] * label)
                count += tf.reduce_sum(features["b"])
            return v.read_value(), count
        return twice(step)
    check(case)


def test_break_continue_and_enumerate():
    def case(tf):
        ds = tf.data.Dataset.range(10)

        @tf.function
        def until(limit):
            s = tf.constant(0, tf.int64)
            for i, x in enumerate(ds):
                if x % 3 == 0:
                    continue
                if x > limit:
                    break
                s += x * tf.cast(i, tf.int64)
            return s
        return until(tf.constant(5, tf.int64)), until(tf.constant(8, tf.int64)), until.experimental_get_tracing_count()
    check(case)


def test_empty_dataset_runs_no_iteration():
    def case(tf):
        empty = tf.data.Dataset.range(0)

        @tf.function
        def total(start):
            s = start
            for x in empty:
                s += x
            for x in tf.data.Dataset.range(3).take(0):
                s += x
            return s
        return total(tf.constant(10, tf.int64)), total(tf.constant(4, tf.int64))
    check(case)


def test_dataset_made_inside_from_an_argument_checks_the_traced_value():
    # TF builds the dataset in the graph at every call; vfw builds it once per trace: a call with another value
    # raises instead of iterating the traced value's elements.
    @vtf.function
    def total(n):
        s = vtf.constant(0, vtf.int64)
        for x in vtf.data.Dataset.range(n):
            s += x
        return s

    assert int(total(vtf.constant(4, vtf.int64))) == 6
    assert int(total(vtf.constant(4, vtf.int64))) == 6
    with pytest.raises(vtf.errors.InvalidArgumentError, match="differs from its value when the function was traced"):
        total(vtf.constant(5, vtf.int64))


def test_generator_dataset_runs_at_every_call():
    def case(tf):
        runs = []

        def gen():
            runs.append(1)
            for i in range(len(runs) + 2):
                yield np.float32(i) * len(runs)

        ds = tf.data.Dataset.from_generator(gen, output_signature=tf.TensorSpec((), tf.float32))

        @tf.function
        def total():
            s = tf.constant(0.0)
            for x in ds:
                s += x
            return s
        first, second, count = twice(total)
        return first, second, count, len(runs)
    check(case)


def test_iterators_fresh_inside_and_captured_outside():
    def case(tf):
        ds = tf.data.Dataset.range(4)
        captured = iter(ds)

        @tf.function
        def inside():
            s = tf.constant(0, tf.int64)
            for x in iter(ds):
                s += x
            return s

        @tf.function
        def outside():
            s = tf.constant(0, tf.int64)
            for x in captured:
                s += x
            return s
        return twice(inside), twice(outside)
    check(case)


def test_gradient_tape_and_nested_dataset_loops():
    def case(tf):
        w = tf.Variable([1.0, -2.0])
        xs = tf.data.Dataset.from_tensor_slices(np.array([[1.0, 2.0], [3.0, 4.0], [0.5, 1.0]], np.float32))
        ks = tf.data.Dataset.range(1, 3)

        @tf.function
        def train():
            for x in xs:
                for k in ks:
                    with tf.GradientTape() as tape:
                        loss = tf.reduce_sum(w * w * x) * tf.cast(k, tf.float32)
                    w.assign_sub(0.01 * tape.gradient(loss, w))
            return w.read_value()
        return twice(train)
    check(case)


def test_return_inside_and_variable_first_assigned_in_body_raise():
    def case(tf, which):
        ds = tf.data.Dataset.range(5)

        @tf.function
        def returns():
            for x in ds:
                if x > 2:
                    return x
            return tf.constant(-1, tf.int64)

        @tf.function
        def undefined():
            for x in ds:
                y = x * 2
            return y
        return (returns, undefined)[which]()
    check(case, 0)
    check(case, 1)


def test_next_on_a_captured_iterator_reads_at_every_call():
    # (more in test_function_iterators) the graph reads the iterator: never a replay of the traced element
    def case(tf):
        it = iter(tf.data.Dataset.range(3))

        @tf.function
        def first():
            return next(it)
        return first(), first(), first(), first.experimental_get_tracing_count()
    check(case)


def test_map_function_of_dataset_made_inside_reading_an_argument_raises():
    # vfw runs dataset functions in Python: a traced argument they captured would keep its first value.
    @vtf.function
    def total(scale):
        s = vtf.constant(0.0)
        for x in vtf.data.Dataset.range(3).map(lambda v: vtf.cast(v, vtf.float32) * scale):
            s += x
        return s

    with pytest.raises(NotImplementedError, match="follow the call's values"):
        total(vtf.constant(2.0))


def test_map_function_reading_captured_constant_and_variable():
    def case(tf):
        c = tf.constant(3.0)
        v = tf.Variable(1.0)

        @tf.function
        def total():
            s = tf.constant(0.0)
            for x in tf.data.Dataset.range(3).map(lambda t: tf.cast(t, tf.float32) * c * v):
                s += x
            return s
        first = total()
        v.assign(2.0)
        return first, total()
    check(case)
