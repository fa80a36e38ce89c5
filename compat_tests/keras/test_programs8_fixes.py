"""Fixes found running round 9 of the TF/Keras programs (compat_tests/programs/tf_more8) under vfw, against real
Keras 3.15.1: ``fit`` of a model whose ``call`` cannot take the batch's ``x`` (a custom ``train_step`` unpacking a
3-tuple itself) defers building to the first step as Keras on TF does outside a strategy scope;
``StringLookup.adapt`` on a ``tf.RaggedTensor`` of label lists; ``predict`` of an end-to-end model on a string
tensor."""

import numpy as np

from compat_tests.keras.core_harness import REAL, VFW, data


def _triplet_fit(lib):
    keras, tf = lib.keras, lib.tf
    keras.utils.set_random_seed(5)
    inputs = [keras.Input((3,), name=name) for name in ("anchor", "positive", "negative")]
    dense = keras.layers.Dense(2)
    anchor, positive, negative = (dense(x) for x in inputs)
    ops = keras.ops
    network = keras.Model(inputs, [ops.sum(ops.square(anchor - positive), -1),
                                   ops.sum(ops.square(anchor - negative), -1)])

    class Triplet(keras.Model):
        def __init__(self, network):
            super().__init__()
            self.network = network
            self.tracker = keras.metrics.Mean(name="loss")

        def call(self, inputs):
            return self.network(inputs)

        def train_step(self, batch):
            with tf.GradientTape() as tape:
                ap, an = self.network(batch)
                loss = tf.maximum(ap - an + 0.5, 0.0)
            grads = tape.gradient(loss, self.network.trainable_weights)
            self.optimizer.apply_gradients(zip(grads, self.network.trainable_weights))
            self.tracker.update_state(loss)
            return {"loss": self.tracker.result()}

        @property
        def metrics(self):
            return [self.tracker]

    model = Triplet(network)
    model.compile(optimizer=keras.optimizers.SGD(0.1))
    triplets = tuple(data(8, 3, seed=s) for s in range(3))
    history = model.fit(tf.data.Dataset.from_tensor_slices(triplets).batch(4), epochs=2, verbose=0)
    return history.history["loss"] + model.network.get_weights()


def test_fit_defers_building_a_model_that_cannot_take_the_batch_x():
    got, want = _triplet_fit(VFW), _triplet_fit(REAL)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def _multi_hot_from_ragged(lib):
    keras, tf = lib.keras, lib.tf
    lookup = keras.layers.StringLookup(output_mode="multi_hot", num_oov_indices=0)
    lookup.adapt(tf.ragged.constant([["b", "a"], ["c"], ["b"], ["a", "b", "d"]]))
    encoded = lookup(tf.ragged.constant([["a"], ["d", "b"]]))
    counted = keras.layers.StringLookup()
    counted.adapt(tf.ragged.constant([["x"], ["y", "x", "z"]]))
    return lookup.get_vocabulary(), np.asarray(encoded), counted.get_vocabulary()


def test_string_lookup_adapts_on_a_ragged_tensor():
    got, want = _multi_hot_from_ragged(VFW), _multi_hot_from_ragged(REAL)
    assert got[0] == want[0] and got[2] == want[2]
    np.testing.assert_array_equal(got[1], want[1])


def _predict_strings(lib):
    keras, tf = lib.keras, lib.tf
    keras.utils.set_random_seed(2)
    vectorizer = keras.layers.TextVectorization(max_tokens=10, output_mode="multi_hot")
    vectorizer.adapt(["a b c", "b c d", "d e"])
    model = keras.Sequential([vectorizer, keras.layers.Dense(2)])
    return model.predict(tf.constant(["a b", "e d c"]), verbose=0), model.predict(tf.constant(["b"]), verbose=0)


def test_predict_on_string_tensors():
    got, want = _predict_strings(VFW), _predict_strings(REAL)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-7)
