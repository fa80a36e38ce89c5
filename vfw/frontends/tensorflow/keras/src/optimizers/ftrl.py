"""keras.optimizers.Ftrl: Follow The Regularized Leader."""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.optimizers import sparse_math as ops
from vfw.frontends.tensorflow.keras.src.optimizers.base_optimizer import Optimizer


class Ftrl(Optimizer):
    """FTRL-proximal with L1, L2 and L2-shrinkage regularization.

    Parameters
    ----------
    learning_rate : float, LearningRateSchedule or callable
        Default 0.001.
    learning_rate_power : float
        <= 0 (-0.5).
    initial_accumulator_value : float
        >= 0 (0.1).
    l1_regularization_strength, l2_regularization_strength, l2_shrinkage_regularization_strength : float
        >= 0 (0.0).
    beta : float
        (0.0), adds ``beta / (2 * lr)`` to the L2 strength.
    **kwargs
        The base ``Optimizer``'s options.

    Raises
    ------
    ValueError
        For a negative strength or accumulator value, or a positive ``learning_rate_power``.
    """

    def __init__(self, learning_rate=0.001, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 l2_shrinkage_regularization_strength=0.0, beta=0.0, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        for name, value, sign in (("initial_accumulator_value", initial_accumulator_value, 1),
                                  ("learning_rate_power", learning_rate_power, -1),
                                  ("l1_regularization_strength", l1_regularization_strength, 1),
                                  ("l2_regularization_strength", l2_regularization_strength, 1),
                                  ("l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength, 1)):
            if value * sign < 0.0:
                raise ValueError(f"`{name}` needs to be {'positive' if sign > 0 else 'negative'} or zero. "
                                 f"Received: {name}={value}.")
        self.learning_rate_power = learning_rate_power
        self.initial_accumulator_value = initial_accumulator_value
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength
        self.beta = beta

    def build(self, var_list):
        """Create the ``accumulator`` (filled with ``initial_accumulator_value``) and ``linear`` slots."""
        if self.built:
            return
        super().build(var_list)
        self._accumulators, self._linears = self.add_optimizer_variables(
            var_list, ["accumulator", "linear"], initializer=[self.initial_accumulator_value, 0.0])

    def update_step(self, gradient, variable, learning_rate):
        lr = ops.cast(learning_rate, variable.dtype)
        gradient = ops.cast(gradient, variable.dtype)
        index = self._get_variable_index(variable)
        accumulator = self._accumulators[index]
        linear = self._linears[index]
        power = -self.learning_rate_power
        l2 = self.l2_regularization_strength + self.beta / (2.0 * lr)
        shrunk_gradient = ops.add(gradient, ops.multiply(2 * self.l2_shrinkage_regularization_strength, variable))
        new_accumulator = ops.add(accumulator, ops.square(gradient))
        sigma = ops.divide(ops.subtract(tf.pow(new_accumulator, power), tf.pow(accumulator, power)), lr)
        self.assign_add(linear, ops.subtract(shrunk_gradient, ops.multiply(sigma, variable)))
        quadratic = ops.add(ops.divide(tf.pow(new_accumulator, power), lr), 2 * l2)
        l1 = self.l1_regularization_strength
        linear_clipped = tf.clip_by_value(linear, -l1, l1)
        self.assign(variable, ops.divide(ops.subtract(linear_clipped, linear), quadratic))
        self.assign(accumulator, new_accumulator)

    def get_config(self):
        config = super().get_config()
        config.update({"learning_rate_power": self.learning_rate_power,
                       "initial_accumulator_value": self.initial_accumulator_value,
                       "l1_regularization_strength": self.l1_regularization_strength,
                       "l2_regularization_strength": self.l2_regularization_strength,
                       "l2_shrinkage_regularization_strength": self.l2_shrinkage_regularization_strength,
                       "beta": self.beta})
        return config
