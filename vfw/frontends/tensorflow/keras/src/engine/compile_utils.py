"""What ``model.compile(loss=..., metrics=...)`` turns into: ``CompileLoss`` and ``CompileMetrics``.

Both are built on the first batch (the structures and shapes of ``y_true`` and ``y_pred`` decide
how losses and metrics map onto the model's outputs, and which accuracy ``"accuracy"`` means):

- one output: every loss/metric applies to it, metric names are unprefixed;
- several outputs: a list gives one entry per output (in output order), a dict one entry per
  output name (missing names get none), a single loss applies to every output; metric names are
  prefixed by the output name (``out2_accuracy``), and each loss is also tracked by a ``Mean``
  named ``<output>_loss``.

``"accuracy"``/``"acc"`` resolve to ``BinaryAccuracy`` (a last prediction dim of 1),
``SparseCategoricalAccuracy`` (targets of lower rank, or a last target dim of 1 against several
classes) or ``CategoricalAccuracy``; the losses ``"crossentropy"``/``"ce"`` likewise.
"""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow import nest
from vfw.frontends.tensorflow._function import in_function_trace
from vfw.frontends.tensorflow.keras.src import losses as losses_module
from vfw.frontends.tensorflow.keras.src import metrics as metrics_module
from vfw.frontends.tensorflow.keras.src.engine.naming import to_snake_case
from vfw.frontends.tensorflow.keras.src.losses.conventions import floatx


def object_name(obj):
    """Keras' name of a loss or metric object: its ``name``, a function's snake-cased name, or its class'."""
    if hasattr(obj, "name"):
        return obj.name
    if hasattr(obj, "__name__"):
        return to_snake_case(obj.__name__)
    return to_snake_case(type(obj).__name__)


def _rank(x):
    return len(x.shape)


def binary_or_sparse(y_true, y_pred):
    """``(is_binary, is_sparse_categorical)`` from the shapes of one output's targets and predictions."""
    true_last = y_true.shape[-1] if _rank(y_true) else None
    pred_last = y_pred.shape[-1] if _rank(y_pred) else None
    is_binary = pred_last == 1
    is_sparse = _rank(y_true) < _rank(y_pred) or (true_last == 1 and pred_last is not None and pred_last > 1)
    return is_binary, is_sparse


def get_metric(identifier, y_true, y_pred):
    """The metric object for one identifier of ``compile(metrics=...)`` on one output."""
    if identifier is None:
        raise ValueError("Expected metric, received `None`")
    if str(identifier).lower() in ("accuracy", "acc"):
        is_binary, is_sparse = binary_or_sparse(y_true, y_pred)
        if is_binary:
            metric = metrics_module.BinaryAccuracy(name=str(identifier))
        elif is_sparse:
            metric = metrics_module.SparseCategoricalAccuracy(name=str(identifier))
        else:
            metric = metrics_module.CategoricalAccuracy(name=str(identifier))
    else:
        metric = metrics_module.get(identifier)
    name = identifier if isinstance(identifier, str) else object_name(metric)
    if not isinstance(metric, metrics_module.Metric):
        metric = metrics_module.MeanMetricWrapper(metric)
    metric.name = name
    return metric


def get_loss(identifier, y_true, y_pred):
    """The ``Loss`` object for one identifier of ``compile(loss=...)`` on one output (None stays None)."""
    if identifier is None:
        return None
    if str(identifier).lower() in ("crossentropy", "ce"):
        is_binary, is_sparse = binary_or_sparse(y_true, y_pred)
        if is_binary:
            loss = losses_module.binary_crossentropy
        elif is_sparse:
            loss = losses_module.sparse_categorical_crossentropy
        else:
            loss = losses_module.categorical_crossentropy
    else:
        loss = losses_module.get(identifier)
    if not isinstance(loss, losses_module.Loss):
        name = identifier if isinstance(identifier, str) else object_name(loss)
        loss = losses_module.LossFunctionWrapper(loss, name=name)
    return loss


