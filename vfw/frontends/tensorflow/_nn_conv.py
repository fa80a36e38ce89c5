"""tf.nn convolutions, pooling and normalization."""

NAMESPACES = {}
TENSOR_METHODS = {}
