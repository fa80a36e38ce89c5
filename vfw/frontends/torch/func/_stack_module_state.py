"""``torch.func.stack_module_state``: the parameters and buffers of an ensemble, stacked for :func:`vmap`."""

from vfw.frontends.torch import _joining

__all__ = ["stack_module_state"]


def _stacked(tensors, name, as_parameter):
    """The tensors stacked along a new leading dim, detached: a new leaf that requires grad as the originals do."""
    wanted = tensors[0].requires_grad
    if as_parameter and any(t.requires_grad != wanted for t in tensors):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    stacked = _joining.stack([t.detach() for t in tensors])
    return stacked.requires_grad_(wanted) if as_parameter else stacked


def stack_module_state(models):
    """Stack the state of ``M`` modules of one class for an ensemble run with :func:`vmap`.

    Parameters
    ----------
    models : sequence of nn.Module
        Modules of the same class, all in training or all in eval mode.

    Returns
    -------
    (dict, dict)
        ``{name: Tensor (M, ...)}`` for the parameters (new leaves requiring grad as the originals, unrelated to
        them, so they can be given to an optimizer) and for the buffers, named as in ``named_parameters()`` /
        ``named_buffers()`` (a shared tensor once).
    """
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({m.training for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if len({type(m) for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    named = [(dict(m.named_parameters()), dict(m.named_buffers())) for m in models]
    params = {k: _stacked([p[k] for p, _ in named], k, True) for k in named[0][0]}
    buffers = {k: _stacked([b[k] for _, b in named], k, False) for k in named[0][1]}
    return params, buffers