class MetricsList(metrics_module.Metric):
    """The metrics of one output (``output_name`` prefixes their names in ``CompileMetrics.result``)."""

    def __init__(self, metrics, name="metrics_list", output_name=None):
        super().__init__(name=name)
        self.metrics = metrics
        self.output_name = output_name

    def update_state(self, y_true, y_pred, sample_weight=None):
        for metric in self.metrics:
            metric.update_state(y_true, y_pred, sample_weight=sample_weight)

    def reset_state(self):
        for metric in self.metrics:
            metric.reset_state()

    def result(self):
        return {metric.name: metric.result() for metric in self.metrics}

    def get_config(self):
        raise NotImplementedError

    @classmethod
    def from_config(cls, config):
        raise NotImplementedError


def _metrics_list(identifiers, y_true, y_pred, output_name):
    if identifiers is None:
        return None
    if not isinstance(identifiers, (list, tuple)):
        identifiers = [identifiers]
    return MetricsList([get_metric(m, y_true, y_pred) for m in identifiers], output_name=output_name)


# -- output structure ----------------------------------------------------------------------------------
class _Outputs:
    """How a model's outputs are addressed: ``keys`` (list indices or dict keys, or ``[None]`` for one
    tensor) and their names.

    ``y_pred`` decides: a dict gives its keys (in the model's output order when the names match,
    else sorted), a list/tuple its indices (named by ``output_names``); anything else is one output.
    """

    def __init__(self, y_pred, output_names):
        if isinstance(y_pred, dict):
            if output_names and set(y_pred) == set(output_names):
                self.keys = list(output_names)
            else:
                self.keys = sorted(y_pred)
            self.names = list(self.keys)
        elif isinstance(y_pred, (list, tuple)):
            self.keys = list(range(len(y_pred)))
            named = output_names and len(output_names) == len(y_pred)
            self.names = list(output_names) if named else [None] * len(y_pred)
        else:
            self.keys = [None]
            self.names = [output_names[0] if output_names and len(output_names) == 1 else None]
        self.output_names = output_names

    def __len__(self):
        return len(self.keys)

    def select(self, structure, index):
        """Output ``index``'s part of ``structure`` (predictions, targets or sample weights)."""
        key = self.keys[index]
        if key is None:
            return structure[0] if isinstance(structure, (list, tuple)) and len(structure) == 1 else structure
        if isinstance(structure, dict):
            if isinstance(key, int):  # targets by output name for list outputs
                name = self.names[key]
                if name not in structure:
                    raise ValueError(f"Expected keys {self.names} in the targets, but found {list(structure)}")
                return structure[name]
            return structure[key]
        if isinstance(key, str):  # dict outputs, targets given in the output order
            return structure[self.keys.index(key)]
        return structure[key]

    def per_output(self, spec, argument_name):
        """``spec`` (one entry, a list with one per output, or a dict by output name) as one entry per output."""
        if isinstance(spec, dict):
            unknown = [k for k in spec if k not in self.names]
            if unknown:
                raise ValueError(f"Expected keys {self.names} in `{argument_name}` dict, but found "
                                 f"{argument_name}.keys()={list(spec)}")
            return [spec.get(name) for name in self.names]
        if isinstance(spec, (list, tuple)) and len(self) > 1:
            if len(spec) != len(self):
                raise ValueError(f"`{argument_name}` should have one entry per model output: the model has "
                                 f"{len(self)} outputs, received {argument_name}={spec}")
            return list(spec)
        return [spec] * len(self)


