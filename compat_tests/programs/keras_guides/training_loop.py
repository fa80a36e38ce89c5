"""The keras.io guide "Writing a training loop from scratch" (TensorFlow backend): a functional MLP trained over a
tf.data dataset with GradientTape and optimizer.apply_gradients (eager), metrics updated per step and reset at the
end of each epoch, a validation loop, the same step compiled with tf.function, and losses added by a layer
(activity regularization) summed into the loss."""

import numpy as np
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers


def get_model(with_regularizer=False):
    inputs = keras.Input(shape=(16,), name="digits")
    x1 = layers.Dense(16, activation="relu")(inputs)
    if with_regularizer:
        x1 = ActivityRegularizationLayer()(x1)
    x2 = layers.Dense(16, activation="relu")(x1)
    outputs = layers.Dense(5, name="predictions")(x2)
    return keras.Model(inputs=inputs, outputs=outputs)


class ActivityRegularizationLayer(layers.Layer):
    def call(self, inputs):
        self.add_loss(1e-2 * tf.reduce_sum(inputs))
        return inputs


def main():
    keras.utils.set_random_seed(5)
    rng = np.random.default_rng(5)
    x_train = rng.random((96, 16)).astype("float32")
    y_train = rng.integers(0, 5, size=(96,))
    x_val = rng.random((32, 16)).astype("float32")
    y_val = rng.integers(0, 5, size=(32,))
    batch_size = 16
    train_dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train)).shuffle(buffer_size=96, seed=5)
    train_dataset = train_dataset.batch(batch_size)
    val_dataset = tf.data.Dataset.from_tensor_slices((x_val, y_val)).batch(batch_size)
    values = []

    model = get_model()
    optimizer = keras.optimizers.SGD(learning_rate=1e-2)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    for epoch in range(2):
        for step, (x_batch_train, y_batch_train) in enumerate(train_dataset):
            with tf.GradientTape() as tape:
                logits = model(x_batch_train, training=True)
                loss_value = loss_fn(y_batch_train, logits)
            grads = tape.gradient(loss_value, model.trainable_weights)
            optimizer.apply_gradients(zip(grads, model.trainable_weights))
            if step % 2 == 0:
                values += [float(epoch), float(step), float(loss_value)]
    values += [float(optimizer.iterations)]

    model = get_model()
    optimizer = keras.optimizers.SGD(learning_rate=1e-2)
    train_acc_metric = keras.metrics.SparseCategoricalAccuracy()
    val_acc_metric = keras.metrics.SparseCategoricalAccuracy()
    for _epoch in range(2):
        for x_batch_train, y_batch_train in train_dataset:
            with tf.GradientTape() as tape:
                logits = model(x_batch_train, training=True)
                loss_value = loss_fn(y_batch_train, logits)
            grads = tape.gradient(loss_value, model.trainable_weights)
            optimizer.apply_gradients(zip(grads, model.trainable_weights))
            train_acc_metric.update_state(y_batch_train, logits)
        values += [float(train_acc_metric.result())]
        train_acc_metric.reset_state()
        for x_batch_val, y_batch_val in val_dataset:
            val_logits = model(x_batch_val, training=False)
            val_acc_metric.update_state(y_batch_val, val_logits)
        values += [float(val_acc_metric.result())]
        val_acc_metric.reset_state()

    model = get_model()
    optimizer = keras.optimizers.SGD(learning_rate=1e-2)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss_value = loss_fn(y, logits)
        grads = tape.gradient(loss_value, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights))
        train_acc_metric.update_state(y, logits)
        return loss_value

    @tf.function
    def test_step(x, y):
        val_logits = model(x, training=False)
        val_acc_metric.update_state(y, val_logits)

    for _epoch in range(2):
        for step, (x_batch_train, y_batch_train) in enumerate(train_dataset):
            loss_value = train_step(x_batch_train, y_batch_train)
            if step % 3 == 0:
                values += [float(loss_value)]
        values += [float(train_acc_metric.result())]
        train_acc_metric.reset_state()
        for x_batch_val, y_batch_val in val_dataset:
            test_step(x_batch_val, y_batch_val)
        values += [float(val_acc_metric.result())]
        val_acc_metric.reset_state()

    model = get_model(with_regularizer=True)
    optimizer = keras.optimizers.SGD(learning_rate=1e-2)

    @tf.function
    def regularized_train_step(x, y):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss_value = loss_fn(y, logits)
            loss_value += sum(model.losses)
        grads = tape.gradient(loss_value, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights))
        return loss_value

    for x_batch_train, y_batch_train in train_dataset:
        values += [float(regularized_train_step(x_batch_train, y_batch_train))]
    values += [float(len(model.losses))]
    return values


if __name__ == "__main__":
    print(main())
