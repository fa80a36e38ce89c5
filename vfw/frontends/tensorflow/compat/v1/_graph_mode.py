"""The TF 1 entry points into graph mode, as clear errors: vfw runs TensorFlow 2 eagerly and has no sessions.

``enable_eager_execution``/``enable_v2_behavior`` are accepted (vfw is always eager, as TF 2 is by default).
Sessions, placeholders, variable scopes and TF 1's optimizers raise NotImplementedError saying what to use.
"""

_EAGER_ONLY = ("vfw runs TensorFlow 2 eagerly and has no TF 1 graph mode (tf.compat.v1.Session, placeholders, "
               "feeds, collections); write the computation as Python functions of tensors, decorated with "
               "tf.function where a graph is wanted")


def _graph_mode_error(api, detail=""):
    return NotImplementedError(f"{api}: {_EAGER_ONLY}{detail}")


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """Accepted: vfw always executes eagerly (its arguments configure nothing vfw has)."""


def enable_v2_behavior():
    """Accepted: vfw always behaves as TensorFlow 2."""


def disable_eager_execution():
    """Not provided: TF would switch to graph mode (symbolic tensors run by a Session).

    Raises
    ------
    NotImplementedError
        Always.
    """
    raise _graph_mode_error("tf.compat.v1.disable_eager_execution")


def disable_v2_behavior():
    """Not provided: TF would switch every TF 2 behaviour to TF 1's.

    Raises
    ------
    NotImplementedError
        Always.
    """
    raise _graph_mode_error(
        "tf.compat.v1.disable_v2_behavior",
        ". Besides graph mode, TensorFlow would also switch to TF 1 behaviours vfw does not have: "
        "TensorShapes of Dimension objects, reference (non-resource) variables, v1 control flow, tensors "
        "compared by identity under ==, and tf.data's v1 Datasets")


def executing_eagerly_outside_functions():
    """bool: True (vfw's outermost context is always eager)."""
    return True


def placeholder(dtype, shape=None, name=None):
    """Not provided: placeholders are fed by ``Session.run``. Pass tensors to a (``tf.function``) function."""
    raise _graph_mode_error("tf.compat.v1.placeholder")


class Session:
    """Not provided: ``tf.compat.v1.Session`` runs TF 1 graphs (its ``config`` may be a ``ConfigProto``).

    Raises
    ------
    NotImplementedError
        On construction.
    """

    def __init__(self, target="", graph=None, config=None):
        raise _graph_mode_error(f"tf.compat.v1.{type(self).__name__}")


class InteractiveSession(Session):
    """Not provided: see :class:`Session`."""


def _scoped_variables_error(api):
    return NotImplementedError(f"{api}: TF 1 variable scopes and variable sharing by name are not provided by "
                               "vfw; create tf.Variable objects (or use Keras layers) instead")


def variable_scope(name_or_scope, *args, **kwargs):
    """Not provided (TF 1 variable sharing): raises NotImplementedError."""
    raise _scoped_variables_error("tf.compat.v1.variable_scope")


def get_variable(name, *args, **kwargs):
    """Not provided (TF 1 variable sharing): raises NotImplementedError."""
    raise _scoped_variables_error("tf.compat.v1.get_variable")


# TF 1's optimizers -> the Keras optimizer a TF 2 program uses instead.
_KERAS_OPTIMIZERS = {
    "Optimizer": "Optimizer",
    "GradientDescentOptimizer": "SGD",
    "MomentumOptimizer": "SGD (momentum=...)",
    "AdamOptimizer": "Adam",
    "AdagradOptimizer": "Adagrad",
    "AdagradDAOptimizer": "Adagrad",
    "AdadeltaOptimizer": "Adadelta",
    "RMSPropOptimizer": "RMSprop",
    "FtrlOptimizer": "Ftrl",
    "ProximalGradientDescentOptimizer": "SGD",
    "ProximalAdagradOptimizer": "Adagrad",
}


def _tf1_optimizer(name):
    def refuse(self, *args, **kwargs):
        raise NotImplementedError(f"tf.compat.v1.train.{name}: TF 1 optimizers (minimize of a loss tensor, "
                                  "global steps, slot variables in collections) are not provided by vfw; use "
                                  f"tf.keras.optimizers.{_KERAS_OPTIMIZERS[name]} with tf.GradientTape")

    return type(name, (), {"__init__": refuse, "__doc__": f"Not provided: TF 1's ``{name}``."})


TF1_OPTIMIZERS = {name: _tf1_optimizer(name) for name in _KERAS_OPTIMIZERS}
