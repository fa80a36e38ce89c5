"""The TF "training checkpoints" guide's loop in its tf.function form: a Keras model, an SGD-with-momentum optimizer,
a tf.data iterator over a repeated pipeline and a step counter tracked by one tf.train.Checkpoint; a
CheckpointManager with step_counter and checkpoint_interval (saves only every few steps), restore_or_initialize on
a fresh state, and the resumed run (the iterator's position included) giving the same losses as the uninterrupted
one."""

import os
import tempfile

import keras
import numpy as np
import tensorflow as tf


def make_state(seed, features, labels):
    keras.utils.set_random_seed(seed)
    net = keras.Sequential([keras.Input((3,)), keras.layers.Dense(6, activation="tanh"), keras.layers.Dense(1)])
    optimizer = keras.optimizers.SGD(0.1, momentum=0.9)
    data = tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(6)
    iterator = iter(data)
    step = tf.Variable(0, dtype=tf.int64, name="step")
    checkpoint = tf.train.Checkpoint(step=step, optimizer=optimizer, net=net, iterator=iterator)
    return net, optimizer, iterator, step, checkpoint


def make_train_step(net, optimizer, step):
    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(net(x) - y))
        grads = tape.gradient(loss, net.trainable_variables)
        optimizer.apply_gradients(zip(grads, net.trainable_variables))
        step.assign_add(1)
        return loss
    return train_step


def main():
    rng = np.random.default_rng(140)
    features = rng.normal(size=(40, 3)).astype(np.float32)
    labels = (features @ np.array([[0.5], [-1.0], [0.25]], np.float32) + 0.1).astype(np.float32)
    values = []
    with tempfile.TemporaryDirectory() as directory:
        net, optimizer, iterator, step, checkpoint = make_state(3, features, labels)
        manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=3, step_counter=step,
                                             checkpoint_interval=4, checkpoint_name="run")
        values.append(str(manager.restore_or_initialize()))
        train_step = make_train_step(net, optimizer, step)
        for _ in range(10):
            x, y = next(iterator)
            values.append(float(train_step(x, y)))
            saved = manager.save()
            values.append("none" if saved is None else os.path.basename(saved))
        values.append(" ".join(os.path.basename(p) for p in manager.checkpoints))
        uninterrupted = []
        for _ in range(5):
            x, y = next(iterator)
            uninterrupted.append(float(train_step(x, y)))

        values.append(len(tf.train.list_variables(manager.latest_checkpoint)) > 0)

        net2, optimizer2, iterator2, step2, checkpoint2 = make_state(5, features, labels)
        manager2 = tf.train.CheckpointManager(checkpoint2, directory, max_to_keep=3)
        restored = manager2.restore_or_initialize()
        values += [os.path.basename(restored), int(step2.numpy()), int(optimizer2.iterations.numpy())]
        # the checkpoint was taken after 9 steps: redo step 10 then compare with the uninterrupted 11-15
        train_step2 = make_train_step(net2, optimizer2, step2)
        resumed = []
        for _ in range(6):
            x, y = next(iterator2)
            resumed.append(float(train_step2(x, y)))
        values += resumed
        values.append(float(np.max(np.abs(np.array(resumed[1:]) - np.array(uninterrupted)))))
    return values
