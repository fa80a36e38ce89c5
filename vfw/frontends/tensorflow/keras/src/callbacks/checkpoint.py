"""Callbacks saving the model while it trains: ``ModelCheckpoint`` and ``BackupAndRestore``.

They write through the model's own ``save``/``save_weights``/``load_weights`` (keras saving). Under a
multi-worker strategy only the chief (rank 0) writes: the workers hold the same weights, and several processes
writing one file at once fail (HDF5 locks it) or leave it torn.
"""

import json
import os
import shutil

import numpy as np

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src.callbacks.callback import Callback
from vfw.frontends.tensorflow.keras.src.callbacks.monitor import MonitorCallback
from vfw.frontends.tensorflow.keras.src.utils import io_utils


def _writes_files(model):
    """Whether this process saves for ``model`` (not a non-chief worker of its distribution strategy)."""
    strategy = getattr(model, "distribute_strategy", None)
    return strategy is None or strategy.extended.should_checkpoint


class _BatchCounter:
    """Counts batches across epochs to act every ``save_freq`` batches (``"epoch"``: never)."""

    def __init__(self, save_freq, last_seen=None):
        self.save_freq = save_freq
        self.since_last = 0
        self.last_seen = last_seen

    def due(self, batch):
        if self.save_freq == "epoch":
            return False
        if self.last_seen is None or batch <= self.last_seen:
            added = batch + 1  # a new epoch: batches count from 0 again
        else:
            added = batch - self.last_seen
        self.since_last += added
        self.last_seen = batch
        if self.since_last >= self.save_freq:
            self.since_last = 0
            return True
        return False


