"""``keras.callbacks.Callback`` (the hooks ``fit``/``evaluate``/``predict`` call) and ``CallbackList``."""

from vfw.frontends.tensorflow.keras.src.engine.operation import default, is_default


def pythonify_logs(logs):
    """``logs`` with its keys sorted, nested dicts flattened and values as Python floats where they convert."""
    result = {}
    for key, value in sorted((logs or {}).items()):
        if isinstance(value, dict):
            result.update(pythonify_logs(value))
            continue
        try:
            value = float(value.numpy() if hasattr(value, "numpy") else value)
        except (TypeError, ValueError):
            pass
        result[key] = value
    return result


class Callback:
    """Base class of callbacks: override the hooks you need.

    ``self.model`` is the model being trained, evaluated or used for prediction, and
    ``self.params`` the loop's parameters (``verbose``, ``epochs``, ``steps``).  ``logs`` hold the
    metric values: the running epoch values after each batch, the epoch's (with ``val_*``) at
    epoch end, the outputs (``{"outputs": ...}``) after each predict batch.
    """

    def __init__(self):
        self.params = None
        self._model = None

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self._model = model

    @property
    def model(self):
        """The model the callback is attached to."""
        return self._model

    @default
    def on_batch_begin(self, batch, logs=None):
        """A legacy alias of ``on_train_batch_begin``."""

    @default
    def on_batch_end(self, batch, logs=None):
        """A legacy alias of ``on_train_batch_end``."""

    @default
    def on_epoch_begin(self, epoch, logs=None):
        """At the start of epoch ``epoch`` (0-based) of ``fit``."""

    @default
    def on_epoch_end(self, epoch, logs=None):
        """At the end of an epoch of ``fit`` (``logs`` has the epoch's metrics, validation ones included)."""

    @default
    def on_train_batch_begin(self, batch, logs=None):
        """Before a training batch (calls ``on_batch_begin``)."""
        self.on_batch_begin(batch, logs=logs)

    @default
    def on_train_batch_end(self, batch, logs=None):
        """After a training batch (calls ``on_batch_end``)."""
        self.on_batch_end(batch, logs=logs)

    @default
    def on_test_batch_begin(self, batch, logs=None):
        """Before a batch of ``evaluate`` (or of validation in ``fit``)."""

    @default
    def on_test_batch_end(self, batch, logs=None):
        """After a batch of ``evaluate`` (or of validation in ``fit``)."""

    @default
    def on_predict_batch_begin(self, batch, logs=None):
        """Before a batch of ``predict``."""

    @default
    def on_predict_batch_end(self, batch, logs=None):
        """After a batch of ``predict``."""

    @default
    def on_train_begin(self, logs=None):
        """At the start of ``fit``."""

    @default
    def on_train_end(self, logs=None):
        """At the end of ``fit`` (``logs``: the last epoch's)."""

    @default
    def on_test_begin(self, logs=None):
        """At the start of ``evaluate`` (or of a validation run)."""

    @default
    def on_test_end(self, logs=None):
        """At the end of ``evaluate`` (or of a validation run)."""

    @default
    def on_predict_begin(self, logs=None):
        """At the start of ``predict``."""

    @default
    def on_predict_end(self, logs=None):
        """At the end of ``predict``."""


_BATCH_HOOKS = ("on_batch_begin", "on_batch_end", "on_train_batch_begin", "on_train_batch_end",
                    "on_test_batch_begin", "on_test_batch_end", "on_predict_batch_begin", "on_predict_batch_end")


