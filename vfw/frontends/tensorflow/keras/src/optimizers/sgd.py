"""keras.optimizers.SGD: gradient descent with optional (Nesterov) momentum."""

from vfw.frontends.tensorflow.keras.src.optimizers import sparse_math as ops
from vfw.frontends.tensorflow.keras.src.optimizers.base_optimizer import Optimizer


class SGD(Optimizer):
    """Gradient descent: ``w -= lr * g``; with momentum ``v = momentum * v - lr * g; w += v`` (Nesterov:
    ``w += momentum * v - lr * g`` with the new ``v``).

    Parameters
    ----------
    learning_rate : float, LearningRateSchedule or callable
        Default 0.01.
    momentum : float
        In [0, 1] (default 0.0: no momentum slots).
    nesterov : bool
    **kwargs
        The base ``Optimizer``'s options (``weight_decay``, ``clipnorm``, ``use_ema``..., ``name``).

    Raises
    ------
    ValueError
        If ``momentum`` is not a float in [0, 1].
    """

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        if not isinstance(momentum, float) or momentum < 0 or momentum > 1:
            raise ValueError("`momentum` must be a float between [0, 1].")
        self.momentum = momentum
        self.nesterov = nesterov

    def build(self, variables):
        """Create the ``momentum`` slots (only when ``momentum`` is not 0)."""
        if self.built:
            return
        super().build(variables)
        self.momentums = self.add_optimizer_variables(variables, "momentum", 0.0) if self.momentum != 0 else []

    def update_step(self, gradient, variable, learning_rate):
        lr = ops.cast(learning_rate, variable.dtype)
        gradient = ops.cast(gradient, variable.dtype)
        if self.momentum == 0:
            self.assign_sub(variable, ops.multiply(gradient, lr))
            return
        velocity = self.momentums[self._get_variable_index(variable)]
        momentum = ops.cast(self.momentum, variable.dtype)
        self.assign(velocity, ops.subtract(ops.multiply(velocity, momentum), ops.multiply(gradient, lr)))
        if self.nesterov:
            self.assign_add(variable, ops.subtract(ops.multiply(velocity, momentum), ops.multiply(gradient, lr)))
        else:
            self.assign_add(variable, velocity)

    def get_config(self):
        config = super().get_config()
        config.update({"momentum": self.momentum, "nesterov": self.nesterov})
        return config
