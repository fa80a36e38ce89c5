"""Processes started by ``multiprocessing``'s ``spawn`` method from a served process are served too.

A spawned child is a fresh interpreter running ``python -c "from multiprocessing.spawn import spawn_main; ..."``;
it re-imports the parent's ``__main__`` script (whose ``import torch`` must meet vfw again) before it runs the
target.  :func:`serve_children` puts a prelude in front of that command that serves the same frameworks, so
``torch.multiprocessing.spawn``, a ``DataLoader`` with a spawn context and plain ``multiprocessing`` all start
served children.  Forked children inherit the parent's import machinery and need nothing.
"""

import multiprocessing.spawn
import os

import vfw

# The package's parent folder: the child finds vfw there even where it is not installed.
_VFW_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(vfw.__file__)))


_served = []  # the frameworks serve_children was last given


def served_frameworks():
    """tuple[str]: the frameworks spawned children serve (empty when this process serves none)."""
    return tuple(_served)


def prelude(frameworks):
    """Python source that serves ``frameworks`` in a fresh interpreter."""
    names = ", ".join(repr(name) for name in frameworks)
    return f"import sys; sys.path.insert(0, {_VFW_ROOT!r}); from vfw import _serving; _serving.serve({names}); "


def serve_children(frameworks):
    """Make the spawn start method's children serve ``frameworks`` (for the rest of the process).

    Parameters
    ----------
    frameworks : sequence of str
        ``"torch"``, ``"tensorflow"``, ``"keras"``.
    """
    plain = getattr(multiprocessing.spawn.get_command_line, "vfw_plain", multiprocessing.spawn.get_command_line)
    _served[:] = frameworks
    text = prelude(frameworks)

    def get_command_line(**kwds):
        command = plain(**kwds)
        if "-c" in command:  # (a frozen executable takes no program text)
            position = command.index("-c") + 1
            command[position] = text + command[position]
        return command

    get_command_line.vfw_plain = plain
    multiprocessing.spawn.get_command_line = get_command_line
