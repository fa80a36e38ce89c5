"""Callbacks watching a metric across epochs: ``EarlyStopping`` and ``ReduceLROnPlateau`` (and the
``MonitorCallback`` base they share with ``ModelCheckpoint``).

An improvement is ``value - min_delta < best`` (``mode="min"``) or ``value + min_delta > best``
(``"max"``), compared in float32 as Keras' ops compare Python floats; ``"auto"`` minimizes losses and
follows the ``_direction`` of the model's compiled metrics (accuracies go up).
"""

import numpy as np

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src.callbacks.callback import Callback
from vfw.frontends.tensorflow.keras.src.utils import io_utils


def _less(a, b):
    return bool(np.float32(a) < np.float32(b))


def _greater(a, b):
    return bool(np.float32(a) > np.float32(b))


def _learning_rate(optimizer):
    value = optimizer.learning_rate
    return float(value.numpy() if hasattr(value, "numpy") else value)


class MonitorCallback(Callback):
    """Base of callbacks comparing a monitored metric with its best value so far.

    Parameters
    ----------
    monitor : str
    mode : {"auto", "min", "max"}
        An unknown mode warns and falls back to ``"auto"``.
    baseline : float, optional
        The initial best value.
    min_delta : float
        The smallest change that counts as an improvement.
    """

    def __init__(self, monitor="val_loss", mode="auto", baseline=None, min_delta=0):
        super().__init__()
        if mode not in ("auto", "min", "max"):
            warn_for_user(f"{type(self).__name__} mode '{mode}' is unknown, fallback to auto mode.")
            mode = "auto"
        self.monitor = monitor
        self.mode = mode
        self.best = baseline
        self.min_delta = abs(min_delta)
        self.monitor_op = None

    def _set_monitor_op(self):
        if self.mode == "min":
            self.monitor_op = _less
        elif self.mode == "max":
            self.monitor_op = _greater
        else:
            name = self.monitor.removeprefix("val_")
            if name == "loss":
                self.monitor_op = _less
            for metric in _compiled_metrics(self.model):
                if metric.name == name and hasattr(metric, "_direction"):
                    self.monitor_op = _greater if metric._direction == "up" else _less
            if self.monitor_op is None:
                raise ValueError(f"{type(self).__name__} callback received monitor={self.monitor}, but Keras isn't "
                                 "able to automatically determine whether that metric should be maximized or "
                                 "minimized. Pass `mode='max'` in order to monitor based on the highest metric value, "
                                 "or pass `mode='min'` in order to use the lowest value.")
        if self.monitor_op is _less:
            self.min_delta *= -1

    def _is_improvement(self, value, reference):
        if reference is None:
            return True
        return self.monitor_op(value - self.min_delta, reference)


def _compiled_metrics(model):
    from vfw.frontends.tensorflow.keras.src.engine.compile_utils import CompileMetrics, MetricsList

    found = []
    for metric in getattr(model, "metrics", ()):
        if isinstance(metric, (CompileMetrics, MetricsList)):
            found.extend(metric.metrics)
    return found


