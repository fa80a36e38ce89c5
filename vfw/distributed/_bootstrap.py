"""What ``vfw.distributed.run`` makes ``mpirun`` start in each process: torchrun's variables, then the script.

``python -m vfw.distributed._bootstrap script.py args...`` (or ``-m module args...``) sets ``RANK``,
``LOCAL_RANK``, ``WORLD_SIZE`` and ``LOCAL_WORLD_SIZE`` from what the MPI launcher told this process, and
torchrun's ``ROLE_RANK``/``ROLE_WORLD_SIZE`` (one role: the global ones) and ``GROUP_RANK``/``GROUP_WORLD_SIZE``
(the machine's index and count), so scripts written for torchrun read them at import time, then runs the script
as ``__main__``.
"""

import os
import runpy
import sys

from vfw.core.distributed.mpi import launcher_environment


def torchrun_variables(rank, size, local_rank, local_size, nodes=None):
    """torchrun's per-process variables (``None`` where MPI did not say).

    ``nodes`` is the launcher's ``--nnodes`` (``GROUP_WORLD_SIZE``), else counted as ``size // local_size``;
    the machine index is ``rank // local_size``: MPI places consecutive ranks on one machine (by slot, or
    ``ppr:N:node``), as torchrun numbers them.
    """
    if nodes is None and size is not None and local_size:
        nodes = max(size // local_size, 1)
    node = 0 if nodes == 1 else rank // local_size if rank is not None and local_size else None
    return {"RANK": rank, "WORLD_SIZE": size, "LOCAL_RANK": local_rank, "LOCAL_WORLD_SIZE": local_size,
            "ROLE_RANK": rank, "ROLE_WORLD_SIZE": size, "GROUP_RANK": node, "GROUP_WORLD_SIZE": nodes}


def main(argv):
    nodes = os.environ.get("GROUP_WORLD_SIZE")
    variables = torchrun_variables(*launcher_environment(), nodes=int(nodes) if nodes else None)
    for name, value in variables.items():
        if value is not None:
            os.environ[name] = str(value)
    if argv[:1] == ["-m"]:
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = argv
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
