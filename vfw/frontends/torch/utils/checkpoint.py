"""``torch.utils.checkpoint``: activation checkpointing.

vfw keeps every activation (numpy memory is not the scarce resource checkpointing saves on an accelerator), so a
checkpointed function simply runs once with autograd recording: values and gradients are those torch computes by
recomputing the forward pass.  What differs between torch's two variants is kept: the reentrant one
(``use_reentrant=True``, the default when the argument is left out) gives outputs that do not require grad when no
tensor input does, so the parameters used inside get no gradient.
"""

from vfw.frontends._warnings import warn_for_user
from vfw.frontends.torch import _tensor
from vfw.frontends.torch.autograd import grad_mode

__all__ = ["checkpoint", "checkpoint_sequential", "noop_context_fn"]


def noop_context_fn():
    """The default ``context_fn``: two contexts that do nothing."""
    return _NullContext(), _NullContext()


class _NullContext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _resolve_reentrant(use_reentrant):
    if use_reentrant is None:
        warn_for_user("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
                      "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "
                      "use_reentrant=False is recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the differences between "
                      "the two variants.")
        return True
    return bool(use_reentrant)


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    """Run ``function(*args, **kwargs)`` as a checkpointed segment.

    Parameters
    ----------
    function : callable
        The segment (a module or any function of tensors).
    *args
        Its positional arguments.
    use_reentrant : bool, optional
        torch's variant; ``None`` warns and means ``True``, as torch 2.13 does.  With ``True`` keyword
        arguments, ``context_fn`` and ``debug`` are refused, and when no tensor argument requires grad the
        outputs carry no autograd history (torch warns "Gradients will be None").
    context_fn : callable
        Returns two context managers; the first wraps the forward run (non-reentrant variant).
    determinism_check, debug, early_stop
        Accepted for torch's signature; they only concern recomputation, which vfw does not do.
    **kwargs
        Keyword arguments of ``function`` (non-reentrant variant only).

    Returns
    -------
    Whatever ``function`` returns.
    """
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    if _resolve_reentrant(use_reentrant):
        if context_fn is not noop_context_fn or debug:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if grad_mode.is_grad_enabled() and not any(isinstance(a, _tensor.Tensor) and a.requires_grad for a in args):
            warn_for_user("None of the inputs have requires_grad=True. Gradients will be None")
            with grad_mode.no_grad():
                return function(*args)
        return function(*args)
    forward_context, _ = context_fn()
    with forward_context:
        return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run a sequence of modules in ``segments`` chunks, checkpointing all but the last.

    Parameters
    ----------
    functions : torch.nn.Sequential or list of callables
        The modules, run in order.
    segments : int
        How many chunks to cut them into.
    input : Tensor
        The first module's input.
    use_reentrant : bool, optional
        As in :func:`checkpoint`.

    Returns
    -------
    Tensor
        The last module's output.
    """
    reentrant = _resolve_reentrant(use_reentrant)
    if hasattr(functions, "children") and callable(functions.children):
        functions = list(functions.children())
    functions = list(functions)
    segment_size = len(functions) // segments

    def run_segment(start, end):
        def forward(x):
            for position in range(start, end + 1):
                x = functions[position](x)
            return x
        return forward

    end = -1
    for start in range(0, segment_size * (segments - 1), segment_size):
        end = start + segment_size - 1
        input = checkpoint(run_segment(start, end), input, use_reentrant=reentrant, **kwargs)
    return run_segment(end + 1, len(functions) - 1)(input)