# -- metrics -------------------------------------------------------------------------------------------------
class CompileMetrics(metrics_module.Metric):
    """The ``metrics`` and ``weighted_metrics`` of ``compile``, one ``MetricsList`` per output.

    ``result()`` is a dict of every metric's value; weighted metrics whose names clash with
    unweighted ones are named ``weighted_<name>``.
    """

    def __init__(self, metrics, weighted_metrics, name="compile_metrics", output_names=None):
        super().__init__(name=name)
        for argument, value in (("metrics", metrics), ("weighted_metrics", weighted_metrics)):
            if value and not isinstance(value, (list, tuple, dict)):
                raise ValueError(f"Expected `{argument}` argument to be a list, tuple, or dict. Received instead: "
                                 f"{argument}={value} of type {type(value)}")
        self._user_metrics = metrics
        self._user_weighted_metrics = weighted_metrics
        self.output_names = output_names
        self.built = False
        self._outputs = None
        self._flat_metrics = []
        self._flat_weighted_metrics = []

    @property
    def metrics(self):
        """list: every metric object (unweighted first), once built."""
        found = []
        for metrics_list in self._flat_metrics + self._flat_weighted_metrics:
            if metrics_list is not None:
                found.extend(metrics_list.metrics)
        return found

    @property
    def variables(self):
        return [v for metric in self.metrics for v in metric.variables]

    def build(self, y_true, y_pred):
        """Create the metric objects for targets and predictions shaped like ``y_true``/``y_pred``."""
        self._outputs = _Outputs(y_pred, self.output_names)
        self._flat_metrics = self._build_lists(self._user_metrics, y_true, y_pred, "metrics")
        self._flat_weighted_metrics = self._build_lists(self._user_weighted_metrics, y_true, y_pred,
                                                        "weighted_metrics")
        self.built = True

    def _build_lists(self, identifiers, y_true, y_pred, argument_name):
        outputs = self._outputs
        if not identifiers:
            return [None] * len(outputs)
        if len(outputs) == 1:
            return [_metrics_list(nest.flatten(identifiers), nest.flatten(y_true)[0], nest.flatten(y_pred)[0], None)]
        if isinstance(identifiers, (list, tuple)) and len(identifiers) != len(outputs):
            raise ValueError(f"Invalid `{argument_name}`. `{argument_name}` should contain metrics objects and either "
                             f"be a dict or a list matching the output names of the functional model "
                             f"{self.output_names} or match the output structure of the model.\nReceived: "
                             f"{argument_name}={identifiers}")
        per_output = outputs.per_output(identifiers, argument_name)
        return [_metrics_list(ids, outputs.select(y_true, i), outputs.select(y_pred, i), outputs.names[i])
                for i, ids in enumerate(per_output)]

    def update_state(self, y_true, y_pred, sample_weight=None):
        if not self.built:
            self.build(y_true, y_pred)
        outputs = self._outputs
        for i, metrics_list in enumerate(self._flat_metrics):
            if metrics_list is not None:
                metrics_list.update_state(outputs.select(y_true, i), outputs.select(y_pred, i))
        for i, metrics_list in enumerate(self._flat_weighted_metrics):
            if metrics_list is not None:
                weight = None
                if sample_weight is not None:
                    weight = outputs.select(sample_weight, i) if nest.is_nested(sample_weight) else sample_weight
                metrics_list.update_state(outputs.select(y_true, i), outputs.select(y_pred, i), weight)

    def reset_state(self):
        for metrics_list in self._flat_metrics + self._flat_weighted_metrics:
            if metrics_list is not None:
                metrics_list.reset_state()

    def result(self):
        if not self.built:
            raise ValueError("Cannot get result() since the metric has not yet been built.")
        results = {}
        counts = {}

        def prefixed(metrics_list, name):
            return f"{metrics_list.output_name}_{name}" if metrics_list.output_name else name

        for metrics_list in self._flat_metrics:
            for metric in metrics_list.metrics if metrics_list is not None else ():
                name = prefixed(metrics_list, metric.name)
                if name in counts:
                    counts[name] += 1
                    name = f"{name}_{counts[name] - 1}"
                else:
                    counts[name] = 1
                results[name] = metric.result()
        for metrics_list in self._flat_weighted_metrics:
            for metric in metrics_list.metrics if metrics_list is not None else ():
                name = prefixed(metrics_list, metric.name)
                if name in counts:
                    name = prefixed(metrics_list, f"weighted_{metric.name}")
                    if name in counts:
                        counts[name] += 1
                        name = f"{name}_{counts[name] - 1}"
                    else:
                        counts[name] = 1
                else:
                    counts[name] = 1
                results[name] = metric.result()
        return results

    def get_config(self):
        raise NotImplementedError

    @classmethod
    def from_config(cls, config):
        raise NotImplementedError


