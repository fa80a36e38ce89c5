"""tf.math: elementwise math, comparisons, logic, reductions, segment ops, clipping; Tensor operators."""

import numpy as np

from vfw.frontends.tensorflow._dispatch import call, convert_to_tensor, operands


def _binary(engine_op, tf_op):
    def fn(x, y, name=None):
        x, y = operands(x, y, tf_op)
        return call(engine_op, x, y, tf_op=tf_op)
    return fn


add = _binary("Add", "AddV2")
subtract = _binary("Sub", "Sub")
multiply = _binary("Mul", "Mul")


def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    """Sum over ``axis`` (all axes when None)."""
    x = convert_to_tensor(input_tensor)
    axes = np.arange(x.array.ndim, dtype=np.int64) if axis is None else np.asarray(axis, np.int64).reshape(-1)
    return call("ReduceSum", x, axes, keepdims=int(keepdims), tf_op="Sum")


def _reflected(fn):
    return lambda self, other: fn(other, self)


NAMESPACES = {"tf": ["add", "subtract", "multiply", "reduce_sum"],
              "math": ["add", "subtract", "multiply", "reduce_sum"]}
TENSOR_METHODS = {"__add__": add, "__radd__": _reflected(add), "__sub__": subtract, "__rsub__": _reflected(subtract),
                  "__mul__": multiply, "__rmul__": _reflected(multiply)}
