"""keras.optimizers.Adamax: Adam with the infinity norm."""

from vfw.frontends.tensorflow.keras.src.optimizers import sparse_math as ops
from vfw.frontends.tensorflow.keras.src.optimizers.adam import local_step_power
from vfw.frontends.tensorflow.keras.src.optimizers.base_optimizer import Optimizer


class Adamax(Optimizer):
    """Adamax: ``m += (g - m) * (1 - beta_1)``, ``u = max(beta_2 * u, |g|)``,
    ``w -= lr * m / ((1 - beta_1**t) * (u + epsilon))``.

    Parameters
    ----------
    learning_rate : float, LearningRateSchedule or callable
        Default 0.001.
    beta_1, beta_2 : float
        (0.9, 0.999).
    epsilon : float
        (1e-7).
    **kwargs
        The base ``Optimizer``'s options.
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon

    def build(self, var_list):
        """Create the ``momentum`` and ``norm`` slots."""
        if self.built:
            return
        super().build(var_list)
        self._m, self._u = self.add_optimizer_variables(var_list, ["momentum", "norm"], 0.0)

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        lr = ops.cast(learning_rate, dtype)
        gradient = ops.cast(gradient, dtype)
        beta_1_power = local_step_power(self, self.beta_1, dtype)
        index = self._get_variable_index(variable)
        m = self._m[index]
        u = self._u[index]
        self.assign_add(m, ops.multiply(ops.subtract(gradient, m), 1 - self.beta_1))
        self.assign(u, ops.maximum(ops.multiply(self.beta_2, u), ops.abs(gradient)))
        self.assign_sub(variable, ops.divide(ops.multiply(lr, m),
                                             ops.multiply(1 - beta_1_power, ops.add(u, self.epsilon))))

    def get_config(self):
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon})
        return config
