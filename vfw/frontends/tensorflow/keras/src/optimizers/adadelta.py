"""keras.optimizers.Adadelta."""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.optimizers import sparse_math as ops
from vfw.frontends.tensorflow.keras.src.optimizers.base_optimizer import Optimizer


class Adadelta(Optimizer):
    """Adadelta: ``G = rho * G + (1 - rho) * g**2``, ``d = -rms(D) * g / rms(G)``, ``D = rho * D + (1 - rho) * d**2``,
    ``w += lr * d`` with ``rms(x) = sqrt(x + epsilon)``.

    Parameters
    ----------
    learning_rate : float, LearningRateSchedule or callable
        Default 0.001.
    rho : float
        (0.95).
    epsilon : float
        (1e-7).
    **kwargs
        The base ``Optimizer``'s options.
    """

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def build(self, var_list):
        """Create the ``accumulated_grad`` and ``accumulated_delta_var`` slots."""
        if self.built:
            return
        super().build(var_list)
        self._accumulated_grads, self._accumulated_delta_vars = self.add_optimizer_variables(
            var_list, ["accumulated_grad", "accumulated_delta_var"], 0.0)

    def _rms(self, x):
        return tf.sqrt(tf.add(x, self.epsilon))

    def update_step(self, grad, variable, learning_rate):
        lr = ops.cast(learning_rate, variable.dtype)
        grad = ops.cast(grad, variable.dtype)
        rho = self.rho
        index = self._get_variable_index(variable)
        accumulated_grad = self._accumulated_grads[index]
        accumulated_delta_var = self._accumulated_delta_vars[index]
        self.assign(accumulated_grad, ops.add(rho * accumulated_grad, ops.multiply(1 - rho, ops.square(grad))))
        delta_var = ops.negative(ops.divide(ops.multiply(self._rms(accumulated_delta_var), grad),
                                            self._rms(accumulated_grad)))
        self.assign(accumulated_delta_var,
                    ops.add(ops.multiply(rho, accumulated_delta_var), ops.multiply(1 - rho, ops.square(delta_var))))
        self.assign_add(variable, ops.multiply(lr, delta_var))

    def get_config(self):
        config = super().get_config()
        config.update({"rho": self.rho, "epsilon": self.epsilon})
        return config
