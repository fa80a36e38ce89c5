"""A training step inside AutoGraph's ``for`` over a dataset in tf.function (the whole epoch as one function),
against TF 2.21: gradients through broadcasting ops on batches whose size the element spec leaves unknown, and
the variables the loop body creates (an optimizer's slots) not counting as the function's (no second trace)."""

import numpy as np

from compat_tests.tensorflow.harness import check


def _data(n=22):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    return x, (x @ rng.standard_normal((4, 1)) + 0.5).astype(np.float32)


def test_bias_gradient_in_a_dataset_loop_follows_each_batch():
    def case(tf, x, y):
        w = tf.Variable(tf.ones([4, 1]) * 0.1)
        b = tf.Variable(tf.zeros([1]))
        ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)  # batches of 8, 8, 6

        @tf.function
        def epoch(ds):
            total = tf.constant(0.0)
            for a, t in ds:
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(a @ w + b - t))
                gw, gb = tape.gradient(loss, [w, b])
                w.assign_sub(0.1 * gw)
                b.assign_sub(0.1 * gb)
                total += loss
            return total
        return epoch(ds), epoch(ds), w, b
    check(case, *_data())


def test_variables_created_in_a_dataset_loop_do_not_retrace():
    def case(tf, x, y):
        ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(8)
        made = []

        @tf.function
        def epoch(ds):
            total = tf.constant(0.0)
            for a, t in ds:
                if not made:
                    made.append(tf.Variable(tf.zeros([4])))
                made[0].assign_add(tf.reduce_sum(a, axis=0))
                total += tf.reduce_sum(t)
            return total
        return epoch(ds), epoch(ds), epoch.experimental_get_tracing_count(), tf.convert_to_tensor(made[0])
    check(case, *_data())


def test_keras_optimizer_in_a_dataset_loop():
    def case(tf, x, y):
        tf.keras.utils.set_random_seed(1)
        model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3, activation="tanh"),
                                     tf.keras.layers.Dense(1)])
        optimizer = tf.keras.optimizers.Adam(0.05)
        ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(22, seed=2).batch(8)

        @tf.function
        def epoch(ds):
            total = tf.constant(0.0)
            for a, t in ds:
                with tf.GradientTape() as tape:
                    loss = tf.reduce_mean(tf.square(model(a) - t))
                grads = tape.gradient(loss, model.trainable_weights)
                optimizer.apply_gradients(zip(grads, model.trainable_weights))
                total += loss
            return total
        losses = [epoch(ds) for _ in range(3)]
        return (losses, epoch.experimental_get_tracing_count(), tf.convert_to_tensor(optimizer.iterations),
                [tf.convert_to_tensor(w) for w in model.trainable_weights])
    check(case, *_data())
