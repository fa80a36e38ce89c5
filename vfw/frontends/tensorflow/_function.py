"""tf.function: tracing to the engine's graph executor."""

NAMESPACES = {}
TENSOR_METHODS = {}
