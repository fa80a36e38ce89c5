"""The tensorflow.org tutorials "Overfit and underfit" and "Save and load models", shrunken: an InverseTimeDecay
schedule (its values at a few steps), a model with l2 kernel_regularizer and Dropout (model.losses), fit with a
ModelCheckpoint(save_weights_only=True, save_freq=...) writing "cp-{epoch:04d}.weights.h5" files, the newest one
picked by its name and reloaded into a fresh model by load_weights, evaluate before/after."""

import os
import tempfile

import numpy as np
import tensorflow as tf


def create_model(lr_schedule):
    model = tf.keras.Sequential([
        tf.keras.Input((10,)),
        tf.keras.layers.Dense(16, activation="elu", kernel_regularizer=tf.keras.regularizers.l2(0.001)),
        tf.keras.layers.Dropout(0.2),
        tf.keras.layers.Dense(16, activation="elu", kernel_regularizer=tf.keras.regularizers.l2(0.001)),
        tf.keras.layers.Dense(1),
    ])
    model.compile(optimizer=tf.keras.optimizers.Adam(lr_schedule),
                  loss=tf.keras.losses.BinaryCrossentropy(from_logits=True),
                  metrics=[tf.keras.metrics.BinaryCrossentropy(from_logits=True, name="binary_crossentropy"),
                           "accuracy"])
    return model


def main():
    tf.keras.utils.set_random_seed(11)
    rng = np.random.default_rng(11)
    values = []
    lr_schedule = tf.keras.optimizers.schedules.InverseTimeDecay(0.01, decay_steps=4, decay_rate=1, staircase=False)
    values += [float(lr_schedule(step)) for step in (0, 2, 4, 10)]
    stair = tf.keras.optimizers.schedules.InverseTimeDecay(0.01, decay_steps=4, decay_rate=0.5, staircase=True)
    values += [float(stair(step)) for step in (3, 4, 9)]
    values += [str(sorted(stair.get_config().items()))]

    x = rng.normal(size=(64, 10)).astype("float32")
    y = (x[:, :3].sum(axis=1, keepdims=True) > 0).astype("float32")
    model = create_model(lr_schedule)
    values += [len(model.losses)] + [float(loss) for loss in model.losses]

    with tempfile.TemporaryDirectory() as checkpoint_dir:
        checkpoint_path = os.path.join(checkpoint_dir, "cp-{epoch:04d}.weights.h5")
        cp_callback = tf.keras.callbacks.ModelCheckpoint(filepath=checkpoint_path, verbose=0,
                                                         save_weights_only=True, save_freq=2 * 4)
        model.save_weights(checkpoint_path.format(epoch=0))
        history = model.fit(x, y, epochs=4, batch_size=16, callbacks=[cp_callback], validation_data=(x[:16], y[:16]),
                            verbose=0)
        values += sorted(history.history)
        for key in sorted(history.history):
            values += history.history[key]
        files = sorted(os.listdir(checkpoint_dir))
        values += [str(files)]
        latest = os.path.join(checkpoint_dir, files[-1])

        fresh = create_model(lr_schedule)
        loss, _, acc = fresh.evaluate(x, y, verbose=0)
        values += [loss, acc]
        fresh.load_weights(latest)
        loss, _, acc = fresh.evaluate(x, y, verbose=0)
        values += [loss, acc]
        values += [float(np.abs(a - b).max()) for a, b in zip(fresh.get_weights(), model.get_weights())]

        fresh.load_weights(checkpoint_path.format(epoch=0))
        values += [fresh.evaluate(x, y, verbose=0)[0]]
    values += [float(model.optimizer.learning_rate), int(model.optimizer.iterations)]
    return values
