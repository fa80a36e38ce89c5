"""A custom loop: Keras layers and optimizer driven by tf.GradientTape inside a tf.function, tf.data batches,
a tf.Variable step counter and Keras metrics."""

import numpy as np
import tensorflow as tf


def main():
    tf.random.set_seed(6)
    rng = np.random.default_rng(6)
    x = rng.standard_normal((200, 5)).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5, 0.0, 3.0], np.float32) + 0.1).astype(np.float32)[:, None]
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(200, seed=6).batch(40)
    layers = [tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(1)]
    optimizer = tf.keras.optimizers.SGD(0.02, momentum=0.5)
    mean_loss = tf.keras.metrics.Mean()
    mse = tf.keras.losses.MeanSquaredError()
    steps = tf.Variable(0, dtype=tf.int64)

    def model(inputs):
        for layer in layers:
            inputs = layer(inputs)
        return inputs

    model(x[:1])
    variables = [v for layer in layers for v in layer.trainable_variables]

    @tf.function
    def train_step(inputs, targets):
        with tf.GradientTape() as tape:
            loss = mse(targets, model(inputs))
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
        steps.assign_add(1)
        return loss

    losses = []
    for _ in range(3):
        mean_loss.reset_state()
        for inputs, targets in dataset:
            loss = train_step(inputs, targets)
            mean_loss.update_state(loss)
            losses.append(float(loss))
        losses.append(float(mean_loss.result()))
    return losses + [float(steps.numpy())]


if __name__ == "__main__":
    print(main())
