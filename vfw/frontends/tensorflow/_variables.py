"""tf.Variable."""

NAMESPACES = {}
TENSOR_METHODS = {}