class ModelCheckpoint(MonitorCallback):
    """Save the model (``.keras``) or its weights (``.weights.h5``) every epoch or every ``save_freq`` batches.

    Parameters
    ----------
    filepath : str or PathLike
        May hold ``str.format`` fields: ``{epoch}`` (1-based), ``{batch}`` and any log name
        (``{val_loss:.2f}``).
    monitor : str
    verbose : int
    save_best_only : bool
        Save only when the monitored metric improves (always when it is missing, with a warning).
    save_weights_only : bool
        Then ``filepath`` must end in ``.weights.h5``; otherwise in ``.keras`` (or ``.h5``).
    mode : {"auto", "min", "max"}
    save_freq : "epoch" or int
    initial_value_threshold : float, optional
        The best value to beat at first.
    """

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False, save_weights_only=False,
                 mode="auto", save_freq="epoch", initial_value_threshold=None):
        super().__init__(monitor, mode, initial_value_threshold)
        self.verbose = verbose
        self.filepath = os.fspath(filepath)
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        self.save_freq = save_freq
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError(f"Unrecognized save_freq: {save_freq}. Expected save_freq are 'epoch' or integer values")
        self._counter = _BatchCounter(save_freq)
        self._current_epoch = 0
        if save_weights_only:
            if not self.filepath.endswith(".weights.h5"):
                raise ValueError("When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided "
                                 f"must end in `.weights.h5` (Keras weights format). Received: "
                                 f"filepath={self.filepath}")
        elif not self.filepath.endswith((".keras", ".h5")):
            raise ValueError(f"The filepath provided must end in `.keras` (Keras model format). Received: "
                             f"filepath={self.filepath}")

    def on_train_batch_end(self, batch, logs=None):
        if self._counter.due(batch):
            self._save_model(self._current_epoch, batch, logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_epoch_end(self, epoch, logs=None):
        if self.monitor_op is None:
            self._set_monitor_op()
        if self.save_freq == "epoch":
            self._save_model(epoch, None, logs)

    def _should_save(self, epoch, logs, filepath):
        logs = logs or {}
        if not self.save_best_only:
            if self.verbose > 0:
                io_utils.print_msg(f"\nEpoch {epoch + 1}: saving model to {filepath}")
            return True
        current = logs.get(self.monitor)
        if current is None:
            warn_for_user(f"Can save best model only with {self.monitor} available.")
            return True
        if np.ndim(current) > 0:
            warn_for_user(f"Can save best model only when `monitor` is a scalar value. Received: {current}. Falling "
                          "back to `save_best_only=False`.")
            return True
        best = "None" if self.best is None else f"{self.best:.5f}"
        if self._is_improvement(current, self.best):
            if self.verbose > 0:
                io_utils.print_msg(f"\nEpoch {epoch + 1}: {self.monitor} improved from {best} to {current:.5f}, "
                                   f"saving model to {filepath}")
            self.best = current
            return True
        if self.verbose > 0:
            io_utils.print_msg(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from {best}")
        return False

    def _save_model(self, epoch, batch, logs):
        filepath = self._file_path(epoch, batch, logs or {})
        if not self._should_save(epoch, logs, filepath) or not _writes_files(self.model):
            return
        if os.path.isdir(filepath):
            raise OSError(f"Please specify a non-directory filepath for ModelCheckpoint. Filepath used is an existing "
                          f"directory: {filepath}")
        directory = os.path.dirname(filepath)
        if directory:
            os.makedirs(directory, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(filepath, overwrite=True)
        else:
            self.model.save(filepath, overwrite=True)
        if self.verbose > 0:
            io_utils.print_msg(f"\nEpoch {epoch + 1}: finished saving model to {filepath}")

    def _file_path(self, epoch, batch, logs):
        try:
            if batch is None or "batch" in logs:
                return self.filepath.format(epoch=epoch + 1, **logs)
            return self.filepath.format(epoch=epoch + 1, batch=batch + 1, **logs)
        except KeyError as e:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". Reason: {e}') from None


class BackupAndRestore(Callback):
    """Back the training up in ``backup_dir`` (weights and the epoch reached) and resume from it when
    ``fit`` starts again after an interruption; the backup is deleted when training completes.

    Parameters
    ----------
    backup_dir : str
    save_freq : "epoch" or int
    double_checkpoint : bool
        Keep the previous backup too (``.bkp``) and fall back to it when the latest cannot be read.
    delete_checkpoint : bool
    """

    def __init__(self, backup_dir, save_freq="epoch", double_checkpoint=False, delete_checkpoint=True):
        super().__init__()
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        if save_freq != "epoch" and not isinstance(save_freq, int):
            raise ValueError(f"Invalid value for argument `save_freq`. Received: save_freq={save_freq}. Expected "
                             "either 'epoch' or an integer value.")
        self.save_freq = save_freq
        self.double_checkpoint = double_checkpoint
        self.delete_checkpoint = delete_checkpoint
        self.backup_dir = backup_dir
        self._counter = _BatchCounter(save_freq, last_seen=0)
        self._current_epoch = 0
        self._weights_path = os.path.join(backup_dir, "latest.weights.h5")
        self._metadata_path = os.path.join(backup_dir, "training_metadata.json")
        self._previous_weights_path = f"{self._weights_path}.bkp"
        self._previous_metadata_path = f"{self._metadata_path}.bkp"

    def on_train_begin(self, logs=None):
        try:
            self._load_model()
        except OSError:
            if not os.path.exists(self._previous_weights_path):
                raise
            shutil.copy(self._previous_weights_path, self._weights_path)
            if os.path.exists(self._previous_metadata_path):
                shutil.copy(self._previous_metadata_path, self._metadata_path)
            elif os.path.exists(self._metadata_path):
                os.remove(self._metadata_path)
            self._load_model()

    def _load_model(self):
        if not self.model.built:
            raise ValueError("To use the BackupAndRestore callback, you model must be built before you call `fit()`. "
                             f"Model {self.model} is unbuilt. You can build it beforehand by calling it on a batch of "
                             "data.")
        if os.path.exists(self._weights_path):
            if self.model.optimizer is not None and not self.model.optimizer.built:
                self.model.optimizer.build(self.model.trainable_variables)
            self.model.load_weights(self._weights_path)
        if os.path.exists(self._metadata_path):
            with open(self._metadata_path) as f:
                self.model._initial_epoch = json.loads(f.read())["epoch"]

    def on_epoch_end(self, epoch, logs=None):
        self._current_epoch = epoch + 1
        self._counter.last_seen = 0
        if self.save_freq == "epoch":
            self._save_model()

    def on_train_batch_end(self, batch, logs=None):
        if self._counter.due(batch):
            self._save_model()

    def _save_model(self):
        if not _writes_files(self.model):
            return
        os.makedirs(self.backup_dir, exist_ok=True)
        if self.double_checkpoint:
            for path, previous in ((self._weights_path, self._previous_weights_path),
                                   (self._metadata_path, self._previous_metadata_path)):
                if os.path.exists(path):
                    shutil.copy(path, previous)
        self.model.save_weights(filepath=self._weights_path, overwrite=True)
        with open(self._metadata_path, "w") as f:
            f.write(json.dumps({"epoch": self._current_epoch, "batch": self._counter.last_seen}))

    def on_train_end(self, logs=None):
        if self.delete_checkpoint and os.path.exists(self.backup_dir) and _writes_files(self.model):
            shutil.rmtree(self.backup_dir)
