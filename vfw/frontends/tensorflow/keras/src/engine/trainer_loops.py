"""``fit``, ``evaluate``, ``predict`` and the ``*_on_batch`` methods of ``keras.Model`` (a mixin of ``Trainer``).

The loops follow Keras 3.15 on TensorFlow: callbacks (a History, and a ProgbarLogger unless
``verbose=0``) around every epoch and batch, metrics reset at each epoch, the epoch's logs read from
the model's metrics, validation through ``evaluate`` after the epochs ``validation_freq`` selects
(its logs prefixed ``val_``), and ``model.stop_training`` checked after every batch and epoch.
Logs reach the callbacks with sorted keys and Python float values.
"""

import contextlib

import numpy as np

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow import nest
from vfw.frontends.tensorflow.keras.src.backend.config import max_epochs
from vfw.frontends.tensorflow.keras.src.callbacks.callback import CallbackList, pythonify_logs
from vfw.frontends.tensorflow.keras.src.engine import data_adapters
from vfw.frontends.tensorflow.keras.src.engine.epoch_iterator import EpochIterator
from vfw.frontends.tensorflow.keras.src.utils.data import unpack_x_y_sample_weight


def _should_eval(epoch, validation_freq):
    epoch += 1  # the user-facing epoch number
    if isinstance(validation_freq, int):
        return epoch % validation_freq == 0
    if isinstance(validation_freq, list):
        return epoch in validation_freq
    raise ValueError(f"Expected `validation_freq` to be a list or int. Received: validation_freq={validation_freq} "
                     f"of the type {type(validation_freq)}.")


def _to_numpy(x):
    return x.numpy() if hasattr(x, "numpy") else np.asarray(x)


