"""Callbacks recording training: ``CSVLogger`` and ``TensorBoard`` (event files through ``tf.summary``)."""

import collections.abc
import csv
import os

import numpy as np

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow.keras.src.callbacks.callback import Callback


class CSVLogger(Callback):
    """Write each epoch's logs as a row of a CSV file (``epoch`` first, then the metric names sorted, ``val_*``
    columns added when the first epoch has none).

    Parameters
    ----------
    filename : str or PathLike
    separator : str
    append : bool
        Append to an existing file (its header is kept; written only if the file is empty).
    """

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.sep = separator
        self.filename = os.fspath(filename)
        self.append = append
        self.writer = None
        self.keys = None
        self.append_header = True
        self.csv_file = None

    def on_train_begin(self, logs=None):
        mode = "w"
        if self.append:
            if os.path.exists(self.filename):
                with open(self.filename) as f:
                    self.append_header = not bool(len(f.readline()))
            mode = "a"
        if self.csv_file and not self.csv_file.closed:
            self.csv_file.close()
        self.csv_file = open(self.filename, mode)  # noqa: SIM115  (open for the whole training)
        self.writer = None
        self.keys = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
            if self.keys and not any(key.startswith("val_") for key in self.keys):
                self.keys.extend([f"val_{key}" for key in self.keys])
        if not self.writer:
            dialect = type("Dialect", (csv.excel,), {"delimiter": self.sep})
            self.writer = csv.DictWriter(self.csv_file, fieldnames=["epoch"] + self.keys, dialect=dialect)
            if self.append_header:
                self.writer.writeheader()
        row = {"epoch": epoch}
        row.update((key, _csv_value(logs.get(key, "NA"))) for key in self.keys)
        self.writer.writerow(row)
        self.csv_file.flush()

    def on_train_end(self, logs=None):
        if self.csv_file and not self.csv_file.closed:
            self.csv_file.close()
        self.writer = None


def _csv_value(value):
    if isinstance(value, str):
        return value
    if isinstance(value, collections.abc.Iterable) and not (isinstance(value, np.ndarray) and value.ndim == 0):
        return f'"[{", ".join(map(str, value))}]"'
    return value


