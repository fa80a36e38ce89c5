"""keras.optimizers.LossScaleOptimizer: dynamic loss scaling around another optimizer (Keras 3.15.1)."""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.engine import naming
from vfw.frontends.tensorflow.keras.src.optimizers.base_optimizer import Optimizer, overwrites_with_gradient
from vfw.frontends.tensorflow.keras.src.utils.serialization import serialize_keras_object

# The base options Keras once wrote into this optimizer's config: still accepted at their defaults.
_BASE_DEFAULTS = {"weight_decay": None, "clipnorm": None, "global_clipnorm": None, "clipvalue": None,
                  "use_ema": False, "ema_momentum": 0.99, "ema_overwrite_frequency": None, "loss_scale_factor": None,
                  "gradient_accumulation_steps": None}


class LossScaleOptimizer(Optimizer):
    """Wraps ``inner_optimizer`` with dynamic loss scaling (against float16 gradient underflow).

    ``scale_loss(loss)`` multiplies the loss by the current scale (``dynamic_scale``, or
    ``initial_scale`` before the optimizer is built); ``apply`` divides the gradients by it. When a
    gradient holds an inf or NaN the step is skipped (the inner optimizer does nothing, its
    ``iterations`` does not move) and the scale is halved; after ``dynamic_growth_steps``
    consecutive finite steps the scale is doubled (the step counter restarts at 0 on both events).

    Parameters
    ----------
    inner_optimizer : Optimizer
        The optimizer applying the unscaled gradients (its own ``loss_scale_factor`` is cleared).
    initial_scale : float
        Default ``2**15``.
    dynamic_growth_steps : int
        Default 2000.
    name : str, optional

    Raises
    ------
    ValueError
        For ``dynamic=False``, a base optimizer option other than its default, or unknown arguments.

    Notes
    -----
    Its variables are its own (``iteration``, ``learning_rate``, then ``step_counter`` (int64) and
    ``dynamic_scale`` (float32) once built) followed by the inner optimizer's. ``learning_rate``
    and ``iterations`` are the inner optimizer's.
    """

    def __init__(self, inner_optimizer, initial_scale=2.0**15, dynamic_growth_steps=2000, name=None, **kwargs):
        if not kwargs.pop("dynamic", True):
            raise ValueError("LossScaleOptimizer no longer supports `dynamic=False`. Instead, simply set "
                             "`loss_scale_factor` directly on the `inner_optimizer`.")
        for option, default in _BASE_DEFAULTS.items():
            if option in kwargs and kwargs.pop(option) != default:
                raise ValueError(f"LossScaleOptimizer does not support `{option}`. Instead, set `{option}` on the "
                                 "`inner_optimizer`.")
        if kwargs:
            raise ValueError(f"LossScaleOptimizer does not support arguments: `{'`, `'.join(kwargs)}`.")
        super().__init__(learning_rate=0.0, name=name)
        self.inner_optimizer = inner_optimizer
        self.initial_scale = initial_scale
        self.dynamic_growth_steps = dynamic_growth_steps
        self.inner_optimizer.loss_scale_factor = None  # otherwise the gradients would be unscaled twice

    def build(self, var_list):
        """Create ``step_counter`` and ``dynamic_scale``, then build the inner optimizer on ``var_list``."""
        self.step_counter = self.add_variable((), initializer=0, dtype="int64", name="step_counter")
        self.dynamic_scale = self.add_variable((), initializer=float(self.initial_scale), dtype="float32",
                                               name="dynamic_scale")
        self.inner_optimizer.build(var_list)
        super().build(var_list)

    @property
    def variables(self):
        """list: its own variables, then the inner optimizer's."""
        return self._variables + self.inner_optimizer.variables

    @property
    def learning_rate(self):
        """The inner optimizer's learning rate (settable)."""
        return self.inner_optimizer.learning_rate

    @learning_rate.setter
    def learning_rate(self, learning_rate):
        self.inner_optimizer.learning_rate = learning_rate

    @property
    def iterations(self):
        """The inner optimizer's ``iterations`` (skipped steps do not count)."""
        return self.inner_optimizer.iterations

    def apply(self, grads, trainable_variables=None):
        """Unscale ``grads`` and apply them with the inner optimizer if all are finite; update the scale."""
        grads = list(grads)
        if not self.built:
            with naming.name_scope(self.name, caller=self):
                self.build(trainable_variables)
            self.built = True
        tf.cond(self.check_finite(grads), lambda: self._apply_finite(grads, trainable_variables),
                self._skip_non_finite)

    def _apply_finite(self, grads, trainable_variables):
        variables = self._trainable_variables if trainable_variables is None else list(trainable_variables)
        unscaled = [g if g is None or overwrites_with_gradient(v) else _promoted(tf.divide, g, self.dynamic_scale)
                    for g, v in zip(grads, variables)]
        self.inner_optimizer.apply(unscaled, trainable_variables=trainable_variables)

        def grow():
            self.step_counter.assign(0)
            self.dynamic_scale.assign(self.dynamic_scale * 2.0)

        def count():
            self.step_counter.assign_add(1)

        tf.cond(tf.equal(self.step_counter, self.dynamic_growth_steps - 1), grow, count)

    def _skip_non_finite(self):
        self.step_counter.assign(0)
        self.dynamic_scale.assign(self.dynamic_scale * 0.5)

    def check_finite(self, grads):
        """A scalar bool tensor: whether every element of every (non-None) gradient is finite."""
        finite = [tf.reduce_all(tf.math.is_finite(g)) for g in grads if g is not None]
        return tf.reduce_all(tf.stack(finite))

    def scale_loss(self, loss):
        """``loss * dynamic_scale`` (``loss * initial_scale`` before the optimizer is built)."""
        if self.built:
            return _promoted(tf.multiply, loss, self.dynamic_scale)
        return tf.convert_to_tensor(loss, dtype_hint="float32") * self.initial_scale  # a Python float: loss' dtype

    def finalize_variable_values(self, var_list):
        """The inner optimizer's ``finalize_variable_values``."""
        self.inner_optimizer.finalize_variable_values(var_list)

    def get_config(self):
        """dict: ``name``, the serialized ``inner_optimizer``, ``initial_scale``, ``dynamic_growth_steps``."""
        return {"name": self.name, "inner_optimizer": serialize_keras_object(self.inner_optimizer),
                "initial_scale": self.initial_scale, "dynamic_growth_steps": self.dynamic_growth_steps}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """The optimizer ``get_config`` describes (the inner optimizer deserialized first)."""
        from vfw.frontends.tensorflow.keras.src.optimizers import deserialize

        config = dict(config)
        inner_optimizer = deserialize(config.pop("inner_optimizer"), custom_objects=custom_objects)
        return cls(inner_optimizer, **config)


def _promoted(op, value, scale):
    """``op(value, scale)`` for the float32 ``scale`` variable in Keras' promoted dtype: float64 stays float64,
    narrower floats become float32."""
    value = tf.convert_to_tensor(value, dtype_hint="float32")
    dtype = tf.float64 if value.dtype == tf.float64 else tf.float32
    return op(tf.cast(value, dtype), tf.cast(scale, dtype))
