"""The Keras callbacks guide's fault tolerance with BackupAndRestore, and LambdaCallback: a fit interrupted by a
callback raising in on_epoch_begin, resumed by a second fit with the same BackupAndRestore (it restores the
weights, optimizer and epoch from its backup_dir, so the history holds the remaining epochs only), the backup
directory's files, save_freq in batches, and LambdaCallback hooks (on_epoch_end, on_batch_end, on_train_end)
recording logs."""

import os
import tempfile

import keras
import numpy as np


class InterruptingCallback(keras.callbacks.Callback):
    def __init__(self, at_epoch):
        super().__init__()
        self.at_epoch = at_epoch

    def on_epoch_begin(self, epoch, logs=None):
        if epoch == self.at_epoch:
            raise RuntimeError("Interrupting!")


def make_model():
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="tanh"), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.Adam(0.05), loss="mse", metrics=["mae"])
    return model


def main():
    keras.utils.set_random_seed(88)
    rng = np.random.default_rng(88)
    x = rng.normal(size=(64, 6)).astype(np.float32)
    y = (x @ rng.normal(size=(6, 1)) + 0.1).astype(np.float32)
    values = []

    backup_dir = os.path.join(tempfile.mkdtemp(), "backup")
    model = make_model()
    callback = keras.callbacks.BackupAndRestore(backup_dir=backup_dir)
    try:
        model.fit(x, y, epochs=5, batch_size=16, callbacks=[callback, InterruptingCallback(2)], verbose=0)
    except RuntimeError as error:
        values.append(str(error))
    values += [str(sorted(os.listdir(backup_dir))), str(int(model.optimizer.iterations))]

    resumed = make_model()
    history = resumed.fit(x, y, epochs=5, batch_size=16, callbacks=[callback], verbose=0)
    values += [str(len(history.history["loss"])), str(history.epoch), str(int(resumed.optimizer.iterations))]
    values += history.history["loss"] + history.history["mae"]
    values.append(str(os.path.exists(backup_dir)))

    events = []
    lambda_callback = keras.callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: events.append(("epoch", epoch, round(logs["loss"], 4))),
        on_batch_end=lambda batch, logs: events.append(("batch", batch)),
        on_train_end=lambda logs: events.append(("end", sorted(logs))))
    batch_backup = keras.callbacks.BackupAndRestore(backup_dir=os.path.join(tempfile.mkdtemp(), "b"), save_freq=2,
                                                    delete_checkpoint=False)
    # The restored model keeps its _initial_epoch (2): this fit runs epochs 2 and 3 only.
    history = resumed.fit(x, y, epochs=4, batch_size=16, callbacks=[lambda_callback, batch_backup], verbose=0)
    values += [str(events), str(sorted(os.listdir(batch_backup.backup_dir)))] + history.history["loss"]
    return values


if __name__ == "__main__":
    print(main())
