"""What ``vfw.distributed.run`` makes ``mpirun`` start in each process: torchrun's variables, then the script.

``python -m vfw.distributed._bootstrap script.py args...`` (or ``-m module args...``) sets ``RANK``,
``LOCAL_RANK``, ``WORLD_SIZE`` and ``LOCAL_WORLD_SIZE`` from what the MPI launcher told this process, and
torchrun's ``ROLE_RANK``/``ROLE_WORLD_SIZE`` (one role: the global ones) and ``GROUP_RANK``/``GROUP_WORLD_SIZE``
(the machine's index and count), so scripts written for torchrun read them at import time, and ``TF_CONFIG``
(unless set) naming every process a worker, as scripts written for ``MultiWorkerMirroredStrategy`` read it
(``len(tf_config["cluster"]["worker"])``), then runs the script as ``__main__``.
"""

import json
import os
import runpy
import socket
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


def tf_config(rank, hosts, port):
    """``TF_CONFIG`` for process ``rank`` of a job whose processes run on ``hosts`` (one entry per rank): every
    process a ``worker`` task. The addresses only describe the job; vfw's replicas talk through MPI."""
    workers = [f"{host}:{port + index}" for index, host in enumerate(hosts)]
    return json.dumps({"cluster": {"worker": workers}, "task": {"type": "worker", "index": rank}})


def _hosts(size, local_size):
    """Each rank's machine: ``localhost`` when all run on this one, else asked of MPI."""
    if local_size is not None and size <= local_size:
        return ["localhost"] * size
    from vfw.core.distributed import mpi

    return mpi.load().COMM_WORLD.allgather(socket.gethostname())


def main(argv):
    nodes = os.environ.get("GROUP_WORLD_SIZE")
    rank, size, local_rank, local_size = launcher_environment()
    variables = torchrun_variables(rank, size, local_rank, local_size, nodes=int(nodes) if nodes else None)
    for name, value in variables.items():
        if value is not None:
            os.environ[name] = str(value)
    if "TF_CONFIG" not in os.environ and rank is not None and size is not None:
        port = int(os.environ.get("MASTER_PORT", "29500")) + 1
        os.environ["TF_CONFIG"] = tf_config(rank, _hosts(size, local_size), port)
    if argv[:1] == ["-m"]:
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = argv
        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
        runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
