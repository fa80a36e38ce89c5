"""keras.optimizers.ScheduleFreeAdamW: AdamW without a schedule (Defazio et al. 2024), as Keras 3.15.1 has it."""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.optimizers import sparse_math as ops
from vfw.frontends.tensorflow.keras.src.optimizers.base_optimizer import Optimizer, overwrites_with_gradient
from vfw.frontends.tensorflow.keras.src.optimizers.model_variable_updates import tf_variable


class ScheduleFreeAdamW(Optimizer):
    """Schedule-Free AdamW: the model variable ``y`` interpolates a gradient sequence ``z`` (the ``momentum``
    slot, initialised to the variable) and its running average ``x``.

    One step, with ``t = iterations + 1`` and ``lr`` scaled by ``min(t / warmup_steps, 1)`` when
    ``warmup_steps > 0``::

        v += (g**2 - v) * (1 - beta_2)
        z -= lr * g / (sqrt(v / (1 - beta_2**t)) + epsilon)
        x_old = (y - (1 - beta_1) * z) / beta_1
        x = (1 - 1/t) * x_old + z / t
        y = (1 - beta_1) * z + beta_1 * x

    As in Keras 3.15.1 (TensorFlow backend), ``x_old`` is recovered with the *updated* ``z``: Keras
    keeps a reference to the momentum variable, not a copy of its old value.

    Parameters
    ----------
    learning_rate : float, LearningRateSchedule or callable
        Default 0.0025.
    beta_1 : float
        The interpolation weight (0.9).
    beta_2 : float
        The second-moment decay rate (0.999).
    epsilon : float
        Added to the denominator (1e-8).
    warmup_steps : int
        Linear learning-rate warmup length (0: none).
    weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema, ema_momentum, ema_overwrite_frequency, \
loss_scale_factor, gradient_accumulation_steps, name
        The base ``Optimizer``'s options.
    """

    def __init__(self, learning_rate=0.0025, beta_1=0.9, beta_2=0.999, epsilon=1e-8, warmup_steps=0,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum, ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor, gradient_accumulation_steps=gradient_accumulation_steps,
                         **kwargs)
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.warmup_steps = warmup_steps

    def build(self, var_list):
        """Create the ``momentum`` (a copy of each variable) and ``velocity`` (zeros) slots.

        Built inside a ``tf.function`` (as ``fit`` does), the momentums start at zero instead, as in
        Keras on TensorFlow: Keras copies the variables with assigns made in the trace that creates the
        slots, and TF discards that trace (a function creating variables is traced again).
        """
        if self.built:
            return
        super().build(var_list)
        copy = not tf.inside_function()
        self._momentums, self._velocities = [], []
        for variable in var_list:
            if overwrites_with_gradient(variable):
                self._momentums.append(None)
                self._velocities.append(None)
                continue
            # The copy is the slot's initial value rather than a later assign of the variable's read: an eager
            # assign of a read would share the variable's array, which vfw's tf.function traces then take for
            # one variable.
            initial = tf_variable(variable).numpy() if copy else "zeros"
            self._momentums.append(self.add_variable_from_reference(variable, "momentum", initializer=initial))
            self._velocities.append(self.add_variable_from_reference(variable, "velocity"))

    def update_step(self, gradient, variable, learning_rate):
        dtype = variable.dtype
        lr = ops.cast(learning_rate, dtype)
        gradient = ops.cast(gradient, dtype)
        step = ops.cast(self.iterations + 1, dtype)
        beta_1 = ops.cast(self.beta_1, dtype)
        beta_2 = ops.cast(self.beta_2, dtype)
        epsilon = ops.cast(self.epsilon, dtype)
        if self.warmup_steps > 0:
            lr = lr * tf.minimum(step / ops.cast(self.warmup_steps, dtype), 1.0)
        index = self._get_variable_index(variable)
        z = tf_variable(self._momentums[index])
        v = tf_variable(self._velocities[index])
        bias_correction_2 = 1 - tf.pow(beta_2, step)
        self.assign_add(v, ops.multiply(ops.subtract(ops.square(gradient), v), 1 - beta_2))
        denominator = ops.add(ops.sqrt(v / bias_correction_2), epsilon)
        self.assign_sub(z, ops.divide(ops.multiply(lr, gradient), denominator))
        weight = 1.0 / step
        x_old = ops.divide(ops.subtract(variable, ops.multiply(1 - beta_1, z)), beta_1)
        x_new = ops.add(ops.multiply(1 - weight, x_old), ops.multiply(weight, z))
        self.assign(variable, ops.add(ops.multiply(1 - beta_1, z), ops.multiply(beta_1, x_new)))

    def get_config(self):
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon,
                       "warmup_steps": self.warmup_steps})
        return config
