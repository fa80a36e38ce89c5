"""A custom training loop as in the TF "writing a training loop from scratch" guide, with schedules and clipping:
a functional model, a tf.data dataset of batches, a tf.function train_step and test_step, SGD(momentum, nesterov)
on an InverseTimeDecay schedule and RMSprop on PolynomialDecay(cycle=True), per-variable tf.clip_by_norm then
tf.clip_by_global_norm, apply_gradients(zip(...)), Keras metric objects updated per batch and reset_state per
epoch, CosineDecayRestarts values, optimizer.iterations and the learning rate read through the schedule."""

import numpy as np
import tensorflow as tf
from tensorflow import keras


def make_model():
    inputs = keras.Input(shape=(6,))
    x = keras.layers.Dense(16, activation="relu")(inputs)
    x = keras.layers.Dense(8, activation="relu")(x)
    return keras.Model(inputs, keras.layers.Dense(3)(x))


def train_with(optimizer, train, test, loss_fn, epochs=2):
    """Gradient norms per batch, then the mean loss and the accuracies, per epoch."""
    model = make_model()
    train_acc = keras.metrics.SparseCategoricalAccuracy()
    val_acc = keras.metrics.SparseCategoricalAccuracy()
    mean_loss = keras.metrics.Mean()

    @tf.function
    def train_step(features, labels):
        with tf.GradientTape() as tape:
            logits = model(features, training=True)
            loss = loss_fn(labels, logits)
        grads = tape.gradient(loss, model.trainable_weights)
        grads = [tf.clip_by_norm(g, 1.0) for g in grads]
        grads, norm = tf.clip_by_global_norm(grads, 1.5)
        optimizer.apply_gradients(zip(grads, model.trainable_weights))
        train_acc.update_state(labels, logits)
        mean_loss.update_state(loss)
        return norm

    @tf.function
    def test_step(features, labels):
        val_acc.update_state(labels, model(features, training=False))

    values = []
    for _ in range(epochs):
        values += [float(train_step(features, labels)) for features, labels in train]
        for features, labels in test:
            test_step(features, labels)
        values += [float(mean_loss.result()), float(train_acc.result()), float(val_acc.result())]
        for metric in (train_acc, val_acc, mean_loss):
            metric.reset_state()
    return values


def main():
    keras.utils.set_random_seed(19)
    rng = np.random.default_rng(19)
    x = rng.normal(size=(96, 6)).astype(np.float32)
    y = (np.argmax(x[:, :3] + 0.5 * x[:, 3:], axis=1)).astype(np.int64)
    train = tf.data.Dataset.from_tensor_slices((x[:64], y[:64])).shuffle(64, seed=2).batch(16)
    test = tf.data.Dataset.from_tensor_slices((x[64:], y[64:])).batch(16)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    values = []

    restarts = keras.optimizers.schedules.CosineDecayRestarts(0.1, first_decay_steps=3, t_mul=2.0, m_mul=0.5,
                                                              alpha=0.01)
    values += [float(restarts(step)) for step in range(0, 12, 2)]

    inverse_time = keras.optimizers.schedules.InverseTimeDecay(0.1, decay_steps=2, decay_rate=0.5)
    polynomial = keras.optimizers.schedules.PolynomialDecay(0.01, decay_steps=3, end_learning_rate=0.001, power=2.0,
                                                            cycle=True)
    for schedule, optimizer in ((inverse_time, keras.optimizers.SGD(inverse_time, momentum=0.9, nesterov=True)),
                                (polynomial, keras.optimizers.RMSprop(polynomial))):
        values += train_with(optimizer, train, test, loss_fn)
        values += [int(optimizer.iterations), float(optimizer.learning_rate), float(schedule(optimizer.iterations))]
    return values


if __name__ == "__main__":
    print(main())
