"""The launcher's command line (test_torch_ddp.py and friends run it for real) and torchrun's flags and variables."""

import json
import os
import sys

import pytest

from vfw.distributed._bootstrap import torchrun_variables
from vfw.distributed.run import _FORWARDED, build_command, parse, torchrun_environment


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


def test_torchrun_options():
    """torchrun's flags are accepted; one machine unless a hostfile lists several (a clear error otherwise)."""
    args = parse(["--standalone", "--nnodes=1", "--nproc_per_node", "3", "--rdzv-backend=c10d", "--rdzv_backend",
                  "static", "--rdzv-endpoint", "localhost:29400", "--rdzv-id", "job", "--max-restarts", "0",
                  "--node-rank", "0", "--node_rank=0", "--monitor-interval", "1", "--role", "trainer", "t.py", "-x"])
    assert (args.nproc, args.nnodes, args.per_node, args.script, args.script_args) == (3, 1, None, "t.py", ["-x"])
    assert args.run_id != "job" and len(args.run_id) == 36  # --standalone: a new uuid, as torchrun's
    assert parse(["--nnodes", "1:1", "--nproc-per-node=2", "--rdzv-id=job", "--master-port=1", "t.py"]).run_id == "job"
    assert parse(["--nnodes", "1:4", "--master-port", "1", "t.py"]).run_id == "none"  # torchrun's default id
    assert parse(["--nproc-per-node", "cpu", "t.py"]).nproc == (os.cpu_count() or 1)
    assert parse(["--module", "pkg.train", "--lr", "1"]).module == "pkg.train"
    # several machines: through a hostfile, --nproc-per-node on each
    cluster = parse(["--nnodes", "2", "--nproc-per-node", "4", "--hostfile", "hosts", "t.py"])
    assert (cluster.nproc, cluster.per_node, cluster.nnodes) == (8, 4, 2)
    command = build_command(cluster, "mpirun", True)
    assert command[command.index("--map-by"):][:2] == ["--map-by", "ppr:4:node"] and command[:3] == ["mpirun", "-n",
                                                                                                     "8"]
    assert "-ppn" in build_command(cluster, "mpiexec", False)
    env = torchrun_environment(cluster)
    assert (env["GROUP_WORLD_SIZE"], env["TORCHELASTIC_RESTART_COUNT"], env["ROLE_NAME"]) == ("2", "0", "default")


@pytest.mark.parametrize("argv, message", [
    (["--nnodes=2", "t.py"], "without --hostfile the processes start on this machine only"),
    (["--nnodes", "2:4", "--hostfile", "h", "t.py"], "fixed set of machines"),
    (["--node-rank", "1", "t.py"], "run this launcher once"),
    (["--nproc", "2", "--nproc-per-node", "2", "t.py"], "not both"),
    (["--nproc-per-node", "gpu", "t.py"], "vfw runs on the CPU"),
])
def test_torchrun_options_vfw_cannot_honour(argv, message, capsys):
    with pytest.raises(SystemExit):
        parse(argv)
    assert message in capsys.readouterr().err


def test_group_and_role_variables():
    assert torchrun_variables(5, 8, 1, 4) == {"RANK": 5, "WORLD_SIZE": 8, "LOCAL_RANK": 1, "LOCAL_WORLD_SIZE": 4,
                                              "ROLE_RANK": 5, "ROLE_WORLD_SIZE": 8, "GROUP_RANK": 1,
                                              "GROUP_WORLD_SIZE": 2}
    assert torchrun_variables(1, 2, 1, 2, nodes=1)["GROUP_RANK"] == 0


def test_torchrun_environment_in_each_process():
    """What torchrun 2.13 gives its workers (measured: ``torchrun --standalone --nproc-per-node 2``), under the
    launcher with torchrun's flags; OMP_NUM_THREADS=1 when unset, as torchrun; and a ``TF_CONFIG``."""
    pytest.importorskip("mpi4py")
    from tests.distributed.launch import HERE, _run, environment

    env = environment()
    del env["OMP_NUM_THREADS"]
    command = [sys.executable, "-m", "vfw.distributed.run", "--standalone", "--nnodes=1", "--nproc-per-node=2",
               "--rdzv-backend=c10d", "--max-restarts=3", os.path.join(HERE, "torchrun_env_script.py")]
    done = _run(command, env, "torchrun_env_script.py", 2)
    assert done.returncode == 0, done.stderr
    assert "Setting OMP_NUM_THREADS environment variable for each process to be 1" in done.stderr
    seen = sorted((json.loads(line) for line in done.stdout.splitlines()), key=lambda v: v["RANK"])
    run_id = seen[0]["TORCHELASTIC_RUN_ID"]
    assert len(run_id) == 36 and int(seen[0]["MASTER_PORT"]) > 0
    for rank, values in enumerate(seen):
        # not torchrun's: what TF's multi-worker scripts read; every process a worker, this one by its rank
        tf_config = json.loads(values.pop("TF_CONFIG"))
        assert tf_config["task"] == {"type": "worker", "index": rank}
        assert [address.split(":")[0] for address in tf_config["cluster"]["worker"]] == ["localhost"] * 2
        assert values == {"launched": True, "RANK": str(rank), "WORLD_SIZE": "2", "LOCAL_RANK": str(rank),
                          "LOCAL_WORLD_SIZE": "2", "GROUP_RANK": "0", "GROUP_WORLD_SIZE": "1",
                          "ROLE_RANK": str(rank), "ROLE_WORLD_SIZE": "2", "ROLE_NAME": "default",
                          "TORCHELASTIC_RUN_ID": run_id, "TORCHELASTIC_RESTART_COUNT": "0",
                          "TORCHELASTIC_MAX_RESTARTS": "3", "OMP_NUM_THREADS": "1", "MASTER_ADDR": "127.0.0.1",
                          "MASTER_PORT": seen[0]["MASTER_PORT"]}