class EarlyStopping(MonitorCallback):
    """Stop training when the monitored metric has not improved for ``patience`` epochs.

    Parameters
    ----------
    monitor : str
    min_delta : float
    patience : int
        Epochs without improvement before stopping (never at epoch 0).
    verbose : int
        Print when stopping / restoring.
    mode : {"auto", "min", "max"}
    baseline : float, optional
        Improvements must also beat it to reset the patience.
    restore_best_weights : bool
        At the end of training, restore the weights of the best epoch (when one was seen).
    start_from_epoch : int
        Epochs to ignore at the start.
    """

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto", baseline=None,
                 restore_best_weights=False, start_from_epoch=0):
        super().__init__(monitor, mode, min_delta=min_delta)
        self.patience = patience
        self.verbose = verbose
        self.baseline = baseline
        self.wait = 0
        self.stopped_epoch = 0
        self.restore_best_weights = restore_best_weights
        self.best_weights = None
        self.start_from_epoch = start_from_epoch

    def on_train_begin(self, logs=None):
        self.wait = 0
        self.stopped_epoch = 0
        self.best = None
        self.best_weights = None
        self.best_epoch = 0

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()
        current = self.get_monitor_value(logs)
        if current is None or epoch < self.start_from_epoch:
            return
        if self.restore_best_weights and self.best_weights is None:
            self.best_weights = self.model.get_weights()
            self.best_epoch = epoch
        self.wait += 1
        if self._is_improvement(current, self.best):
            self.best = current
            self.best_epoch = epoch
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            if self.baseline is None or self._is_improvement(current, self.baseline):
                self.wait = 0
            return
        if self.wait >= self.patience and epoch > 0:
            self.stopped_epoch = epoch
            self.model.stop_training = True

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            io_utils.print_msg(f"Epoch {self.stopped_epoch + 1}: early stopping")
        if self.restore_best_weights and self.best_weights is not None:
            if self.verbose > 0:
                io_utils.print_msg(f"Restoring model weights from the end of the best epoch: {self.best_epoch + 1}.")
            self.model.set_weights(self.best_weights)

    def get_monitor_value(self, logs):
        """The monitored value in ``logs`` (None, with a warning, when missing)."""
        logs = logs or {}
        value = logs.get(self.monitor)
        if value is None:
            warn_for_user(f"Early stopping conditioned on metric `{self.monitor}` which is not available. Available "
                          f"metrics are: {','.join(logs)}")
        return value


class ReduceLROnPlateau(MonitorCallback):
    """Multiply the learning rate by ``factor`` after ``patience`` epochs without improvement.

    Parameters
    ----------
    monitor : str
    factor : float
        < 1.
    patience : int
    verbose : int
    mode : {"auto", "min", "max"}
    min_delta : float
    cooldown : int
        Epochs to wait after a reduction before counting again.
    min_lr : float
        The learning rate never goes below it.

    Adds ``learning_rate`` to the epoch's logs.
    """

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0.0, **kwargs):
        super().__init__(monitor, mode, min_delta=min_delta)
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1.0. Received factor={factor}")
        self.factor = factor
        self.min_lr = min_lr
        self.patience = patience
        self.verbose = verbose
        self.cooldown = cooldown
        self.cooldown_counter = 0
        self.wait = 0

    def _reset(self):
        self.best = None
        self.cooldown_counter = 0
        self.wait = 0

    def on_train_begin(self, logs=None):
        self._reset()

    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _reduce(self, optimizer, epoch, name=""):
        old_lr = _learning_rate(optimizer)
        if old_lr <= np.float32(self.min_lr):
            return False
        new_lr = max(old_lr * self.factor, self.min_lr)
        optimizer.learning_rate = new_lr
        if self.verbose > 0:
            name = f" {name}" if name else ""
            io_utils.print_msg(f"\nEpoch {epoch + 1}: ReduceLROnPlateau reducing{name} learning rate to {new_lr}.")
        return True

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()
        logs = logs if logs is not None else {}
        optimizers = getattr(self.model.optimizer, "optimizers", None)
        if optimizers is not None:
            for optimizer in optimizers:
                logs[f"learning_rate_{optimizer.name}"] = _learning_rate(optimizer)
        else:
            logs["learning_rate"] = _learning_rate(self.model.optimizer)
        current = logs.get(self.monitor)
        if current is None:
            warn_for_user(f"Learning rate reduction is conditioned on metric `{self.monitor}` which is not available. "
                          f"Available metrics are: {','.join(logs)}.")
            return
        if self.in_cooldown():
            self.cooldown_counter -= 1
            self.wait = 0
        if self._is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif not self.in_cooldown():
            self.wait += 1
            if self.wait >= self.patience:
                if optimizers is not None:
                    reduced = any([self._reduce(opt, epoch, opt.name) for opt in optimizers])
                else:
                    reduced = self._reduce(self.model.optimizer, epoch)
                if reduced:
                    self.cooldown_counter = self.cooldown
                    self.wait = 0
