"""keras.optimizers.Adam and AdamW."""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.optimizers import sparse_math as ops
from vfw.frontends.tensorflow.keras.src.optimizers.base_optimizer import Optimizer


def local_step_power(optimizer, base, dtype):
    """``base ** (iterations + 1)`` in ``dtype`` (the bias corrections of Adam-like optimizers)."""
    step = tf.cast(optimizer.iterations + 1, dtype)
    return tf.pow(tf.cast(base, dtype), step)


class Adam(Optimizer):
    """Adam: ``m += (g - m) * (1 - beta_1)``, ``v += (g**2 - v) * (1 - beta_2)``,
    ``w -= m * alpha / (sqrt(v) + epsilon)`` with ``alpha = lr * sqrt(1 - beta_2**t) / (1 - beta_1**t)``.

    Parameters
    ----------
    learning_rate : float, LearningRateSchedule or callable
        Default 0.001.
    beta_1, beta_2 : float
        The decay rates of the moment estimates (0.9, 0.999).
    epsilon : float
        Added to ``sqrt(v)`` (1e-7).
    amsgrad : bool
        Divide by the running maximum of ``v`` (AMSGrad).
    **kwargs
        The base ``Optimizer``'s options.
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad=False, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.amsgrad = amsgrad

    def build(self, var_list):
        """Create the ``momentum`` and ``velocity`` slots (and ``velocity_hat`` with ``amsgrad``)."""
        if self.built:
            return
        super().build(var_list)
        self._momentums, self._velocities = self.add_optimizer_variables(var_list, ["momentum", "velocity"], 0.0)
        if self.amsgrad:
            self._velocity_hats = self.add_optimizer_variables(var_list, "velocity_hat", 0.0)

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        lr = ops.cast(learning_rate, dtype)
        gradient = ops.cast(gradient, dtype)
        beta_1_power = local_step_power(self, self.beta_1, dtype)
        beta_2_power = local_step_power(self, self.beta_2, dtype)
        index = self._get_variable_index(variable)
        m = self._momentums[index]
        v = self._velocities[index]
        alpha = lr * ops.sqrt(1 - beta_2_power) / (1 - beta_1_power)
        self.assign_add(m, ops.multiply(ops.subtract(gradient, m), 1 - self.beta_1))
        self.assign_add(v, ops.multiply(ops.subtract(ops.square(gradient), v), 1 - self.beta_2))
        if self.amsgrad:
            v_hat = self._velocity_hats[index]
            self.assign(v_hat, ops.maximum(v_hat, v))
            v = v_hat
        self.assign_sub(variable, ops.divide(ops.multiply(m, alpha), ops.add(ops.sqrt(v), self.epsilon)))

    def get_config(self):
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon,
                       "amsgrad": self.amsgrad})
        return config


class AdamW(Adam):
    """Adam with decoupled weight decay (``weight_decay``, default 0.004, is required).

    Parameters
    ----------
    learning_rate : float, LearningRateSchedule or callable
        Default 0.001.
    weight_decay : float
        ``w -= w * weight_decay * lr`` before each Adam update.
    beta_1, beta_2, epsilon, amsgrad
        As ``Adam``.
    **kwargs
        The base ``Optimizer``'s other options.

    Raises
    ------
    ValueError
        If ``weight_decay`` is None.
    """

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, **kwargs):
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon, amsgrad=amsgrad,
                         weight_decay=weight_decay, **kwargs)
        if self.weight_decay is None:
            raise ValueError("Argument `weight_decay` must be a float. Received: weight_decay=None")
