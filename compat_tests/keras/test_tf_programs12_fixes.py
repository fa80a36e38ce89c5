"""Fixes found running round 12 of the TF/Keras programs (compat_tests/programs/tf_more11) under vfw, against real
Keras 3.15.1: with ``steps_per_execution`` > 1 a last group of batches shorter than ``steps_per_execution`` runs
quietly (Keras on TF loops over the iterator's optionals inside the step function), only a group that finds no batch
warns that the input ran out of data; ``predict_on_batch``/``train_on_batch``/``test_on_batch`` and generators take
tf tensors (they were read as None)."""

import warnings

import numpy as np

from compat_tests.keras.core_harness import REAL, VFW, data


def _grouped_steps(lib):
    keras, tf = lib.keras, lib.tf
    keras.utils.set_random_seed(2)
    x, y = data(40, 3), data(40, 2, seed=1)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse", steps_per_execution=2)

    def generator():  # unknown cardinality: the end shows up as a group without batches
        for start in range(0, 40, 8):
            yield x[start:start + 8], y[start:start + 8]

    spec = (tf.TensorSpec([None, 3], tf.float32), tf.TensorSpec([None, 2], tf.float32))
    unknown = tf.data.Dataset.from_generator(generator, output_signature=spec)
    results = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results += model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False).history["loss"]
        results.append(model.evaluate(x, y, batch_size=8, verbose=0))
        results.append(model.predict(x, batch_size=8, verbose=0))
        results += model.fit(unknown, epochs=2, verbose=0).history["loss"]
        results.append(model.evaluate(unknown, verbose=0))
    messages = [str(w.message)[:40] for w in caught if issubclass(w.category, UserWarning)]
    return results + model.get_weights(), messages


def test_a_short_last_group_of_steps_runs_without_the_ran_out_warning():
    (got, got_warnings), (want, want_warnings) = _grouped_steps(VFW), _grouped_steps(REAL)
    assert got_warnings == want_warnings
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def _tensor_batches(lib):
    keras, tf = lib.keras, lib.tf
    keras.utils.set_random_seed(3)
    x, y = data(12, 3), data(12, 1, seed=1)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")

    def generator():  # a Python generator of tf tensors, as a tf-based preprocessing function yields them
        for start in range(0, 12, 4):
            yield tf.constant(x[start:start + 4]), tf.constant(y[start:start + 4])

    history = model.fit(generator(), epochs=1, verbose=0)
    return [model.predict_on_batch(tf.constant(x)), model.train_on_batch(tf.constant(x), tf.constant(y)),
            model.test_on_batch(tf.constant(x), tf.constant(y))] + history.history["loss"] + model.get_weights()


def test_on_batch_methods_and_generators_take_tf_tensors():
    got, want = _tensor_batches(VFW), _tensor_batches(REAL)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
