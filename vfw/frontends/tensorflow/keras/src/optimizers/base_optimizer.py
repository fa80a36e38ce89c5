"""keras.optimizers.Optimizer: the base class of Keras 3's optimizers, with its TensorFlow-backend behaviour.

What an update does
-------------------
``apply(grads, trainable_variables)`` (``apply_gradients(zip(grads, vars))``) builds the optimizer
on first use (``build`` creates the slot variables), drops ``None`` gradients (with Keras'
warning), writes the gradient into variables marked ``overwrite_with_gradient``, unscales by
``loss_scale_factor``, then (every ``gradient_accumulation_steps``-th call when accumulating, the
others only add the gradient to the accumulators) clips (``clipnorm`` per tensor with
``tf.clip_by_norm``, ``global_clipnorm`` with Keras' own global-norm formula, ``clipvalue``),
applies decoupled weight decay ``v -= v * weight_decay * lr`` and calls ``update_step(gradient,
variable, learning_rate)`` for each pair.  Then the EMA of the model variables is updated
(``use_ema``), the variables' constraints are applied and ``iterations`` is incremented.

Every update is a tf op or a variable ``assign*``, so it runs eagerly and traced inside
``tf.function`` alike (the assigns become graph state updates; branches on the iteration count
are ``tf.cond``).  As Keras' TensorFlow backend, ``update_step`` receives the tf.Variable behind
a ``keras.Variable``, and values are cast to the variable's dtype before every assign.

Variables
---------
``iterations`` (int64 ``<name>/iteration``) and, for a float learning rate, ``learning_rate``
(``<name>/learning_rate`` of dtype floatx) are created with the optimizer; slots are created by
``build`` and named ``<name>/<reference path with / as _>_<slot>`` (``adam/dense_kernel_momentum``).
``variables`` lists them in creation order (EMA averages, then gradient accumulators, then the
subclass' slots, interleaved per model variable).

Helpers live beside: ``gradient_clipping.py`` (the three clipping options) and
``model_variable_updates.py`` (weight decay and the EMA of the model variables, a base class of
``Optimizer``).
"""

import vfw.tensorflow as tf
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.tensorflow import _checkpoint
from vfw.frontends.tensorflow._indexed_slices import IndexedSlices
from vfw.frontends.tensorflow.keras.src import initializers
from vfw.frontends.tensorflow.keras.src.backend.config import floatx
from vfw.frontends.tensorflow.keras.src.engine import naming
from vfw.frontends.tensorflow.keras.src.engine.variables import Variable
from vfw.frontends.tensorflow.keras.src.optimizers import gradient_clipping, schedules, sparse_math
from vfw.frontends.tensorflow.keras.src.optimizers.model_variable_updates import ModelVariableUpdates, tf_variable
from vfw.frontends.tensorflow.keras.src.utils.serialization import serialize_keras_object

_LEARNING_RATE_ERROR = ("Argument `learning_rate` should be float, or an instance of LearningRateSchedule, or a "
                        "callable (that takes in the current iteration value and returns the corresponding learning "
                        "rate value). Received instead: learning_rate={}")


def _is_variable(value):
    return isinstance(value, (Variable, tf.Variable))


