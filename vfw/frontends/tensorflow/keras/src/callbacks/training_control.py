"""Callbacks steering training: ``LearningRateScheduler``, ``TerminateOnNaN``, ``LambdaCallback`` and
``SwapEMAWeights``."""

import numpy as np

from vfw.frontends.tensorflow.keras.src.callbacks.callback import Callback
from vfw.frontends.tensorflow.keras.src.callbacks.monitor import _learning_rate
from vfw.frontends.tensorflow.keras.src.optimizers.base_optimizer import tf_variable
from vfw.frontends.tensorflow.keras.src.utils import io_utils


class LearningRateScheduler(Callback):
    """Set the learning rate at the start of each epoch to ``schedule(epoch, lr)`` (or ``schedule(epoch)``).

    Parameters
    ----------
    schedule : callable
        Takes the epoch index (0-based) and the current learning rate; returns a float.
    verbose : int

    Adds ``learning_rate`` to the epoch's logs.
    """

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule = schedule
        self.verbose = verbose

    def _update(self, optimizer, epoch):
        if not hasattr(optimizer, "learning_rate"):
            raise ValueError('Optimizer must have a "learning_rate" attribute.')
        try:
            learning_rate = self.schedule(epoch, _learning_rate(optimizer))
        except TypeError:  # a schedule of the epoch only (the older API)
            learning_rate = self.schedule(epoch)
        if not isinstance(learning_rate, (float, np.float32, np.float64)):
            raise ValueError(f"The output of the `schedule` function should be a float. Got: {learning_rate}")
        optimizer.learning_rate = learning_rate
        return learning_rate

    def on_epoch_begin(self, epoch, logs=None):
        optimizers = getattr(self.model.optimizer, "optimizers", None)
        for optimizer in optimizers if optimizers is not None else [self.model.optimizer]:
            learning_rate = self._update(optimizer, epoch)
            if self.verbose > 0:
                which = f"{optimizer.name} learning rate" if optimizers is not None else "learning rate"
                io_utils.print_msg(f"\nEpoch {epoch + 1}: LearningRateScheduler setting {which} to {learning_rate}.")

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        optimizers = getattr(self.model.optimizer, "optimizers", None)
        if optimizers is not None:
            for optimizer in optimizers:
                logs[f"learning_rate_{optimizer.name}"] = _learning_rate(optimizer)
        else:
            logs["learning_rate"] = _learning_rate(self.model.optimizer)


class TerminateOnNaN(Callback):
    """Stop training (or raise RuntimeError with ``raise_error``) when a batch's loss is NaN or infinite."""

    def __init__(self, raise_error=False):
        super().__init__()
        self.raise_error = raise_error

    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is None or not (np.isnan(loss) or np.isinf(loss)):
            return
        if self.raise_error:
            raise RuntimeError(f"NaN or Inf loss encountered at batch {batch}. Loss value: {loss}. Terminating "
                               "training immediately.")
        io_utils.print_msg(f"Batch {batch}: Invalid loss, terminating training")
        self.model.stop_training = True


class LambdaCallback(Callback):
    """A callback made of functions: ``on_epoch_begin(epoch, logs)``, ``on_epoch_end(epoch, logs)``,
    ``on_train_begin(logs)``, ``on_train_end(logs)``, ``on_train_batch_begin(batch, logs)``,
    ``on_train_batch_end(batch, logs)``; other keyword arguments set further attributes (hooks)."""

    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_train_begin=None, on_train_end=None,
                 on_train_batch_begin=None, on_train_batch_end=None, **kwargs):
        super().__init__()
        self.__dict__.update(kwargs)
        hooks = {"on_epoch_begin": on_epoch_begin, "on_epoch_end": on_epoch_end, "on_train_begin": on_train_begin,
                 "on_train_end": on_train_end, "on_train_batch_begin": on_train_batch_begin,
                 "on_train_batch_end": on_train_batch_end}
        for name, hook in hooks.items():
            if hook is not None:
                setattr(self, name, hook)


class SwapEMAWeights(Callback):
    """With an optimizer keeping moving averages (``use_ema=True``), evaluate and predict with the averaged
    weights (swapped in for the run, swapped back after); with ``swap_on_epoch``, also at each epoch end."""

    def __init__(self, swap_on_epoch=False):
        super().__init__()
        self.swap_on_epoch = swap_on_epoch
        self._ema_weights_in_model = False

    def _optimizers(self):
        optimizer = getattr(self.model.optimizer, "inner_optimizer", self.model.optimizer)
        optimizers = getattr(optimizer, "optimizers", None)
        if optimizers is None:
            if not hasattr(optimizer, "_model_variables_moving_average"):
                raise ValueError("SwapEMAWeights must be used when `use_ema=True` is set on the optimizer. Received: "
                                 f"use_ema={optimizer.use_ema}")
            return [optimizer]
        found = [opt for opt in optimizers if getattr(opt, "use_ema", False)]
        if not found:
            raise ValueError("SwapEMAWeights must be used when at least one inner optimizer has `use_ema=True` set. "
                             "Received a MultiOptimizer with all inner optimizers having `use_ema=False`.")
        return found

    def _pairs(self):
        for optimizer in self._optimizers():
            for variable, average in zip(optimizer._trainable_variables, optimizer._model_variables_moving_average):
                if average is not None:
                    yield tf_variable(variable), tf_variable(average)

    def _swap_variables(self):
        # Swapped arithmetically in place, as Keras on TensorFlow does (a + b, a - b...), rounding included.
        for variable, average in self._pairs():
            variable.assign_add(average)
            average.assign(variable - average)
            variable.assign(variable - average)

    def _finalize_ema_values(self):
        for variable, average in self._pairs():
            average.assign(variable)

    def on_epoch_begin(self, epoch, logs=None):
        if self.swap_on_epoch and self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = False

    def on_epoch_end(self, epoch, logs=None):
        if self.swap_on_epoch and not self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = True
            if epoch == self.params["epochs"] - 1:
                self._finalize_ema_values()

    def on_test_begin(self, logs=None):
        if not self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = True

    def on_test_end(self, logs=None):
        if self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = False

    def on_predict_begin(self, logs=None):
        if not self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = True

    def on_predict_end(self, logs=None):
        # As in Keras 3.15: only swaps back when the averages are not in the model (so usually not at all).
        if not self._ema_weights_in_model:
            self._swap_variables()
            self._ema_weights_in_model = False
