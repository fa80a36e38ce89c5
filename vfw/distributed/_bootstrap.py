"""What ``vfw.distributed.run`` makes ``mpirun`` start in each process: torchrun's variables, then the script.

``python -m vfw.distributed._bootstrap script.py args...`` (or ``-m module args...``) sets ``RANK``,
``LOCAL_RANK``, ``WORLD_SIZE`` and ``LOCAL_WORLD_SIZE`` from what the MPI launcher told this process, so
scripts written for torchrun read them at import time, then runs the script as ``__main__``.
"""

import os
import runpy
import sys

from vfw.core.distributed.mpi import launcher_environment


def main(argv):
    rank, size, local_rank, local_size = launcher_environment()
    for name, value in (("RANK", rank), ("WORLD_SIZE", size), ("LOCAL_RANK", local_rank),
                        ("LOCAL_WORLD_SIZE", local_size)):
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
