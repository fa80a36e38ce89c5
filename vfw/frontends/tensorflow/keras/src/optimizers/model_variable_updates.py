"""What Keras 3's optimizers do to the model variables besides ``update_step``: decoupled weight decay and the
exponential moving average (EMA) of the model variables (``use_ema``).

``ModelVariableUpdates`` is a base of ``Optimizer`` (``base_optimizer.py``), which owns the state these methods
use: ``weight_decay``, ``learning_rate``, ``iterations``, ``ema_momentum``, ``_model_variables_moving_average``
(made by ``build``) and ``_var_key``.
"""

import re

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.engine.variables import Variable


def tf_variable(variable):
    """The tf.Variable behind a ``keras.Variable``, or ``variable`` itself (a tf.Variable)."""
    return variable._tf_variable if isinstance(variable, Variable) else variable


class ModelVariableUpdates:
    """Weight decay and EMA of the model variables, for ``Optimizer``."""

    # -- weight decay -----------------------------------------------------------------------------
    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        """Exclude variables from weight decay: those in ``var_list``, and those whose name contains one of
        the strings (regular expressions) in ``var_names``."""
        self._exclude_from_weight_decay = {self._var_key(v) for v in var_list or ()}
        self._exclude_from_weight_decay_pattern = re.compile("|".join(set(var_names))) if var_names else None
        self._exclude_from_weight_decay_cache = {}

    def _use_weight_decay(self, variable):
        key = self._var_key(variable)
        cache = self.__dict__.setdefault("_exclude_from_weight_decay_cache", {})
        if key not in cache:
            pattern = getattr(self, "_exclude_from_weight_decay_pattern", None)
            excluded = key in getattr(self, "_exclude_from_weight_decay", ()) or (
                pattern is not None and pattern.search(variable.name) is not None)
            cache[key] = not excluded
        return cache[key]

    def _apply_weight_decay(self, variables):
        if self.weight_decay is None:
            return
        for variable in variables:
            variable = tf_variable(variable)  # Keras on TF matches names against the tf.Variable's
            if self._use_weight_decay(variable):
                lr = tf.cast(self.learning_rate, variable.dtype)
                wd = tf.cast(self.weight_decay, variable.dtype)
                variable.assign_sub(variable * wd * lr)

    # -- moving average of the model variables ------------------------------------------------------
    def _update_model_variables_moving_average(self, trainable_variables):
        for variable, average in zip(trainable_variables, self._model_variables_moving_average):
            if average is None:
                continue
            variable, average = tf_variable(variable), tf_variable(average)
            # The first update copies the variable; later ones blend with ema_momentum.
            not_first_step = tf.cast(tf.not_equal(self.iterations, 0), variable.dtype)
            momentum = tf.multiply(not_first_step, self.ema_momentum)
            average.assign(tf.add(tf.multiply(momentum, average), tf.multiply(tf.subtract(1, momentum), variable)))

    def _overwrite_model_variables_with_average_value(self, trainable_variables):
        if len(trainable_variables) != len(self._model_variables_moving_average):
            raise ValueError(f"The length of model variables ({len(trainable_variables)}) to override does not match "
                             "the length of model variables stored in the optimizer "
                             f"({len(self._model_variables_moving_average)}). Please check if the optimizer was "
                             "called on your model.")
        for variable, average in zip(trainable_variables, self._model_variables_moving_average):
            if average is not None:
                tf_variable(variable).assign(average)

    def finalize_variable_values(self, var_list):
        """End of training: with ``use_ema``, write the moving averages into the model variables ``var_list``."""
        if self.use_ema:
            self._overwrite_model_variables_with_average_value(var_list)
