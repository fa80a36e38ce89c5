"""keras.optimizers.Lion: sign of an interpolated momentum."""

from vfw.frontends.tensorflow.keras.src.optimizers import sparse_math as ops
from vfw.frontends.tensorflow.keras.src.optimizers.base_optimizer import Optimizer


class Lion(Optimizer):
    """Lion: ``w -= lr * sign(beta_1 * m + (1 - beta_1) * g)``, then ``m = beta_2 * m + (1 - beta_2) * g``.

    Parameters
    ----------
    learning_rate : float, LearningRateSchedule or callable
        Default 0.001.
    beta_1 : float
        In (0, 1] (0.9).
    beta_2 : float
        (0.99).
    **kwargs
        The base ``Optimizer``'s options.

    Raises
    ------
    ValueError
        If ``beta_1`` is not in (0, 1].
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.99, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        if beta_1 <= 0 or beta_1 > 1:
            raise ValueError("Argument `beta_1` must be in the [0, 1] range. Otherwise, the optimizer degenerates to "
                             f"SignSGD. Received: beta_1={beta_1}.")

    def build(self, var_list):
        """Create the ``momentum`` slots."""
        if self.built:
            return
        super().build(var_list)
        self._momentums = self.add_optimizer_variables(var_list, "momentum", 0.0)

    def update_step(self, gradient, variable, learning_rate):
        lr = ops.cast(learning_rate, variable.dtype)
        gradient = ops.cast(gradient, variable.dtype)
        beta_1 = ops.cast(self.beta_1, variable.dtype)
        beta_2 = ops.cast(self.beta_2, variable.dtype)
        m = self._momentums[self._get_variable_index(variable)]
        direction = ops.sign(ops.add(ops.multiply(m, beta_1), ops.multiply(gradient, 1.0 - beta_1)))
        self.assign_sub(variable, ops.multiply(lr, direction))
        self.assign(m, ops.add(ops.multiply(m, beta_2), ops.multiply(gradient, 1.0 - beta_2)))

    def get_config(self):
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2})
        return config
