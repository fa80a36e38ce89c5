"""torch.nn.modules.utils: the tuple helpers layers use for their size arguments."""

from collections.abc import Iterable
from itertools import repeat

__all__ = []


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
