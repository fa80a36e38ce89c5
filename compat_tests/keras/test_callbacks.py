"""keras.callbacks against real Keras 3.15.1: the hooks fit/evaluate/predict call, the built-in callbacks'
effects (early stopping, learning-rate changes, files written, checkpoints, backups) and the printed logs."""

import csv
import os

import numpy as np
import pytest

from compat_tests.keras.training_harness import REAL, VFW, assert_close, data, fresh, history, masked, twin, visible

X, Y = data(40, 4, classes=3)


def mlp(lib):
    keras = lib.keras
    return keras.Sequential([keras.Input((4,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(3)])


def compile_model(lib, model, learning_rate=0.05, optimizer=None, **kwargs):
    keras = lib.keras
    model.compile(optimizer or keras.optimizers.SGD(learning_rate),
                  keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"], **kwargs)
    return model


def recorder(lib):
    """A callback recording every hook call with its argument and logs."""

    class Recorder(lib.keras.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.calls = []

    def hook(name):
        def method(self, *args, **kwargs):
            # (name, batch or epoch, logs, whether logs came by keyword)
            logs = kwargs["logs"] if "logs" in kwargs else args[-1]
            numbers = args if "logs" in kwargs else args[:-1]
            self.calls.append((name, *numbers, "logs" in kwargs, dict(logs) if isinstance(logs, dict) else logs))
        return method

    for name in ("on_epoch_begin", "on_epoch_end", "on_train_begin", "on_train_end", "on_test_begin", "on_test_end",
                 "on_predict_begin", "on_predict_end", "on_train_batch_begin", "on_train_batch_end",
                 "on_test_batch_begin", "on_test_batch_end", "on_predict_batch_begin", "on_predict_batch_end"):
        setattr(Recorder, name, hook(name))
    return Recorder()


def _plain(calls):
    """Recorded calls with the predict outputs replaced by their shapes."""
    plain = []
    for call in calls:
        logs = call[-1]
        if isinstance(logs, dict) and "outputs" in logs:
            logs = {"outputs": tuple(np.asarray(logs["outputs"]).shape)}
        plain.append((*call[:-1], logs))
    return plain


def test_hooks_and_logs():
    def train(lib, model):
        compile_model(lib, model)
        callback = recorder(lib)
        model.fit(X, Y, batch_size=16, epochs=2, validation_data=(X[:10], Y[:10]), callbacks=[callback], verbose=0)
        model.evaluate(X, Y, batch_size=20, callbacks=[callback], verbose=0)
        model.predict(X, batch_size=32, callbacks=[callback], verbose=0)
        return _plain(callback.calls), callback.params

    real, mine = twin(mlp, train)
    assert [c[:-1] for c in real[0]] == [c[:-1] for c in mine[0]]  # the hooks called, in order
    assert_close(real, mine)


def test_legacy_batch_hooks_and_lambda_callback():
    def train(lib, model):
        compile_model(lib, model)
        events = []

        class Legacy(lib.keras.callbacks.Callback):
            def on_batch_begin(self, batch, logs=None):
                events.append(("begin", batch))

            def on_batch_end(self, batch, logs=None):
                events.append(("end", batch, sorted(logs)))

        lam = lib.keras.callbacks.LambdaCallback(
            on_epoch_begin=lambda epoch, logs: events.append(("epoch", epoch)),
            on_train_end=lambda logs: events.append(("train_end", sorted(logs))))
        model.fit(X, Y, batch_size=16, epochs=2, callbacks=[Legacy(), lam], verbose=0)
        return events

    real, mine = twin(mlp, train)
    assert real == mine


def test_history_object():
    def train(lib, model):
        compile_model(lib, model)
        h = model.fit(X, Y, batch_size=16, epochs=3, initial_epoch=1, verbose=0)
        return type(h).__name__, h.epoch, h.params, history(h), model.history is h

    real, mine = twin(mlp, train)
    assert_close(real, mine)


@pytest.mark.parametrize("options", [
    {"monitor": "loss", "patience": 1, "min_delta": 0.05},
    {"monitor": "val_loss", "patience": 2, "restore_best_weights": True, "min_delta": 0.01},
    {"monitor": "val_accuracy", "patience": 1, "restore_best_weights": True},
    {"monitor": "loss", "patience": 0, "baseline": 0.5, "start_from_epoch": 2},
    {"monitor": "val_loss", "mode": "max", "patience": 1, "verbose": 1},
])
def test_early_stopping(options, capsys):
    def train(lib, model):
        compile_model(lib, model, learning_rate=0.2)
        stopper = lib.keras.callbacks.EarlyStopping(**options)
        capsys.readouterr()
        h = model.fit(X, Y, batch_size=8, epochs=8, validation_split=0.25, callbacks=[stopper], verbose=0)
        printed = capsys.readouterr().out
        return h.epoch, history(h), stopper.stopped_epoch, stopper.best, model.get_weights(), printed

    real, mine = twin(mlp, train)
    assert_close(real, mine)


def test_learning_rate_scheduler(capsys):
    def train(lib, model):
        compile_model(lib, model, learning_rate=0.1)
        by_epoch = lib.keras.callbacks.LearningRateScheduler(lambda epoch, lr: lr * 0.5 if epoch else lr, verbose=1)
        capsys.readouterr()
        first = history(model.fit(X, Y, batch_size=16, epochs=3, callbacks=[by_epoch], verbose=0))
        epoch_only = lib.keras.callbacks.LearningRateScheduler(lambda epoch: 0.01 * (epoch + 1))
        second = history(model.fit(X, Y, batch_size=16, epochs=2, callbacks=[epoch_only], verbose=0))
        return first, second, float(model.optimizer.learning_rate.numpy()), capsys.readouterr().out

    real, mine = twin(mlp, train)
    assert_close(real, mine)


def test_learning_rate_scheduler_rejects_non_floats():
    def train(lib, model):
        compile_model(lib, model)
        scheduler = lib.keras.callbacks.LearningRateScheduler(lambda epoch, lr: "fast")
        try:
            model.fit(X, Y, epochs=1, callbacks=[scheduler], verbose=0)
        except ValueError as e:
            return str(e)

    real, mine = twin(mlp, train)
    assert real == mine


def test_reduce_lr_on_plateau(capsys):
    def train(lib, model):
        compile_model(lib, model, learning_rate=0.1)
        reducer = lib.keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=1, min_delta=0.02,
                                                        cooldown=1, min_lr=0.02, verbose=1)
        capsys.readouterr()
        h = model.fit(X, Y, batch_size=8, epochs=7, validation_split=0.25, callbacks=[reducer], verbose=0)
        return history(h), capsys.readouterr().out

    real, mine = twin(mlp, train)
    assert_close(real, mine)


def read_rows(path):
    with open(path, newline="") as f:
        return f.read()


@pytest.mark.parametrize("separator, append", [(",", False), (";", True)])
def test_csv_logger(tmp_path, separator, append):
    def train(lib, model):
        compile_model(lib, model)
        path = tmp_path / f"{lib.name}.csv"
        logger = lib.keras.callbacks.CSVLogger(path, separator=separator, append=append)
        model.fit(X, Y, batch_size=16, epochs=2, validation_data=(X, Y), callbacks=[logger], verbose=0)
        model.fit(X, Y, batch_size=16, epochs=1, callbacks=[logger], verbose=0)
        with open(path, newline="") as f:
            rows = list(csv.reader(f, delimiter=separator))
        return [rows[0]] + [[float(v) if v != "NA" else v for v in row] for row in rows[1:]]

    real, mine = twin(mlp, train)
    assert real[0] == mine[0]
    assert_close(real, mine)


def test_terminate_on_nan(capsys):
    def train(lib, model):
        compile_model(lib, model, learning_rate=1e30)
        capsys.readouterr()
        h = model.fit(X * 1e20, Y, batch_size=8, epochs=3, callbacks=[lib.keras.callbacks.TerminateOnNaN()],
                      verbose=0)
        return h.epoch, capsys.readouterr().out

    real, mine = twin(mlp, train)
    assert real == mine


def test_terminate_on_nan_raises():
    def train(lib, model):
        compile_model(lib, model, learning_rate=1e30)
        try:
            model.fit(X * 1e20, Y, batch_size=8, epochs=3,
                      callbacks=[lib.keras.callbacks.TerminateOnNaN(raise_error=True)], verbose=0)
        except RuntimeError as e:
            return str(e).split(" Loss value")[0]

    real, mine = twin(mlp, train)
    assert real == mine


@pytest.mark.parametrize("options", [
    {"filepath": "w_{epoch:02d}.weights.h5", "save_weights_only": True},
    {"filepath": "best.weights.h5", "save_weights_only": True, "save_best_only": True, "monitor": "val_accuracy",
     "verbose": 1},
    {"filepath": "m_{epoch}_{val_loss:.3f}.keras"},
    {"filepath": "b_{epoch}_{batch}.weights.h5", "save_weights_only": True, "save_freq": 3},
])
def test_model_checkpoint(tmp_path, options, capsys):
    def train(lib, model):
        compile_model(lib, model, learning_rate=0.2)
        directory = tmp_path / lib.name
        settings = dict(options, filepath=str(directory / options["filepath"]))
        checkpoint = lib.keras.callbacks.ModelCheckpoint(**settings)
        capsys.readouterr()
        model.fit(X, Y, batch_size=8, epochs=3, validation_split=0.25, callbacks=[checkpoint], verbose=0)
        printed = capsys.readouterr().out.replace(str(directory), "DIR")
        files = sorted(os.listdir(directory))
        restored = mlp(lib)
        restored.load_weights(directory / files[-1]) if options.get("save_weights_only") else None
        return files, printed, checkpoint.best, [w.shape for w in restored.get_weights()]

    real, mine = twin(mlp, train)
    assert_close(real, mine)


def test_model_checkpoint_argument_errors():
    def errors(lib):
        found = []
        for kwargs in ({"filepath": "x.h5", "save_weights_only": True}, {"filepath": "x.txt"},
                       {"filepath": "x.keras", "save_freq": "often"}):
            try:
                lib.keras.callbacks.ModelCheckpoint(**kwargs)
            except ValueError as e:
                found.append(str(e))
        return found

    assert errors(REAL) == errors(VFW)


def test_backup_and_restore(tmp_path):
    def train(lib, model):
        compile_model(lib, model)
        backup = lib.keras.callbacks.BackupAndRestore(str(tmp_path / lib.name))

        class Interrupt(lib.keras.callbacks.Callback):
            def on_epoch_begin(self, epoch, logs=None):
                if epoch == 2:
                    raise KeyboardInterrupt

        try:
            model.fit(X, Y, batch_size=16, epochs=4, callbacks=[backup, Interrupt()], verbose=0)
        except KeyboardInterrupt:
            pass
        saved = sorted(os.listdir(tmp_path / lib.name))
        resumed = model.fit(X, Y, batch_size=16, epochs=4, callbacks=[backup], verbose=0)
        return saved, resumed.epoch, history(resumed), os.path.exists(tmp_path / lib.name)

    real, mine = twin(mlp, train)
    assert_close(real, mine)


def test_swap_ema_weights():
    def train(lib, model):
        keras = lib.keras
        compile_model(lib, model, optimizer=keras.optimizers.SGD(0.1, use_ema=True, ema_momentum=0.5))
        swap = keras.callbacks.SwapEMAWeights(swap_on_epoch=True)
        h = model.fit(X, Y, batch_size=16, epochs=2, validation_data=(X, Y), callbacks=[swap], verbose=0)
        return history(h), model.evaluate(X, Y, callbacks=[keras.callbacks.SwapEMAWeights()], verbose=0)

    real, mine = twin(mlp, train)
    assert_close(real, mine)


def test_tensorboard_is_accepted_and_changes_nothing(tmp_path):
    fresh(VFW)
    model = compile_model(VFW, mlp(VFW))
    weights = model.get_weights()
    board = VFW.keras.callbacks.TensorBoard(log_dir=str(tmp_path / "logs"), histogram_freq=1, update_freq="batch")
    with_board = history(model.fit(X, Y, batch_size=16, epochs=2, callbacks=[board], verbose=0))
    model.set_weights(weights)
    model.compile(model.optimizer.__class__(0.05), model.loss, metrics=["accuracy"])
    without = history(model.fit(X, Y, batch_size=16, epochs=2, verbose=0))
    assert with_board == without
    assert board.update_freq == 1


# -- printed logs -----------------------------------------------------------------------------------------------------
def run_printed(lib, model, capsys, verbose):
    compile_model(lib, model)
    capsys.readouterr()
    model.fit(X, Y, batch_size=16, epochs=2, validation_data=(X[:8], Y[:8]), verbose=verbose)
    model.fit(X, Y, batch_size=16, epochs=1, verbose=verbose)
    model.evaluate(X, Y, verbose=verbose)
    model.predict(X, verbose=verbose)
    return capsys.readouterr().out


@pytest.mark.parametrize("verbose", [1, "auto"])
def test_progress_bar_output(capsys, verbose):
    real, mine = twin(mlp, lambda lib, model: run_printed(lib, model, capsys, verbose))
    assert visible(mine) == visible(real)
    assert "━" in mine and "\r" in mine


def test_one_line_per_epoch_output(capsys):
    real, mine = twin(mlp, lambda lib, model: run_printed(lib, model, capsys, 2))
    assert masked(mine) == masked(real)
    assert "Epoch 1/2\n3/3 - Ts - T/step - accuracy:" in masked(mine)


def test_silent_output(capsys):
    real, mine = twin(mlp, lambda lib, model: run_printed(lib, model, capsys, 0))
    assert real == mine == ""
