"""keras.ops.jvp (also keras.ops.linalg.jvp): forward-mode Jacobian-vector products through
``tf.autodiff.ForwardAccumulator``, as Keras' TensorFlow backend computes them."""

import vfw.tensorflow as tf
from vfw.frontends.tensorflow import nest


def jvp(fun, primals, tangents, has_aux=False):
    """``(fun(*primals), J @ tangents)`` (and ``fun``'s auxiliary output when ``has_aux``).

    Parameters
    ----------
    fun : callable
        Takes ``len(primals)`` positional arguments; returns a tensor or a structure of tensors (with
        ``has_aux``, a pair ``(output, aux)``).
    primals, tangents : tuple or list
        The arguments and their tangents (same structure and shapes).
    has_aux : bool

    Returns
    -------
    tuple
        ``(primals_out, tangents_out)`` or ``(primals_out, tangents_out, aux)``; ``tangents_out`` has
        ``primals_out``'s structure (None where an output does not depend on the primals).
    """
    with tf.autodiff.ForwardAccumulator(nest.flatten(primals), nest.flatten(tangents)) as accumulator:
        result = fun(*primals)
    if has_aux:
        result, aux = result
        return result, accumulator.jvp(result), aux
    return result, accumulator.jvp(result)
