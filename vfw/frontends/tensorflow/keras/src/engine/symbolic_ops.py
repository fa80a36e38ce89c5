"""The operations behind KerasTensor operators (``x + 1``, ``x[:, 0]``, ``x.reshape(...)``) in functional models.

Each is an ``Operation`` subclass named as Keras names it (``Add``, ``GetItem``...: the graph shows
``add (Add)``) whose ``call`` applies the tf operator; its output spec comes from a probe run
(``infer_output_spec``).  The classes report Keras' module names (``keras.src.ops.numpy``,
``keras.src.ops.core``) so that model configs serialize them as Keras does; functional configs
resolve them back through ``CLASSES``.
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.engine.operation import Operation


def _reshape(x, newshape):
    return tf.reshape(x, [-1 if d is None else d for d in newshape])


def _round(x, decimals=0):
    if not decimals:
        return tf.round(x)
    scale = tf.cast(10.0 ** decimals, x.dtype)
    return tf.round(x * scale) / scale


_CALLS = {
    "Add": lambda x, y: x + y,
    "Subtract": lambda x, y: x - y,
    "Multiply": lambda x, y: x * y,
    "Matmul": lambda x, y: x @ y,
    "TrueDivide": lambda x, y: x / y,
    "FloorDivide": lambda x, y: x // y,
    "Mod": lambda x, y: x % y,
    "Power": lambda x, y: x ** y,
    "Negative": lambda x: -x,
    "Absolute": lambda x: abs(x),
    "Less": lambda x, y: x < y,
    "LessEqual": lambda x, y: x <= y,
    "Greater": lambda x, y: x > y,
    "GreaterEqual": lambda x, y: x >= y,
    "NotEqual": lambda x, y: tf.not_equal(x, y),
    "LogicalAnd": lambda x, y: tf.logical_and(x, y),
    "LogicalOr": lambda x, y: tf.logical_or(x, y),
    "LogicalXor": lambda x, y: tf.math.logical_xor(x, y),
    "LogicalNot": lambda x: tf.logical_not(x),
    "GetItem": lambda x, key: x[key],
    "Round": _round,
    "Cast": lambda x, dtype: tf.cast(x, dtype),
    "Reshape": _reshape,
    "Squeeze": lambda x, axis=None: tf.squeeze(x, axis),
}


class TensorOperator(Operation):
    """A tensor operator as a graph operation; ``attributes`` are fixed keyword arguments of the call."""

    function = None

    def __init__(self, name=None, **attributes):
        super().__init__(name=name)
        self.attributes = attributes

    def call(self, *args):
        return type(self).function(*args, **self.attributes)


_CORE = ("Cast",)  # in keras.src.ops.core; the others in keras.src.ops.numpy
CLASSES = {name: type(name, (TensorOperator,), {
    "function": staticmethod(fn), "__module__": "keras.src.ops.core" if name in _CORE else "keras.src.ops.numpy"})
    for name, fn in _CALLS.items()}


def apply(class_name, *args, **attributes):
    """Record and return the symbolic result of the operator ``class_name`` on ``args``."""
    return CLASSES[class_name](**attributes)(*args)
