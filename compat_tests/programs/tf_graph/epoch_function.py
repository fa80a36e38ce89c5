"""The Keras guide "Writing a training loop from scratch", with the whole epoch as one tf.function: a
`for x, y in train_ds:` loop over a reshuffled tf.data dataset inside it, metric objects (Mean,
SparseCategoricalAccuracy, Accuracy) updated inside and read/reset outside, a validation pass as a second
tf.function, and a step counter variable."""

import keras
import numpy as np
import tensorflow as tf


def make_data(rng, n):
    x = rng.standard_normal((n, 6)).astype(np.float32)
    logits = x @ rng.standard_normal((6, 3)).astype(np.float32)
    return x, np.argmax(logits + 0.3 * rng.standard_normal(logits.shape), axis=1).astype(np.int32)


def main():
    keras.utils.set_random_seed(5)
    rng = np.random.default_rng(5)
    x_train, y_train = make_data(rng, 96)
    x_val, y_val = make_data(rng, 40)
    train_ds = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(96, seed=3).batch(16)
    val_ds = tf.data.Dataset.from_tensor_slices((x_val, y_val)).batch(20)

    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(16, activation="relu"), keras.layers.Dense(3)])
    optimizer = keras.optimizers.Adam(learning_rate=0.01)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    train_loss = keras.metrics.Mean()
    train_acc = keras.metrics.SparseCategoricalAccuracy()
    val_acc = keras.metrics.Accuracy()
    steps = tf.Variable(0, dtype=tf.int64, trainable=False)

    @tf.function
    def train_epoch(dataset):
        total = tf.constant(0.0)
        for x, y in dataset:
            with tf.GradientTape() as tape:
                logits = model(x, training=True)
                loss = loss_fn(y, logits)
            grads = tape.gradient(loss, model.trainable_weights)
            optimizer.apply_gradients(zip(grads, model.trainable_weights))
            train_loss.update_state(loss)
            train_acc.update_state(y, logits)
            steps.assign_add(1)
            total += loss
        return total

    @tf.function
    def validate(dataset):
        for x, y in dataset:
            predictions = tf.argmax(model(x, training=False), axis=1, output_type=tf.int32)
            val_acc.update_state(y, predictions)

    values = []
    for _ in range(4):
        values.append(float(train_epoch(train_ds)))
        values += [float(train_loss.result()), float(train_acc.result())]
        validate(val_ds)
        values.append(float(val_acc.result()))
        for metric in (train_loss, train_acc, val_acc):
            metric.reset_state()
    values += [float(steps.numpy()), float(train_epoch.experimental_get_tracing_count()),
               float(validate.experimental_get_tracing_count()), float(optimizer.iterations.numpy())]
    # Metrics updated eagerly after the graph epochs.
    train_acc.update_state(y_val, model(x_val))
    values.append(float(train_acc.result()))
    values += [float(tf.reduce_sum(w)) for w in model.trainable_weights]
    return values


if __name__ == "__main__":
    print(main())
