"""Reading a tf.data iterator inside tf.function against TF 2.21: ``next(iterator)``, ``get_next()`` and
``get_next_as_optional()`` are ops of the graph that pull the next element at every call (never the element read
while tracing), the end raises OutOfRangeError, iterators are traced by element spec, and the custom training loop
of TF's tf.distribute tutorials (``strategy.run(step, args=(next(iterator),))`` in a tf.function)."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check

_X = np.arange(10, dtype=np.float32).reshape(5, 2) / 4


def test_next_reads_a_new_element_at_every_call():
    def case(tf, x):
        ds = tf.data.Dataset.from_tensor_slices(x).batch(2)  # batches of 2, 2 and 1 rows
        it = iter(ds)

        @tf.function
        def step(iterator):
            return tf.reduce_sum(next(iterator) * 2.0, axis=0), tf.shape(next(iterator))

        @tf.function
        def one(iterator):
            return iterator.get_next() + 1.0
        first = step(it)
        return first, one(it), one.experimental_get_tracing_count(), step.experimental_get_tracing_count()
    check(case, _X)


def test_reading_past_the_end_raises_out_of_range():
    def case(tf, x, calls, method):
        it = iter(tf.data.Dataset.from_tensor_slices(x).batch(2))

        @tf.function
        def step(iterator):
            return iterator.get_next() if method else next(iterator)
        return [step(it) for _ in range(calls)]
    for method in (0, 1):
        check(case, _X, 3, method)
        check(case, _X, 4, method)  # the error of the graph run (the trace read the first element)
        check(case, _X[:0], 1, method)  # the error of the first call


def test_iterators_are_traced_by_element_spec():
    def case(tf, x):
        ds = tf.data.Dataset.from_tensor_slices(x).batch(2)

        @tf.function
        def step(iterator):
            return next(iterator) * 2.0
        a = iter(ds)
        b = iter(ds)
        out = [step(a), step(a), step(b), step(a), step(b)]
        counts = [step.experimental_get_tracing_count()]
        out.append(step(iter(tf.data.Dataset.from_tensor_slices(x * 2).batch(2))))  # the same spec: no new trace
        counts.append(step.experimental_get_tracing_count())
        out.append(step(iter(tf.data.Dataset.from_tensor_slices(x).batch(2, drop_remainder=True))))  # (2, 2)
        counts.append(step.experimental_get_tracing_count())
        return out, counts
    check(case, _X)


def test_a_new_iterator_of_a_traced_spec_runs_the_traced_graph():
    # TF traces once: Python side effects run once, and each call reads the iterator it is given
    def case(tf, x):
        ds = tf.data.Dataset.from_tensor_slices(x).shuffle(5, seed=1).batch(2)
        traced = []

        @tf.function
        def step(first, second):
            traced.append(1)
            return next(first) - 1.0, next(second), next(first)
        out = []
        for _ in range(3):  # epochs: new iterators, each over a new shuffle
            a, b = iter(ds), iter(tf.data.Dataset.from_tensor_slices(x * 3).batch(2))
            out.append([step(a, b), next(a), step(b, a)])
        return out, len(traced), step.experimental_get_tracing_count()
    check(case, _X)


def test_for_loop_over_an_iterator_argument():
    def case(tf, x):
        ds = tf.data.Dataset.from_tensor_slices(x).batch(2)

        @tf.function
        def rest(iterator):
            s = tf.zeros([2])
            for batch in iterator:
                s += tf.reduce_sum(batch, axis=0)
            return s
        a = iter(ds)
        first = next(a)
        b = iter(tf.data.Dataset.from_tensor_slices(x * 2).batch(2))
        return first, rest(a), rest(b), rest(a), rest.experimental_get_tracing_count()
    check(case, _X)


def test_iterator_passed_on_to_an_inner_function():
    def case(tf, x):
        ds = tf.data.Dataset.from_tensor_slices(x).batch(2)

        @tf.function
        def inner(iterator):
            return next(iterator)

        @tf.function
        def outer(iterator):
            return inner(iterator) + inner(iterator)
        a = iter(ds)
        first = outer(a), inner(a)
        return (first, outer(iter(ds)), outer.experimental_get_tracing_count(), inner.experimental_get_tracing_count(),
                isinstance(a, tf.data.Iterator))
    check(case, _X)


def test_captured_iterator_and_iterators_made_inside():
    def case(tf, x):
        ds = tf.data.Dataset.from_tensor_slices(x).shuffle(5, seed=4).batch(2)
        captured = iter(ds)

        @tf.function
        def from_captured():
            return captured.get_next()

        @tf.function
        def fresh():
            it = iter(ds)
            first = next(it)
            return first, it.get_next(), tf.reduce_sum(next(it))
        return from_captured(), from_captured(), fresh(), fresh(), fresh.experimental_get_tracing_count()
    check(case, _X)


def test_get_next_as_optional_in_the_graph():
    def case(tf, x):
        it = iter(tf.data.Dataset.from_tensor_slices(x).batch(2))

        @tf.function
        def total(iterator):
            optional = iterator.get_next_as_optional()
            if optional.has_value():
                result = tf.reduce_sum(optional.get_value())
            else:
                result = tf.constant(-1.0)
            return result, optional.has_value()
        return [total(it) for _ in range(5)]
    check(case, _X)


def test_get_value_of_an_empty_optional_raises_when_the_graph_runs():
    def case(tf, x, calls):
        it = iter(tf.data.Dataset.from_tensor_slices(x).batch(4))

        @tf.function
        def value(iterator):
            return iterator.get_next_as_optional().get_value()
        return [value(it) for _ in range(calls)]
    check(case, _X, 2)
    check(case, _X, 3)


def test_reads_inside_a_graph_loop_body():
    def case(tf, x):
        it = iter(tf.data.Dataset.from_tensor_slices(x).repeat())

        @tf.function
        def accumulate(iterator, n):
            s = tf.zeros([2])
            for _ in tf.range(n):
                s += next(iterator)
            return s
        return accumulate(it, tf.constant(3)), accumulate(it, tf.constant(4)), accumulate(it, tf.constant(0))
    check(case, _X)


def test_read_in_a_branch_happens_only_when_it_is_taken():
    def case(tf, x):
        it = iter(tf.data.Dataset.from_tensor_slices(x).batch(2))

        @tf.function
        def pick(iterator, flag):
            if flag:
                value = tf.reduce_sum(next(iterator))
            else:
                value = tf.constant(-1.0)
            return value
        return [pick(it, tf.constant(flag)) for flag in (True, False, True, True, False)]
    check(case, _X)


def test_optional_as_a_while_loop_variable():
    def case(tf, x):
        it = iter(tf.data.Dataset.from_tensor_slices(x).batch(2))

        @tf.function
        def drain(iterator):
            total = tf.constant(0.0)
            count = tf.constant(0)
            optional = iterator.get_next_as_optional()
            while optional.has_value():
                total += tf.reduce_sum(optional.get_value())
                count += tf.shape(optional.get_value())[0]
                optional = iterator.get_next_as_optional()
            return total, count
        return drain(it), drain(it)  # the second call finds the iterator at its end
    check(case, _X)


def test_branches_capturing_values_whose_shape_follows_each_call():
    # a tf.cond branch reads an outer value whose shape changes between runs (a partial last batch, a mask)
    def case(tf, x):
        ds = tf.data.Dataset.from_tensor_slices(x).batch(2)

        @tf.function
        def loop(dataset):
            s = tf.constant(0.0)
            for batch in dataset:
                if tf.reduce_sum(batch) > 1.0:
                    s += tf.reduce_sum(batch * 2.0)
            return s

        @tf.function
        def masked(v):
            kept = tf.boolean_mask(v, v > 1.0)
            if tf.reduce_sum(v) > 0:
                result = tf.reduce_sum(kept) + tf.cast(tf.size(kept), tf.float32)
            else:
                result = tf.constant(0.0)
            return result
        return loop(ds), loop(ds), masked(tf.constant([1.0, 2.0, 3.0])), masked(tf.constant([3.0, 2.0, 3.0]))
    check(case, _X)


def test_training_step_reading_the_iterator():
    def case(tf, x):
        y = x @ np.array([[1.0], [-2.0]], np.float32) + 0.5
        ds = tf.data.Dataset.from_tensor_slices((x, y)).repeat(2).batch(2)
        w = tf.Variable(tf.ones([2, 1]) * 0.1)
        b = tf.Variable(tf.zeros([1]))

        @tf.function
        def train_step(iterator):
            features, labels = next(iterator)
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(features @ w + b - labels))
            gw, gb = tape.gradient(loss, [w, b])
            w.assign_sub(0.1 * gw)
            b.assign_sub(0.1 * gb)
            return loss, gw, gb
        it = iter(ds)
        steps = [train_step(it) for _ in range(5)]  # 2, 2, 1, 2, 2 rows
        return steps, w, b, train_step.experimental_get_tracing_count()
    check(case, _X)


def test_eager_reads_between_calls_share_the_position():
    def case(tf, x):
        it = iter(tf.data.Dataset.from_tensor_slices(x))

        @tf.function
        def step(iterator):
            return next(iterator)
        return step(it), next(it), step(it), it.get_next(), step(it)
    check(case, _X)


# -- tf.distribute's custom training loop ------------------------------------------------------------
def _custom_loop(tf, x, form):
    y = (x.sum(1, keepdims=True) > 1).astype(np.float32)
    strategy = tf.distribute.MirroredStrategy()
    global_batch = 2
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(3, kernel_initializer="ones",
                                                                                 activation="tanh"),
                                     tf.keras.layers.Dense(1, kernel_initializer="ones")])
        optimizer = tf.keras.optimizers.SGD(0.05)
        loss_object = tf.keras.losses.MeanSquaredError(reduction="none")
    dist_ds = strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices((x, y)).batch(global_batch))

    def step_fn(inputs):
        features, labels = inputs
        with tf.GradientTape() as tape:
            per_example = loss_object(labels, model(features, training=True))
            loss = tf.nn.compute_average_loss(per_example, global_batch_size=global_batch)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    @tf.function
    def train_step(iterator):
        per_replica = strategy.run(step_fn, args=(next(iterator),))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

    @tf.function
    def train_epoch(dataset):
        total = tf.constant(0.0)
        for inputs in dataset:
            per_replica = strategy.run(step_fn, args=(inputs,))
            total += strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)
        return total

    @tf.function
    def train_rest(iterator):
        total = tf.constant(0.0)
        for inputs in iterator:
            total += strategy.reduce("SUM", strategy.run(step_fn, args=(inputs,)), axis=None)
        return total

    @tf.function
    def train_fresh():
        it = iter(dist_ds)
        return strategy.reduce("SUM", strategy.run(step_fn, args=(it.get_next(),)), axis=None)

    if form == "steps":
        losses = []
        for _ in range(2):  # epochs
            iterator = iter(dist_ds)
            losses.append([train_step(iterator) for _ in range(3)])  # batches of 2, 2, 1
        result = losses, train_step.experimental_get_tracing_count()
    elif form == "epoch":
        reversed_ds = strategy.experimental_distribute_dataset(
            tf.data.Dataset.from_tensor_slices((x[::-1], y[::-1])).batch(global_batch))
        result = (train_epoch(dist_ds), train_epoch(dist_ds), train_epoch(reversed_ds),
                  train_epoch.experimental_get_tracing_count())
    elif form == "rest":
        iterator = iter(dist_ds)
        result = train_step(iterator), train_rest(iterator), train_rest(iter(dist_ds))
    else:
        result = train_fresh(), train_fresh()
    return result, model.get_weights()


@pytest.mark.parametrize("form", ["steps", "epoch", "rest", "fresh"])
def test_mirrored_strategy_custom_training_loop(form):
    pytest.importorskip("mpi4py")
    check(_custom_loop, _X, form)


def test_distributed_iterator_past_the_end_raises_out_of_range():
    pytest.importorskip("mpi4py")

    def case(tf, x):
        strategy = tf.distribute.MirroredStrategy()
        it = iter(strategy.experimental_distribute_dataset(tf.data.Dataset.from_tensor_slices(x).batch(4)))

        @tf.function
        def step(iterator):
            return strategy.run(tf.reduce_sum, args=(next(iterator),))
        return [step(it) for _ in range(3)]
    check(case, _X)


# -- Dataset.reduce ------------------------------------------------------------------------------------
def test_dataset_reduce_inside_a_function_reads_at_every_call():
    def case(tf, x):
        @tf.function
        def total(ds):
            return ds.reduce(np.int64(0), lambda s, v: s + v)

        shuffled = tf.data.Dataset.from_tensor_slices(x).shuffle(5, seed=2)

        @tf.function
        def order():  # the state depends on the order: a new shuffle at every call
            return shuffled.reduce((tf.zeros([2]), 0), lambda s, v: (s[0] * 2.0 + v, s[1] + 1))

        @tf.function
        def branches(ds):
            def add_large(s, v):
                if v > 2:
                    s += v
                return s
            return ds.reduce(np.int64(0), add_large)
        return (total(tf.data.Dataset.range(5)), total(tf.data.Dataset.range(7)),
                total.experimental_get_tracing_count(), order(), order(), branches(tf.data.Dataset.range(6)))
    check(case, _X)


def test_dataset_reduce_inside_a_function_checks_the_state_type():
    def case(tf):
        @tf.function
        def retyped(ds):
            return ds.reduce(np.int64(0), lambda s, v: tf.cast(s + v, tf.float32))
        return retyped(tf.data.Dataset.range(3))
    check(case)
