"""tf.train.ExponentialMovingAverage against real TF: shadow values and names over several updates (dtypes,
num_updates, decay as a variable), averages of one variable by several EMAs, average_name / variables_to_restore,
errors, updates inside tf.function, and averaging a Keras model's weights during fit.

Shadow-variable names are unique across the process in both libraries, so every case names its variables apart.
"""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import check


def _track(tf, ema, variables, values):
    """Assign each value in turn to the variables and apply; the shadows' names and values after each step."""
    out = []
    for value in values:
        for v in variables:
            v.assign(tf.cast(value, v.dtype) * tf.ones_like(v))
        ema.apply(variables)
        out.append([(ema.average(v).name, ema.average(v).numpy(), ema.average(v).trainable) for v in variables])
    return out


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_updates_and_names(dtype):
    def fn(tf):
        v = tf.Variable(tf.constant([1.0, -2.0, 3.5], dtype=dtype), name=f"ema_w_{dtype}")
        ema = tf.train.ExponentialMovingAverage(0.9)
        return ema.name, _track(tf, ema, [v], [1.0, 4.0, -3.0, 0.25])

    check(fn)


@pytest.mark.parametrize("num_updates", [0, 5, 1000])
def test_num_updates(num_updates):
    def fn(tf):
        v = tf.Variable(2.0, name=f"ema_n{num_updates}")
        step = tf.Variable(num_updates)
        ema = tf.train.ExponentialMovingAverage(0.99, num_updates=step, name="Avg")
        out = []
        for value in (3.0, 7.0, -1.0):
            v.assign(value)
            ema.apply([v])
            step.assign_add(1)
            out.append(ema.average(v).numpy())
        plain = tf.train.ExponentialMovingAverage(0.5, num_updates=num_updates)
        plain.apply([v])
        v.assign(10.0)
        plain.apply([v])
        return out, plain.average(v).numpy()

    check(fn)


def test_decay_variable_and_scoped_names():
    def fn(tf):
        decay = tf.Variable(0.5)
        v = tf.Variable([[1.0, 2.0]], name="scope_a/ema_d")
        ema = tf.train.ExponentialMovingAverage(decay, name="outer/avg")
        ema.apply([v])
        v.assign([[3.0, 6.0]])
        ema.apply([v])
        decay.assign(0.25)
        v.assign([[0.0, 0.0]])
        ema.apply([v])
        return ema.average(v).name, ema.average(v).numpy(), ema.average_name(v)

    check(fn)


def test_several_averages_of_one_variable():
    def fn(tf):
        v = tf.Variable(1.0, name="ema_shared")
        w = tf.Variable(np.float64(2.0), name="ema_other")
        unnamed = tf.Variable(5.0, name="ema_unused")
        first, second = tf.train.ExponentialMovingAverage(0.5), tf.train.ExponentialMovingAverage(0.8)
        first.apply([v, w])
        first.apply([v])  # applying again reuses the shadow
        before = second.average_name(v)
        second.apply([v])
        v.assign(3.0)
        second.apply([v, v])
        restore = second.variables_to_restore([v, v])
        every = first.variables_to_restore()
        mine = {k: every[k] for k in ("ema_shared/ExponentialMovingAverage", "ema_other/ExponentialMovingAverage")}
        return (first.average(v).name, second.average(v).name, second.average(v).numpy(), before,
                second.average_name(v), first.average_name(unnamed), second.average(w), first.average(unnamed),
                {k: val.name for k, val in restore.items()}, {k: val.name for k, val in mine.items()},
                first.average(w).numpy())

    check(fn)


@pytest.mark.parametrize("case", ["int", "tensor", "scalar_not_list"])
def test_errors(case):
    def fn(tf):
        ema = tf.train.ExponentialMovingAverage(0.9)
        if case == "int":
            ema.apply([tf.Variable(1, name="ema_int")])
        elif case == "tensor":
            ema.apply([tf.constant(1.0)])
        else:
            ema.apply(tf.Variable(1.0, name="ema_scalar"))

    check(fn)


def test_apply_without_variables():
    def fn(tf):
        ema = tf.train.ExponentialMovingAverage(0.9)
        return ema.apply(), ema.apply([])

    check(fn)


def test_inside_tf_function():
    def fn(tf):
        v = tf.Variable([2.0, -1.0], name="ema_fn")
        ema = tf.train.ExponentialMovingAverage(0.5, num_updates=3)

        @tf.function
        def step(delta):
            v.assign_add(delta)
            ema.apply([v])
            return ema.average(v).read_value()

        results = [step(tf.constant([1.0, 2.0])), step(tf.constant([0.5, 0.5])), step(tf.constant([-4.0, 1.0]))]
        return results, ema.average(v).name, ema.average(v).numpy(), v.numpy()

    check(fn)


def test_average_of_keras_weights_during_fit():
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(32, 4)).astype("float32"), rng.normal(size=(32, 2)).astype("float32")
    weights = [rng.normal(size=shape).astype("float32") for shape in [(4, 3), (3,), (3, 2), (2,)]]

    def fn(tf):
        tf.keras.backend.clear_session()  # the same layer names in both libraries
        model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3, activation="tanh"),
                                     tf.keras.layers.Dense(2)])
        model.set_weights(weights)
        model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
        ema = tf.train.ExponentialMovingAverage(0.9)
        tf_variables = [v.value for v in model.trainable_variables]

        class Average(tf.keras.callbacks.Callback):
            def on_train_batch_end(self, batch, logs=None):
                ema.apply(tf_variables)

        model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0, callbacks=[Average()])
        return [(ema.average(v).name, ema.average(v).numpy()) for v in tf_variables]

    check(fn, rtol=1e-4, atol=1e-5)


def test_average_updated_in_compiled_train_step():
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=(24, 3)).astype("float32"), rng.normal(size=(24, 1)).astype("float32")
    weights = [rng.normal(size=(3, 1)).astype("float32"), np.zeros(1, "float32")]

    def fn(tf):
        tf.keras.backend.clear_session()
        ema = tf.train.ExponentialMovingAverage(0.8, num_updates=None)

        class Averaged(tf.keras.Model):
            def train_step(self, data):
                logs = super().train_step(data)
                ema.apply([v.value for v in self.trainable_variables])
                return logs

        inputs = tf.keras.Input((3,))
        model = Averaged(inputs, tf.keras.layers.Dense(1)(inputs))
        model.set_weights(weights)
        model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse")
        history = model.fit(x, y, batch_size=6, epochs=2, shuffle=False, verbose=0)
        return history.history["loss"], [(ema.average(v.value).name, ema.average(v.value).numpy())
                                         for v in model.trainable_variables]

    check(fn, rtol=1e-4, atol=1e-5)
