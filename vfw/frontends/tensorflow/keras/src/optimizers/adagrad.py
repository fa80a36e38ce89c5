"""keras.optimizers.Adagrad."""

from vfw.frontends.tensorflow.keras.src.optimizers import sparse_math as ops
from vfw.frontends.tensorflow.keras.src.optimizers.base_optimizer import Optimizer


class Adagrad(Optimizer):
    """Adagrad: ``acc += g**2``, ``w -= lr * g / sqrt(acc + epsilon)``.

    Parameters
    ----------
    learning_rate : float, LearningRateSchedule or callable
        Default 0.001.
    initial_accumulator_value : float
        The accumulators' starting value (0.1).
    epsilon : float
        (1e-7).
    **kwargs
        The base ``Optimizer``'s options.
    """

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon

    def build(self, var_list):
        """Create the ``accumulator`` slots, filled with ``initial_accumulator_value``."""
        if self.built:
            return
        super().build(var_list)
        self._accumulators = self.add_optimizer_variables(var_list, "accumulator", self.initial_accumulator_value)

    def update_step(self, gradient, variable, learning_rate):
        lr = ops.cast(learning_rate, variable.dtype)
        gradient = ops.cast(gradient, variable.dtype)
        accumulator = self._accumulators[self._get_variable_index(variable)]
        self.assign_add(accumulator, ops.square(gradient))
        self.assign_sub(variable, ops.divide(ops.multiply(lr, gradient), ops.sqrt(ops.add(accumulator, self.epsilon))))

    def get_config(self):
        config = super().get_config()
        config.update({"initial_accumulator_value": self.initial_accumulator_value, "epsilon": self.epsilon})
        return config