class TensorBoard(Callback):
    """Keras' TensorBoard callback: writes event files with ``tf.summary`` under ``log_dir/train`` and
    ``log_dir/validation``.

    Written as Keras 3 does: ``epoch_<metric>`` (and ``epoch_learning_rate``) at step ``epoch`` in train,
    ``epoch_<metric>`` of the ``val_`` logs in validation, ``evaluation_<metric>_vs_iterations`` at the optimizer's
    iteration count after each evaluation, ``batch_<metric>`` at the global batch when ``update_freq`` is
    ``"batch"`` or an int (recorded every ``update_freq`` batches), ``<weight path>/histogram`` every
    ``histogram_freq`` epochs (and ``/image`` with ``write_images``), and the model's JSON (tag ``keras``,
    step 0) with ``write_graph``.  The op graph of the train function, profiling and embeddings are not written.
    """

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
                 write_steps_per_second=False, update_freq="epoch", profile_batch=0, embeddings_freq=0,
                 embeddings_metadata=None):
        super().__init__()
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.write_images = write_images
        self.write_steps_per_second = write_steps_per_second
        self.update_freq = 1 if update_freq == "batch" else update_freq
        self.profile_batch = profile_batch
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        self._writers = {}
        self._summary_contexts = []
        self._global_train_batch = 0
        self._global_test_batch = 0

    @property
    def summary(self):
        import vfw.tensorflow as tf

        return tf.summary

    def set_model(self, model):
        self._model = model
        self._train_dir = os.path.join(self.log_dir, "train")
        self._val_dir = os.path.join(self.log_dir, "validation")
        self._writers = {}
        if self.write_graph and model.__class__.__name__ in ("Functional", "Sequential"):
            self._write_model_json()

    def _writer(self, which):
        if which not in self._writers:
            self._writers[which] = self.summary.create_file_writer(self._train_dir if which == "train"
                                                                   else self._val_dir)
        return self._writers[which]

    def _write_model_json(self):
        from vfw.io.tensorboard import protos

        try:
            json_string = self.model.to_json()
        except Exception as exc:  # Keras warns and writes nothing for a model that does not serialize
            warn_for_user(f"Model failed to serialize as JSON. Ignoring... {exc}")
            return
        with self._writer("train").as_default():
            self.summary.write("keras", json_string, step=0,
                               metadata=protos.plugin_metadata("graph_keras_model", content=b"1"))

    def _push_writer(self, which, step):
        # Batch-level custom summaries go to the current writer at the current batch, every update_freq batches.
        if self.update_freq == "epoch":
            return
        contexts = (self._writer(which).as_default(step), self.summary.record_if(lambda: step % self.update_freq == 0))
        for context in contexts:
            context.__enter__()
        self._summary_contexts.append(contexts)

    def _pop_writer(self):
        if self.update_freq == "epoch" or not self._summary_contexts:
            return
        for context in reversed(self._summary_contexts.pop()):
            context.__exit__(None, None, None)

    def on_train_begin(self, logs=None):
        self._global_train_batch = 0
        self._push_writer("train", 0)

    def on_train_end(self, logs=None):
        self._pop_writer()
        for writer in self._writers.values():
            writer.close()

    def on_test_begin(self, logs=None):
        self._push_writer("validation", self._global_test_batch)

    def on_test_end(self, logs=None):
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is not None and hasattr(optimizer, "iterations"):
            with self._writer("validation").as_default():
                for name, value in (logs or {}).items():
                    self.summary.scalar(f"evaluation_{name}_vs_iterations", value, step=optimizer.iterations)
        self._pop_writer()

    def on_train_batch_begin(self, batch, logs=None):
        self._global_train_batch += 1
        if self.update_freq != "epoch":
            self._pop_writer()
            self._push_writer("train", self._global_train_batch)

    def on_train_batch_end(self, batch, logs=None):
        if isinstance(logs, dict):
            for name, value in logs.items():
                self.summary.scalar(f"batch_{name}", value, step=self._global_train_batch)

    def on_test_batch_begin(self, batch, logs=None):
        self._global_test_batch += 1
        if self.update_freq != "epoch":
            self._pop_writer()
            self._push_writer("validation", self._global_test_batch)

    def on_epoch_end(self, epoch, logs=None):
        if logs:
            train_logs = {k: v for k, v in logs.items() if not k.startswith("val_")}
            val_logs = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
            learning_rate = getattr(getattr(self.model, "optimizer", None), "learning_rate", None)
            if learning_rate is not None:
                train_logs["learning_rate"] = float(np.asarray(learning_rate))
            for which, values in (("train", train_logs), ("validation", val_logs)):
                if values:
                    with self._writer(which).as_default():
                        for name, value in values.items():
                            self.summary.scalar(f"epoch_{name}", value, step=epoch)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)

    def _log_weights(self, epoch):
        writer = self._writer("train")
        with writer.as_default():
            for layer in self.model.layers:
                for weight in layer.weights:
                    weight_name = weight.path.replace(":", "_")
                    self.summary.histogram(f"{weight_name}/histogram", weight, step=epoch)
                    if self.write_images:
                        self._log_weight_as_image(weight, f"{weight_name}/image", epoch)
            writer.flush()

    def _log_weight_as_image(self, weight, tag, epoch):
        # Biases become a 1-pixel-high row, dense kernels a (short side x long side) image, conv kernels one
        # image per output channel; other shapes are not written.
        pixels = np.squeeze(np.asarray(weight))
        if pixels.ndim == 1:
            pixels = pixels.reshape(1, pixels.shape[0], 1, 1)
        elif pixels.ndim == 2:
            if pixels.shape[0] > pixels.shape[1]:
                pixels = pixels.T
            pixels = pixels.reshape(1, pixels.shape[0], pixels.shape[1], 1)
        elif pixels.ndim == 3:
            pixels = np.transpose(pixels, (2, 0, 1))[..., None]
        if pixels.ndim == 4 and pixels.shape[-1] in (1, 3, 4):
            self.summary.image(tag, pixels, step=epoch)
