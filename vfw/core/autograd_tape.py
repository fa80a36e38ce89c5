"""``GradientTape``: TensorFlow's model of autograd, a window over the engine's recorded graph.

A tape marks the tensors it watches as requiring grad while it is open and only follows the nodes
(:class:`~vfw.core.autograd.Node`) created while it was recording: their creation numbers lie
between the tape's first and last numbers.  With another tape open, gradients are recorded in turn
(``create_graph``), so an outer tape differentiates an inner one's gradient (higher order).
"""

import threading

from vfw.core.autograd import GraphReleasedError, _counter, gradient, is_differentiable_dtype, is_grad_enabled
from vfw.core.errors import DTypeError, OpInputError
from vfw.core.tensor import Tensor


class _OpenTapes(threading.local):
    """The tapes open in this thread, innermost last."""

    def __init__(self):
        self.tapes = []


_open = _OpenTapes()


class GradientTape:
    """Record operations for differentiation, TensorFlow style.

    Parameters
    ----------
    persistent : bool
        Allow several :meth:`gradient` calls (a non-persistent tape allows one).

    Notes
    -----
    Only nodes created while the tape records are followed; tensors watched
    with :meth:`watch` require grad while the tape is open.
    """

    def __init__(self, persistent=False):
        self.persistent = persistent
        self._first = None
        self._last = None
        self._watched = []
        self._used = False

    def __enter__(self):
        self._first = next(_counter)
        self._last = None
        _open.tapes.append(self)
        return self

    def __exit__(self, *exc):
        self._last = next(_counter)
        _open.tapes.remove(self)
        for t, prev in self._watched:
            t.requires_grad = prev
        self._watched = []
        return False

    @property
    def recording(self):
        """bool: whether the tape is open."""
        return self._first is not None and self._last is None

    def watch(self, tensor):
        """Make ``tensor`` (a float :class:`Tensor`) differentiable for this tape."""
        if not isinstance(tensor, Tensor):
            raise DTypeError(f"GradientTape.watch: expected a Tensor, got {type(tensor).__name__}")
        if is_differentiable_dtype(tensor.array.dtype) and not tensor.requires_grad:
            self._watched.append((tensor, tensor.requires_grad))
            tensor.requires_grad = True

    def gradient(self, target, sources, output_gradients=None):
        """Gradients of ``target`` (tensor or list) with respect to ``sources`` (list).

        Returns
        -------
        list[Tensor or None]
        """
        if self._first is None:
            raise OpInputError("GradientTape.gradient: the tape was never opened")
        if self._used and not self.persistent:
            raise GraphReleasedError("A non-persistent GradientTape can only be used to compute one set of "
                                     "gradients (or jacobians)")
        self._used = True
        outer = [t for t in _open.tapes if t is not self]
        targets = [target] if isinstance(target, Tensor) else list(target)
        if output_gradients is not None and isinstance(output_gradients, Tensor):
            output_gradients = [output_gradients]
        last = self._last if self._last is not None else float("inf")
        # With no other tape open, nothing else can need the saved values: free them as backward goes.
        return gradient(targets, sources, output_gradients, retain_graph=self.persistent or bool(outer),
                        create_graph=bool(outer) and is_grad_enabled(), first_seq=self._first, last_seq=last)

    def reset(self):
        """Forget what was recorded so far (the tape keeps recording from now)."""
        self._first = next(_counter)
        self._used = False
