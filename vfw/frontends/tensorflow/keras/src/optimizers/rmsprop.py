"""keras.optimizers.RMSprop."""

from vfw.frontends.tensorflow.keras.src.optimizers import sparse_math as ops
from vfw.frontends.tensorflow.keras.src.optimizers.base_optimizer import Optimizer


class RMSprop(Optimizer):
    """RMSprop: ``v = rho * v + (1 - rho) * g**2``, ``w -= lr * g / sqrt(v + epsilon)`` (centered: the
    variance ``v - mean_g**2`` instead of ``v``; with momentum the step goes through ``mom = momentum *
    mom + step``).

    Parameters
    ----------
    learning_rate : float, LearningRateSchedule or callable
        Default 0.001.
    rho : float
        Decay of the squared-gradient average (0.9).
    momentum : float
        (0.0: no momentum slots).
    epsilon : float
        (1e-7), added under the square root.
    centered : bool
    **kwargs
        The base ``Optimizer``'s options.
    """

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.rho = rho
        self.momentum = momentum
        self.epsilon = epsilon
        self.centered = centered

    def build(self, var_list):
        """Create the ``velocity`` slots, ``momentum`` ones when ``momentum > 0`` and ``average_gradient`` ones
        when centered."""
        if self.built:
            return
        super().build(var_list)
        self._velocities = self.add_optimizer_variables(var_list, "velocity", 0.0)
        self._momentums = self.add_optimizer_variables(var_list, "momentum", 0.0) if self.momentum > 0 else []
        self._average_gradients = (self.add_optimizer_variables(var_list, "average_gradient", 0.0)
                                   if self.centered else [])

    def update_step(self, gradient, variable, learning_rate):
        lr = ops.cast(learning_rate, variable.dtype)
        gradient = ops.cast(gradient, variable.dtype)
        index = self._get_variable_index(variable)
        velocity = self._velocities[index]
        rho = self.rho
        self.assign(velocity, ops.add(ops.multiply(rho, velocity), ops.multiply(1 - rho, ops.square(gradient))))
        if self.centered:
            average_grad = self._average_gradients[index]
            self.assign(average_grad, ops.add(ops.multiply(rho, average_grad), ops.multiply(1 - rho, gradient)))
            denominator = velocity - ops.square(average_grad) + self.epsilon
        else:
            denominator = ops.add(velocity, self.epsilon)
        increment = ops.divide(ops.multiply(lr, gradient), ops.sqrt(denominator))
        if self.momentum > 0:
            momentum = self._momentums[index]
            self.assign(momentum, ops.add(ops.multiply(self.momentum, momentum), increment))
            self.assign_sub(variable, momentum)
        else:
            self.assign_sub(variable, increment)

    def get_config(self):
        config = super().get_config()
        config.update({"rho": self.rho, "momentum": self.momentum, "epsilon": self.epsilon,
                       "centered": self.centered})
        return config
