"""``torch.multiprocessing``: Python's :mod:`multiprocessing` under torch's name, plus ``spawn``.

Torch re-exports the default context's API (``Process``, ``Queue``, ``Pool``, ``get_context``...) and adds
tensor sharing through shared memory.  vfw's tensors are numpy arrays that pickle by value, so a tensor sent
through a ``Queue`` arrives as an equal copy (not shared memory; writes in the receiver are not seen by the
sender).  The sharing strategies are recorded and reported as torch reports them.
"""

import multiprocessing
import sys  # noqa: F401  (torch's module has it)
from multiprocessing import *  # noqa: F401,F403

from vfw.frontends.torch.multiprocessing.spawn import (  # noqa: F401
    ENV_VAR_PARALLEL_START,
    ProcessContext,
    ProcessExitedException,
    ProcessRaisedException,
    SpawnContext,
    spawn,
    start_processes,
)

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]
__all__ += multiprocessing.__all__

# Linux offers both ways torch shares storages between processes; file descriptors are its default.
_all_sharing_strategies = {"file_descriptor", "file_system"}
_sharing_strategy = "file_descriptor"


def set_sharing_strategy(new_strategy):
    """Choose how tensors are shared between processes (``'file_descriptor'`` or ``'file_system'``).

    vfw records the choice (tensors travel by value either way).

    Raises
    ------
    AssertionError
        For a name outside :func:`get_all_sharing_strategies`, as torch.
    """
    global _sharing_strategy
    if new_strategy not in _all_sharing_strategies:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, expected one of "
                             f"{_all_sharing_strategies}")
    _sharing_strategy = new_strategy


def get_sharing_strategy():
    """str: the current sharing strategy."""
    return _sharing_strategy


def get_all_sharing_strategies():
    """set[str]: the sharing strategies this system supports."""
    return set(_all_sharing_strategies)


def init_reductions():
    """Torch registers its tensor reducers with ``ForkingPickler`` here; vfw's tensors pickle as they are."""
