"""torch.nn.modules.utils: the tuple helpers layers use for their size arguments, and
``consume_prefix_in_state_dict_if_present``."""

from collections.abc import Iterable
from itertools import repeat

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n, name="parse"):
    """A function turning a value into an ``n``-tuple (iterables are kept as given)."""

    def parse(x):
        if isinstance(x, Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n):
    """``t`` reversed, each element repeated ``n`` times: per-dim paddings in ``F.pad`` order."""
    return tuple(x for x in reversed(t) for _ in range(n))


def consume_prefix_in_state_dict_if_present(state_dict, prefix):
    """Strip ``prefix`` from the keys of ``state_dict`` that start with it, in place.

    A state dict saved from a ``DataParallel``/``DistributedDataParallel`` model (keys ``module.*``) then loads
    into the bare model: ``consume_prefix_in_state_dict_if_present(state_dict, "module.")``.

    Parameters
    ----------
    state_dict : dict
        Changed in place; a renamed entry moves to the end, as in torch.  Its ``_metadata`` (per-module
        versions) loses the prefix too: ``"module"`` itself becomes ``""``, the wrapper's own ``""`` entry
        is left.
    prefix : str
    """
    for key in [k for k in state_dict if k.startswith(prefix)]:
        state_dict[key[len(prefix):]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is None:
        return
    bare = prefix.replace(".", "")  # the wrapped module's own entry has no trailing dot
    for key in [k for k in metadata if k and (k == bare or k.startswith(prefix))]:
        metadata[key[len(prefix):]] = metadata.pop(key)
