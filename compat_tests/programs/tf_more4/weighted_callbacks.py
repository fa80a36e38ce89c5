"""A callbacks-heavy fit on an imbalanced classification task: class_weight, then per-sample sample_weight with
validation_split; ReduceLROnPlateau (min_delta, cooldown), LearningRateScheduler with an epoch-dependent function,
ModelCheckpoint(save_best_only) to a .keras file reloaded with keras.models.load_model, CSVLogger read back with csv,
TerminateOnNaN stopping a diverging run, a custom Callback reading logs and the optimizer's learning rate at each
epoch, and the History object's params/epoch/keys."""

import csv
import math
import os
import tempfile

import numpy as np
import tensorflow as tf
from tensorflow import keras


class LogRecorder(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.rows = []

    def on_epoch_end(self, epoch, logs=None):
        lr = float(keras.ops.convert_to_numpy(self.model.optimizer.learning_rate))
        self.rows.append((epoch, lr, " ".join(sorted(logs)), logs["loss"]))

    def on_train_batch_end(self, batch, logs=None):
        if batch == 0:
            self.rows.append(("batch", float(logs["loss"])))


def make_model(seed):
    keras.utils.set_random_seed(seed)
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(12, activation="relu"),
                              keras.layers.Dropout(0.2), keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=keras.optimizers.SGD(0.1, momentum=0.9), loss="binary_crossentropy",
                  metrics=[keras.metrics.BinaryAccuracy(name="acc"), keras.metrics.AUC(name="auc")],
                  weighted_metrics=[keras.metrics.BinaryAccuracy(name="wacc")])
    return model


def main():
    rng = np.random.default_rng(81)
    x = rng.normal(size=(240, 6)).astype(np.float32)
    y = ((x[:, 0] + 0.5 * x[:, 1] ** 2) > 1.6).astype(np.float32)
    values = [float(y.mean())]
    with tempfile.TemporaryDirectory() as directory:
        best_path = os.path.join(directory, "best.keras")
        log_path = os.path.join(directory, "log.csv")
        recorder = LogRecorder()
        callbacks = [
            keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr if epoch < 2 else lr * math.exp(-0.5)),
            keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=1, min_delta=0.05, cooldown=1,
                                              min_lr=1e-3),
            keras.callbacks.ModelCheckpoint(best_path, monitor="val_auc", mode="max", save_best_only=True),
            keras.callbacks.CSVLogger(log_path, separator=";"),
            recorder,
        ]
        model = make_model(81)
        history = model.fit(x, y, batch_size=32, epochs=5, class_weight={0: 1.0, 1: 3.0}, validation_split=0.25,
                            callbacks=callbacks, verbose=0, shuffle=False)
        values += [history.history[key][-1] for key in sorted(history.history)]
        values += history.history["loss"] + history.history["learning_rate"] + history.history["val_wacc"]
        values += [" ".join(sorted(history.history)), str(history.epoch), str(sorted(history.params.items()))]
        for row in recorder.rows:
            values += [v if isinstance(v, str) else float(v) for v in row]
        with open(log_path, newline="") as f:
            rows = list(csv.reader(f, delimiter=";"))
        values += [";".join(rows[0]), float(len(rows))] + [float(v) for v in rows[-1]]
        best = keras.models.load_model(best_path)
        values += [float(v) for v in best.evaluate(x[-60:], y[-60:], verbose=0)]
        values += [float(v) for v in best.predict(x[:3], verbose=0).ravel()]

        weights = np.where(y > 0, 2.5, 0.5).astype(np.float32)
        model = make_model(82)
        history = model.fit(x, y, sample_weight=weights, batch_size=48, epochs=3, validation_split=0.2, verbose=0)
        values += history.history["loss"] + history.history["wacc"] + history.history["val_loss"]
        values += [float(v) for v in model.evaluate(x, y, sample_weight=weights, verbose=0)]

        diverging = make_model(83)
        diverging.optimizer.learning_rate.assign(1e6)
        y_bad = y.copy()
        y_bad[5] = np.nan
        history = diverging.fit(x, y_bad, batch_size=40, epochs=3, verbose=0,
                                callbacks=[keras.callbacks.TerminateOnNaN()])
        values += [float(len(history.history["loss"])), str(np.isnan(history.history["loss"][-1]))]
        values += [str(tf.math.is_nan(diverging.layers[0].kernel).numpy().any())]
    return values


if __name__ == "__main__":
    print(main())
