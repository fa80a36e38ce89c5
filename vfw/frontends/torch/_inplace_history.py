"""In-place writes of values without history (``copy_``, ``zero_``, ``fill_``...) into a tensor with history.

torch keeps such a tensor in the graph: it still requires grad, with a node (``CopyBackwards``, ``ZeroBackward0``,
``FillBackward2``...) that passes a zero gradient to the history it replaced, so a later ``backward()`` through it
runs and gives zeros instead of failing for a tensor that does not require grad.
"""

import numpy as np

# torch's node names for the in-place writes whose new values do not depend on the old ones
_NAMES = {"copy_": "torch::autograd::CopyBackwards", "zero_": "ZeroBackward0", "fill_": "FillBackward2"}


def replaced(t, result, name):
    """A tensor of ``result``'s values (broadcast to ``t``'s shape and dtype) recorded as depending on ``t``'s
    history with a zero gradient (``t`` is still at its old value and node)."""
    from vfw.frontends.torch._dispatch import call, cast, op, wrap  # (that module imports this one)

    old = wrap(t.array)  # the old history (its values are not read: Where's gradient reads the condition only)
    old.requires_grad = True
    old.grad_node, old.grad_slot = t.grad_node, t.grad_slot
    new = call(op("Where"), np.zeros((), np.bool_), old, cast(result, t.array.dtype))
    if name in _NAMES:
        new.grad_node.display_name = _NAMES[name]
    return new
