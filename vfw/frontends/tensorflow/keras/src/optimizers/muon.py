"""keras.optimizers.Muon: orthogonalised momentum for 2-D weights, AdamW for everything else."""

import re

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.optimizers import sparse_math as ops
from vfw.frontends.tensorflow.keras.src.optimizers.adam import local_step_power
from vfw.frontends.tensorflow.keras.src.optimizers.base_optimizer import Optimizer, overwrites_with_gradient
from vfw.frontends.tensorflow.keras.src.optimizers.model_variable_updates import tf_variable


class Muon(Optimizer):
    """Muon (Keras 3.15.1): SGD momentum whose update is orthogonalised by Newton-Schulz iterations.

    Which variables get which update (decided once, by ``build``, from the Keras variables):

    - AdamW for every variable that is not 2-D, for variables whose path contains "embedding"
      (any case) when ``exclude_embeddings``, and for variables whose path matches one of the
      regular expressions in ``exclude_layers``; these get ``momentum`` and ``velocity`` slots.
    - Muon for the other 2-D variables (only a ``momentum`` slot):
      ``m = momentum * m + g``; ``u = g + momentum * m`` (``nesterov``) or ``m``;
      ``u = NS(u)`` (``ns_steps`` quintic Newton-Schulz iterations with ``muon_a, muon_b, muon_c`` on
      ``u / (||u||_F + 1e-7)``, transposed so that rows <= columns); ``w -= lr * u * sqrt(max(rows,
      cols)) * rms_rate`` (no scaling when ``rms_rate`` is None).

    The AdamW update uses ``learning_rate * adam_lr_ratio``. Decoupled weight decay ``w -= w * wd * lr``
    (with the unscaled learning rate) uses ``weight_decay`` for Muon variables and ``adam_weight_decay``
    for AdamW ones (None: none).

    Parameters
    ----------
    learning_rate : float, LearningRateSchedule or callable
        Default 0.001.
    adam_beta_1, adam_beta_2 : float
        AdamW's moment decay rates (0.9, 0.999).
    adam_weight_decay : float or None
        Weight decay of the AdamW variables (0.004).
    epsilon : float
        AdamW's epsilon (1e-7).
    weight_decay : float or None
        Weight decay of the Muon variables (0.004).
    exclude_layers : list of str, optional
        Regular expressions: variables whose path matches one use AdamW.
    exclude_embeddings : bool
        Variables with "embedding" in their path use AdamW (True).
    muon_a, muon_b, muon_c : float
        The Newton-Schulz polynomial's coefficients (3.4445, -4.775, 2.0315).
    adam_lr_ratio : float
        AdamW's learning rate relative to ``learning_rate`` (1).
    momentum : float
        Muon's momentum (0.95).
    ns_steps : int
        Newton-Schulz iterations (5).
    nesterov : bool
        Nesterov-style momentum (True).
    rms_rate : float or None
        The update-RMS matching factor of Liu et al. 2025 (0.2).
    clipnorm, clipvalue, global_clipnorm, use_ema, ema_momentum, ema_overwrite_frequency, \
loss_scale_factor, gradient_accumulation_steps, name
        The base ``Optimizer``'s options.
    """

    def __init__(self, learning_rate=0.001, adam_beta_1=0.9, adam_beta_2=0.999, adam_weight_decay=0.004, epsilon=1e-7,
                 weight_decay=0.004, clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, exclude_layers=None, exclude_embeddings=True,
                 muon_a=3.4445, muon_b=-4.7750, muon_c=2.0315, adam_lr_ratio=1, momentum=0.95, ns_steps=5,
                 nesterov=True, rms_rate=0.2, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, weight_decay=weight_decay, clipnorm=clipnorm,
                         clipvalue=clipvalue, global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum, ema_overwrite_frequency=ema_overwrite_frequency,
                         loss_scale_factor=loss_scale_factor, gradient_accumulation_steps=gradient_accumulation_steps,
                         **kwargs)
        self.adam_beta_1 = adam_beta_1
        self.adam_beta_2 = adam_beta_2
        self.epsilon = epsilon
        self.muon_a = muon_a
        self.muon_b = muon_b
        self.muon_c = muon_c
        self.adam_lr_ratio = adam_lr_ratio
        self.momentum = momentum
        self.ns_steps = ns_steps
        self.nesterov = nesterov
        self.exclude_embeddings = exclude_embeddings
        self.exclude_layers = exclude_layers or []
        self.adam_weight_decay = adam_weight_decay
        self.rms_rate = rms_rate

    def _should_use_adamw(self, variable):
        """Whether the Keras variable ``variable`` gets the AdamW update (see the class docstring)."""
        if len(variable.shape) != 2:
            return True
        path = variable.path
        if self.exclude_embeddings and "embedding" in path.lower():
            return True
        return any(re.search(keyword, path) for keyword in self.exclude_layers)

    def build(self, var_list):
        """Create a ``momentum`` slot per variable, followed by a ``velocity`` slot for the AdamW ones."""
        if self.built:
            return
        super().build(var_list)
        self.momentums = [None] * len(var_list)
        self.adam_velocities = [None] * len(var_list)
        for variable in var_list:
            if overwrites_with_gradient(variable):
                continue
            index = self._get_variable_index(variable)
            self.momentums[index] = self.add_variable_from_reference(variable, name="momentum")
            if self._should_use_adamw(variable):
                self.adam_velocities[index] = self.add_variable_from_reference(variable, name="velocity")

    def update_step(self, gradient, variable, learning_rate):
        index = self._get_variable_index(variable)
        m = tf_variable(self.momentums[index])
        v = self.adam_velocities[index]
        if v is not None:  # the variable has a velocity slot: it uses AdamW
            self._adamw_update_step(gradient, variable, learning_rate * self.adam_lr_ratio, m, tf_variable(v))
        else:
            self._muon_update_step(gradient, variable, learning_rate, m)

    def _muon_update_step(self, gradient, variable, learning_rate, m):
        self.assign_add(m, ops.add(gradient, m * (self.momentum - 1)))
        direction = ops.add(gradient, self.momentum * m) if self.nesterov else m
        update = self.zeropower_via_newtonschulz5(tf.convert_to_tensor(direction), self.ns_steps)
        self.assign_sub(variable, self.lr_adjust(learning_rate * update))

    def _adamw_update_step(self, gradient, variable, learning_rate, m, v):
        dtype = variable.dtype
        lr = ops.cast(learning_rate, dtype)
        gradient = ops.cast(gradient, dtype)
        alpha = (lr * ops.sqrt(1 - local_step_power(self, self.adam_beta_2, dtype))
                 / (1 - local_step_power(self, self.adam_beta_1, dtype)))
        self.assign_add(m, ops.multiply(ops.subtract(gradient, m), 1 - self.adam_beta_1))
        self.assign_add(v, ops.multiply(ops.subtract(ops.square(gradient), v), 1 - self.adam_beta_2))
        self.assign_sub(variable, ops.divide(ops.multiply(m, alpha), ops.add(ops.sqrt(v), self.epsilon)))

    def lr_adjust(self, x):
        """``x * sqrt(max(rows, cols)) * rms_rate`` for a 2-D ``x`` (``x`` itself when ``rms_rate`` is None)."""
        if self.rms_rate is None:
            return x
        scale = tf.sqrt(tf.cast(max(int(x.shape[0]), int(x.shape[1])), x.dtype))
        return x * scale * self.rms_rate

    def zeropower_via_newtonschulz5(self, x, steps):
        """The quintic Newton-Schulz approximation of the orthogonal factor of ``x`` (last two axes).

        Raises
        ------
        ValueError
            If ``x`` has fewer than 2 dimensions.
        """
        shape = tuple(x.shape)
        if len(shape) < 2:
            raise ValueError(f"Expected gradient or momentum to have at least 2 dimensions. Received: shape={shape}")
        a, b, c = self.muon_a, self.muon_b, self.muon_c
        tall = shape[-2] > shape[-1]
        if tall:  # iterate on the wide orientation: the Gram matrix is then the smaller one
            x = tf.linalg.matrix_transpose(x)
        frobenius = tf.sqrt(tf.reduce_sum(tf.square(x), axis=(-2, -1), keepdims=True))
        x = x / (frobenius + 1e-7)
        for _ in range(steps):
            gram = tf.matmul(x, tf.linalg.matrix_transpose(x))
            polynomial = b * gram + tf.matmul(c * gram, gram)
            x = a * x + tf.matmul(polynomial, x)
        return tf.linalg.matrix_transpose(x) if tall else x

    def _apply_weight_decay(self, variables):
        for variable in variables:
            if not self._use_weight_decay(variable):  # matched on the Keras variable's name, as Keras' Muon
                continue
            weight_decay = self.adam_weight_decay if self._should_use_adamw(variable) else self.weight_decay
            if weight_decay is None:
                continue
            wd = tf.cast(weight_decay, variable.dtype)
            lr = tf.cast(self.learning_rate, variable.dtype)
            variable.assign(variable - variable * wd * lr)

    def get_config(self):
        config = super().get_config()
        config.update({"adam_beta_1": self.adam_beta_1, "adam_beta_2": self.adam_beta_2, "epsilon": self.epsilon,
                       "exclude_layers": self.exclude_layers, "muon_a": self.muon_a, "muon_b": self.muon_b,
                       "muon_c": self.muon_c, "adam_lr_ratio": self.adam_lr_ratio, "momentum": self.momentum,
                       "ns_steps": self.ns_steps, "nesterov": self.nesterov,
                       "exclude_embeddings": self.exclude_embeddings, "adam_weight_decay": self.adam_weight_decay,
                       "rms_rate": self.rms_rate})
        return config
