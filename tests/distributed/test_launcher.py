"""The launcher's command line (no processes started; test_torch_ddp.py and friends run it for real)."""

import sys

from vfw.distributed.run import _FORWARDED, build_command, parse


def test_script_arguments_are_the_scripts_own():
    args = parse(["--nproc", "3", "train.py", "--nproc", "9", "-m", "x"])
    assert (args.nproc, args.script, args.module) == (3, "train.py", None)
    assert args.script_args == ["--nproc", "9", "-m", "x"]
    args = parse(["--nproc=2", "-m", "pkg.train", "--worker"])
    assert (args.nproc, args.script, args.module, args.script_args) == (2, None, "pkg.train", ["--worker"])


def test_open_mpi_and_mpich_command_lines(monkeypatch):
    for name in _FORWARDED:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MASTER_PORT", "1234")
    tail = [sys.executable, "-m", "vfw.distributed._bootstrap", "t.py", "a"]
    local = parse(["-n", "2", "t.py", "a"])
    assert build_command(local, "mpirun", True)[:6] == ["mpirun", "-n", "2", "--oversubscribe", "-x", "MASTER_PORT"]
    cluster = parse(["-n", "8", "--hostfile", "hosts", "--mpi-arg=--bind-to", "--mpi-arg=core", "t.py", "a"])
    command = build_command(cluster, "mpirun", True)
    assert "--oversubscribe" not in command and command[-9:] == ["--hostfile", "hosts", "--bind-to", "core"] + tail
    assert build_command(cluster, "mpiexec", False)[:9] == ["mpiexec", "-n", "8", "-genvlist", "MASTER_PORT", "-f",
                                                           "hosts", "--bind-to", "core"]
