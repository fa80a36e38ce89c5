"""``keras.metrics.Metric``: the base class of stateful metrics.

A metric keeps its running state in non-trainable Keras variables (``add_variable``), updates them
in ``update_state`` with tf ops and variable assigns (so updates also work inside tf.function
traces, where ``model.fit`` runs them), and reads them in ``result``. Variables and sub-metrics
assigned as attributes are tracked: ``variables`` lists the metric's own variables, then those of
its sub-metrics.
"""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.engine import naming, tracking
from vfw.frontends.tensorflow.keras.src.engine.variables import StatelessScope, Variable
from vfw.frontends.tensorflow.keras.src.losses import conventions


class Metric:
    """Base class of Keras metrics: subclasses implement ``update_state`` and ``result``.

    Parameters
    ----------
    dtype : str or dtype policy, optional
        The dtype of the state and of ``result()``; ``keras.config.floatx()`` by default.
    name : str, optional
        Defaults to the class name in snake case, made unique (``"precision"``, ``"precision_1"``...).
    """

    # Layers holding a metric in an attribute track it as one of their metrics.
    _keras_tracked_as = "metrics"

    def __init__(self, dtype=None, name=None):
        self.name = name or naming.auto_name(type(self).__name__)
        self._dtype = conventions.compute_dtype(dtype)
        self._metrics = []
        self._variables = []
        self._tracker = tracking.Tracker({
            "variables": (lambda x: isinstance(x, Variable), self._variables),
            "metrics": (lambda x: isinstance(x, Metric), self._metrics),
        })

    def __setattr__(self, name, value):
        # Track variables and sub-metrics assigned as attributes (once __init__ made the tracker).
        if "_tracker" in self.__dict__:
            value = self._tracker.track(value)
        super().__setattr__(name, value)

    @property
    def dtype(self):
        """The dtype name of the metric's state and result."""
        return self._dtype

    @property
    def variables(self):
        """The metric's state variables, then those of its sub-metrics."""
        found = list(self._variables)
        for metric in self._metrics:
            found.extend(metric.variables)
        return found

    def add_variable(self, shape, initializer, dtype=None, aggregation="sum", name=None):
        """A new non-trainable state variable (path ``<metric name>/<name>``).

        Parameters
        ----------
        shape : tuple
        initializer : str, callable or value
            A Keras initializer name or object, or an initial value.
        dtype : str, optional
            Defaults to ``keras.config.floatx()``.
        aggregation : str
            Kept on the variable (one device: no effect).
        name : str, optional
        """
        self._check_super_called()
        with naming.name_scope(self.name.replace("/", ">"), caller=self):
            variable = Variable(initializer=initializer, shape=shape, dtype=dtype, trainable=False,
                                aggregation=aggregation, synchronization="on_read", name=name)
        self._tracker.add_to_store("variables", variable)
        return variable

    def add_weight(self, shape=(), initializer=None, dtype=None, name=None):
        """``add_variable`` under its older name."""
        return self.add_variable(shape=shape, initializer=initializer, dtype=dtype, name=name)

    def update_state(self, *args, **kwargs):
        """Accumulate statistics from one batch (subclasses implement it)."""
        raise NotImplementedError

    def result(self):
        """The metric's value from the accumulated state (subclasses implement it)."""
        raise NotImplementedError

    def reset_state(self):
        """Zero every state variable."""
        for variable in self.variables:
            variable.assign(tf.zeros(variable.shape, dtype=variable.dtype))

    def _check_state_list(self, metric_variables):
        if len(metric_variables) != len(self.variables):
            raise ValueError("Argument `metric_variables` must be a list of tensors corresponding 1:1 to "
                             f"{type(self).__name__}().variables. Received list with length {len(metric_variables)}, "
                             f"but expected {len(self.variables)} variables.")

    def _state_after(self, scope):
        """The variables' values as ``scope`` left them (the variables themselves where it did not assign)."""
        found = []
        for variable in self.variables:
            value = scope.get_current_value(variable)
            found.append(variable if value is None else value)
        return found

    def stateless_update_state(self, metric_variables, *args, **kwargs):
        """The state values ``update_state(*args, **kwargs)`` would leave, starting from ``metric_variables``
        (one value per variable, in ``variables`` order); the variables are left unchanged."""
        self._check_state_list(metric_variables)
        with StatelessScope(state_mapping=list(zip(self.variables, metric_variables))) as scope:
            self.update_state(*args, **kwargs)
        return self._state_after(scope)

    def stateless_result(self, metric_variables):
        """``result()`` for the state values ``metric_variables`` (the variables are not read)."""
        self._check_state_list(metric_variables)
        with StatelessScope(state_mapping=list(zip(self.variables, metric_variables))):
            return self.result()

    def stateless_reset_state(self):
        """The state values ``reset_state()`` would leave; the variables are left unchanged."""
        with StatelessScope() as scope:
            self.reset_state()
        return self._state_after(scope)

    def __call__(self, *args, **kwargs):
        """``update_state(*args, **kwargs)``, then ``result()``."""
        self._check_super_called()
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self):
        """The constructor arguments that rebuild this metric."""
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        """A metric built from ``get_config()``'s dict."""
        return cls(**config)

    def _check_super_called(self):
        if "_tracker" not in self.__dict__:
            raise RuntimeError("You forgot to call `super().__init__()` in the `__init__()` method. Go add it!")

    def _obj_type(self):
        return "Metric"

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}>"

    __str__ = __repr__
