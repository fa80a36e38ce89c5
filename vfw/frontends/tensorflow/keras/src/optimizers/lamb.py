"""keras.optimizers.Lamb: Adam steps rescaled by the layer-wise trust ratio."""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.optimizers import sparse_math as ops
from vfw.frontends.tensorflow.keras.src.optimizers.adam import local_step_power
from vfw.frontends.tensorflow.keras.src.optimizers.base_optimizer import Optimizer


class Lamb(Optimizer):
    """LAMB: the bias-corrected Adam direction ``r = m_hat / (sqrt(v_hat) + epsilon)``, and
    ``w -= (|w| / |r|) * lr * r`` (the ratio is 1 when either norm is 0).

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
        """Create the ``momentum`` and ``velocity`` slots."""
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(var_list, ["momentum", "velocity"], 0.0)

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        lr = ops.cast(learning_rate, dtype)
        gradient = ops.cast(gradient, dtype)
        beta_1_power = local_step_power(self, self.beta_1, dtype)
        beta_2_power = local_step_power(self, self.beta_2, dtype)
        index = self._get_variable_index(variable)
        m = self._momentums[index]
        v = self._velocities[index]
        self.assign_add(m, ops.multiply(ops.subtract(gradient, m), 1 - self.beta_1))
        self.assign_add(v, ops.multiply(ops.subtract(ops.square(gradient), v), 1 - self.beta_2))
        m_hat = ops.divide(m, 1.0 - beta_1_power)
        v_sqrt = ops.add(ops.sqrt(ops.divide(v, 1.0 - beta_2_power)), self.epsilon)
        update = ops.divide(m_hat, v_sqrt)
        w_norm = ops.sqrt(tf.reduce_sum(tf.pow(variable, 2.0)))
        g_norm = ops.sqrt(tf.reduce_sum(tf.pow(update, 2.0)))
        one = tf.ones([], dtype)
        ratio = tf.where(tf.greater(w_norm, 0), tf.where(tf.greater(g_norm, 0), w_norm / g_norm, one), one)
        self.assign_sub(variable, ratio * lr * update)

    def get_config(self):
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon})
        return config
