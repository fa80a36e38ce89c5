"""Comparisons, boolean logic and ``tf.bitwise``: equal ... greater_equal, logical_and/or/xor,
bitwise_and/or/xor, left_shift/right_shift.

All return new tensors without gradients (bool or integer results).  Shapes broadcast like
numpy; shapes that do not raise InvalidArgumentError ("Incompatible shapes"), except through the
``==``/``!=`` operators, which TF2 evaluates with ``incompatible_shape_error=False`` (a scalar
False/True).
"""

import numpy as np

from vfw.frontends.tensorflow._dispatch import call, wrap
from vfw.frontends.tensorflow._math_binary import binary_kernel, raw_binary
from vfw.frontends.tensorflow._op_support import BOOL, OpTypes, check_broadcast, matching, of_dtype

_ALL = "F I U C bool string"
_equal = binary_kernel(OpTypes("Equal", _ALL), "Equal", fast=np.equal)
_less = binary_kernel(OpTypes("Less", "F I U"), "Less", fast=np.less)
_less_equal = binary_kernel(OpTypes("LessEqual", "F I U"), "LessOrEqual", fast=np.less_equal)
_greater = binary_kernel(OpTypes("Greater", "F I U"), "Greater", fast=np.greater)
_greater_equal = binary_kernel(OpTypes("GreaterEqual", "F I U"), "GreaterOrEqual", fast=np.greater_equal)
_NOT_EQUAL = OpTypes("NotEqual", _ALL)

equal = raw_binary("Equal", _equal, "Elementwise ``x == y`` (bool).")
less = raw_binary("Less", _less, "Elementwise ``x < y`` (bool).")
less_equal = raw_binary("LessEqual", _less_equal, "Elementwise ``x <= y`` (bool).")
greater = raw_binary("Greater", _greater, "Elementwise ``x > y`` (bool).")
greater_equal = raw_binary("GreaterEqual", _greater_equal, "Elementwise ``x >= y`` (bool).")


def not_equal(x, y, name=None):
    """Elementwise ``x != y`` (bool)."""
    x, y = matching("NotEqual", x, y, types=_NOT_EQUAL)
    check_broadcast("NotEqual", x.array, y.array)
    return call("Not", call("Equal", x, y, tf_op="NotEqual"))


def compare_any_shape(x, y, negate):
    """``x == y`` (``x != y`` when ``negate``) for tensors of one dtype, as the operators compute it: shapes
    that do not broadcast give a scalar False (True)."""
    if x.array.shape != y.array.shape:
        try:
            np.broadcast_shapes(x.array.shape, y.array.shape)
        except ValueError:
            return wrap(np.asarray(negate))
    return not_equal(x, y) if negate else equal(x, y)


# -- boolean logic -------------------------------------------------------------------------------
def _logical(tf_op, engine_op):
    def fn(x, y, name=None):
        x, y = of_dtype(tf_op, [x, y], BOOL)
        check_broadcast(tf_op, x.array, y.array)
        return call(engine_op, x, y, tf_op=tf_op)

    return fn


logical_and = _logical("LogicalAnd", "And")
logical_and.__doc__ = "Elementwise AND of bool tensors."
logical_or = _logical("LogicalOr", "Or")
logical_or.__doc__ = "Elementwise OR of bool tensors."
_logical_xor = _logical("LogicalOr", "Xor")  # TF builds xor from LogicalOr first: its errors name that op


def logical_xor(x, y, name="LogicalXor"):
    """Elementwise exclusive OR of bool tensors."""
    return _logical_xor(x, y)


# -- bitwise -------------------------------------------------------------------------------------
_BITWISE = "I U"
bitwise_and = raw_binary("BitwiseAnd", binary_kernel(OpTypes("BitwiseAnd", _BITWISE), "BitwiseAnd"),
                         "Elementwise bitwise AND of integer tensors.")
bitwise_or = raw_binary("BitwiseOr", binary_kernel(OpTypes("BitwiseOr", _BITWISE), "BitwiseOr"),
                        "Elementwise bitwise OR of integer tensors.")
bitwise_xor = raw_binary("BitwiseXor", binary_kernel(OpTypes("BitwiseXor", _BITWISE), "BitwiseXor"),
                         "Elementwise bitwise XOR of integer tensors.")


def _shift(tf_op, direction):
    types = OpTypes(tf_op, _BITWISE)

    def fn(x, y, name=None):
        x, y = matching(tf_op, x, y, types=types)
        check_broadcast(tf_op, x.array, y.array)
        # TF shifts by min(max(y, 0), bits - 1).
        bits = x.array.dtype.itemsize * 8
        amount = call("Clip", y, np.asarray(0, y.array.dtype), np.asarray(bits - 1, y.array.dtype))
        return call("BitShift", x, amount, direction=direction, tf_op=tf_op)

    return fn


left_shift = _shift("LeftShift", "LEFT")
left_shift.__doc__ = "Elementwise ``x << y`` (wrapping; shift amounts clamped to [0, bits - 1])."
right_shift = _shift("RightShift", "RIGHT")
right_shift.__doc__ = "Elementwise ``x >> y`` (arithmetic for signed types; amounts clamped to [0, bits - 1])."


NAMESPACES = {
    "tf": ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or"],
    "math": ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and", "logical_or",
             "logical_xor"],
    "bitwise": ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"],
}
TENSOR_METHODS = {}
