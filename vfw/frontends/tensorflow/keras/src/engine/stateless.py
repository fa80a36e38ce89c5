"""Keras' stateless API on layers and models, and the model state as a tree of variable paths.

- ``Layer.stateless_call(trainable_variables, non_trainable_variables, *args, return_losses=False, **kwargs)``:
  ``call`` with the layer's variables reading the given values (a StatelessScope); no variable
  changes; returns ``(outputs, new_non_trainable_values)`` (``+ losses`` with ``return_losses``).
- ``Model.stateless_compute_loss(trainable, non_trainable, metrics_variables, x, y, y_pred, sample_weight,
  training)``: ``compute_loss`` likewise; returns ``(loss, (trainable, non_trainable, metrics))``.
- ``Model.get_state_tree(value_format)`` / ``set_state_tree(tree)``: the trainable, non-trainable,
  optimizer and metrics variables as nested dicts keyed by the parts of their paths.
- ``Model.distribute_reduction_method`` and ``unrolled_steps_per_execution``: the TF trainer's attributes.
"""

from vfw.frontends.tensorflow.keras.src.engine.variables import StatelessScope

_STATE_TREE_KINDS = ("trainable_variables", "non_trainable_variables", "optimizer_variables", "metrics_variables")


def _check_count(owner, values, variables, argument):
    if len(values) != len(variables):
        raise ValueError(f"Argument `{argument}` must be a list of tensors corresponding 1:1 to "
                         f"{type(owner).__name__}().{argument}. Received list with length {len(values)}, but "
                         f"expected {len(variables)} variables.")


class StatelessLayer:
    """Mixin of ``keras.Layer``: ``stateless_call``."""

    def stateless_call(self, trainable_variables, non_trainable_variables, *args, return_losses=False, **kwargs):
        """Call the layer on ``args`` with its variables taking the given values, changing no state.

        Parameters
        ----------
        trainable_variables, non_trainable_variables : list of tensors
            Values 1:1 with ``self.trainable_variables`` / ``self.non_trainable_variables``.
        *args, **kwargs
            The arguments of ``call``.
        return_losses : bool
            Also return the losses ``call`` added.

        Returns
        -------
        tuple
            ``(outputs, non_trainable_values)``, or ``(outputs, non_trainable_values, losses)``: the
            non-trainable values after the call (updated ones where ``call`` assigned them).
        """
        self._check_super_called()
        if not self.built:
            raise ValueError(f"To call stateless_call, {type(self).__name__} must be built (i.e. its variables must "
                             "have been already created). You can build it by calling it on some data.")
        _check_count(self, trainable_variables, self.trainable_variables, "trainable_variables")
        _check_count(self, non_trainable_variables, self.non_trainable_variables, "non_trainable_variables")
        mapping = (list(zip(self.trainable_variables, trainable_variables))
                   + list(zip(self.non_trainable_variables, non_trainable_variables)))
        with StatelessScope(state_mapping=mapping, collect_losses=return_losses) as scope:
            outputs = self.call(*args, **kwargs)
            losses = self.losses if return_losses else None
        new_values = [scope.get_current_value(v) for v in self.non_trainable_variables]
        if return_losses:
            return outputs, new_values, losses
        return outputs, new_values


class StatelessModel:
    """Mixin of ``keras.Model``: ``stateless_compute_loss``, the state tree and the TF trainer's attributes."""

    # Keras' TF trainer sets it in __init__; a class default reads the same and stays assignable.
    unrolled_steps_per_execution = 1

    @property
    def distribute_reduction_method(self):
        """str: how a distributed step's outputs are reduced (``"auto"`` until set).

        As Keras 3.15.1 on TF, reading it before any assignment raises AttributeError.
        """
        return self._distribute_reduction_method or "auto"

    @distribute_reduction_method.setter
    def distribute_reduction_method(self, value):
        self._distribute_reduction_method = value

    def stateless_compute_loss(self, trainable_variables, non_trainable_variables, metrics_variables, x=None,
                               y=None, y_pred=None, sample_weight=None, training=True):
        """``compute_loss`` with the model's variables (and metric states) taking the given values.

        Returns
        -------
        tuple
            ``(loss, (trainable_variables, non_trainable_values, metrics_values))``: the values after the
            computation (metric states it updated, e.g. the loss tracker, come back updated).
        """
        mapping = (list(zip(self.trainable_variables, trainable_variables))
                   + list(zip(self.non_trainable_variables, non_trainable_variables))
                   + list(zip(self.metrics_variables, metrics_variables)))
        with StatelessScope(state_mapping=mapping) as scope:
            loss = self._compute_loss(x, y, y_pred, sample_weight=sample_weight, training=training)
        new_non_trainable = [scope.get_current_value(v) for v in self.non_trainable_variables]
        new_metrics = [scope.get_current_value(v) for v in self.metrics_variables]
        return loss, (trainable_variables, new_non_trainable, new_metrics)

    def get_state_tree(self, value_format="backend_tensor"):
        """The model's variables as ``{kind: nested dict by path parts}`` for the four kinds of state.

        Parameters
        ----------
        value_format : {"backend_tensor", "numpy_array"}
            Leaves are the variables' tf values (``variable.value``) or numpy arrays.
        """
        sources = (self.trainable_variables, self.non_trainable_variables, self.optimizer.variables,
                   self.metrics_variables)
        return {kind: _nested_by_path(variables, value_format) for kind, variables in zip(_STATE_TREE_KINDS, sources)}

    def set_state_tree(self, state_tree):
        """Assign the values of a ``get_state_tree``-shaped dict to the variables with those paths."""
        for kind, tree in state_tree.items():
            if kind not in _STATE_TREE_KINDS:
                raise ValueError(f"Unknown variable name: {kind}")
            values = _flat_by_path(tree)
            if kind == "trainable_variables":
                variables = self.trainable_variables
            elif kind == "non_trainable_variables":
                variables = self.non_trainable_variables
            elif kind == "optimizer_variables":
                optimizer = getattr(self, "optimizer", None)
                variables = optimizer.variables if optimizer is not None else []
            else:
                variables = getattr(self, "metrics_variables", None) or []
            for path, value in values.items():
                for variable in variables:
                    if variable.path == path:
                        variable.assign(value)


def _nested_by_path(variables, value_format):
    flat = {}
    for variable in variables:
        if variable.path in flat:
            raise ValueError(f"The following variable path is found twice in the model: '{variable.path}'. "
                             "`get_state_tree()` can only be called when all variable paths are unique. Make sure "
                             "to give unique names to your layers (and other objects).")
        if value_format == "backend_tensor":
            flat[variable.path] = variable.value
        elif value_format == "numpy_array":
            flat[variable.path] = variable.numpy()
        else:
            raise ValueError("Invalid `value_format` argument. Expected one of {'numpy_array', 'backend_tensor'}. "
                             f"Received: value_format={value_format}")
    nested = {}
    for path, value in flat.items():
        *parents, leaf = path.split("/")
        node = nested
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return nested


def _flat_by_path(tree, prefix=""):
    flat = {}
    for key, value in tree.items():
        if isinstance(value, dict):
            flat.update(_flat_by_path(value, f"{prefix}{key}/"))
        else:
            flat[f"{prefix}{key}"] = value
    return flat
