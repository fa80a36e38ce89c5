"""torch.autograd.forward_ad: dual tensors (a primal and its tangent) for forward-mode derivatives.

``make_dual(x, t)`` returns a tensor that autograd tracks from a leaf standing for ``x``; ``unpack_dual(y)``
computes ``y``'s tangent, the sum over the dual tensors ``d`` of the level of ``dy/dd . tangent(d)``, with the
mechanism of ``torch.func.jvp`` (two reverse passes, :func:`vfw.frontends.torch.func._grad.jacobian_vector`).
Differences from torch: a dual tensor (and what is computed from it) has ``requires_grad=True`` and tangents are
computed when unpacked, not alongside each op; under ``no_grad`` nothing is recorded, so results have no tangent.
"""

import collections

from vfw.frontends.torch._tensor import Tensor
from vfw.frontends.torch.func._grad import jacobian_vector

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual"]


class UnpackedDualTensor(collections.namedtuple("UnpackedDualTensor", ["primal", "tangent"])):
    """``(primal, tangent)`` of a dual tensor (``tangent`` is None for a tensor without one)."""


class _Level:
    def __init__(self):
        self.duals = []  # dual tensors of this level
        self.tangents = []  # their tangents
        self.primal_had_grad = False  # a primal given to make_dual required grad (primals keep history then)


_levels = []


def enter_dual_level():
    """Open a new forward AD level and return its index (torch supports one level at a time)."""
    if _levels:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _levels.append(_Level())
    return len(_levels) - 1


def exit_dual_level(*, level=None):
    """Close the level ``level`` (default: the current one); the tangents of its tensors are dropped."""
    if level is None:
        level = len(_levels) - 1
    if level != len(_levels) - 1:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    _levels.pop()


class dual_level:  # noqa: N801  (torch's name)
    """Context manager: ``with dual_level():`` opens a forward AD level (the ``as`` target is its index)."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, *exc):
        exit_dual_level()


def _current(level, api):
    if not _levels:
        raise RuntimeError(f"Trying to {api} but no level exists, make sure to enter_dual_level() first.")
    return _levels[-1 if level is None else level]


def make_dual(tensor, tangent, *, level=None):
    """A dual tensor with primal ``tensor`` and tangent ``tangent`` (same shape) at the current level.

    Parameters
    ----------
    tensor, tangent : Tensor
        Same size; a floating (or complex) dtype.

    Returns
    -------
    Tensor
        ``tensor``'s values, tracked by autograd from a leaf standing for it (or from ``tensor`` itself when it
        requires grad).
    """
    state = _current(level, "create a dual Tensor for forward AD")
    if not isinstance(tensor, Tensor) or not isinstance(tangent, Tensor):
        raise TypeError(f"make_dual(): expected Tensors, got {type(tensor).__name__} and {type(tangent).__name__}")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    if tuple(tensor.shape) != tuple(tangent.shape):
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
                           f"forward gradient is of size {list(tangent.shape)}.")
    if tensor.requires_grad:
        dual = tensor.view_as(tensor)
        state.primal_had_grad = True
    else:
        dual = tensor.detach().requires_grad_(True)
    state.duals.append(dual)
    state.tangents.append(tangent.detach() if not tangent.requires_grad else tangent)
    return dual


def unpack_dual(tensor, *, level=None):
    """``UnpackedDualTensor(primal, tangent)`` of ``tensor`` at the current level (tangent None outside a level or
    for a tensor that does not depend on the level's dual tensors)."""
    if not _levels or not isinstance(tensor, Tensor):
        return UnpackedDualTensor(tensor, None)
    state = _levels[-1 if level is None else level]
    for dual, tangent in zip(state.duals, state.tangents):
        if dual is tensor:
            return UnpackedDualTensor(_primal(tensor, state), tangent)
    if not tensor.requires_grad or not state.duals:
        return UnpackedDualTensor(tensor, None)
    nested = state.primal_had_grad or any(t.requires_grad for t in state.tangents)
    tangent, = jacobian_vector([tensor], state.duals, state.tangents, nested)
    return UnpackedDualTensor(_primal(tensor, state), tangent)


def _primal(tensor, state):
    """The primal keeps autograd history only where a primal given to ``make_dual`` had some."""
    return tensor if state.primal_had_grad else tensor.detach()
