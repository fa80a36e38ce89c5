"""A custom training loop with gradient clipping by global norm: tf.clip_by_global_norm on the tape's gradients,
an SGD optimizer driven by a PiecewiseConstantDecay schedule and an Adam one by ExponentialDecay(staircase),
the learning rate read back through optimizer.iterations, Keras clipnorm/global_clipnorm options, and the norms
reported before clipping."""

import keras
import numpy as np
import tensorflow as tf


def make_model():
    return keras.Sequential([keras.Input((6,)), keras.layers.Dense(16, activation="tanh"),
                             keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])


def main():
    keras.utils.set_random_seed(45)
    rng = np.random.default_rng(45)
    x = rng.normal(size=(64, 6)).astype(np.float32)
    y = (x @ rng.normal(size=(6, 1)) * 3.0 + 1.0).astype(np.float32)
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
    values = []

    model = make_model()
    boundaries, rates = [4, 8], [0.05, 0.02, 0.005]
    schedule = keras.optimizers.schedules.PiecewiseConstantDecay(boundaries, rates)
    optimizer = keras.optimizers.SGD(learning_rate=schedule, momentum=0.5)
    loss_fn = keras.losses.MeanSquaredError()

    @tf.function
    def train_step(xb, yb):
        with tf.GradientTape() as tape:
            loss = loss_fn(yb, model(xb, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        clipped, global_norm = tf.clip_by_global_norm(grads, clip_norm=1.0)
        optimizer.apply_gradients(zip(clipped, model.trainable_variables))
        return loss, global_norm, tf.linalg.global_norm(clipped)

    for _ in range(3):
        for xb, yb in dataset:
            loss, norm, clipped_norm = train_step(xb, yb)
            values += [loss, norm, clipped_norm, schedule(optimizer.iterations)]
    values += [float(optimizer.iterations.numpy()), str(schedule.get_config())]

    model = make_model()
    decay = keras.optimizers.schedules.ExponentialDecay(0.05, decay_steps=3, decay_rate=0.5, staircase=True)
    adam = keras.optimizers.Adam(learning_rate=decay, global_clipnorm=0.5)
    for xb, yb in dataset.repeat(2):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(xb) - yb))
        grads = tape.gradient(loss, model.trainable_variables)
        adam.apply_gradients(zip(grads, model.trainable_variables))
        values += [loss, tf.linalg.global_norm(grads), adam.learning_rate]

    model = make_model()
    model.compile(optimizer=keras.optimizers.RMSprop(0.01, clipnorm=0.3), loss="mse")
    history = model.fit(x, y, batch_size=16, epochs=3, verbose=0, shuffle=False)
    clip_value, norm = tf.clip_by_norm(tf.constant([3.0, 4.0]), 2.0), tf.clip_by_value(tf.constant([-2.0, 0.5]), -1, 1)
    values += history.history["loss"] + [float(v) for v in clip_value.numpy()] + [float(v) for v in norm.numpy()]
    values += [float(model.optimizer.iterations.numpy()), str(model.optimizer.get_config()["clipnorm"])]
    return values


if __name__ == "__main__":
    print(main())
