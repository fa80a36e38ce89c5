"""tf.nn.sampled_softmax_loss and tf.nn.nce_loss against real TF 2.21: values and GradientTape gradients with
given sampled values, and with the sampler drawing (to the bit, as the samplers are)."""

import numpy as np
import pytest

from compat_tests.tensorflow.harness import LIBS, assert_same, check, convert, to_numpy

RNG = np.random.default_rng(0)
NUM_CLASSES, DIM = 12, 5
WEIGHTS = RNG.standard_normal((NUM_CLASSES, DIM)).astype(np.float32)
BIASES = RNG.standard_normal(NUM_CLASSES).astype(np.float32)
INPUTS = RNG.standard_normal((4, DIM)).astype(np.float32)
LABELS = {1: np.array([[3], [0], [7], [3]], np.int64), 2: np.array([[3, 5], [0, 0], [7, 1], [11, 3]], np.int64)}
SAMPLED = np.array([3, 9, 0, 4, 5, 3], np.int64)
TRUE_COUNT = {n: RNG.uniform(0.1, 1.0, (4, n)).astype(np.float32) for n in (1, 2)}
SAMPLED_COUNT = RNG.uniform(0.1, 1.0, SAMPLED.size).astype(np.float32)


def _loss_and_grads(lib, loss_name, shards, num_true, options):
    weights = [lib.constant(w) for w in np.array_split(WEIGHTS, shards)] if shards > 1 else lib.constant(WEIGHTS)
    biases, inputs = lib.constant(BIASES), lib.constant(INPUTS)
    sampled_values = convert(lib, (SAMPLED, TRUE_COUNT[num_true], SAMPLED_COUNT))
    leaves = (weights if isinstance(weights, list) else [weights]) + [biases, inputs]
    with lib.GradientTape() as tape:
        for x in leaves:
            tape.watch(x)
        loss = getattr(lib.nn, loss_name)(weights, biases, LABELS[num_true], inputs, SAMPLED.size, NUM_CLASSES,
                                          num_true=num_true, sampled_values=sampled_values, **options)
        total = lib.reduce_sum(loss * lib.constant(np.arange(1.0, 5.0, dtype=np.float32)))
    return loss, [lib.convert_to_tensor(g) for g in tape.gradient(total, leaves)]


@pytest.mark.parametrize("loss_name", ["sampled_softmax_loss", "nce_loss"])
@pytest.mark.parametrize("num_true", [1, 2])
@pytest.mark.parametrize("remove_accidental_hits", [True, False])
@pytest.mark.parametrize("shards", [1, 3])
def test_losses_and_gradients_with_given_samples(loss_name, num_true, remove_accidental_hits, shards):
    want, got = (to_numpy(_loss_and_grads(lib, loss_name, shards, num_true,
                                          dict(remove_accidental_hits=remove_accidental_hits))) for lib in LIBS)
    assert_same(want, got, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("loss_name", ["sampled_softmax_loss", "nce_loss"])
def test_losses_with_drawn_samples(loss_name):
    def case(tf, weights, biases, inputs, labels):
        tf.random.set_seed(11)
        return getattr(tf.nn, loss_name)(weights, biases, labels, inputs, 6, NUM_CLASSES, num_true=2)
    check(case, WEIGHTS, BIASES, INPUTS, LABELS[2])


def test_sampled_softmax_seed_and_int32_labels_and_float64():
    def case(tf, weights, biases, inputs, labels):
        return tf.nn.sampled_softmax_loss(weights, biases, labels, inputs, 4, NUM_CLASSES, seed=5)
    check(case, WEIGHTS.astype(np.float64), BIASES.astype(np.float64), INPUTS.astype(np.float64),
          LABELS[1].astype(np.int32))


def test_nce_loss_in_tf_function():
    def case(tf, weights, biases, inputs, labels, sampled, true_count, sampled_count):
        f = tf.function(lambda w, b, x: tf.nn.nce_loss(w, b, labels, x, 6, NUM_CLASSES, num_true=2,
                                                        sampled_values=(sampled, true_count, sampled_count),
                                                        remove_accidental_hits=True))
        return f(weights, biases, inputs)
    check(case, WEIGHTS, BIASES, INPUTS, LABELS[2], SAMPLED, TRUE_COUNT[2], SAMPLED_COUNT)
