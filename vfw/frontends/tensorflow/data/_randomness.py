"""Stateful random ops inside dataset functions, drawing as TF's do.

Observed against TF 2.21: TF instantiates a dataset function's graph per iterator, so a random
op inside (``tf.random.uniform``...) draws from a kernel that lives with the iterator: its stream
continues from element to element (and across ``repeat``'s epochs) and starts again with every
new iteration.  An op given a seed draws what the same op run eagerly right after
``tf.random.set_seed`` draws; an op without a seed takes its op seed from its position in the
function's graph, so dataset functions never move the global seed's sequence of op seeds.

vfw runs dataset functions eagerly and switches tf.random's eager state while they run (the
kernels of the current iteration, and op seeds numbered by the op's position in the call):
seeded ops draw TF's numbers, and unseeded ones draw reproducible numbers (not TF's, whose op
seeds are graph positions vfw does not have) without touching the global sequence.
"""

from vfw.frontends.tensorflow import _random_ops

_ITERATION = [None]  # the kernels of the iteration being pulled: {function: {kernel key: stream}}


class _PositionalOpSeeds:
    """Stands in for the global seed's generator of op seeds: the k-th unseeded op of a call gets op seed k."""

    __slots__ = ("count",)

    def __init__(self):
        self.count = 0

    def randint(self, low, high):
        self.count += 1
        return self.count


def enter_iteration(kernels):
    """Make ``kernels`` (a dict owned by an iterator) the current iteration's; returns what to restore."""
    previous = _ITERATION[0]
    _ITERATION[0] = kernels
    return previous


def leave_iteration(previous):
    _ITERATION[0] = previous


def current_iteration():
    """The state of the iteration being pulled (or None)."""
    return _ITERATION[0]


def call(function, args, spread, owner, own_kernels):
    """``function(*args)`` (or ``function(args)``) with the random state of a TF dataset function.

    The kernels are those the current iteration keeps for ``owner`` (the dataset function), or
    ``own_kernels`` when no iteration is being pulled (a function traced, or run by ``reduce``).
    """
    state = _random_ops._state  # tf.random's eager state, switched while the function runs
    saved_seeds, saved_kernels = state.op_seeds, state.kernels
    iteration = _ITERATION[0]
    if saved_seeds is not None:
        state.op_seeds = _PositionalOpSeeds()
    state.kernels = own_kernels if iteration is None else iteration.setdefault(owner, {})
    try:
        return function(*args) if spread else function(args)
    finally:
        state.op_seeds, state.kernels = saved_seeds, saved_kernels
