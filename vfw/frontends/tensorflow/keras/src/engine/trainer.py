"""The training API of ``keras.Model`` (Keras 3.15 on the TensorFlow backend): a mixin.

This module holds ``compile``, the steps (``train_step``/``test_step``/``predict_step``, which
subclasses may override as Keras documents), ``compute_loss``/``compute_metrics`` and the
functions running the steps; ``trainer_loops`` holds ``fit``/``evaluate``/``predict`` and the
``*_on_batch`` methods.

How a step runs: ``make_train_function`` wraps ``train_step`` in ``tf.function(reduce_retracing=True)``
(a compiled graph per input signature: the gradient tape, the optimizer's updates and the metric
updates are graph ops) unless ``run_eagerly=True``.  Before the first step the model, the compiled
loss and metrics (from the first batch's shapes) and the optimizer are built, so the traced step
creates no variables.  Differences from Keras: TF traces the step once for every batch size (its
batches come from a dataset iterator of unknown batch size), vfw's graphs have static shapes and
trace it once per batch shape (usually twice: full batches and the last partial one), so Python
side effects in an overridden step run that many times; ``jit_compile`` is recorded but vfw has no
XLA; ``steps_per_execution`` runs its steps one call each.
"""

import inspect

import vfw.tensorflow as tf
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow import nest
from vfw.frontends.tensorflow.keras.src import metrics as metrics_module
from vfw.frontends.tensorflow.keras.src import optimizers as optimizers_module
from vfw.frontends.tensorflow.keras.src.backend.config import floatx
from vfw.frontends.tensorflow.keras.src.backend.dtypes import is_float_dtype, standardize_dtype
from vfw.frontends.tensorflow.keras.src.engine import tracking
from vfw.frontends.tensorflow.keras.src.engine.compile_utils import CompileLoss, CompileMetrics
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
from vfw.frontends.tensorflow.keras.src.engine.trainer_loops import TrainerLoops
from vfw.frontends.tensorflow.keras.src.utils.data import unpack_x_y_sample_weight


