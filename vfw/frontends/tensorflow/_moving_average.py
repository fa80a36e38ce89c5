"""tf.train.ExponentialMovingAverage: shadow variables that follow variables with exponential decay.

``apply(var_list)`` makes, for each variable not seen before, a non-trainable shadow variable initialised to the
variable's current value and named ``<variable name>/<ema name>`` (made unique across the program as TF's variable
scopes are: ``w/ExponentialMovingAverage_1`` for a second average of ``w``), then moves every shadow towards its
variable: ``shadow -= (shadow - variable) * (1 - decay)``, with TF's arithmetic (the decay a float32 tensor,
``min(decay, (1 + num_updates) / (10 + num_updates))`` when ``num_updates`` is given, ``1 - decay`` computed in
float32 and cast to the variable's dtype).  The updates are tf ops (assign_sub), so they run at every call of a
tf.function; a shadow made while a tf.function is traced starts from the variable's value before the call, as TF's
lifted initializer does.  As in TF's eager mode, plain tensors cannot be averaged.
"""

import numpy as np

from vfw.core.graph.trace import current_trace
from vfw.frontends.tensorflow import _dtypes
from vfw.frontends.tensorflow._context_ops import init_scope, inside_function
from vfw.frontends.tensorflow._creation import cast, convert_to_tensor
from vfw.frontends.tensorflow._math_binary import minimum, multiply, subtract
from vfw.frontends.tensorflow._variables import Variable

_AVERAGED_DTYPES = (_dtypes.float16, _dtypes.bfloat16, _dtypes.float32, _dtypes.float64)
_names_in_use = {}  # the scope names given to shadow variables so far (lower-cased), as TF counts them
_moving_average_variables = []  # TF's MOVING_AVERAGE_VARIABLES collection: variables averaged eagerly


def _unique_name(name):
    """``name``, or ``name_<i>`` with the first free ``i`` (TF's variable-scope default names, case-insensitive)."""
    key = name.lower()
    count = _names_in_use.get(key, 0)
    _names_in_use[key] = count + 1
    if count == 0:
        return name
    while f"{key}_{count}" in _names_in_use:
        count += 1
    _names_in_use[f"{key}_{count}"] = 1
    return f"{name}_{count}"


def _tf_variable(var):
    """The tf.Variable of ``var`` (a Keras variable holds it in ``.value``); TypeError for anything else."""
    if isinstance(var, Variable):
        return var
    inner = getattr(var, "value", None)
    if isinstance(inner, Variable):
        return inner
    raise TypeError("tf.train.ExponentialMovingAverage does not support non-Variable tensors when eager execution "
                    "is enabled.")


def _value_before_call(var):
    """``var``'s value, or while a tf.function is traced, its value when the call began (the array the trace
    captured before any write): TF runs a shadow's lifted initializer before the function."""
    trace = current_trace()
    if trace is not None:
        for name, captured in trace.captures.items():
            if captured is var._storage:
                return np.array(trace._capture_arrays[name])
    return var.numpy()


def _base_name(var):
    return var.name.split(":")[0]


class ExponentialMovingAverage:
    """Maintains moving averages of variables.

    Parameters
    ----------
    decay : float, Tensor or Variable
        The decay (read at every ``apply``), usually close to 1 (0.999).
    num_updates : int, Tensor or Variable, optional
        When given, the decay used is ``min(decay, (1 + num_updates) / (10 + num_updates))``.
    zero_debias : bool
        TF debiases averages of plain tensors only, which eager code cannot average: no effect on variables.
    name : str
        The suffix of the shadow variables' names.
    """

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        self._decay = decay
        self._num_updates = num_updates
        self._zero_debias = zero_debias
        self._name = name
        self._averages = {}  # variable ref -> shadow variable

    @property
    def name(self):
        """str: the name given at construction."""
        return self._name

    def _effective_decay(self):
        decay = convert_to_tensor(self._decay, dtype=_dtypes.float32)
        if self._num_updates is not None:
            count = cast(self._num_updates, _dtypes.float32)
            decay = minimum(decay, (1.0 + count) / (10.0 + count))
        return decay

    def apply(self, var_list=None):
        """Make shadow variables for the new variables of ``var_list`` and update every shadow of the list.

        Parameters
        ----------
        var_list : list of Variable
            Variables of dtype float16, bfloat16, float32 or float64 (None: no variables, as TF's eager mode, which
            has no collection of trainable variables).

        Returns
        -------
        None
            Eager updates happen at once (under tf.function they are graph state updates).

        Raises
        ------
        TypeError
            For a tensor that is not a variable, or a variable of another dtype.
        """
        variables = [_tf_variable(v) for v in (var_list if var_list is not None else [])]
        for var in variables:
            if var.dtype.base_dtype not in _AVERAGED_DTYPES:
                raise TypeError(f"The variables must be half, float, or double: {var.name}")
            if var.ref() not in self._averages:
                initial = _value_before_call(var)
                with init_scope():
                    shadow = Variable(initial, trainable=False,
                                      name=_unique_name(f"{_base_name(var)}/{self._name}"))
                self._averages[var.ref()] = shadow
                if not inside_function():
                    _moving_average_variables.append(var)
        if not variables:
            return None
        one_minus_decay = 1.0 - self._effective_decay()
        for var in variables:
            shadow = self._averages[var.ref()]
            rate = cast(one_minus_decay, var.dtype)
            shadow.assign_sub(multiply(subtract(shadow, var), rate))
        return None

    def average(self, var):
        """Variable or None: the shadow variable of ``var``."""
        try:
            key = _tf_variable(var).ref()
        except TypeError:
            return None
        return self._averages.get(key)

    def average_name(self, var):
        """str: the name of ``var``'s shadow variable without ``:0`` (the name one would get when it has none)."""
        shadow = self.average(var)
        if shadow is not None:
            return _base_name(shadow)
        return f"{_base_name(_tf_variable(var))}/{self._name}"

    def variables_to_restore(self, moving_avg_variables=None):
        """dict: shadow-variable name -> variable, to restore averages into the variables themselves.

        Parameters
        ----------
        moving_avg_variables : list of Variable, optional
            Default: every variable averaged eagerly so far (TF's ``MOVING_AVERAGE_VARIABLES`` collection; eager TF
            has no global or trainable variable collections to add).
        """
        if moving_avg_variables is None:
            moving_avg_variables = _moving_average_variables
        unique = {}
        for var in moving_avg_variables:
            unique.setdefault(_tf_variable(var).ref(), _tf_variable(var))
        return {self.average_name(var): var for var in unique.values()}


NAMESPACES = {"train": ["ExponentialMovingAverage"]}
TENSOR_METHODS = {}
