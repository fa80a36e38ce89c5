"""The keras.io guide "Writing your own callbacks": a callback implementing every hook (train/test/predict begin
and end, epoch begin/end, batch begin/end) recording the hook names and the keys of logs, callbacks reading the
loss and metric values from logs, EarlyStoppingAtMinLoss with patience that sets self.model.stop_training and
restores the best weights, and CustomLearningRateScheduler setting optimizer.learning_rate from a schedule."""

import numpy as np
from tensorflow import keras


def get_model():
    model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.RMSprop(learning_rate=0.1), loss="mean_squared_error",
                  metrics=["mean_absolute_error"])
    return model


class CustomCallback(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.events = []

    def _record(self, hook, logs, *index):
        self.events.append(f"{hook}{list(index)}:{sorted(logs or {})}")

    def on_train_begin(self, logs=None):
        self._record("train_begin", logs)

    def on_train_end(self, logs=None):
        self._record("train_end", logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._record("epoch_begin", logs, epoch)

    def on_epoch_end(self, epoch, logs=None):
        self._record("epoch_end", logs, epoch)

    def on_test_begin(self, logs=None):
        self._record("test_begin", logs)

    def on_test_end(self, logs=None):
        self._record("test_end", logs)

    def on_predict_begin(self, logs=None):
        self._record("predict_begin", logs)

    def on_predict_end(self, logs=None):
        self._record("predict_end", logs)

    def on_train_batch_begin(self, batch, logs=None):
        self._record("train_batch_begin", logs, batch)

    def on_train_batch_end(self, batch, logs=None):
        self._record("train_batch_end", logs, batch)

    def on_test_batch_begin(self, batch, logs=None):
        self._record("test_batch_begin", logs, batch)

    def on_test_batch_end(self, batch, logs=None):
        self._record("test_batch_end", logs, batch)

    def on_predict_batch_begin(self, batch, logs=None):
        self._record("predict_batch_begin", logs, batch)

    def on_predict_batch_end(self, batch, logs=None):
        self._record("predict_batch_end", logs, batch)


class LossAndErrorPrintingCallback(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.values = []

    def on_train_batch_end(self, batch, logs=None):
        self.values.append(logs["loss"])

    def on_test_batch_end(self, batch, logs=None):
        self.values.append(logs["loss"])

    def on_epoch_end(self, epoch, logs=None):
        self.values += [logs["loss"], logs["mean_absolute_error"]]


class EarlyStoppingAtMinLoss(keras.callbacks.Callback):
    def __init__(self, patience=0):
        super().__init__()
        self.patience = patience
        self.best_weights = None

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = np.inf

    def on_epoch_end(self, epoch, logs=None):
        current = logs.get("loss")
        if np.less(current, self.best):
            self.best = current
            self.wait = 0
            self.best_weights = self.model.get_weights()
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stopped_epoch = epoch
                self.model.stop_training = True
                self.model.set_weights(self.best_weights)


class CustomLearningRateScheduler(keras.callbacks.Callback):
    def __init__(self, schedule):
        super().__init__()
        self.schedule = schedule
        self.seen = []

    def on_epoch_begin(self, epoch, logs=None):
        lr = self.model.optimizer.learning_rate
        scheduled_lr = self.schedule(epoch, lr)
        self.model.optimizer.learning_rate = scheduled_lr
        self.seen.append(float(np.array(self.model.optimizer.learning_rate)))


LR_SCHEDULE = [(1, 0.05), (3, 0.01), (4, 0.005)]


def lr_schedule(epoch, lr):
    if epoch < LR_SCHEDULE[0][0] or epoch > LR_SCHEDULE[-1][0]:
        return lr
    for i in range(len(LR_SCHEDULE)):
        if epoch == LR_SCHEDULE[i][0]:
            return LR_SCHEDULE[i][1]
    return lr


def main():
    keras.utils.set_random_seed(64)
    rng = np.random.default_rng(64)
    x_train = rng.random((40, 6)).astype("float32")
    y_train = (x_train @ rng.random((6, 1))).astype("float32")
    x_test, y_test = x_train[:12], y_train[:12]
    values = []

    model = get_model()
    callback = CustomCallback()
    model.fit(x_train, y_train, batch_size=16, epochs=2, verbose=0, validation_split=0.5, callbacks=[callback])
    res = model.evaluate(x_test, y_test, batch_size=8, verbose=0, callbacks=[callback])
    model.predict(x_test, batch_size=8, verbose=0, callbacks=[callback])
    values += ["\n".join(callback.events)] + list(res)

    model = get_model()
    printer = LossAndErrorPrintingCallback()
    model.fit(x_train, y_train, batch_size=16, epochs=2, verbose=0, callbacks=[printer])
    model.evaluate(x_test, y_test, batch_size=8, verbose=0, callbacks=[printer])
    values += printer.values

    model = get_model()
    stopper = EarlyStoppingAtMinLoss(patience=1)
    history = model.fit(x_train, y_train, batch_size=8, epochs=30, verbose=0, callbacks=[printer, stopper])
    values += [float(stopper.stopped_epoch), float(len(history.history["loss"])), stopper.best]
    values += [float(v) for v in model.evaluate(x_test, y_test, verbose=0)]

    model = get_model()
    scheduler = CustomLearningRateScheduler(lr_schedule)
    history = model.fit(x_train, y_train, batch_size=16, epochs=6, verbose=0, callbacks=[scheduler])
    values += scheduler.seen + history.history["loss"] + [str(sorted(history.history))]
    return values


if __name__ == "__main__":
    print(main())
