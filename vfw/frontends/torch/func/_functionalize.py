"""``torch.func.functionalize`` and ``torch.func.replace_all_batch_norm_modules_``.

``functionalize`` rewrites a program's in-place and view operators into out-of-place ones for tracing backends.
vfw traces into its own IR, which already records writes explicitly, so the returned function simply calls
``func``: the same results and the same writes into its inputs as torch's functionalized function.
"""

import functools

__all__ = ["functionalize", "replace_all_batch_norm_modules_"]

_REMOVE_OPTIONS = ("mutations", "mutations_and_views")


def functionalize(func, *, remove="mutations"):
    """A function computing what ``func`` computes, without aliasing or mutation in its traced program.

    Parameters
    ----------
    func : callable
    remove : {"mutations", "mutations_and_views"}

    Returns
    -------
    callable
    """
    if remove not in _REMOVE_OPTIONS:
        raise RuntimeError(
            f"functionalize(f, remove='mutations'): received invalid argument for remove={remove}. Valid options "
            "are:\n     remove='mutations': all inplace and out= operators will be removed from the program, and "
            "replaced with their out-of-place equivalents.\n     remove='mutations_and_views': In addition to the "
            "above, all aliasing operators {view} will be replaced with their non-aliasing counterparts, "
            "{view}_copy.\n")

    @functools.wraps(func)
    def functionalized(*args, **kwargs):
        return func(*args, **kwargs)

    return functionalized


def replace_all_batch_norm_modules_(root):
    """Stop every batch norm module in ``root`` from tracking running statistics (in place), as for ``vmap``.

    Returns
    -------
    Module
        ``root``.
    """
    from vfw.frontends.torch.nn.modules.batchnorm import _BatchNorm

    for module in root.modules():
        if isinstance(module, _BatchNorm):
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
