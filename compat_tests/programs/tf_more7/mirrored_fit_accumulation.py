"""Keras fit inside a tf.distribute.MirroredStrategy scope on one device (the TF "distributed training with Keras"
tutorial: strategy.num_replicas_in_sync, a global batch size, model and compile in the scope, fit and evaluate on a
dataset), an optimizer with gradient_accumulation_steps, then gradient accumulation written by hand in an eager
loop: tf.Variable(trainable=False) accumulators made with tf.zeros_like, assign_add of each micro-batch's
gradients, optimizer.apply_gradients of the averages every few steps, and the accumulators reset with assign."""

import numpy as np
import tensorflow as tf


def make_model():
    return tf.keras.Sequential([tf.keras.Input((5,)), tf.keras.layers.Dense(8, activation="relu"),
                                tf.keras.layers.Dense(2)])


def main():
    tf.keras.utils.set_random_seed(61)
    rng = np.random.default_rng(61)
    x = rng.normal(size=(64, 5)).astype(np.float32)
    y = (x[:, 0] + x[:, 1] * x[:, 2] > 0).astype(np.int64)

    strategy = tf.distribute.MirroredStrategy()
    values = [int(strategy.num_replicas_in_sync)]
    global_batch = 8 * strategy.num_replicas_in_sync
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(global_batch)
    with strategy.scope():
        model = make_model()
        model.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                      optimizer=tf.keras.optimizers.Adam(0.01), metrics=["accuracy"])
    history = model.fit(dataset, epochs=2, verbose=0)
    values += history.history["loss"] + history.history["accuracy"]

    accumulating = make_model()
    accumulating.compile(loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                         optimizer=tf.keras.optimizers.SGD(0.1, gradient_accumulation_steps=2))
    history = accumulating.fit(dataset, epochs=2, verbose=0)
    values += history.history["loss"] + [int(accumulating.optimizer.iterations.numpy())]
    values += [float(v) for v in accumulating.layers[-1].bias.numpy()]

    model = make_model()
    optimizer = tf.keras.optimizers.Adam(0.01)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    accumulators = [tf.Variable(tf.zeros_like(v), trainable=False) for v in model.trainable_variables]
    steps = 4
    for step, (xb, yb) in enumerate(dataset.repeat(2)):
        with tf.GradientTape() as tape:
            loss = loss_fn(yb, model(xb, training=True))
        gradients = tape.gradient(loss, model.trainable_variables)
        for accumulator, gradient in zip(accumulators, gradients):
            accumulator.assign_add(gradient)
        if (step + 1) % steps == 0:
            optimizer.apply_gradients([(a / steps, v) for a, v in zip(accumulators, model.trainable_variables)])
            for accumulator in accumulators:
                accumulator.assign(tf.zeros_like(accumulator))
            values.append(float(loss))
    values += [int(optimizer.iterations.numpy()), float(tf.add_n([tf.reduce_sum(a) for a in accumulators]))]
    values += [float(v) for v in model.layers[-1].bias.numpy()]
    return values


if __name__ == "__main__":
    print(main())
