"""``tf.autodiff.ForwardAccumulator``: Jacobian-vector products of everything computed in its context.

vfw's engine differentiates in reverse only, so a JVP is obtained from two reverse passes: the context records
the computation on a persistent tape watching the primals; ``jvp(y)`` takes the vector-Jacobian product
``u -> u^T J`` of ``y`` (linear in the cotangent ``u``) under a second tape and differentiates ``<u^T J,
tangents>`` with respect to ``u``, which is ``J @ tangents``.  Results equal forward-mode ones; the cost is about
two backward passes per requested output.
"""

import vfw.frontends.tensorflow as tf
from vfw.frontends.tensorflow import nest
from vfw.frontends.tensorflow._gradients import GradientTape, UnconnectedGradients, _unconnected_mode


class ForwardAccumulator:
    """Computes Jacobian-vector products of the ops run inside its ``with`` block.

    Parameters
    ----------
    primals : tensor or variable, or a nested structure of them
        The inputs the products are taken with respect to (watched inside the block).
    tangents : same structure as ``primals``
        The direction vector.
    """

    def __init__(self, primals, tangents):
        nest.assert_same_structure(primals, tangents)
        self._primals = nest.flatten(primals)
        self._tangents = [tf.convert_to_tensor(t) for t in nest.flatten(tangents)]
        self._tape = GradientTape(persistent=True, watch_accessed_variables=False)

    def __enter__(self):
        self._tape.__enter__()
        for primal in self._primals:
            self._tape.watch(primal)
        return self

    def __exit__(self, *exc_info):
        return self._tape.__exit__(*exc_info)

    def _jvp_of(self, target, mode):
        cotangent = tf.zeros_like(target)
        with GradientTape() as outer:
            outer.watch(cotangent)
            pulled = self._tape.gradient(target, self._primals, output_gradients=cotangent)
            terms = [tf.reduce_sum(g * t) for g, t in zip(pulled, self._tangents) if g is not None]
            if not terms:
                return tf.zeros_like(target) if mode is UnconnectedGradients.ZERO else None
            total = terms[0]
            for term in terms[1:]:
                total = total + term
        product = outer.gradient(total, cotangent)
        return tf.zeros_like(target) if product is None else product

    def jvp(self, primals, unconnected_gradients=UnconnectedGradients.NONE):
        """``J @ tangents`` for each tensor of ``primals`` (a nested structure computed in the block): same
        structure; None (``UnconnectedGradients.NONE``) or zeros (``ZERO``) where a tensor does not depend on
        the accumulator's primals."""
        mode = _unconnected_mode(unconnected_gradients)
        return nest.pack_sequence_as(primals, [self._jvp_of(t, mode) for t in nest.flatten(primals)])


NAMESPACES = {"autodiff": ["ForwardAccumulator"]}
TENSOR_METHODS = {}
