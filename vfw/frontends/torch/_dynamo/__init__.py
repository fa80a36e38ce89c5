"""torch._dynamo: the switches scripts set around ``torch.compile`` (``config``, ``reset``, ``disable``,
``mark_dynamic``/``mark_static``). vfw runs compiled code eagerly, so these record what they are told and
change nothing else."""

from vfw.frontends.torch._dynamo import config, eval_frame  # noqa: F401
from vfw.frontends.torch.compiler import (  # noqa: F401
    allow_in_graph,
    assume_constant_result,
    disable,
    is_compiling,
    is_dynamo_compiling,
    list_backends,
    reset,
)

__all__ = ["allow_in_graph", "assume_constant_result", "config", "disable", "is_compiling", "list_backends",
           "mark_dynamic", "mark_static", "optimize", "reset"]


def _indices(index):
    return set(index) if isinstance(index, (list, tuple)) else {index}


def mark_dynamic(t, index, *, hint_override=None, min=None, max=None, specialize_on=None):  # noqa: A002
    """Mark dimension(s) ``index`` of tensor ``t`` dynamic (recorded in ``t._dynamo_dynamic_indices``)."""
    t._dynamo_dynamic_indices = getattr(t, "_dynamo_dynamic_indices", set()) | _indices(index)


def mark_static(t, index=None):
    """Mark dimension(s) ``index`` of tensor ``t`` static (recorded in ``t._dynamo_static_indices``); on a
    module or class (``index`` None), mark it static (``_dynamo_marked_static``)."""
    if index is None and not hasattr(t, "shape"):
        t._dynamo_marked_static = True
        return t
    if index is None:
        index = list(range(len(t.shape)))
    t._dynamo_static_indices = getattr(t, "_dynamo_static_indices", set()) | _indices(index)
    return None


def optimize(backend="inductor", *, nopython=False, guard_export_fn=None, guard_fail_fn=None, disable=False,
             dynamic=None):
    """The old spelling of ``torch.compile`` as a decorator factory."""
    from vfw.frontends.torch.compiler import compiled_function
    return (lambda fn: fn) if disable else compiled_function
