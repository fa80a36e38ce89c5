"""keras.optimizers.Adafactor: factored second moments (row and column averages for matrices)."""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.optimizers import sparse_math as ops
from vfw.frontends.tensorflow.keras.src.optimizers.base_optimizer import Optimizer, overwrites_with_gradient


def _rms(x):
    return ops.sqrt(ops.mean(ops.square(x)))


class Adafactor(Optimizer):
    """Adafactor: the second moment of a variable of rank >= 2 is stored as its row and column means.

    Parameters
    ----------
    learning_rate : float, LearningRateSchedule or callable
        Default 0.001.
    beta_2_decay : float
        The second-moment decay is ``1 - t**beta_2_decay`` (-0.8).
    epsilon_1 : float
        Added to the squared gradients (1e-30).
    epsilon_2 : float
        Lower bound of the variable's RMS in the step size (1e-3).
    clip_threshold : float
        The update's RMS is clipped to it (1.0).
    relative_step : bool
        With a float learning rate, cap it by ``1 / sqrt(t)``.
    **kwargs
        The base ``Optimizer``'s options.
    """

    def __init__(self, learning_rate=0.001, beta_2_decay=-0.8, epsilon_1=1e-30, epsilon_2=1e-3, clip_threshold=1.0,
                 relative_step=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta_2_decay = beta_2_decay
        self.epsilon_1 = epsilon_1
        self.epsilon_2 = epsilon_2
        self.clip_threshold = clip_threshold
        self.relative_step = relative_step

    def build(self, var_list):
        """Create per variable the row and column statistics (unused int32 scalars for vectors) and ``velocity``."""
        if self.built:
            return
        super().build(var_list)
        self._r, self._c, self._v = [], [], []
        for variable in var_list:
            overwritten = overwrites_with_gradient(variable)
            name = variable.name
            if len(variable.shape) < 2:  # unused int32 scalars, as Keras makes them
                row = self._new_variable(0, name)
                column = self._new_variable(0, name)
            elif overwritten:
                row = column = None
            else:
                shape = tuple(variable.shape)
                row = self.add_variable(shape[:-1], 0.0, variable.dtype, name=name)
                column = self.add_variable(shape[:-2] + shape[-1:], 0.0, variable.dtype, name=name)
            self._r.append(row)
            self._c.append(column)
            self._v.append(None if overwritten else self.add_variable_from_reference(variable, "velocity", 0.0))

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        lr = ops.cast(learning_rate, dtype)
        gradient = ops.cast(gradient, dtype)
        epsilon_2 = ops.cast(self.epsilon_2, dtype)
        one = ops.cast(1.0, dtype)
        local_step = ops.cast(self.iterations + 1, dtype)
        if not callable(self._learning_rate) and self.relative_step:
            lr = tf.minimum(lr, 1 / ops.sqrt(local_step))
        index = self._get_variable_index(variable)
        r, c, v = self._r[index], self._c[index], self._v[index]
        rho_t = tf.minimum(lr, 1 / ops.sqrt(local_step))
        alpha_t = ops.maximum(epsilon_2, _rms(variable)) * rho_t
        regulated_grad_square = ops.add(ops.square(gradient), self.epsilon_1)
        beta_2_t = ops.subtract(1, tf.pow(local_step, self.beta_2_decay))
        if len(variable.shape) >= 2:
            self.assign(r, ops.add(ops.multiply(beta_2_t, r), ops.multiply(ops.subtract(1, beta_2_t),
                                                                         tf.reduce_mean(regulated_grad_square, -1))))
            self.assign(c, ops.add(ops.multiply(beta_2_t, c), ops.multiply(ops.subtract(1, beta_2_t),
                                                                         tf.reduce_mean(regulated_grad_square, -2))))
            row_factor = tf.expand_dims(ops.divide(r, tf.reduce_mean(r, -1, keepdims=True)), -1)
            self.assign(v, ops.multiply(row_factor, tf.expand_dims(c, -2)))
        else:
            self.assign(v, ops.add(ops.multiply(beta_2_t, v), ops.multiply(ops.subtract(1, beta_2_t),
                                                                         regulated_grad_square)))
        u_t = ops.divide(gradient, ops.sqrt(v))
        u_t_hat = ops.divide(u_t, ops.maximum(one, ops.divide(_rms(u_t), self.clip_threshold)))
        self.assign_sub(variable, ops.multiply(alpha_t, u_t_hat))

    def get_config(self):
        config = super().get_config()
        config.update({"beta_2_decay": self.beta_2_decay, "epsilon_1": self.epsilon_1, "epsilon_2": self.epsilon_2,
                       "clip_threshold": self.clip_threshold, "relative_step": self.relative_step})
        return config