class CallbackList(Callback):
    """Calls every callback of a list: what ``fit`` uses (a ``History``, and a ``ProgbarLogger`` unless
    ``verbose=0``, are added when the list has none).

    Parameters
    ----------
    callbacks : list of Callback, optional
    add_history, add_progbar : bool
    model : Model, optional
    **params
        Passed to every callback's ``set_params`` (``verbose``, ``epochs``, ``steps``).
    """

    def __init__(self, callbacks=None, add_history=False, add_progbar=False, model=None, **params):
        super().__init__()
        self.callbacks = _flatten(callbacks) if callbacks else []
        self._add_default_callbacks(add_history, add_progbar)
        self._batch_hooks = {}
        self.set_model(model)
        self.set_params(params)

    def _add_default_callbacks(self, add_history, add_progbar):
        from vfw.frontends.tensorflow.keras.src.callbacks.history import History, ProgbarLogger

        self._history = next((c for c in self.callbacks if isinstance(c, History)), None)
        self._progbar = next((c for c in self.callbacks if isinstance(c, ProgbarLogger)), None)
        if self._history is None and add_history:
            self._history = History()
            self.callbacks.append(self._history)
        if self._progbar is None and add_progbar:
            self._progbar = ProgbarLogger()
            self.callbacks.append(self._progbar)

    def set_params(self, params):
        self.params = params
        if params:
            for callback in self.callbacks:
                callback.set_params(params)

    def set_model(self, model):
        if not model:
            return
        super().set_model(model)
        if self._history:
            model.history = self._history
        for callback in self.callbacks:
            callback.set_model(model)

    def append(self, callback):
        self.callbacks.append(callback)
        self._batch_hooks.clear()

    def _call(self, hook, *args, logs=None):
        batch_hook = hook in _BATCH_HOOKS
        if batch_hook:
            callbacks = self._batch_hooks.get(hook)
            if callbacks is None:  # batch hooks no callback overrides are skipped (logs not even converted)
                callbacks = self._batch_hooks[hook] = [c for c in self.callbacks if _overrides(c, hook)]
            if not callbacks:
                return
        else:
            callbacks = self.callbacks
        logs = pythonify_logs(logs)
        for callback in callbacks:
            if batch_hook:  # as Keras calls them: logs by keyword for batch hooks, positionally for the others
                getattr(callback, hook)(*args, logs=logs)
            else:
                getattr(callback, hook)(*args, logs)

    def on_batch_begin(self, batch, logs=None):
        self._call("on_batch_begin", batch, logs=logs)

    def on_batch_end(self, batch, logs=None):
        self._call("on_batch_end", batch, logs=logs)

    def on_epoch_begin(self, epoch, logs=None):
        self._call("on_epoch_begin", epoch, logs=logs)

    def on_epoch_end(self, epoch, logs=None):
        self._call("on_epoch_end", epoch, logs=logs)

    def on_train_batch_begin(self, batch, logs=None):
        self._call("on_train_batch_begin", batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self._call("on_train_batch_end", batch, logs=logs)

    def on_test_batch_begin(self, batch, logs=None):
        self._call("on_test_batch_begin", batch, logs=logs)

    def on_test_batch_end(self, batch, logs=None):
        self._call("on_test_batch_end", batch, logs=logs)

    def on_predict_batch_begin(self, batch, logs=None):
        self._call("on_predict_batch_begin", batch, logs=logs)

    def on_predict_batch_end(self, batch, logs=None):
        self._call("on_predict_batch_end", batch, logs=logs)

    def on_train_begin(self, logs=None):
        self._call("on_train_begin", logs=logs)

    def on_train_end(self, logs=None):
        self._call("on_train_end", logs=logs)

    def on_test_begin(self, logs=None):
        self._call("on_test_begin", logs=logs)

    def on_test_end(self, logs=None):
        self._call("on_test_end", logs=logs)

    def on_predict_begin(self, logs=None):
        self._call("on_predict_begin", logs=logs)

    def on_predict_end(self, logs=None):
        self._call("on_predict_end", logs=logs)


def _overrides(callback, hook):
    """Whether calling ``hook`` on ``callback`` can do anything (its method, or one it forwards to, is its own)."""
    if not is_default(getattr(callback, hook)):
        return True
    forwarded = {"on_train_batch_begin": "on_batch_begin", "on_train_batch_end": "on_batch_end"}.get(hook)
    return forwarded is not None and not is_default(getattr(callback, forwarded))


def _flatten(callbacks):
    if isinstance(callbacks, (list, tuple)):
        return [c for item in callbacks for c in _flatten(item)]
    return [callbacks]