class TrainerLoops:
    """The data loops of the training API (see the module docstring)."""

    def _callback_list(self, callbacks, verbose, epochs, steps, add_history=False):
        if isinstance(callbacks, CallbackList):
            return callbacks
        return CallbackList(callbacks, add_history=add_history, add_progbar=verbose != 0, verbose=verbose,
                            epochs=epochs, steps=steps, model=self)

    def _build_from_iterator(self, epoch_iterator):
        """Build what the steps need from the shapes of the data's batches (in the model's strategy's scope, as
        Keras: metrics built now get the strategy's variables, combined over the replicas when read)."""
        self._symbolic_build_in_scope(epoch_iterator.data_adapter.first_batch_spec())

    def _symbolic_build_in_scope(self, data):
        strategy = self.distribute_strategy
        with strategy.scope() if strategy.num_replicas_in_sync > 1 else contextlib.nullcontext():
            self._symbolic_build(data)

    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None, validation_split=0.0,
            validation_data=None, shuffle=True, class_weight=None, sample_weight=None, initial_epoch=0,
            steps_per_epoch=None, validation_steps=None, validation_batch_size=None, validation_freq=1):
        """Train the model for ``epochs`` epochs; returns the ``History``.

        Parameters
        ----------
        x, y : arrays, tensors, nested structures of them, a ``tf.data.Dataset`` (of ``(x, y[, sample_weight])``
            batches), a ``keras.utils.PyDataset`` or a Python generator (then without ``y``).
        batch_size : int, optional
            For arrays: 32 by default.
        epochs : int
            The epoch index to stop at (epochs run from ``initial_epoch``).
        verbose : "auto", 0, 1 or 2
            0 silent, 1 progress bar ("auto"), 2 one line per epoch.
        callbacks : list of Callback, optional
        validation_split : float
            The last fraction of array data held out for validation (taken before shuffling).
        validation_data : tuple ``(x, y[, sample_weight])`` or dataset, optional
        shuffle : bool or "batch"
            Shuffle array data (see ``data_adapters``).
        class_weight : dict, optional
            ``{class: weight}`` turned into sample weights.
        sample_weight : array, optional
        initial_epoch, steps_per_epoch, validation_steps, validation_batch_size : optional
        validation_freq : int or list of int
            Validate every ``validation_freq`` epochs, or after the listed (1-based) epochs.
        """
        self._assert_compile_called()
        cap = max_epochs()
        if cap and cap < epochs:
            warn_for_user(f"Limiting epochs to {cap}")
            epochs = cap
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = data_adapters.train_validation_split(
                (x, y, sample_weight), validation_split=validation_split)
        if validation_data is not None:
            val_x, val_y, val_sample_weight = unpack_x_y_sample_weight(validation_data)
        epoch_iterator = EpochIterator(x, y, sample_weight=sample_weight, batch_size=batch_size,
                                       steps_per_epoch=steps_per_epoch, shuffle=shuffle, class_weight=class_weight,
                                       steps_per_execution=self.steps_per_execution)
        self._fit_input_per_replica = epoch_iterator.data_adapter.per_replica
        self._build_from_iterator(epoch_iterator)
        epoch_iterator.reset()  # as Keras: a PyDataset's on_epoch_end runs once before training
        callbacks = self._callback_list(callbacks, verbose, epochs, epoch_iterator.num_batches, add_history=True)
        self.stop_training = False
        self.make_train_function()
        train_function = self.train_function
        callbacks.on_train_begin()
        training_logs = None
        logs = {}
        initial_epoch = self._initial_epoch or initial_epoch
        eval_iterator = None
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            callbacks.on_epoch_begin(epoch)
            with epoch_iterator.catch_stop_iteration():
                for begin_step, end_step, batches in epoch_iterator:
                    callbacks.on_train_batch_begin(begin_step)
                    logs = train_function(batches)
                    callbacks.on_train_batch_end(end_step, logs)
                    if self.stop_training:
                        break
            if epoch_iterator.ran_out_at_step and not self.run_eagerly and self.steps_per_execution == 1:
                self._advance_state_on_empty_step()
            epoch_logs = dict(self._get_metrics_result_or_logs(logs))
            if validation_data is not None and _should_eval(epoch, validation_freq):
                if eval_iterator is None:
                    eval_iterator = EpochIterator(val_x, val_y, sample_weight=val_sample_weight,
                                                  batch_size=validation_batch_size or batch_size,
                                                  steps_per_epoch=validation_steps, shuffle=False,
                                                  steps_per_execution=self.steps_per_execution)
                val_logs = self._evaluate_with(eval_iterator, callbacks)
                epoch_logs.update({f"val_{name}": value for name, value in val_logs.items()})
            callbacks.on_epoch_end(epoch, epoch_logs)
            training_logs = epoch_logs
            if self.stop_training:
                break
        if self.optimizer is not None and epochs > 0:
            self.optimizer.finalize_variable_values(self.trainable_weights)
        callbacks.on_train_end(logs=training_logs)
        return self.history

    def _advance_state_on_empty_step(self):
        """What Keras' traced train function does when the data runs out inside it: TF runs the graph's state
        updates that need no batch before the batch read fails, so the optimizer's iteration count and the
        layers' seed generators move on once (vfw moves each seed generator by one draw, as a dropout layer
        does).  Adam's bias corrections and later dropout masks then follow Keras'."""
        if self.optimizer is not None and self.optimizer.built:
            self.optimizer._iterations.assign_add(1)
        for layer in self._flatten_layers():
            for generator in layer._seed_generators:
                generator.next()

    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None, steps=None,
                 callbacks=None, return_dict=False, **kwargs):
        """The loss and metric values of the model on the data (in batches, like ``fit``, unshuffled).

        Returns
        -------
        float, list or dict
            The loss alone when there are no metrics, else a list in ``metrics_names`` order (or a
            dict with ``return_dict``).
        """
        self._assert_compile_called()
        if kwargs:
            raise ValueError(f"Arguments not recognized: {kwargs}")
        epoch_iterator = EpochIterator(x, y, sample_weight=sample_weight, batch_size=batch_size, steps_per_epoch=steps,
                                       shuffle=False, steps_per_execution=self.steps_per_execution)
        callbacks = self._callback_list(callbacks, verbose, 1, epoch_iterator.num_batches)
        logs = self._evaluate_with(epoch_iterator, callbacks)
        return logs if return_dict else self._flatten_metrics_in_order(logs)

    def _evaluate_with(self, epoch_iterator, callbacks):
        """Run the test function over one epoch of ``epoch_iterator`` (read from its start); the logs (Python
        values, sorted keys)."""
        self._build_from_iterator(epoch_iterator)
        epoch_iterator.reset()
        self._eval_input_per_replica = epoch_iterator.data_adapter.per_replica
        self.make_test_function()
        test_function = self.test_function
        self.stop_evaluating = False
        callbacks.on_test_begin()
        logs = {}
        self.reset_metrics()
        with epoch_iterator.catch_stop_iteration():
            for begin_step, end_step, batches in epoch_iterator:
                callbacks.on_test_batch_begin(begin_step)
                logs = test_function(batches)
                callbacks.on_test_batch_end(end_step, logs)
                if self.stop_evaluating:
                    break
        logs = pythonify_logs(self._get_metrics_result_or_logs(logs))
        callbacks.on_test_end(logs)
        return logs

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        """The model's outputs on ``x``, computed in batches and concatenated (numpy arrays, in the output
        structure)."""
        epoch_iterator = EpochIterator(x, batch_size=batch_size, steps_per_epoch=steps, shuffle=False,
                                       steps_per_execution=self.steps_per_execution)
        if not all(layer.built for layer in self._flatten_layers()):
            self._build_from_iterator(epoch_iterator)
        callbacks = self._callback_list(callbacks, verbose, 1, epoch_iterator.num_batches)
        self.make_predict_function()
        predict_function = self.predict_function
        self.stop_predicting = False
        callbacks.on_predict_begin()
        outputs = []  # the flat outputs of each call
        with epoch_iterator.catch_stop_iteration():
            for begin_step, end_step, batches in epoch_iterator:
                callbacks.on_predict_batch_begin(begin_step)
                batch_outputs = predict_function(batches)
                outputs.append(nest.flatten(batch_outputs))
                callbacks.on_predict_batch_end(end_step, {"outputs": batch_outputs})
                if self.stop_predicting:
                    break
        callbacks.on_predict_end()
        if not outputs:
            raise ValueError("Unexpected result of `predict_function` (Empty batch_outputs). Please use "
                             "`Model.compile(..., run_eagerly=True)`, or `tf.config.run_functions_eagerly(True)` "
                             "for more information of where went wrong, or file a issue/bug to `tf.keras`.")
        return nest.pack_sequence_as(batch_outputs, [_concatenate(parts) for parts in zip(*outputs)])

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, return_dict=False):
        """One gradient update on one batch; the metric values after it (metrics are reset first)."""
        self._assert_compile_called()
        if class_weight is not None:
            if sample_weight is not None:
                raise ValueError("Arguments `sample_weight` and `class_weight` cannot be specified at the same time. "
                                 f"Received: sample_weight={sample_weight}, class_weight={class_weight}")
            sample_weight = data_adapters.class_weight_to_sample_weights(y, class_weight)
        return self._on_batch("train", (x, y, sample_weight), return_dict)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """The loss and metric values on one batch (metrics are reset first)."""
        self._assert_compile_called()
        return self._on_batch("test", (x, y, sample_weight), return_dict)

    def _on_batch(self, kind, data, return_dict):
        data = data_adapters.as_tensors(data)
        self._symbolic_build_in_scope(data)
        getattr(self, f"make_{kind}_function")()
        self.reset_metrics()
        # as Keras, the batch is not distributed: every replica steps on all of it
        saved = getattr(self, "_fit_input_per_replica", False), getattr(self, "_eval_input_per_replica", False)
        self._fit_input_per_replica = self._eval_input_per_replica = True
        try:
            logs = pythonify_logs(getattr(self, f"{kind}_function")([data]))
        finally:
            self._fit_input_per_replica, self._eval_input_per_replica = saved
        return logs if return_dict else self._flatten_metrics_in_order(logs)

    def predict_on_batch(self, x):
        """The model's outputs on one batch (numpy arrays)."""
        data = data_adapters.as_tensors((x,))
        if not all(layer.built for layer in self._flatten_layers()):
            self._symbolic_build(data)
        self.make_predict_function()
        outputs = self.predict_function([data])
        return nest.map_structure(_to_numpy, outputs)


def _concatenate(batches):
    if len(batches[0].shape) == 0:
        return np.stack([_to_numpy(b) for b in batches])
    return np.concatenate([_to_numpy(b) for b in batches], axis=0)
