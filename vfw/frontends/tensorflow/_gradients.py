"""tf.GradientTape over the engine's tape (minimal: watch, gradient, persistent)."""

from vfw.core import autograd
from vfw.frontends.tensorflow import _dispatch


class GradientTape:
    """Record operations on watched tensors to compute gradients.

    Parameters
    ----------
    persistent : bool
        Allow several ``gradient`` calls.
    watch_accessed_variables : bool
        Watch trainable variables read while recording.
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._tape = autograd.GradientTape(persistent=persistent)
        self._persistent = persistent

    def __enter__(self):
        self._tape.__enter__()
        return self

    def __exit__(self, *exc):
        return self._tape.__exit__(*exc)

    def watch(self, tensor):
        """Record operations on ``tensor`` (a tensor or nested list of tensors)."""
        for t in tensor if isinstance(tensor, (list, tuple)) else [tensor]:
            self._tape.watch(t)

    def gradient(self, target, sources, output_gradients=None):
        """Gradients of ``target`` with respect to ``sources`` (a tensor or list; None where unconnected)."""
        single = not isinstance(sources, (list, tuple))
        grads = self._tape.gradient(target, [sources] if single else list(sources), output_gradients)
        grads = [_dispatch.as_tf(g) for g in grads]
        return grads[0] if single else grads


NAMESPACES = {"tf": ["GradientTape"]}
TENSOR_METHODS = {}
