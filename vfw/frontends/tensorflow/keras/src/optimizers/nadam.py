"""keras.optimizers.Nadam: Adam with Nesterov momentum (Dozat's momentum schedule)."""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.backend.config import floatx
from vfw.frontends.tensorflow.keras.src.optimizers import sparse_math as ops
from vfw.frontends.tensorflow.keras.src.optimizers.base_optimizer import Optimizer


def _schedule_factor(step):
    """``1 - 0.5 * 0.96**step`` (a tensor step): the momentum schedule is ``u_t = beta_1 * factor(t)``."""
    return 1.0 - 0.5 * tf.pow(tf.cast(0.96, step.dtype), step)


class Nadam(Optimizer):
    """Nadam: Adam whose first moment is corrected with the momentum schedule ``u_t`` and its running product.

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
        """Create the ``momentum`` and ``velocity`` slots and the product of the momentum schedule."""
        if self.built:
            return
        dtype = var_list[0].dtype if var_list else floatx()
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(var_list, ["momentum", "velocity"], 0.0)
        self._u_product = self._new_variable(1.0, None, dtype=dtype)

    def _backend_update_step(self, grads, trainable_variables, learning_rate):
        # The product of the schedule advances once per step, before the variables are updated.
        u_product = self._u_product
        step = tf.cast(self.iterations + 1, u_product.dtype)
        self.assign(u_product, u_product * self.beta_1 * _schedule_factor(step))
        super()._backend_update_step(grads, trainable_variables, learning_rate)

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        lr = ops.cast(learning_rate, dtype)
        gradient = ops.cast(gradient, dtype)
        beta_1 = ops.cast(self.beta_1, dtype)
        beta_2 = ops.cast(self.beta_2, dtype)
        u_t = beta_1 * _schedule_factor(ops.cast(self.iterations + 1, dtype))
        u_t_1 = beta_1 * _schedule_factor(ops.cast(self.iterations + 2, dtype))
        u_product_t = ops.cast(self._u_product, dtype)
        u_product_t_1 = u_product_t * u_t_1
        beta_2_power = tf.pow(beta_2, ops.cast(self.iterations + 1, dtype))
        index = self._get_variable_index(variable)
        m = self._momentums[index]
        v = self._velocities[index]
        self.assign_add(m, ops.multiply(ops.subtract(gradient, m), 1 - beta_1))
        self.assign_add(v, ops.multiply(ops.subtract(ops.square(gradient), v), 1 - beta_2))
        m_hat = ops.add(ops.divide(ops.multiply(u_t_1, m), 1 - u_product_t_1),
                        ops.divide(ops.multiply(1 - u_t, gradient), 1 - u_product_t))
        v_hat = ops.divide(v, 1 - beta_2_power)
        self.assign_sub(variable, ops.divide(ops.multiply(m_hat, lr), ops.add(ops.sqrt(v_hat), self.epsilon)))

    def get_config(self):
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon})
        return config
