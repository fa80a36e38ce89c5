"""A layer's weights: creating them (``add_weight``), listing them in Keras' order, getting and setting values.

Order (Keras'): a layer's own trainable variables then its own non-trainable ones (in creation
order), then each tracked sublayer's weights, depth first; each variable once.  ``variables`` also
lists the state of tracked seed generators.  A non-trainable layer reports all its weights as
non-trainable.
"""

import math

from vfw.frontends.tensorflow.keras.src.engine import dtype_policy as policies
from vfw.frontends.tensorflow.keras.src.engine import naming
from vfw.frontends.tensorflow.keras.src.engine.variables import Variable


class LayerWeights:
    """Mixin of ``Layer``: weight creation, listing, values and counting."""

    def add_weight(self, *args, shape=None, initializer=None, dtype=None, trainable=True, autocast=True,
                   regularizer=None, constraint=None, aggregation="none", overwrite_with_gradient=False, name=None):
        """Create, track and return a variable of this layer.

        Parameters
        ----------
        shape : tuple, optional
            Fully defined (default ``()``).
        initializer : str or callable, optional
            Default ``"glorot_uniform"`` for float dtypes, ``"zeros"`` otherwise.
        dtype : str, optional
            Default: the layer's variable dtype.
        trainable, autocast : bool
        regularizer, constraint : str or callable, optional
            Resolved with ``keras.regularizers.get`` / ``keras.constraints.get``.
        aggregation : str
        overwrite_with_gradient : bool
        name : str, optional
        """
        self._check_super_called()
        if args:
            if len(args) > 3:
                raise TypeError(f"add_weight() takes at most 3 positional arguments but {len(args)} were given.")
            if isinstance(args[0], str):
                raise ValueError(f"`name` must be passed as a keyword argument. Received: add_weight('{args[0]}', "
                                 f"...). Use: add_weight(shape=..., name='{args[0]}').")
            given = {"shape": shape, "initializer": initializer, "dtype": dtype}
            for label, value in zip(given, args):
                if given[label] is not None:
                    raise ValueError(f"`{label}` was passed both positionally and as a keyword argument.")
                given[label] = value
            shape, initializer, dtype = given.values()
        if shape is None:
            shape = ()
        dtype = policies.standardize_dtype(dtype) if dtype is not None else self.variable_dtype
        if initializer is None:
            initializer = "glorot_uniform" if "float" in dtype else "zeros"
        from vfw.frontends.tensorflow.keras.src import constraints, initializers, regularizers

        initializer = initializers.get(initializer)
        with naming.name_scope(self.name, caller=self):
            variable = Variable(initializer=initializer, shape=shape, dtype=dtype, trainable=trainable,
                                autocast=autocast, aggregation=aggregation, name=name)
        variable.regularizer = regularizers.get(regularizer)
        variable.constraint = constraints.get(constraint)
        variable.overwrite_with_gradient = overwrite_with_gradient
        self._track_variable(variable)
        return variable

    def add_variable(self, shape, initializer, dtype=None, trainable=True, autocast=True, regularizer=None,
                     constraint=None, name=None):
        """``add_weight`` (Keras' alias)."""
        return self.add_weight(shape=shape, initializer=initializer, dtype=dtype, trainable=trainable,
                               autocast=autocast, regularizer=regularizer, constraint=constraint, name=name)

    def _track_variable(self, variable):
        store = "trainable_variables" if variable.trainable else "non_trainable_variables"
        self._tracker.add_to_store(store, variable)
        if not self.trainable:
            variable.trainable = False

    def _untrack_variable(self, variable):
        locked = self._tracker.locked
        self._tracker.unlock()
        self._tracker.untrack(variable)
        if locked:
            self._tracker.lock()

    # -- listing -------------------------------------------------------------------------------------------
    @property
    def trainable(self):
        """bool: whether the layer (and its sublayers) train; setting it sets them all."""
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        value = bool(value)
        self._trainable = value
        for variable in self._trainable_variables:
            variable.trainable = value
        for layer in self._layers:
            layer.trainable = value

    @property
    def weights(self):
        """list: the layer's variables and its sublayers', in Keras' order (see the module docstring)."""
        return _unique(self._trainable_variables + self._non_trainable_variables,
                       (w for layer in self._layers for w in layer.weights))

    @property
    def trainable_weights(self):
        """list: the trainable weights (none when the layer is not trainable)."""
        if not self.trainable:
            return []
        return [v for v in self.weights if v.trainable]

    @property
    def non_trainable_weights(self):
        """list: the non-trainable weights (all of them when the layer is not trainable)."""
        if not self.trainable:
            return self.weights
        return [v for v in self.weights if not v.trainable]

    @property
    def variables(self):
        """list: the weights plus the state of seed generators."""
        own = self._trainable_variables + self._non_trainable_variables
        seeds = [generator.state for generator in self._seed_generators]
        return _unique(own, seeds, (v for layer in self._layers for v in layer.variables))

    @property
    def trainable_variables(self):
        """list: the trainable variables (the same as ``trainable_weights``)."""
        if not self.trainable:
            return []
        return [v for v in self.variables if v.trainable]

    @property
    def non_trainable_variables(self):
        """list: the non-trainable variables, seed generator states included."""
        if not self.trainable:
            return self.variables
        return [v for v in self.variables if not v.trainable]

    @property
    def metrics(self):
        """list: the metrics tracked by this layer and its sublayers."""
        metrics = list(self._metrics)
        for layer in self._layers:
            metrics.extend(layer.metrics)
        return metrics

    @property
    def metrics_variables(self):
        """list: the variables of ``metrics``."""
        return [v for metric in self.metrics for v in metric.variables]

    # -- values ----------------------------------------------------------------------------------------------
    def get_weights(self):
        """The values of ``weights`` as numpy arrays."""
        return [v.numpy() for v in self.weights]

    def set_weights(self, weights):
        """Set ``weights`` from arrays in the same order (Keras' ValueError on a count or shape mismatch)."""
        layer_weights = self.weights
        if len(layer_weights) != len(weights):
            raise ValueError(f"You called `set_weights(weights)` on layer '{self.name}' with a weight list of length "
                             f"{len(weights)}, but the layer was expecting {len(layer_weights)} weights.")
        for variable, value in zip(layer_weights, weights):
            value_shape = tuple(getattr(value, "shape", ()))
            if tuple(variable.shape) != value_shape:
                raise ValueError(f"Layer {self.name} weight shape {variable.shape} is not compatible with provided "
                                 f"weight shape {value_shape}.")
            variable.assign(value)

    def count_params(self):
        """int: the number of scalars in ``weights`` (ValueError when unbuilt)."""
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on layer '{self.name}', but the layer isn't built. "
                             "You can build it manually via: `layer.build(input_shape)`.")
        return count_params(self.weights)

    def save_own_variables(self, store):
        """Put the layer's own variables in ``store`` under ``"0"``, ``"1"``... (saving)."""
        for i, value in enumerate(self._values_to_save()):
            store[f"{i}"] = value

    def load_own_variables(self, store):
        """Assign the layer's own variables from ``store`` (as written by ``save_own_variables``)."""
        self._check_load_own_variables(store)
        self._assign_loaded_variables(store)

    def _values_to_save(self):
        """What ``save_own_variables`` writes, in order: every own variable (layers with a fixed list override)."""
        return self._trainable_variables + self._non_trainable_variables

    def _variables_to_load(self):
        """The variables ``load_own_variables`` assigns, matching ``_values_to_save`` one for one."""
        return self._trainable_variables + self._non_trainable_variables

    def _assign_loaded_variables(self, store):
        for i, variable in enumerate(self._variables_to_load()):
            variable.assign(store[f"{i}"])

    def _check_load_own_variables(self, store):
        """ValueError (Keras' message) unless ``store`` holds as many entries as the layer owns variables."""
        own = self._trainable_variables + self._non_trainable_variables
        if len(store.keys()) != len(own):
            if not own and not self.built:
                raise ValueError(
                    f"Layer '{self.name}' was never built and thus it doesn't have any variables. However the weights "
                    f"file lists {len(store.keys())} variables for this layer.\nIn most cases, this error indicates "
                    "that either:\n\n1. The layer is owned by a parent layer that implements a `build()` method, but "
                    "calling the parent's `build()` method did NOT create the state of the child layer "
                    f"'{self.name}'. A `build()` method must create ALL state for the layer, including the state of "
                    "any children layers.\n\n2. You need to implement the `def build_from_config(self, config)` "
                    f"method on layer '{self.name}', to specify how to rebuild it during loading. In this case, you "
                    "might also want to implement the method that generates the build config at saving time, `def "
                    "get_build_config(self)`. The method `build_from_config()` is meant to create the state of the "
                    "layer (i.e. its variables) upon deserialization.")
            raise ValueError(f"Layer '{self.name}' expected {len(own)} variables, but received {len(store.keys())} "
                             f"variables during loading. Expected: {[v.name for v in own]}")


def _unique(*groups):
    """The variables of ``groups`` in order, each once."""
    found, seen = [], set()
    for group in groups:
        for v in group:
            if id(v) not in seen:
                seen.add(id(v))
                found.append(v)
    return found


def count_params(weights):
    """int: the number of scalars in ``weights``."""
    return int(sum(math.prod(v.shape) for v in weights))
