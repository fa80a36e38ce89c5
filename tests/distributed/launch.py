"""Running scripts in several processes from tests, with hard timeouts (a hang fails the test, never CI)."""

import os
import shutil
import signal
import subprocess
import sys

import pytest

pytest.importorskip("mpi4py")

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
HARD_TIMEOUT = 240  # seconds for a whole job (a loaded CI machine is slow); a collective aborts sooner


def environment(collective_timeout=60, extra=None):
    env = dict(os.environ, VFW_DISTRIBUTED_TIMEOUT=str(collective_timeout), OMP_NUM_THREADS="1",
               OPENBLAS_NUM_THREADS="1", PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               **(extra or {}))
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


def launch(nproc, script, *args, via="launcher", collective_timeout=60, env=None):
    """Run ``script`` in ``nproc`` processes (``via`` the vfw launcher or plain mpirun, with the variables ``env``
    added to the environment); the CompletedProcess."""
    path = os.path.join(HERE, script)
    if via == "launcher":
        command = [sys.executable, "-m", "vfw.distributed.run", "--nproc", str(nproc), path]
    else:
        mpirun = os.path.join(os.path.dirname(sys.executable), "mpirun")
        mpirun = mpirun if os.access(mpirun, os.X_OK) else shutil.which("mpirun")
        if mpirun is None:
            pytest.skip("no mpirun")
        command = [mpirun, "--oversubscribe", "-n", str(nproc), sys.executable, path]
    return _run(command + [str(a) for a in args], environment(collective_timeout, env), script, nproc)


def _run(command, env, script, nproc):
    """Run ``command`` in a session of its own; on the hard timeout, stop it (mpirun then stops its ranks; what
    is left of the session is killed), then fail."""
    process = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=HARD_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.terminate()
        try:
            stdout, stderr = process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            stdout, stderr = process.communicate()
        pytest.fail(f"{script} with {nproc} processes hung for {HARD_TIMEOUT} s:\n{stdout}\n{stderr}")
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def run_ok(nproc, script, *args, via="launcher", env=None):
    done = launch(nproc, script, *args, via=via, env=env)
    assert done.returncode == 0, f"exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    return done
