"""The TF "custom training with tf.distribute.Strategy" tutorial on one CPU replica: MirroredStrategy and its scope,
a Keras CNN and optimizer made in the scope, experimental_distribute_dataset, a train step run by strategy.run inside
a tf.function, per-example losses (reduction="none") averaged with tf.nn.compute_average_loss over the global batch
size plus scaled regularization losses, strategy.reduce of per-replica results, distributed evaluation with
keras.metrics, and the distribute context queries."""

import numpy as np
import tensorflow as tf


def main():
    tf.keras.utils.set_random_seed(121)
    rng = np.random.default_rng(121)
    images = rng.uniform(0, 1, (96, 8, 8, 1)).astype(np.float32)
    labels = (images[:, 2:6, 2:6, 0].mean(axis=(1, 2)) * 6).astype(np.int64) % 3
    strategy = tf.distribute.MirroredStrategy(["/cpu:0"])
    values = [float(strategy.num_replicas_in_sync), str(tf.distribute.has_strategy())]
    batch_per_replica = 16
    global_batch = batch_per_replica * strategy.num_replicas_in_sync
    train = tf.data.Dataset.from_tensor_slices((images, labels)).shuffle(96, seed=3).batch(global_batch)
    test = tf.data.Dataset.from_tensor_slices((images[:32], labels[:32])).batch(global_batch)
    train_dist = strategy.experimental_distribute_dataset(train)
    test_dist = strategy.experimental_distribute_dataset(test)

    with strategy.scope():
        values += [str(tf.distribute.has_strategy()), str(tf.distribute.in_cross_replica_context())]
        model = tf.keras.Sequential([
            tf.keras.Input((8, 8, 1)),
            tf.keras.layers.Conv2D(8, 3, activation="relu", kernel_regularizer=tf.keras.regularizers.l2(1e-3)),
            tf.keras.layers.MaxPooling2D(),
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(16, activation="relu"),
            tf.keras.layers.Dense(3),
        ])
        loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True, reduction="none")
        optimizer = tf.keras.optimizers.Adam(0.01)
        test_loss = tf.keras.metrics.Mean(name="test_loss")
        train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="train_accuracy")
        test_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name="test_accuracy")

    def compute_loss(y, logits):
        per_example = loss_object(y, logits)
        loss = tf.nn.compute_average_loss(per_example, global_batch_size=global_batch)
        return loss + tf.nn.scale_regularization_loss(tf.add_n(model.losses))

    def train_step(inputs):
        x, y = inputs
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss = compute_loss(y, logits)
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        train_accuracy.update_state(y, logits)
        return loss

    def test_step(inputs):
        x, y = inputs
        logits = model(x, training=False)
        test_loss.update_state(loss_object(y, logits))
        test_accuracy.update_state(y, logits)

    @tf.function
    def distributed_train_step(inputs):
        per_replica = strategy.run(train_step, args=(inputs,))
        return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)

    @tf.function
    def distributed_test_step(inputs):
        return strategy.run(test_step, args=(inputs,))

    for _ in range(3):
        total, batches = 0.0, 0
        for batch in train_dist:
            total += distributed_train_step(batch)
            batches += 1
        for batch in test_dist:
            distributed_test_step(batch)
        values += [float(total / batches), float(train_accuracy.result()), float(test_loss.result()),
                   float(test_accuracy.result())]
        for metric in (test_loss, train_accuracy, test_accuracy):
            metric.reset_state()
    values += [float(optimizer.iterations.numpy()), float(tf.nn.compute_average_loss([1.0, 2.0, 6.0])),
               float(tf.nn.compute_average_loss([1.0, 2.0], sample_weight=[0.5, 2.0], global_batch_size=4))]
    return values


if __name__ == "__main__":
    print(main())
