"""keras.optimizers.OptimizerMap and MultiOptimizer: different optimizers for different variables.

An ``OptimizerMap`` maps variable paths (exact strings or full-match regular expressions) to optimizers, with a
default for the rest; a ``MultiOptimizer`` routes each variable's gradient to the optimizer its map (or any callable
``variable -> optimizer``) gives, and counts its own ``iterations``.
"""

import re
from collections.abc import MutableMapping

from vfw.frontends.tensorflow.keras.src.optimizers.base_optimizer import Optimizer
from vfw.frontends.tensorflow.keras.src.optimizers.loss_scale_optimizer import LossScaleOptimizer
from vfw.frontends.tensorflow.keras.src.utils import serialization

API = {"optimizers": ["OptimizerMap", "MultiOptimizer"]}


class OptimizerMap(MutableMapping):
    """Variable path patterns -> optimizers, ``default_optimizer`` for paths no pattern matches.

    Parameters
    ----------
    default_optimizer : Optimizer
    optimizer_map : dict of str to Optimizer, optional
        Keys are variable paths or regular expressions matched against the whole path.
    """

    def __init__(self, default_optimizer, optimizer_map=None):
        if not isinstance(default_optimizer, Optimizer):
            raise TypeError(f"default_optimizer must be a Keras Optimizer instance. Received: {default_optimizer}")
        if optimizer_map is not None and not isinstance(optimizer_map, dict):
            raise TypeError(f"optimizer_map must be a dictionary. Received: {optimizer_map}")
        self._default_optimizer = default_optimizer
        self._optimizer_map = optimizer_map or {}

    @property
    def default_optimizer(self):
        """Optimizer: the one for variables no key matches."""
        return self._default_optimizer

    def __getitem__(self, key):
        """The optimizer of path ``key``: its exact entry, else the one pattern matching it fully, else the
        default (ValueError when several patterns match)."""
        if key in self._optimizer_map:
            return self._optimizer_map[key]
        matches = [pattern for pattern in self._optimizer_map if re.fullmatch(pattern, key)]
        if len(matches) > 1:
            raise ValueError(f"Multiple optimizers assigned to variable {key}.")
        return self._optimizer_map[matches[0]] if matches else self._default_optimizer

    def __setitem__(self, key, optimizer):
        if key in self._optimizer_map:
            raise ValueError(f"'{key}' already exists in the OptimizerMap with value {self._optimizer_map[key]}. "
                             f"Please make sure to not use duplicated keys.")
        if not isinstance(key, str):
            raise ValueError(f"key must be a string. Received: {key}")
        _check_inner(optimizer, f"optimizer must be a Keras Optimizer instance. Received: {optimizer}",
                     "optimizer cannot be LossScaleOptimizer.", "optimizer cannot be MultiOptimizer.")
        self._optimizer_map[key] = optimizer

    def __delitem__(self, key):
        del self._optimizer_map[key]

    def __len__(self):
        return len(self._optimizer_map)

    def __iter__(self):
        return iter(self._optimizer_map)

    def __call__(self, variable):
        """The optimizer of ``variable`` (looked up by its ``path``)."""
        return self[variable.path]

    def get_config(self):
        return {"default_optimizer": serialization.serialize_keras_object(self._default_optimizer),
                "optimizer_map": serialization.serialize_keras_object(self._optimizer_map)}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(serialization.deserialize_keras_object(config["default_optimizer"], custom_objects=custom_objects),
                   serialization.deserialize_keras_object(config["optimizer_map"], custom_objects=custom_objects))


def _check_inner(optimizer, not_optimizer, loss_scale, multi):
    """ValueError (with the given messages) unless ``optimizer`` may serve inside a MultiOptimizer."""
    if not isinstance(optimizer, Optimizer):
        raise ValueError(not_optimizer)
    if isinstance(optimizer, LossScaleOptimizer):
        raise ValueError(loss_scale)
    if isinstance(optimizer, MultiOptimizer):
        raise ValueError(multi)