# -- losses --------------------------------------------------------------------------------------------------
class CompileLoss(losses_module.Loss):
    """The ``loss`` and ``loss_weights`` of ``compile``: the weighted sum of one loss per output.

    With more than one loss, ``metrics`` holds a ``Mean`` of each (unweighted) loss, named
    ``<output name>_loss``.  As in Keras on TensorFlow, these means weigh batches by their size when
    the step runs eagerly and count each batch once when it is traced (``run_eagerly=False``).
    """

    def __init__(self, loss, loss_weights=None, reduction="sum_over_batch_size", output_names=None):
        if loss_weights and not isinstance(loss_weights, (list, tuple, dict, float)):
            raise ValueError("Expected `loss_weights` argument to be a float (single output case) or a list, tuple, "
                             f"or dict (multiple output case). Received instead: loss_weights={loss_weights} of type "
                             f"{type(loss_weights)}")
        super().__init__(name="compile_loss", reduction=reduction)
        self._user_loss = loss
        self._user_loss_weights = loss_weights
        self.output_names = output_names
        self.built = False
        self._outputs = None
        self._entries = []  # (output index, Loss, weight, name)
        self._metrics = []

    @property
    def metrics(self):
        """list: the per-loss ``Mean`` trackers (empty with a single loss)."""
        return self._metrics

    @property
    def variables(self):
        return [v for metric in self._metrics for v in metric.variables]

    def build(self, y_true, y_pred):
        """Resolve one loss (and weight) per output for targets and predictions shaped like these."""
        loss, weights = self._user_loss, self._user_loss_weights
        if self.output_names and isinstance(loss, dict) and not isinstance(y_pred, dict) \
                and set(self.output_names) != set(loss):
            raise ValueError(f"Expected keys {self.output_names} in loss dict, but found loss.keys()={list(loss)}")
        outputs = self._outputs = _Outputs(y_pred, self.output_names)
        per_output = outputs.per_output(loss, "loss")
        if weights is None:
            per_weight = [None] * len(outputs)
        elif isinstance(weights, (int, float)):
            per_weight = [weights] * len(outputs)
        elif isinstance(weights, dict):
            per_weight = outputs.per_output(weights, "loss_weights")
        else:
            flat_weights = nest.flatten(weights)
            if len(flat_weights) != len(nest.flatten(loss)):
                raise ValueError(f"`loss_weights` must match the number of losses, got {len(nest.flatten(loss))} "
                                 f"losses and {len(flat_weights)} weights.")
            per_weight = outputs.per_output(flat_weights, "loss_weights")
        self._entries = []
        for i, (identifier, weight) in enumerate(zip(per_output, per_weight)):
            resolved = get_loss(identifier, outputs.select(y_true, i), outputs.select(y_pred, i))
            if resolved is None:
                continue
            name = outputs.names[i] if outputs.names[i] is not None else resolved.name
            self._entries.append((i, resolved, weight, name))
        if isinstance(loss, dict):
            # Keras sums and tracks the per-output losses in the loss dict's order, not the outputs' (sorted) one.
            position = {key: n for n, key in enumerate(loss)}
            self._entries.sort(key=lambda entry: position.get(entry[3], len(position)))
        if len(self._entries) > 1:
            self._metrics = [metrics_module.Mean(name=f"{name}_loss") for _, _, _, name in self._entries]
        self.built = True

    def __call__(self, y_true, y_pred, sample_weight=None):
        return self.call(y_true, y_pred, sample_weight)

    def call(self, y_true, y_pred, sample_weight=None):
        """The weighted sum of the output losses (None when no output has a loss)."""
        if not self.built:
            self.build(y_true, y_pred)
        outputs = self._outputs
        values = []
        trackers = self._metrics or [None] * len(self._entries)
        for (index, loss_fn, weight, _), tracker in zip(self._entries, trackers):
            y_p = outputs.select(y_pred, index)
            weights = sample_weight
            if sample_weight is not None and nest.is_nested(sample_weight):
                weights = outputs.select(sample_weight, index)
            value = tf.cast(loss_fn(outputs.select(y_true, index), y_p, weights), floatx())
            if tracker is not None:
                # Keras weighs each batch by its static batch size, which TF does not know inside the train
                # function (batches come from a dataset iterator): traced steps count every batch once.
                batch_size = None if in_function_trace() else nest.flatten(y_p)[0].shape[0]
                tracker.update_state(value, sample_weight=batch_size)
            if weight is not None:
                value = value * tf.cast(weight, value.dtype)
            values.append(value)
        if not values:
            return None
        total = values[0]
        for value in values[1:]:
            total = total + value
        return total

    def get_config(self):
        raise NotImplementedError

    @classmethod
    def from_config(cls, config):
        raise NotImplementedError
