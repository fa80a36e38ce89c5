"""Training fed by a keras.utils.PyDataset (and a legacy keras.utils.Sequence) with workers=1 and
use_multiprocessing=False, its on_epoch_end reshuffling; custom callbacks that record the keys and values of the
`logs` dicts of every hook (train/test/predict batches and epochs), LearningRateScheduler with a step schedule,
CSVLogger(append=True) read back, TerminateOnNaN, LambdaCallback, and callbacks' params."""

import csv
import math
import os
import tempfile

import keras
import numpy as np


class ShuffledData(keras.utils.PyDataset):
    def __init__(self, x, y, batch_size, seed, **kwargs):
        super().__init__(**kwargs)
        self.x, self.y, self.batch_size = x, y, batch_size
        self.rng = np.random.default_rng(seed)
        self.order = np.arange(len(x))

    def __len__(self):
        return math.ceil(len(self.x) / self.batch_size)

    def __getitem__(self, index):
        rows = self.order[index * self.batch_size:(index + 1) * self.batch_size]
        return self.x[rows], self.y[rows]

    def on_epoch_end(self):
        self.rng.shuffle(self.order)


class Features(keras.utils.Sequence):
    def __init__(self, x, batch_size):
        super().__init__()
        self.x, self.batch_size = x, batch_size

    def __len__(self):
        return math.ceil(len(self.x) / self.batch_size)

    def __getitem__(self, index):
        return self.x[index * self.batch_size:(index + 1) * self.batch_size]


class LogRecorder(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.events = []

    def _record(self, hook, index, logs):
        self.events.append(f"{hook}:{index}:{','.join(sorted(logs or {}))}")
        self.values = getattr(self, "values", []) + [float(v) for _, v in sorted((logs or {}).items())
                                                     if np.ndim(v) == 0]

    def on_train_begin(self, logs=None):
        self._record("train_begin", "", logs)
        self.events.append(str(sorted(self.params.items())))

    def on_epoch_begin(self, epoch, logs=None):
        self._record("epoch_begin", epoch, logs)

    def on_train_batch_end(self, batch, logs=None):
        self._record("train_batch_end", batch, logs)

    def on_test_begin(self, logs=None):
        self._record("test_begin", "", logs)

    def on_test_batch_end(self, batch, logs=None):
        self._record("test_batch_end", batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        self._record("epoch_end", epoch, logs)
        self.values.append(float(self.model.optimizer.learning_rate.numpy()))

    def on_predict_batch_end(self, batch, logs=None):
        self.events.append(f"predict_batch_end:{batch}:{sorted(logs)}:{logs['outputs'].shape}")

    def on_train_end(self, logs=None):
        self._record("train_end", "", logs)


def step_decay(epoch, lr):
    return lr if epoch < 2 else lr * 0.5


def main():
    keras.utils.set_random_seed(4)
    rng = np.random.default_rng(4)
    x = rng.normal(size=(90, 5)).astype(np.float32)
    y = (x[:, :2].sum(axis=1, keepdims=True) > 0).astype(np.float32)
    train = ShuffledData(x[:70], y[:70], batch_size=16, seed=4, workers=1, use_multiprocessing=False)
    valid = ShuffledData(x[70:], y[70:], batch_size=10, seed=5)
    model = keras.Sequential([keras.Input((5,)), keras.layers.Dense(8, activation="tanh"),
                              keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer=keras.optimizers.SGD(0.2), loss="binary_crossentropy",
                  metrics=["accuracy", keras.metrics.AUC(name="auc")])
    recorder = LogRecorder()
    lrs = []
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "log.csv")
        callbacks = [recorder, keras.callbacks.LearningRateScheduler(step_decay, verbose=0),
                     keras.callbacks.CSVLogger(path, separator=";", append=True), keras.callbacks.TerminateOnNaN(),
                     keras.callbacks.LambdaCallback(on_epoch_begin=lambda epoch, logs: lrs.append(
                         float(model.optimizer.learning_rate.numpy())))]
        history = model.fit(train, validation_data=valid, epochs=4, callbacks=callbacks, verbose=0)
        model.fit(train, epochs=1, initial_epoch=0, callbacks=[keras.callbacks.CSVLogger(path, separator=";",
                                                                                         append=True)], verbose=0)
        with open(path, newline="") as f:
            rows = list(csv.reader(f, delimiter=";"))
    values = [v for key in sorted(history.history) for v in history.history[key]] + lrs
    values += [" ".join(sorted(history.history)), str(history.params), str(history.epoch)]
    values += ["|".join(rows[0]), str(len(rows)), " ".join(v for row in rows for v in row if not v[:1].isdigit())]
    values += [float(v) for row in rows[1:] for v in row if v[:1].isdigit()]
    predictions = model.predict(Features(x[70:], 8), callbacks=[recorder], verbose=0)
    values += [float(predictions.sum()), str(predictions.shape)]
    values += model.evaluate(Features(x[70:], 8).__class__(x[70:], 8).x, y[70:], verbose=0, callbacks=[recorder])
    values += ["\n".join(recorder.events)] + recorder.values
    return values


if __name__ == "__main__":
    print(main())