class MultiOptimizer(Optimizer):
    """Applies each variable's gradient with the optimizer ``optimizer_map(variable)`` gives.

    Parameters
    ----------
    optimizer_map : OptimizerMap or callable
        ``variable -> Optimizer``; an OptimizerMap's optimizers (and default) are the inner optimizers from
        the start, others join as variables reach them.
    loss_scale_factor : float, optional
        Set on every inner optimizer too.
    name : str, optional
    """

    def __init__(self, optimizer_map, loss_scale_factor=None, name=None):
        super().__init__(learning_rate=0.0, loss_scale_factor=loss_scale_factor, name=name)
        self._optimizer_map = optimizer_map
        self._inner_optimizers = []
        known = list(optimizer_map.values()) if hasattr(optimizer_map, "values") else []
        known.append(getattr(optimizer_map, "default_optimizer", None))
        for optimizer in known:
            if optimizer is not None and not any(optimizer is inner for inner in self._inner_optimizers):
                optimizer.loss_scale_factor = loss_scale_factor
                self._inner_optimizers.append(optimizer)

    def _inner_index(self, optimizer):
        return next(i for i, inner in enumerate(self._inner_optimizers) if inner is optimizer)

    def build(self, var_list):
        """Route ``var_list`` to the inner optimizers and build each on its variables."""
        if self.built:
            return
        self._var_to_optimizer_idx = {}
        for variable in var_list:
            optimizer = self._optimizer_map(variable)
            _check_inner(optimizer, f"Optimizer for variable {variable} is not an Optimizer instance.",
                         "LossScaleOptimizer cannot be used inside an MultiOptimizer.",
                         "MultiOptimizer cannot be used inside an MultiOptimizer.")
            if not any(optimizer is inner for inner in self._inner_optimizers):
                optimizer.loss_scale_factor = self.loss_scale_factor
                self._inner_optimizers.append(optimizer)
            self._var_to_optimizer_idx[self._var_key(variable)] = self._inner_index(optimizer)
        for index, optimizer in enumerate(self._inner_optimizers):
            routed = self._routed(var_list, index)
            if routed:
                optimizer.build(routed)
        super().build(var_list)

    def _routed(self, variables, index, values=None):
        """The ``variables`` (or their paired ``values``) that go to inner optimizer ``index``."""
        values = variables if values is None else values
        return [value for variable, value in zip(variables, values)
                if self._var_to_optimizer_idx[self._var_key(variable)] == index]

    @property
    def optimizers(self):
        """list of Optimizer: the inner optimizers."""
        return self._inner_optimizers

    @property
    def variables(self):
        """Its own variables (``iterations``...) followed by each inner optimizer's."""
        variables = self._variables[:]
        for optimizer in self._inner_optimizers:
            variables.extend(optimizer.variables)
        return variables

    @property
    def learning_rate(self):
        raise AttributeError("Learning rate cannot be accessed on a MultiOptimizer. Access the learning rate on the "
                             "individual sub-optimizers instead.")

    @learning_rate.setter
    def learning_rate(self, value):
        raise AttributeError("Learning rate cannot be set on a MultiOptimizer. Set the learning rate on the "
                             "individual sub-optimizers instead.")

    @property
    def loss_scale_factor(self):
        return self.__dict__.get("_loss_scale_factor")

    @loss_scale_factor.setter
    def loss_scale_factor(self, value):
        self._loss_scale_factor = value
        for optimizer in self.__dict__.get("_inner_optimizers", ()):
            optimizer.loss_scale_factor = value

    @property
    def iterations(self):
        return self._iterations

    def apply(self, grads, trainable_variables=None):
        """Each inner optimizer applies the gradients of its variables; ``iterations`` counts the calls."""
        if len(grads) == 0:
            return None
        if trainable_variables is None:
            if not self.built:
                raise ValueError("When passing `grads` without `variables`, the optimizer must already be built on "
                                 "a list of variables. Call `optimizer.build(trainable_variables)` first.")
            trainable_variables = self._trainable_variables
        trainable_variables = list(trainable_variables)
        if not self.built:
            self.build(trainable_variables)
        if len(grads) != len(self._trainable_variables_indices):
            raise ValueError(f"Gradients must match trainable variables one-to-one. Received {len(grads)} gradients "
                             f"and {len(self._trainable_variables_indices)} variables.")
        for index, optimizer in enumerate(self._inner_optimizers):
            routed = self._routed(trainable_variables, index)
            if routed:
                optimizer.apply(self._routed(trainable_variables, index, list(grads)), routed)
        self._iterations.assign_add(1)
        return self._iterations

    def finalize_variable_values(self, var_list):
        for index, optimizer in enumerate(self._inner_optimizers):
            routed = self._routed(var_list, index)
            if routed:
                optimizer.finalize_variable_values(routed)

    def set_weights(self, weights):
        """Its own variables' values, then each inner optimizer's, from one list (``variables``' order)."""
        if not self.built:
            raise ValueError("You are calling `set_weights()` on an optimizer that has not yet been built. Please "
                             "call `optimizer.build(trainable_variables)` to create the optimizer weights before "
                             "calling `set_weights()`.")
        for variable, weight in zip(self._variables, weights):
            variable.assign(weight)
        start = len(self._variables)
        for optimizer in self._inner_optimizers:
            count = len(optimizer.variables)
            if count:
                optimizer.set_weights(weights[start:start + count])
                start += count

    def get_config(self):
        return {"optimizer_map": serialization.serialize_keras_object(self._optimizer_map),
                "loss_scale_factor": self.loss_scale_factor, "name": self.name}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["optimizer_map"] = serialization.deserialize_keras_object(config["optimizer_map"],
                                                                         custom_objects=custom_objects)
        return cls(**config)