class Trainer(TrainerLoops):
    """Mixin of ``keras.Model`` holding its training state and the training API."""

    def __init__(self):
        with tracking.no_tracking():
            self._run_eagerly = False
            self._jit_compile = None
            self.compiled = False
            self.optimizer = None
            self.loss = None
            self.steps_per_execution = 1
            self.stop_training = False
            self._initial_epoch = None  # set by callbacks (BackupAndRestore) in on_train_begin
            self._fit_input_per_replica = False  # fit's batches are this replica's already (set by fit)
            self._eval_input_per_replica = False  # and evaluate's (set by evaluate)
            self._compute_loss_has_training_arg = "training" in inspect.signature(self.compute_loss).parameters
            self._compile_loss = None
            self._compile_metrics = None
            self._loss_tracker = None
            self.train_function = None
            self.test_function = None
            self.predict_function = None
            # As Keras on TF: the strategy current at creation (tf.distribute) makes training data-parallel.
            self._distribute_strategy = tf.distribute.get_strategy()
            # Keras on TF builds a model from placeholders before fitting only when it was made in a strategy's
            # scope; otherwise the first traced step builds it, so a model whose call cannot take the placeholders
            # (a custom train_step unpacking the batch itself) still trains.
            self._symbolic_build_errors_raise = tf.distribute.has_strategy()

    # -- compile ------------------------------------------------------------------------------------------
    def compile(self, optimizer="rmsprop", loss=None, loss_weights=None, metrics=None, weighted_metrics=None,
                run_eagerly=False, steps_per_execution=1, jit_compile="auto", auto_scale_loss=True):
        """Configure the model for training.

        Parameters
        ----------
        optimizer : str or Optimizer
            A name (``"adam"``) or an optimizer.
        loss : str, callable, Loss, or a list/dict of them (one per output), optional
        loss_weights : float, list or dict, optional
            The total loss is the weighted sum of the output losses.
        metrics, weighted_metrics : list or dict, optional
            Metrics (names, functions or ``Metric`` objects; ``"accuracy"`` chosen from the loss and
            shapes); ``weighted_metrics`` use the sample weights.
        run_eagerly : bool
            Run the steps eagerly instead of as compiled graphs.
        steps_per_execution : int
            Batches per call of the train function (callbacks see every ``steps_per_execution``-th batch).
        jit_compile : bool or "auto"
            Recorded (``"auto"`` resolves to False, as TF does on CPU); vfw has no XLA.
        auto_scale_loss : bool
            Under the ``mixed_float16`` dtype policy, wrap the optimizer in a ``LossScaleOptimizer`` (dynamic loss
            scaling, as Keras).
        """
        with tracking.no_tracking():
            self.optimizer = optimizers_module.get(optimizer)
            if (auto_scale_loss and self.optimizer is not None and self.dtype_policy.name == "mixed_float16"
                    and not isinstance(self.optimizer, optimizers_module.LossScaleOptimizer)):
                self.optimizer = optimizers_module.LossScaleOptimizer(self.optimizer, name="loss_scale_optimizer")
            output_names = getattr(self, "output_names", None)
            # As Keras: compiling again without a loss (or metrics) keeps the previous one.
            if loss is not None:
                self._compile_loss = CompileLoss(loss, loss_weights, output_names=output_names)
                self.loss = loss
            if metrics is not None or weighted_metrics is not None:
                self._compile_metrics = CompileMetrics(metrics, weighted_metrics, output_names=output_names)
            if jit_compile == "auto":
                jit_compile = False
            if jit_compile and run_eagerly:
                jit_compile = False
                warn_for_user("If `run_eagerly` is True, then `jit_compile` cannot also be True. Disabling "
                              "`jit_compile`.")
            self.jit_compile = jit_compile
            self.run_eagerly = run_eagerly
            self.stop_training = False
            self.compiled = True
            self._loss_tracker = metrics_module.Mean(name="loss")
            self.steps_per_execution = steps_per_execution
            self.train_function = None
            self.test_function = None
            self.predict_function = None
            self._compile_config = {"optimizer": self.optimizer, "loss": loss, "loss_weights": loss_weights,
                                    "metrics": metrics, "weighted_metrics": weighted_metrics,
                                    "run_eagerly": run_eagerly, "steps_per_execution": steps_per_execution,
                                    "jit_compile": jit_compile}

    @property
    def jit_compile(self):
        """bool: whether steps would be XLA-compiled (recorded only: vfw has no XLA)."""
        if self._jit_compile is None:
            self._jit_compile = False
        return self._jit_compile

    @jit_compile.setter
    def jit_compile(self, value):
        if value and not all(layer.supports_jit for layer in self._flatten_layers()):
            warn_for_user("Model doesn't support `jit_compile=True`. Proceeding with `jit_compile=False`.")
            value = False
        with tracking.no_tracking():
            self._jit_compile = value

    @property
    def distribute_strategy(self):
        """The tf.distribute strategy the model was created under: with several replicas, ``fit`` gives each
        its slice of every batch and the optimizer sums their gradients (each replica's loss divided by
        their number)."""
        return self._distribute_strategy

    @property
    def run_eagerly(self):
        """bool: whether steps run eagerly (else as compiled graphs)."""
        return self._run_eagerly

    @run_eagerly.setter
    def run_eagerly(self, value):
        with tracking.no_tracking():
            self._run_eagerly = value

    def get_compile_config(self):
        """The serialized arguments ``compile`` was called with (``{}`` when not compiled)."""
        if self.compiled and hasattr(self, "_compile_config"):
            from vfw.frontends.tensorflow.keras.src.utils import serialization

            return serialization.serialize_dict(self._compile_config)
        return {}

    def compile_from_config(self, config):
        """``compile`` with a ``get_compile_config()`` dict (skipped, with Keras' warning, when ``compile`` is
        overridden), then build the optimizer when the model is built."""
        if type(self).compile is not Trainer.compile:
            warn_for_user("`compile()` was not called as part of model loading because the model's `compile()` "
                          "method is custom. All subclassed Models that have `compile()` overridden should also "
                          "override `get_compile_config()` and `compile_from_config(config)`. Alternatively, you "
                          "can call `compile()` manually after loading.")
            return
        from vfw.frontends.tensorflow.keras.src.utils import serialization

        self.compile(**{key: serialization.deserialize_keras_object(value) for key, value in config.items()})
        if self.optimizer is not None and self.built:
            self.optimizer.build(self.trainable_variables)

    # -- metrics ------------------------------------------------------------------------------------------
    @property
    def metrics(self):
        """list: the loss tracker, the compiled metrics, the per-output loss trackers, then the model's own
        metrics and its sublayers' (sub-models excluded)."""
        found = []
        if self.compiled:
            if self._loss_tracker is not None:
                found.append(self._loss_tracker)
            if self._compile_metrics is not None:
                found.append(self._compile_metrics)
            if self._compile_loss is not None:
                found.extend(self._compile_loss.metrics)
        found.extend(self._metrics)
        for layer in self._flatten_layers(include_self=False):
            if not isinstance(layer, Trainer):
                found.extend(layer._metrics)
        return found

    @property
    def metrics_names(self):
        """list of str: the names of ``metrics``."""
        return [m.name for m in self.metrics]

    def reset_metrics(self):
        """Reset the state of every metric in ``metrics``."""
        for metric in self.metrics:
            metric.reset_state()

    def get_metrics_result(self):
        """``{name: value}`` of ``metrics`` (the compiled metrics' dict merged in)."""
        results = {}
        for metric in self.metrics:
            result = metric.result()
            if isinstance(result, dict):
                results.update(result)
            else:
                results[metric.name] = result
        return results

    # -- losses and metrics of a step -----------------------------------------------------------------------
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The total loss: the compiled loss plus every loss in ``self.losses`` (``add_loss``, regularizers).

        Raises
        ------
        ValueError
            When there is no loss at all.
        """
        losses = []
        if self._compile_loss is not None:
            loss = self._compile_loss(y, y_pred, sample_weight)
            if loss is not None:
                losses.append(loss)
        for loss in self.losses:
            losses.append(self._aggregate_additional_loss(loss))
        if not losses:
            raise ValueError("No loss to compute. Provide a `loss` argument in `compile()`.")
        if len(losses) == 1:
            return losses[0]
        return tf.reduce_sum(tf.stack(losses))

    def _compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """``compute_loss`` (passing ``training`` only to overrides that take it), divided by the number of
        replicas when there are several, so that their summed gradients are the global batch's."""
        if self._compute_loss_has_training_arg:
            loss = self.compute_loss(x, y, y_pred, sample_weight, training=training)
        else:
            loss = self.compute_loss(x, y, y_pred, sample_weight)
        replicas = self.distribute_strategy.num_replicas_in_sync
        return loss if replicas == 1 else loss * (1.0 / replicas)

    @staticmethod
    def _aggregate_additional_loss(loss):
        if not is_float_dtype(standardize_dtype(loss.dtype)):
            loss = tf.cast(loss, floatx())
        return tf.reduce_sum(loss)

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        """Update the compiled metrics and return ``get_metrics_result()``."""
        if self._compile_metrics is not None:
            self._compile_metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    # -- steps --------------------------------------------------------------------------------------------------
    def _forward(self, x, training):
        return self(x, training=training) if self._call_has_training_arg else self(x)

    def _track_loss(self, loss, x):
        batch = next(t for t in nest.flatten(x) if t is not None)
        replicas = self.distribute_strategy.num_replicas_in_sync
        self._loss_tracker.update_state(loss if replicas == 1 else loss * float(replicas),
                                        sample_weight=tf.shape(batch)[0])

    def train_step(self, data):
        """One training step on a batch ``data`` (``x``, ``(x, y)`` or ``(x, y, sample_weight)``): forward,
        loss, gradients, optimizer update, metrics.  Returns the metrics' values (a dict)."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with tf.GradientTape() as tape:
            y_pred = self._forward(x, training=True)
            loss = self._compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=True)
            self._track_loss(loss, x)
            if self.optimizer is not None:
                loss = self.optimizer.scale_loss(loss)
        trainable_weights = self.trainable_weights
        if trainable_weights:
            gradients = tape.gradient(loss, trainable_weights)
            self.optimizer.apply_gradients(zip(gradients, trainable_weights))
        else:
            warn_for_user("The model does not have any trainable weights.")
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def test_step(self, data):
        """One evaluation step on a batch: forward (``training=False``), loss, metrics."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self._forward(x, training=False)
        loss = self._compute_loss(x=x, y=y, y_pred=y_pred, sample_weight=sample_weight, training=False)
        self._track_loss(loss, x)
        return self.compute_metrics(x, y, y_pred, sample_weight=sample_weight)

    def predict_step(self, data):
        """The model's outputs on a batch (``training=False``)."""
        x, _, _ = unpack_x_y_sample_weight(data)
        return self._forward(x, training=False)

    # -- step functions --------------------------------------------------------------------------------------
    def _step_function(self, step):
        """``step`` compiled with ``tf.function`` (unless ``run_eagerly``)."""
        if self.run_eagerly:
            return step
        # Keras compiles its own step function, which calls ``train_step``: AutoGraph leaves library code and what it
        # calls unconverted, so a user's ``train_step``/``call`` runs as written (Python ``if`` on a tensor raises).
        compiled = tf.function(step, reduce_retracing=True, jit_compile=self.jit_compile, autograph=False)
        # its relaxed retraces keep the batch's dims in x.shape (TF would show None): vfw's layers and metrics read
        # static shapes where Keras' own code reads ops.shape
        compiled._declares_relaxed_shapes = False
        return compiled

    def _make_function(self, step, shard=None):
        """``step`` run on each batch; ``shard`` names the attribute saying whether the batches are this replica's
        already (else each replica takes its slice of every global batch)."""
        one_step = self._step_function(step)
        strategy = self.distribute_strategy

        def function(batches):
            outputs = None
            for _, data in zip(range(self.steps_per_execution), batches):
                if shard is None or strategy.num_replicas_in_sync == 1:
                    outputs = one_step(data)
                    continue
                # as Keras, the step runs in a replica context: metrics update (and read) this replica's own
                # state there; the epoch's logs read them outside, combined over the replicas
                sliced = not getattr(self, shard, False)
                outputs = strategy.run(one_step, args=(strategy.shard_batch(data) if sliced else data,))
                outputs = _mean_over_replicas(strategy, outputs)
            return outputs

        return function

    # As Keras on TF, ``make_*_function`` return the existing function, and None when they make it (it is then
    # ``self.train_function`` etc.).
    def make_train_function(self, force=False):
        """Make ``self.train_function``, what ``fit`` calls on each group of batches (``train_step`` compiled,
        unless run eagerly)."""
        if self.train_function is not None and not force:
            return self.train_function
        strategy = self.distribute_strategy
        if strategy.num_replicas_in_sync > 1:  # the replicas start from rank 0's weights and optimizer state
            strategy.broadcast_variables(self.variables + (self.optimizer.variables if self.optimizer else []))
        self.train_function = self._make_function(self.train_step, shard="_fit_input_per_replica")
        return None

    def make_test_function(self, force=False):
        """Make ``self.test_function``, what ``evaluate`` calls on each group of batches."""
        if self.test_function is not None and not force:
            return self.test_function
        self.test_function = self._make_function(self.test_step, shard="_eval_input_per_replica")
        return None

    def make_predict_function(self, force=False):
        """Make ``self.predict_function``, what ``predict`` calls on a list of batches (their outputs,
        concatenated)."""
        if self.predict_function is not None and not force:
            return self.predict_function
        one_step = self._step_function(self.predict_step)

        def function(batches):
            outputs = one_step(batches[0])
            for data in batches[1:]:
                outputs = nest.map_structure(lambda a, b: tf.concat([a, b], axis=0), outputs, one_step(data))
            return outputs

        self.predict_function = function
        return None

    # -- building before the first step ----------------------------------------------------------------------
    def _stored_output_spec(self, x):
        """A built Functional model's own output specs when ``x`` matches its inputs but for the batch dim, else
        None: Keras' shortcut, which calls no layer again (a layer's call that makes layers, e.g.
        keras.layers.add, would take their names a second time)."""
        inputs, outputs = getattr(self, "_inputs", None), getattr(self, "_outputs_struct", None)
        flat = nest.flatten(x)
        if inputs is None or outputs is None or len(flat) != len(inputs) or not all(
                isinstance(a, KerasTensor) and a.shape[1:] == b.shape[1:] and len(a.shape) == len(b.shape)
                for a, b in zip(flat, inputs)):
            return None
        return nest.map_structure(lambda t: KerasTensor(t.shape, dtype=t.dtype), outputs)

    def _symbolic_build(self, data_batch):
        """Build the model, the compiled loss and metrics (from the shapes of ``data_batch``, a batch or specs)
        and the optimizer, so that the traced steps create no variables."""
        x, y, _ = unpack_x_y_sample_weight(nest.map_structure(_keras_tensor, data_batch))
        model_unbuilt = not all(layer.built for layer in self._flatten_layers())
        metrics_unbuilt = y is not None and self._compile_metrics is not None and not self._compile_metrics.built
        loss_unbuilt = y is not None and self._compile_loss is not None and not self._compile_loss.built
        if model_unbuilt or metrics_unbuilt or loss_unbuilt:
            from vfw.frontends.tensorflow.keras.src.engine.operation import infer_output_spec

            try:
                y_pred = self._stored_output_spec(x) if not model_unbuilt else None
                if y_pred is None:
                    y_pred = infer_output_spec(self, x, training=False)
            except ValueError:
                if self._symbolic_build_errors_raise:
                    raise
                return
            except Exception:  # a model that cannot run on placeholders: the first step builds it
                return
            if metrics_unbuilt:
                self._compile_metrics.build(y, y_pred)
            if loss_unbuilt:
                self._compile_loss.build(y, y_pred)
        if self.optimizer is not None and not self.optimizer.built and self.built:
            self.optimizer.build(self.trainable_variables)

    # -- legacy and helpers ---------------------------------------------------------------------------------------
    @property
    def compiled_metrics(self):
        """Deprecated: an object whose ``update_state(y, y_pred, sample_weight)`` updates ``metrics``."""
        trainer = self

        class DeprecatedCompiledMetric:
            def update_state(self, y, y_pred, sample_weight=None):
                warn_for_user("`model.compiled_metrics()` is deprecated. Instead, use e.g.:\n```\nfor metric in "
                              "self.metrics:\n    metric.update_state(y, y_pred)\n```\n")
                for metric in trainer.metrics:
                    if isinstance(metric, metrics_module.Mean):
                        metric.update_state(y_pred, sample_weight=sample_weight)
                    else:
                        metric.update_state(y, y_pred, sample_weight=sample_weight)

        return DeprecatedCompiledMetric()

    def compiled_loss(self, y, y_pred, sample_weight=None, regularization_losses=None):
        """Deprecated: ``compute_loss(x=None, y=y, y_pred=y_pred, sample_weight=sample_weight)``."""
        warn_for_user("`model.compiled_loss()` is deprecated. Instead, use `model.compute_loss(x, y, y_pred, "
                      "sample_weight, training)`.")
        return self.compute_loss(x=None, y=y, y_pred=y_pred, sample_weight=sample_weight)

    def _assert_compile_called(self):
        if not self.compiled:
            raise ValueError("You must call `compile()` before using the model.")

    def _flatten_metrics_in_order(self, logs):
        """``logs`` as a list in the order of ``metrics`` (compiled metrics by their own names), other keys
        sorted after; a single value alone."""
        names = []
        for metric in self.metrics:
            if isinstance(metric, CompileMetrics):
                names.extend(m.name for m in metric.metrics)
            else:
                names.append(metric.name)
        results = [logs[name] for name in names if name in logs]
        results.extend(logs[key] for key in sorted(logs) if key not in names)
        return results[0] if len(results) == 1 else results

    def _get_metrics_result_or_logs(self, logs):
        """The model's metric values when they are what the step returned (same keys), else ``logs``."""
        metric_logs = self.get_metrics_result()
        if isinstance(logs, dict) and set(logs) == set(metric_logs):
            return metric_logs
        return logs


def _mean_over_replicas(strategy, outputs):
    """A step's outputs (its logs) averaged over the replicas, as Keras' TF trainer reduces them (the float
    tensors; one collective)."""
    leaves = nest.flatten(outputs)
    chosen = [i for i, v in enumerate(leaves) if isinstance(v, tf.Tensor) and v.dtype.is_floating]
    if not chosen:
        return outputs
    reduced = strategy.batch_all_reduce(tf.distribute.ReduceOp.MEAN, [leaves[i] for i in chosen])
    for i, value in zip(chosen, reduced):
        leaves[i] = value
    return nest.pack_sequence_as(outputs, leaves)


def _keras_tensor(value):
    """A KerasTensor with the shape and dtype of ``value`` (a tensor, array or TensorSpec); None stays None."""
    if value is None:
        return None
    shape = tuple(d if isinstance(d, int) else getattr(d, "value", None) for d in value.shape)
    # numpy arrays of text (object, bytes or str) are string tensors to TF
    dtype = "string" if getattr(value.dtype, "kind", None) in ("O", "S", "U") else standardize_dtype(value.dtype)
    return KerasTensor(shape, dtype=dtype)
