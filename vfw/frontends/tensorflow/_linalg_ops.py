"""tf.linalg."""

NAMESPACES = {}
TENSOR_METHODS = {}
