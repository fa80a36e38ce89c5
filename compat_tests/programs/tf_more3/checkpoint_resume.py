"""Checkpoints in a custom training loop, as in the TF "training checkpoints" guide: a tf.Module holding a Keras
model, its own tf.Variables and a step counter; tf.train.Checkpoint over it and an Adam optimizer;
tf.train.CheckpointManager with max_to_keep, saving every few steps; a fresh program state restored from
manager.latest_checkpoint (optimizer slots restored when the optimizer makes them) trains on exactly as the
uninterrupted run; Checkpoint.save / write / read and tf.train.latest_checkpoint."""

import os
import tempfile

import keras
import numpy as np
import tensorflow as tf


class Regressor(tf.Module):
    def __init__(self, seed):
        super().__init__()
        keras.utils.set_random_seed(seed)
        self.body = keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"),
                                      keras.layers.Dense(1)])
        self.scale = tf.Variable(1.0, name="scale")
        self.offsets = [tf.Variable(tf.zeros([1]), name="offset")]
        self.step = tf.Variable(0, dtype=tf.int64, trainable=False, name="step")

    def __call__(self, x):
        return self.scale * self.body(x) + self.offsets[0]


def train(module, optimizer, batches):
    losses = []
    for xb, yb in batches:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(module(xb) - yb))
        grads = tape.gradient(loss, module.trainable_variables)
        optimizer.apply_gradients(zip(grads, module.trainable_variables))
        module.step.assign_add(1)
        losses.append(loss)
    return losses


def main():
    rng = np.random.default_rng(49)
    x = rng.normal(size=(48, 4)).astype(np.float32)
    y = (np.sin(x[:, :1]) + x[:, 1:2] * 0.5).astype(np.float32)
    batches = [(x[i:i + 12], y[i:i + 12]) for i in range(0, 48, 12)]
    values = []
    with tempfile.TemporaryDirectory() as directory:
        module = Regressor(7)
        optimizer = keras.optimizers.Adam(0.05)
        checkpoint = tf.train.Checkpoint(model=module, optimizer=optimizer)
        manager = tf.train.CheckpointManager(checkpoint, directory, max_to_keep=2)
        values += [str(manager.latest_checkpoint), str(checkpoint.restore(manager.latest_checkpoint).__class__)[-26:-2]]
        for _ in range(3):
            values += train(module, optimizer, batches)
            path = manager.save()
            values.append(os.path.basename(path))
        uninterrupted = train(module, optimizer, batches)
        values += [" ".join(os.path.basename(p) for p in manager.checkpoints),
                   " ".join(sorted(name for name in os.listdir(directory) if name != "checkpoint")),
                   os.path.basename(tf.train.latest_checkpoint(directory)), float(checkpoint.save_counter.numpy())]

        resumed = Regressor(8)
        resumed_optimizer = keras.optimizers.Adam(0.05)
        restored = tf.train.Checkpoint(model=resumed, optimizer=resumed_optimizer)
        status = restored.restore(manager.latest_checkpoint)
        status.assert_existing_objects_matched()
        values += [float(resumed.step.numpy()), float(resumed_optimizer.iterations.numpy()),
                   float(resumed.scale.numpy()), float(restored.save_counter.numpy())]
        again = train(resumed, resumed_optimizer, batches)
        status.assert_consumed()
        values += [float(np.max(np.abs(np.array(again) - np.array(uninterrupted))))] + again

        earlier = tf.train.Checkpoint(model=Regressor(9))
        earlier.read(manager.checkpoints[0]).expect_partial()
        values += [float(earlier.model.step.numpy()), float(earlier.model.offsets[0].numpy()[0])]
        solo = tf.train.Checkpoint(scale=module.scale)
        written = solo.write(os.path.join(directory, "solo"))
        saved = solo.save(os.path.join(directory, "numbered", "scale"))
        module.scale.assign(5.0)
        solo.restore(written)
        values += [os.path.basename(written), os.path.relpath(saved, directory), float(module.scale.numpy()),
                   os.path.basename(tf.train.latest_checkpoint(os.path.join(directory, "numbered")))]
    return values


if __name__ == "__main__":
    print(main())
