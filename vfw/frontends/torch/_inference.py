"""Inference tensors: what ``torch.inference_mode()`` makes, and the errors torch raises for them outside it.

A tensor allocated while an ``inference_mode()`` block is active in its thread (a factory's result,
an op's result) is an inference tensor; a view or detached alias is one exactly when the tensor
whose memory it shares is.  Outside inference mode torch refuses to save an inference tensor for
backward, to write into one in place, and to make one require grad.

The mark costs nothing on the eager hot paths: it lives in the tensor's ``__dict__`` (created only
for inference tensors; the class attribute ``Tensor._inference`` is False), and while a block is
active a marker sits in the graph tracer's list of active traces, which switches every fast path
off (they all check that list), so each new tensor comes through ``_dispatch.call`` /
``_dispatch.new_tensor``, which mark it (their mark is behind the same, almost always false, check).
"""

import threading

from vfw.core.graph.trace import _active as _slow_paths


class _InferenceState(threading.local):
    """Whether an ``inference_mode()`` block is active in this thread."""

    def __init__(self):
        self.enabled = False


state = _InferenceState()

ever_enabled = False
"""Whether any thread has entered inference mode: before that no inference tensor exists, so recorded ops skip
the check of their saved inputs."""


class _FastPathsOff:
    """The marker ``inference_mode`` puts in the tracer's active list: not a trace (``current_trace()`` stays
    None), it only makes the fast paths, which create tensors without marking them, step aside."""

    __slots__ = ()


_MARKER = _FastPathsOff()

SAVED_FOR_BACKWARD = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
    "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use "
    "it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")
INPLACE_UPDATE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal "
    "tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.")
REQUIRES_GRAD = "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."


def enter(enabled):
    """Set this thread's inference mode to ``enabled``; returns the previous state for :func:`leave`."""
    global ever_enabled
    previous = state.enabled
    state.enabled = bool(enabled)
    if state.enabled:
        ever_enabled = True
        _slow_paths.append(_MARKER)
    return previous


def leave(previous):
    """Undo the matching :func:`enter`."""
    if state.enabled:
        _slow_paths.remove(_MARKER)
    state.enabled = previous


def mark(result):
    """Mark the torch tensor(s) ``result`` (a tensor, or a tuple holding tensors/None) as inference tensors
    when inference mode is on in this thread."""
    if not state.enabled:
        return
    for t in result if type(result) is tuple else (result,):
        if t is not None and hasattr(t, "__dict__"):
            t._inference = True


def share_mark(root, alias):
    """Give ``alias`` (a view or detached alias of ``root``'s memory) ``root``'s inference mark."""
    if root._inference:
        alias._inference = True
    elif alias._inference:
        del alias.__dict__["_inference"]


def check_write():
    """Refuse an in-place write into an inference tensor outside inference mode (torch's RuntimeError)."""
    if not state.enabled:
        raise RuntimeError(INPLACE_UPDATE)


def is_refusal(error):
    """Whether ``error`` is the refusal to save an inference tensor (code catching the engine's shape errors
    around a recorded op lets it through)."""
    return error.args == (SAVED_FOR_BACKWARD,)


def check_saved(inputs, positions):
    """Refuse recording a node that saves an inference tensor (``inputs[i]`` for ``i`` in ``positions``)."""
    for i in positions:
        if getattr(inputs[i], "_inference", False):
            raise RuntimeError(SAVED_FOR_BACKWARD)
