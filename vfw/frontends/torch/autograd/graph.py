"""``torch.autograd.graph``: the saved-tensor hook contexts and ``increment_version``.

Inside ``saved_tensors_hooks(pack, unpack)`` every node recorded packs the tensors torch's node would save
(``vfw/frontends/torch/_saved_tensors.py``); backward reads ``unpack(packed)`` (innermost context wins; the
engine's own reference stays, so packing frees no memory). ``save_on_cpu`` keeps saved tensors where vfw's tensors
already live (the CPU). ``disable_saved_tensors_hooks`` makes entering any saved-tensor hook context raise its
message, as in torch.

``Node`` is the abstract class of ``grad_fn`` objects (vfw's ``grad_fn`` classes and ``AccumulateGrad`` are
registered as its virtual subclasses), ``GradientEdge``/``get_gradient_edge`` name where a tensor's gradient
flows, and ``register_multi_grad_hook`` calls one function per backward pass for a group of tensors.
"""

import abc
from typing import Any, NamedTuple

from vfw.core import autograd as _autograd
from vfw.frontends.torch import _dispatch, _saved_tensors
from vfw.frontends.torch._grad_fn import AccumulateGrad, GradFn

__all__ = ["saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "increment_version", "Node",
           "GradientEdge", "get_gradient_edge", "register_multi_grad_hook", "allow_mutation_on_saved_tensors"]

_disabled_messages = []  # the messages of the open disable_saved_tensors_hooks blocks, innermost last
_hook_pairs = []  # the (pack, unpack) pairs of the open saved_tensors_hooks blocks, innermost last


def _pack_recorded(node):
    """The engine's record hook while a ``saved_tensors_hooks`` block is open: pack what ``node`` saves."""
    _saved_tensors.pack_node(node, *_hook_pairs[-1])


class saved_tensors_hooks:  # noqa: N801  (torch's name)
    """Context manager installing ``pack_hook``/``unpack_hook`` for the tensors saved for backward.

    Parameters
    ----------
    pack_hook : callable
        ``pack_hook(tensor) -> object`` when an op saves ``tensor``.
    unpack_hook : callable
        ``unpack_hook(object) -> Tensor`` when backward needs it back.
    """

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def _check_enabled(self):
        if _disabled_messages:
            raise RuntimeError(_disabled_messages[-1])

    def __enter__(self):
        self._check_enabled()
        _hook_pairs.append((self.pack_hook, self.unpack_hook))
        _autograd.record_hook = _pack_recorded
        return self

    def __exit__(self, *exc_info):
        _hook_pairs.pop()
        if not _hook_pairs:
            _autograd.record_hook = None
        return False


class save_on_cpu(saved_tensors_hooks):  # noqa: N801
    """Keep the tensors saved for backward in CPU memory (``pin_memory`` accepted): vfw's tensors are there, so its
    hooks pass tensors through."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        super().__init__(lambda tensor: tensor, lambda tensor: tensor)
        self.pin_memory = pin_memory
        self.device_type = device_type


class disable_saved_tensors_hooks:  # noqa: N801
    """Inside the block, entering a saved-tensor hook context raises ``RuntimeError(error_message)``."""

    def __init__(self, error_message):
        self.error_message = error_message

    def __enter__(self):
        if _hook_pairs:  # torch refuses to disable hooks that are in use
            raise RuntimeError(self.error_message)
        _disabled_messages.append(self.error_message)
        return self

    def __exit__(self, *exc_info):
        _disabled_messages.pop()
        return False


def increment_version(tensor):
    """Bump the version counter of ``tensor`` (or of each tensor of a sequence), as an in-place write does."""
    for t in (tensor,) if isinstance(tensor, _dispatch.Tensor) else tensor:
        _dispatch.bump_version(t)


class Node(abc.ABC):
    """The abstract class of autograd graph nodes: ``isinstance(tensor.grad_fn, Node)`` holds."""

    @abc.abstractmethod
    def name(self):
        """str: the node's name, e.g. ``'MulBackward0'``."""

    @property
    @abc.abstractmethod
    def next_functions(self):
        """tuple[(Node or None, int)]: the nodes the gradients of this node's inputs flow to."""


Node.register(GradFn)
Node.register(AccumulateGrad)


class GradientEdge(NamedTuple):
    """Where a gradient flows: output ``output_nr`` of the graph node ``node``."""

    node: Node
    output_nr: int
    ownership_token: Any | None = None


def get_gradient_edge(tensor):
    """The :class:`GradientEdge` of ``tensor``: its ``grad_fn`` and output number, ``AccumulateGrad`` for a leaf.

    Raises
    ------
    RuntimeError
        When ``tensor`` does not require gradients.
    """
    if not tensor.requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    if tensor.grad_node is None:
        return GradientEdge(AccumulateGrad(tensor), 0)
    return GradientEdge(tensor.grad_fn, tensor.grad_slot)


class _MultiHandle:
    """The handle :func:`register_multi_grad_hook` returns: ``remove()`` unregisters the per-tensor hooks."""

    def __init__(self, handles):
        self.handles = tuple(handles)

    def remove(self):
        for handle in self.handles:
            handle.remove()

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.remove()


def register_multi_grad_hook(tensors, fn, *, mode="all"):
    """Call ``fn`` once per backward pass that computes gradients of some of ``tensors``.

    Parameters
    ----------
    tensors : sequence of Tensor
    fn : callable
        ``mode="all"``: ``fn(grads)`` with one entry per tensor (None for those the pass gave no gradient),
        called when the backward pass has computed its gradients. ``mode="any"``: ``fn(grad)`` with the first
        gradient the pass computes among ``tensors``.
    mode : {"all", "any"}

    Returns
    -------
    handle
        ``handle.remove()`` unregisters the hook.
    """
    from vfw.frontends.torch.autograd import _engine

    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    pass_state = {"grads": None}  # the gradients of the running backward pass, None between passes

    def end_of_pass():
        grads, pass_state["grads"] = pass_state["grads"], None
        if mode == "all":
            fn(grads)

    def make_hook(index):
        def hook(grad):
            if pass_state["grads"] is None:  # the pass's first gradient among the tensors
                pass_state["grads"] = [None] * len(tensors)
                _engine.queue_callback(end_of_pass)
                if mode == "any":
                    fn(grad)
            pass_state["grads"][index] = grad
        return hook

    return _MultiHandle(t.register_hook(make_hook(i)) for i, t in enumerate(tensors) if t.requires_grad)


_mutation_context_open = []


class _AllowMutationOnSavedContext:
    """The object ``allow_mutation_on_saved_tensors()`` yields."""


class allow_mutation_on_saved_tensors:  # noqa: N801  (torch's name; torch's is a generator context manager)
    """Context in which torch lets in-place writes change tensors saved for backward (it clones them first).

    vfw keeps its own checks: code that writes no saved tensor runs as in torch; a write into a saved tensor
    still makes the later backward raise torch's "modified by an inplace operation" RuntimeError (never a wrong
    gradient).  Nesting raises torch's RuntimeError.
    """

    def __enter__(self):
        if _mutation_context_open:
            raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
        _mutation_context_open.append(True)
        return _AllowMutationOnSavedContext()

    def __exit__(self, *exc_info):
        _mutation_context_open.pop()
        return False
