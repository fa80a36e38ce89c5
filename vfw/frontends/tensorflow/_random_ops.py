"""tf.random."""

NAMESPACES = {}
TENSOR_METHODS = {}
