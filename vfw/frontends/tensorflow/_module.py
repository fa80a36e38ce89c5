"""tf.Module and name scopes."""

NAMESPACES = {}
TENSOR_METHODS = {}
