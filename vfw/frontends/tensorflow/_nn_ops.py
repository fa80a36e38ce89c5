"""tf.nn activations, softmax, cross entropies, moments, dropout, embedding lookup."""

NAMESPACES = {}
TENSOR_METHODS = {}
