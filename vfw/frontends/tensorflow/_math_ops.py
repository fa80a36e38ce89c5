"""tf.math: elementwise math, comparisons, logic, reductions, scans, segment ops, clipping; Tensor operators.

The family is split by responsibility into the ``_math_*`` modules; this module gathers their
functions, namespace lists and Tensor methods, so other families import them from here
(``from vfw.frontends.tensorflow._math_ops import top_k``).
"""

from vfw.frontends.tensorflow import (
    _math_binary,
    _math_clip,
    _math_logic,
    _math_operators,
    _math_reduce,
    _math_scan,
    _math_segment,
    _math_unary,
)

_PARTS = (_math_binary, _math_unary, _math_logic, _math_reduce, _math_scan, _math_segment, _math_clip, _math_operators)

NAMESPACES = {}
TENSOR_METHODS = {}
for _part in _PARTS:
    for _namespace, _names in _part.NAMESPACES.items():
        listed = NAMESPACES.setdefault(_namespace, [])
        listed.extend(n for n in _names if n not in listed)
        globals().update({n: getattr(_part, n) for n in _names})
    TENSOR_METHODS.update(_part.TENSOR_METHODS)
