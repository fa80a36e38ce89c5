"""The operations behind KerasTensor operators (``x + 1``, ``x[:, 0]``, ``x.reshape(...)``) in functional models.

Each is an ``Operation`` subclass named as Keras names it (``Add``, ``GetItem``...: the graph shows
``add (Add)``) whose ``call`` applies the tf operator; its output spec comes from a probe run
(``infer_output_spec``).  The classes report Keras' module names (``keras.src.ops.numpy``,
``keras.src.ops.core``) so that model configs serialize them as Keras does; functional configs
resolve them back through ``CLASSES``.
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow.keras.src.backend.dtypes import result_type
from vfw.frontends.tensorflow.keras.src.engine.keras_tensor import KerasTensor
from vfw.frontends.tensorflow.keras.src.engine.operation import Operation


def _reshape(x, newshape):
    return tf.reshape(x, [-1 if d is None else d for d in newshape])


# The keras.ops function each operator applies: the same dtype promotion as ``keras.ops.add`` & co.
# (float32 + float64 -> float64, int8 + uint8 -> int16, a Python scalar takes the tensor's dtype...).
# Resolved on first call, since keras.src.ops imports the engine.
_KERAS_OPS = {
    "Add": "add", "Subtract": "subtract", "Multiply": "multiply", "Matmul": "matmul",
    "TrueDivide": "true_divide", "FloorDivide": "floor_divide", "Mod": "mod", "Power": "power",
    "Negative": "negative", "Absolute": "absolute", "Less": "less", "LessEqual": "less_equal",
    "Greater": "greater", "GreaterEqual": "greater_equal", "NotEqual": "not_equal",
    "LogicalAnd": "logical_and", "LogicalOr": "logical_or", "LogicalXor": "logical_xor",
    "LogicalNot": "logical_not", "Round": "round",
}


def _keras_op(name):
    def call(*args, **kwargs):
        from vfw.frontends.tensorflow.keras.src import ops

        return getattr(ops, name)(*args, **kwargs)

    return call


_CALLS = {
    **{class_name: _keras_op(name) for class_name, name in _KERAS_OPS.items()},
    "GetItem": lambda x, key: x[key],
    "Cast": lambda x, dtype: tf.cast(x, dtype),
    "Reshape": _reshape,
    "Squeeze": lambda x, axis=None: tf.squeeze(x, axis),
}


def broadcast_shapes(shape1, shape2):
    """The broadcast of two shapes whose dims may be None (unknown), as Keras infers it symbolically."""
    shape1, shape2 = list(shape1), list(shape2)
    rank = max(len(shape1), len(shape2))
    padded1 = [1] * (rank - len(shape1)) + shape1
    padded2 = [1] * (rank - len(shape2)) + shape2
    result = []
    for a, b in zip(padded1, padded2):
        if a == 1:
            result.append(b)
        elif a is None:
            result.append(None if b == 1 else b)
        elif b in (1, None, a):
            result.append(a)
        else:
            raise ValueError(f"Cannot broadcast shape, the failure dim has value {a}, which cannot be broadcasted to "
                             f"{b}. Input shapes are: {shape1} and {shape2}.")
    return result


def matmul_shape(shape1, shape2):
    """The shape of ``x1 @ x2`` (numpy's rules for 1-D operands), dims possibly None, as Keras infers it."""
    left = (1, shape1[0]) if len(shape1) == 1 else tuple(shape1)
    right = (shape2[0], 1) if len(shape2) == 1 else tuple(shape2)
    if left[-1] is not None and right[-2] is not None and left[-1] != right[-2]:
        raise ValueError(f"Inner dimensions (`x1.shape[-1]` and `x2.shape[-2]`) must be equal, but received "
                         f"`x1.shape={left}` and `x2.shape={right}`.")
    shape = broadcast_shapes(left[:-2], right[:-2]) + [left[-2], right[-1]]
    if len(shape1) == 1:
        del shape[-2]
    if len(shape2) == 1:
        del shape[-1]
    return tuple(shape)


def _operand_dtype(x):
    """A Python scalar stays its (weak) type for promotion; a tensor-like gives its dtype."""
    return getattr(x, "dtype", type(x))


def _promoted_dtype(x1, x2):
    return result_type(_operand_dtype(x1), _operand_dtype(x2))


def _matmul_dtype(x1, x2):
    int8 = all(getattr(x, "dtype", None) == "int8" for x in (x1, x2))
    return "int32" if int8 else _promoted_dtype(x1, x2)


def _mod_dtype(x1, x2):
    dtype = _promoted_dtype(x1, x2)
    return "int32" if dtype == "bool" else dtype


# Output dtype rules of the elementwise operators (Keras' compute_output_spec; no probe run, so integer
# ``//`` and ``%`` and bool arithmetic build as in Keras and fail, if at all, only when the model runs).
_BINARY_DTYPES = {
    **dict.fromkeys(("Add", "Subtract", "Multiply", "FloorDivide", "Power"), _promoted_dtype),
    "TrueDivide": lambda x1, x2: result_type(_operand_dtype(x1), _operand_dtype(x2), float),
    "Mod": _mod_dtype,
    **dict.fromkeys(("Less", "LessEqual", "Greater", "GreaterEqual", "NotEqual", "LogicalAnd", "LogicalOr",
                     "LogicalXor"), lambda x1, x2: "bool"),
}
_UNARY_DTYPES = {
    **dict.fromkeys(("Negative", "Absolute", "Round"), lambda x: x.dtype),
    "LogicalNot": lambda x: "bool",
}


class TensorOperator(Operation):
    """A tensor operator as a graph operation; ``attributes`` are fixed keyword arguments of the call."""

    function = None

    def __init__(self, name=None, **attributes):
        super().__init__(name=name)
        self.attributes = attributes

    def call(self, *args):
        return type(self).function(*args, **self.attributes)

    def compute_output_spec(self, *args):
        class_name = type(self).__name__
        if class_name in _BINARY_DTYPES:
            x1, x2 = args
            shape = broadcast_shapes(getattr(x1, "shape", ()), getattr(x2, "shape", ()))
            return KerasTensor(shape, dtype=_BINARY_DTYPES[class_name](x1, x2))
        if class_name == "Matmul":
            x1, x2 = args
            return KerasTensor(matmul_shape(x1.shape, x2.shape), dtype=_matmul_dtype(x1, x2))
        if class_name in _UNARY_DTYPES:
            return KerasTensor(args[0].shape, dtype=_UNARY_DTYPES[class_name](args[0]))
        return super().compute_output_spec(*args)


_CORE = ("Cast",)  # in keras.src.ops.core; the others in keras.src.ops.numpy
CLASSES = {name: type(name, (TensorOperator,), {
    "function": staticmethod(fn), "__module__": "keras.src.ops.core" if name in _CORE else "keras.src.ops.numpy"})
    for name, fn in _CALLS.items()}


def apply(class_name, *args, **attributes):
    """Record and return the symbolic result of the operator ``class_name`` on ``args``."""
    # Keras' operators call ``symbolic_call`` directly: shape errors are not wrapped in a call report
    return CLASSES[class_name](**attributes).symbolic_call(*args)
