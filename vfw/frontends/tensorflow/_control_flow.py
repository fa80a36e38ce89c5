"""tf.cond, tf.while_loop, tf.case, tf.switch_case, tf.print."""

NAMESPACES = {}
TENSOR_METHODS = {}