class Optimizer(ModelVariableUpdates):
    """Abstract optimizer base class: subclasses define ``build``, ``update_step`` and ``get_config``.

    Parameters
    ----------
    learning_rate : float, LearningRateSchedule or callable
        A float becomes the variable ``learning_rate``; a schedule is called with ``iterations``;
        a callable is called with no argument at every step.
    weight_decay : float, optional
        Decoupled weight decay: ``v -= v * weight_decay * learning_rate`` before each update
        (see ``exclude_from_weight_decay``).
    clipnorm, clipvalue, global_clipnorm : float, optional
        Gradient clipping (at most one): each gradient's norm, each element, or the norm of
        all gradients together.
    use_ema : bool
        Keep an exponential moving average of the model variables (``ema_momentum``), written
        into them every ``ema_overwrite_frequency`` steps or by ``finalize_variable_values``.
    ema_momentum : float
        In [0, 1] (default 0.99).
    ema_overwrite_frequency : int, optional
        >= 1.
    loss_scale_factor : float, optional
        ``scale_loss`` multiplies the loss by it, ``apply`` divides the gradients by it.
    gradient_accumulation_steps : int, optional
        >= 2: variables are updated every that many calls, with the mean of the accumulated
        gradients (``iterations`` then counts updates; schedules still see every call).
    name : str, optional
        Default: the class name in snake case, made unique (``adam``, ``adam_1``...).

    Raises
    ------
    ValueError
        For unknown keyword arguments, a learning rate that is not a float, schedule or
        callable, and out-of-range option values (Keras' messages).
    """

    def __init__(self, learning_rate, weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        self._lock = False
        if kwargs.pop("decay", None) is not None:
            warn_for_user("Argument `decay` is no longer supported and will be ignored.")
        if kwargs:
            raise ValueError(f"Argument(s) not recognized: {kwargs}")
        self.name = naming.auto_name(type(self).__name__) if name is None else name
        # As Keras on TF: an optimizer made in a strategy's scope sums the replicas' gradients (vfw: over MPI).
        self._distribute_strategy = tf.distribute.get_strategy()
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.global_clipnorm = global_clipnorm
        self.clipvalue = clipvalue
        self.use_ema = use_ema
        self.loss_scale_factor = loss_scale_factor
        self.gradient_accumulation_steps = gradient_accumulation_steps
        _check_options(gradient_accumulation_steps, use_ema, ema_momentum, ema_overwrite_frequency,
                       clipnorm, clipvalue, global_clipnorm)
        self.ema_momentum = ema_momentum
        self.ema_overwrite_frequency = ema_overwrite_frequency
        self.built = False
        self._variables = []
        self._trainable_variables = []
        self._trainable_variables_indices = {}
        # Keras' "int" dtype is int64 on TensorFlow.
        self._iterations = self._new_variable(0, "iteration", dtype="int64", aggregation="only_first_replica")
        if isinstance(learning_rate, schedules.LearningRateSchedule) or callable(learning_rate):
            self._learning_rate = learning_rate
        elif isinstance(learning_rate, float):
            self._learning_rate = self._new_variable(learning_rate, "learning_rate", dtype=floatx(),
                                                     aggregation="only_first_replica")
        else:
            raise ValueError(_LEARNING_RATE_ERROR.format(learning_rate))

    # -- attribute tracking -----------------------------------------------------------------------
    def __setattr__(self, name, value):
        if name != "_lock":
            self._check_super_called()
        # Variables a subclass assigns as attributes are optimizer state, as in Keras.
        if _is_variable(value) and "_variables" in self.__dict__ and not self._is_tracked(value):
            self._variables.append(value)
        super().__setattr__(name, value)

    def _check_super_called(self):
        if "_lock" not in self.__dict__:
            raise RuntimeError(f"In optimizer '{type(self).__name__}', you forgot to call `super().__init__()` as "
                               "the first statement in the `__init__()` method. Go add it!")

    def _is_tracked(self, variable):
        return any(v is variable for v in self._variables)

    def _track_variable(self, variable):
        if not self._is_tracked(variable):
            self._variables.append(variable)
            # A tf.train.Checkpoint restored before this variable existed may hold its value.
            _checkpoint.restore_deferred(self, len(self._variables) - 1, variable)

    def _untrack_variable(self, variable):
        self._variables = [v for v in self._variables if v is not variable]

    # -- variables --------------------------------------------------------------------------------
    def _new_variable(self, initializer, name, shape=None, dtype=None, aggregation="none"):
        """A tracked non-trainable ``keras.Variable`` with the path ``<optimizer name>/<name>``.

        ``initializer`` is a value (a number fills ``shape`` when given), or ``keras.initializers.get``
        resolves it.
        """
        if isinstance(initializer, (int, float)):
            if shape is not None:
                initializer = tf.fill(shape, tf.cast(initializer, dtype))
        else:
            initializer = initializers.get(initializer)
        with naming.name_scope(self.name, caller=self):
            variable = Variable(initializer, shape=shape, dtype=dtype, trainable=False, aggregation=aggregation,
                                name=name)
        self._track_variable(variable)
        return variable

    @property
    def iterations(self):
        """The number of updates applied: the ``iteration`` variable (with gradient accumulation, the number of
        accumulated updates, a tensor)."""
        if self.gradient_accumulation_steps:
            return tf.math.floordiv(self._iterations, self.gradient_accumulation_steps)
        return self._iterations

    @property
    def variables(self):
        """list: the optimizer's variables (``iteration``, ``learning_rate``, then the slots), in creation order."""
        return self._variables[:]

    def add_variable(self, shape, initializer="zeros", dtype=None, aggregation="none", layout=None, name=None):
        """Create and track a non-trainable optimizer variable ``<optimizer name>/<name>``.

        Parameters
        ----------
        shape : tuple of int
            Fully defined.
        initializer : str, number or initializer
            A number fills the variable; anything else goes through ``keras.initializers.get``.
        dtype : str or DType, optional
            Default floatx.
        aggregation, layout
            Accepted (one device).
        name : str, optional

        Returns
        -------
        The variable.
        """
        self._check_super_called()
        return self._new_variable(initializer, name, tuple(shape), floatx() if dtype is None else dtype, aggregation)

    def add_variable_from_reference(self, reference_variable, name=None, initializer="zeros"):
        """A variable shaped and typed like ``reference_variable``, named ``<its path with / as _>_<name>``.

        A reference without a ``path`` (a tf.Variable) is named by its ``name`` with ``/`` and ``:``
        replaced by ``_`` (``dense_kernel_0_momentum``).
        """
        name = name or "var"
        if hasattr(reference_variable, "path"):
            prefix = reference_variable.path.replace("/", "_")
        else:
            prefix = str(reference_variable.name).replace("/", "_").replace(":", "_")
        return self.add_variable(shape=reference_variable.shape, initializer=initializer,
                                 dtype=reference_variable.dtype, name=f"{prefix}_{name}")

    def add_optimizer_variables(self, trainable_variables, name, initializer="zeros"):
        """Slot variables for every model variable: one list per name in ``name`` (a str gives one list).

        Variables are created interleaved (all slots of the first model variable, then the
        next...); a model variable with ``overwrite_with_gradient`` gets ``None`` slots.
        ``initializer`` is one for all names or a list matching ``name``.
        """
        names = [name] if isinstance(name, str) else list(name)
        if isinstance(name, str) or not isinstance(initializer, (list, tuple)):
            slot_initializers = [initializer] * len(names)
        else:
            slot_initializers = list(initializer)
        if len(names) != len(slot_initializers):
            raise ValueError(f"The number of provided names must match the number of provided initializers.  "
                             f"Received name='{name}', initializer='{initializer}'")
        slots = tuple([] for _ in names)
        for variable in trainable_variables:
            overwritten = overwrites_with_gradient(variable)
            for slot_list, slot_name, slot_init in zip(slots, names, slot_initializers):
                slot_list.append(None if overwritten else
                                 self.add_variable_from_reference(variable, name=slot_name, initializer=slot_init))
        return slots[0] if isinstance(name, str) else slots

    def build(self, variables):
        """Create the optimizer state for ``variables`` (EMA averages and gradient accumulators here;
        subclasses add their slots after calling it)."""
        if self.use_ema:
            self._model_variables_moving_average = self.add_optimizer_variables(variables, "average", 0.0)
        if self.gradient_accumulation_steps:
            # Every variable gets one, also those overwritten with their gradient (they accumulate the maximum).
            self._accumulated_gradients = [self.add_variable_from_reference(v, "gradient_accumulator", 0.0)
                                           for v in variables]
        for i, variable in enumerate(variables):
            self._trainable_variables_indices[self._var_key(variable)] = i
        self._trainable_variables = list(variables)
        self.built = True

    def _var_key(self, variable):
        return id(tf_variable(variable))

    def _get_variable_index(self, variable):
        return self._trainable_variables_indices[self._var_key(variable)]

    def _check_variables_are_known(self, variables):
        for variable in variables:
            if self._var_key(variable) not in self._trainable_variables_indices:
                raise ValueError(f"Unknown variable: {variable}. This optimizer can only be called for the variables "
                                 "it was originally built with. When working with a new set of variables, you should "
                                 "recreate a new optimizer instance.")

    def set_weights(self, weights):
        """Assign ``weights`` (arrays, in ``variables`` order) to the optimizer's variables."""
        if not self.built:
            raise ValueError("You are calling `set_weights()` on an optimizer that has not yet been built. Please "
                             "call `optimizer.build(trainable_variables)` to create the optimizer weights before "
                             "calling `set_weights()`.")
        for variable, weight in zip(self._variables, weights):
            if tuple(variable.shape) != tuple(weight.shape):
                raise ValueError(f"Optimizer variable {self._var_key(variable)} has shape {variable.shape} not "
                                 f"compatible with provided weight shape {weight.shape}.")
            variable.assign(weight)

    def save_own_variables(self, store):
        """Write the variables' values into ``store`` under the keys ``"0"``, ``"1"``..."""
        for i, variable in enumerate(self.variables):
            store[str(i)] = variable.numpy()

    def load_own_variables(self, store):
        """Read the variables' values back from ``store`` (a count mismatch warns and loads nothing)."""
        if len(store.keys()) != len(self.variables):
            message = (f"Skipping variable loading for optimizer '{self.name}', because it has "
                       f"{len(self.variables)} variables whereas the saved optimizer has {len(store.keys())} "
                       "variables. ")
            if not self.variables:
                message += "This is likely because the optimizer has not been called/built yet."
            warn_for_user(message)
            return
        for i, variable in enumerate(self.variables):
            variable.assign(store[str(i)])

    # -- writing variables ------------------------------------------------------------------------
    def assign(self, variable, value):
        """``variable.assign(value)`` (value cast to the variable's dtype; an IndexedSlices scatters its rows,
        as Keras on TF); use it in ``update_step``."""
        _write(variable, value, "assign", "scatter_update")

    def assign_add(self, variable, value):
        """``variable.assign_add(value)`` (value cast to the variable's dtype; IndexedSlices: ``scatter_add``)."""
        _write(variable, value, "assign_add", "scatter_add")

    def assign_sub(self, variable, value):
        """``variable.assign_sub(value)`` (value cast to the variable's dtype; IndexedSlices: ``scatter_sub``)."""
        _write(variable, value, "assign_sub", "scatter_sub")

    # -- applying gradients -----------------------------------------------------------------------
    def update_step(self, gradient, variable, learning_rate):
        """Update ``variable`` (and its slots) from ``gradient``: what each optimizer defines."""
        raise NotImplementedError

    def apply_gradients(self, grads_and_vars):
        """Apply ``(gradient, variable)`` pairs (see ``apply``); returns the ``iterations`` variable."""
        grads, trainable_variables = zip(*grads_and_vars)
        self.apply(grads, trainable_variables)
        return self._iterations

    def apply(self, grads, trainable_variables=None):
        """Update ``trainable_variables`` with ``grads`` (one per variable; None entries are skipped).

        Without ``trainable_variables`` the optimizer must be built and ``grads`` match the
        variables it was built with.  The first call with variables builds the optimizer; later
        calls accept only those variables.
        """
        grads = list(grads)
        if not grads:
            return
        if trainable_variables is None:
            if not self.built:
                raise ValueError("When passing `grads` without `variables`, the optimizer must already be built on "
                                 "a list of variables. Call `optimizer.build(trainable_variables)` first. ")
            if len(grads) != len(self._trainable_variables_indices):
                raise ValueError("When passing `grads` as a list of gradient tensors, the gradients must match "
                                 f"`optimizer.variables` one-to-on. Received a list of {len(grads)} gradients, but "
                                 f"the optimizer is tracking {len(self._trainable_variables)} trainable variables.")
            trainable_variables = self._trainable_variables
        else:
            trainable_variables = list(trainable_variables)
            if not self.built:
                with naming.name_scope(self.name, caller=self):
                    self.build(trainable_variables)
                self.built = True
            self._check_variables_are_known(trainable_variables)
        with naming.name_scope(self.name, caller=self):
            grads, trainable_variables = self._filter_empty_gradients(grads, trainable_variables)
            grads, trainable_variables = self._overwrite_variables_directly_with_gradients(grads, trainable_variables)
            if grads and self._distribute_strategy.num_replicas_in_sync > 1:
                grads = self._distribute_strategy.batch_all_reduce(tf.distribute.ReduceOp.SUM, grads)
            if grads:
                if self.loss_scale_factor is not None:
                    grads = [g / self.loss_scale_factor for g in grads]  # (IndexedSlices: TypeError, as Keras)
                self._backend_apply_gradients(grads, trainable_variables)
                for variable in trainable_variables:
                    if variable.constraint is not None:
                        variable.assign(variable.constraint(variable))
        self._iterations.assign_add(1)

    def _filter_empty_gradients(self, grads, variables):
        kept = [(g if isinstance(g, IndexedSlices) else tf.convert_to_tensor(g), v) for g, v in zip(grads, variables)
                if g is not None]
        if not kept:
            raise ValueError("No gradients provided for any variable.")
        missing = [getattr(v, "path", None) or v.name for g, v in zip(grads, variables) if g is None]
        if missing:
            warn_for_user(f"Gradients do not exist for variables {missing} when minimizing the loss. If using "
                          "`model.compile()`, did you forget to provide a `loss` argument?")
        return [g for g, _ in kept], [v for _, v in kept]

    def _overwrite_variables_directly_with_gradients(self, grads, variables):
        """Write the gradient into variables marked ``overwrite_with_gradient`` (float8 scales) and drop them.

        With gradient accumulation the element-wise maximum of the accumulated gradients is
        written at update steps.
        """
        if not any(overwrites_with_gradient(v) for v in variables):
            return grads, variables
        kept_grads, kept_variables = [], []
        for g, v in zip(grads, variables):
            if not overwrites_with_gradient(v):
                kept_grads.append(g)
                kept_variables.append(v)
            elif self.gradient_accumulation_steps:
                accumulator = tf_variable(self._accumulated_gradients[self._get_variable_index(v)])
                is_update_step = self._is_accumulated_update_step()
                largest = tf.maximum(g, accumulator)
                tf_variable(v).assign(tf.where(is_update_step, largest, v))
                accumulator.assign(tf.where(is_update_step, tf.zeros_like(g), largest))
            else:
                tf_variable(v).assign(g)
        return kept_grads, kept_variables

    def _is_accumulated_update_step(self):
        return tf.equal((self._iterations + 1) % self.gradient_accumulation_steps, 0)

    def _backend_apply_gradients(self, grads, trainable_variables):
        """Clip, decay and update (every ``gradient_accumulation_steps``-th call when accumulating), then the EMA."""
        if self.gradient_accumulation_steps:
            steps = self.gradient_accumulation_steps
            grads = [sparse_math.densify(g) for g in grads]  # Keras on TF adds them to the dense accumulators
            accumulators = [tf_variable(self._accumulated_gradients[self._get_variable_index(v)])
                            for v in trainable_variables]

            def update():
                mean_grads = [tf.truediv(g + a, steps) for g, a in zip(grads, accumulators)]
                self._clip_and_update(mean_grads, trainable_variables)
                for accumulator in self._accumulated_gradients:
                    if accumulator is not None:
                        accumulator.assign(tf.zeros(accumulator.shape, accumulator.dtype))

            def accumulate():
                for g, accumulator in zip(grads, accumulators):
                    accumulator.assign(accumulator + g)

            tf.cond(self._is_accumulated_update_step(), update, accumulate)
        else:
            self._clip_and_update(grads, trainable_variables)
        if self.use_ema:
            self._update_model_variables_moving_average(self._trainable_variables)
            if self.ema_overwrite_frequency:
                overwrite = tf.equal((self.iterations + 1) % self.ema_overwrite_frequency, 0)
                tf.cond(overwrite, lambda: self._overwrite_model_variables_with_average_value(
                    self._trainable_variables), lambda: None)

    def _clip_and_update(self, grads, trainable_variables):
        grads = self._clip_gradients(grads)
        self._apply_weight_decay(trainable_variables)
        self._backend_update_step(grads, trainable_variables, self.learning_rate)

    def _backend_update_step(self, grads, trainable_variables, learning_rate):
        for grad, variable in zip(grads, trainable_variables):
            self.update_step(grad, tf_variable(variable), learning_rate)

    def _clip_gradients(self, grads):
        return gradient_clipping.clip_gradients(grads, self.clipnorm, self.global_clipnorm, self.clipvalue)

    # -- learning rate ----------------------------------------------------------------------------
    @property
    def learning_rate(self):
        """The current learning rate: the ``learning_rate`` variable, the schedule's value at ``iterations``,
        or the callable's value.  Setting a float assigns the variable (TypeError with a schedule);
        setting a schedule or callable replaces it."""
        lr = self._learning_rate
        if isinstance(lr, schedules.LearningRateSchedule):
            return lr(self._iterations)
        if callable(lr) and not _is_variable(lr):
            return lr()
        return lr

    @learning_rate.setter
    def learning_rate(self, learning_rate):
        previous = self._learning_rate if _is_variable(self._learning_rate) else None
        if isinstance(learning_rate, schedules.LearningRateSchedule) or callable(learning_rate):
            self._learning_rate = learning_rate
        else:
            if isinstance(self._learning_rate, schedules.LearningRateSchedule):
                raise TypeError("This optimizer was created with a `LearningRateSchedule` object as its "
                                "`learning_rate` constructor argument, hence its learning rate is not settable. If "
                                "you need the learning rate to be settable, you should instantiate the optimizer "
                                "with a float `learning_rate` argument.")
            self._learning_rate.assign(learning_rate)
        if previous is not None and not _is_variable(self._learning_rate):
            self._untrack_variable(previous)

    # -- misc -------------------------------------------------------------------------------------
    def _obj_type(self):
        """Its kind for model files (``saving/object_state.py``): optimizers' state is saved with the model."""
        return "Optimizer"

    def scale_loss(self, loss):
        """``loss * loss_scale_factor`` (``loss`` when no factor is set)."""
        return loss if self.loss_scale_factor is None else loss * self.loss_scale_factor

    def stateless_apply(self, optimizer_variables, grads, trainable_variables):
        """Not available with the TensorFlow backend (ValueError, as Keras)."""
        raise ValueError("stateless_apply is not supported with the TensorFlow backend (as it is incompatible with "
                         "tf.distribute).")

    def get_config(self):
        """dict: the constructor arguments (a float learning rate as the variable's current value)."""
        lr = self._learning_rate
        if isinstance(lr, schedules.LearningRateSchedule):
            learning_rate = schedules.serialize(lr)
        elif _is_variable(lr) or tf.is_tensor(lr):
            learning_rate = float(lr.numpy())
        else:
            learning_rate = serialize_keras_object(lr)
        return {"name": self.name, "learning_rate": learning_rate, "weight_decay": self.weight_decay,
                "clipnorm": self.clipnorm, "global_clipnorm": self.global_clipnorm, "clipvalue": self.clipvalue,
                "use_ema": self.use_ema, "ema_momentum": self.ema_momentum,
                "ema_overwrite_frequency": self.ema_overwrite_frequency,
                "loss_scale_factor": self.loss_scale_factor,
                "gradient_accumulation_steps": self.gradient_accumulation_steps}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """The optimizer ``get_config`` describes (a serialized schedule or function is deserialized)."""
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = schedules.deserialize(config["learning_rate"], custom_objects=custom_objects)
        return cls(**config)


def _check_options(gradient_accumulation_steps, use_ema, ema_momentum, ema_overwrite_frequency, clipnorm,
                   clipvalue, global_clipnorm):
    if gradient_accumulation_steps and not gradient_accumulation_steps >= 2:
        raise ValueError("`gradient_accumulation_steps` must be an integer >= 2. Received: "
                         f"gradient_accumulation_steps={gradient_accumulation_steps}")
    if use_ema:
        if ema_momentum > 1 or ema_momentum < 0:
            raise ValueError(f"`ema_momentum` must be in the range [0, 1]. Received: ema_momentum={ema_momentum}")
        if ema_overwrite_frequency and (not isinstance(ema_overwrite_frequency, int) or ema_overwrite_frequency < 1):
            raise ValueError("`ema_overwrite_frequency` must be an integer >= 1 or None. Received: "
                             f"ema_overwrite_frequency={ema_overwrite_frequency}")
    if sum(a is not None for a in (clipnorm, clipvalue, global_clipnorm)) > 1:
        raise ValueError(f"Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. Received: "
                         f"clipnorm={clipnorm}, clipvalue={clipvalue}, global_clipnorm={global_clipnorm}")


def _write(variable, value, dense_method, sparse_method):
    """Write ``value`` (cast to the variable's dtype) into ``variable`` with one of its update methods."""
    variable = tf_variable(variable)
    value = sparse_math.cast(value, variable.dtype)
    if isinstance(value, IndexedSlices):
        getattr(variable, sparse_method)(value)
    else:
        getattr(variable, dense_method)(value)


def overwrites_with_gradient(variable):
    return getattr(variable, "overwrite_with_gradient", False)
