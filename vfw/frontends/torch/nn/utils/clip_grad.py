"""torch.nn.utils gradient clipping: clip_grad_norm_, clip_grad_value_, get_total_norm, clip_grads_with_norm_.

Written over vfw.torch functions (norms, stack, in-place multiply and clamp), run without
recording autograd, as torch's versions are; ``foreach`` is accepted and changes nothing.
"""

import functools
import types

from vfw.core.tensor import Tensor as CoreTensor
from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _creation, _joining, _linalg_norms
from vfw.frontends.torch.autograd import grad_mode

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _no_grad(fn):
    @functools.wraps(fn)
    def without_grad(*args, **kwargs):
        with grad_mode.no_grad():
            return fn(*args, **kwargs)
    return without_grad


def _as_list(tensors):
    return [tensors] if isinstance(tensors, CoreTensor) else list(tensors)


@_no_grad
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type``-norm of the norms of ``tensors`` (their norm as one concatenated vector).

    Parameters
    ----------
    tensors : Tensor or iterable of Tensor
    norm_type : float or str
        Order of the norm (``inf`` / ``'inf'`` for the largest absolute value).
    error_if_nonfinite : bool
        Raise a RuntimeError when the total norm is NaN or infinite.
    foreach : bool, optional
        Accepted as in torch.

    Returns
    -------
    Tensor
        A 0-d tensor (0.0 for no tensors).
    """
    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return _creation.tensor(0.0)
    norms = [_linalg_norms.vector_norm(t, norm_type) for t in tensors]
    total = _linalg_norms.vector_norm(_joining.stack(norms), norm_type)
    if error_if_nonfinite and not bool(total.isfinite()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it "
                           "cannot be clipped. To disable this error and scale the gradients by the non-finite norm "
                           "anyway, set `error_if_nonfinite=False`")
    return total


@_no_grad
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Scale the gradients of ``parameters`` in place by ``min(1, max_norm / (total_norm + 1e-6))``.

    Parameters
    ----------
    parameters : Tensor or iterable of Tensor
    max_norm : float
        The largest norm the gradients keep.
    total_norm : Tensor
        Their norm (see :func:`get_total_norm`).
    foreach : bool, optional
        Accepted as in torch.
    """
    grads = [p.grad for p in _as_list(parameters) if p.grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    coefficient = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(coefficient)


@_no_grad
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Clip the gradient norm of ``parameters`` (taken together) to ``max_norm``, in place.

    Parameters
    ----------
    parameters : Tensor or iterable of Tensor
        Tensors whose ``.grad`` is clipped.
    max_norm : float
        The largest norm the gradients keep.
    norm_type : float or str
        Order of the norm (default 2; ``inf`` for the largest absolute value).
    error_if_nonfinite : bool
        Raise a RuntimeError when the total norm is NaN or infinite.
    foreach : bool, optional
        Accepted as in torch.

    Returns
    -------
    Tensor
        The total norm of the gradients before clipping.
    """
    if isinstance(parameters, CoreTensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and not parameters:
            warn_for_user("`parameters` is an empty generator, no gradient clipping will occur.")
    total = get_total_norm([p.grad for p in parameters if p.grad is not None], norm_type, error_if_nonfinite,
                           foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of :func:`clip_grad_norm_` (warns FutureWarning, as torch does)."""
    warn_for_user("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


@_no_grad
def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp the gradients of ``parameters`` to ``[-clip_value, clip_value]`` in place.

    Parameters
    ----------
    parameters : Tensor or iterable of Tensor
    clip_value : float
    foreach : bool, optional
        Accepted as in torch.
    """
    clip_value = float(clip_value)
    for p in _as_list(parameters):
        if p.grad is not None:
            p.grad.clamp_(min=-clip_value, max=clip_value)
