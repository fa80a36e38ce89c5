"""DDP with 2 and 3 processes trains like one process on the union of their batches (real torch as the oracle)."""

import pytest

from tests.distributed.launch import run_ok
from tests.distributed.reference import assert_trained_like_reference

BATCH, STEPS = 4, 3


@pytest.mark.parametrize("shared_memory", ["1", "0"], ids=["shared-window", "mpi-all-reduce"])
@pytest.mark.parametrize("size, via", [(2, "launcher"), (3, "mpirun")])
def test_ddp_matches_single_process_large_batch(tmp_path, size, via, shared_memory):
    """Both averaging routes: a shared-memory window (processes of one machine) and MPI's all-reduce (forced by
    the environment variable, as across machines)."""
    out = tmp_path / "params.npz"
    run_ok(size, "ddp_script.py", out, BATCH, STEPS, via=via, env={"VFW_DISTRIBUTED_SHARED_MEMORY": shared_memory})
    assert_trained_like_reference(out, size, BATCH, STEPS)


@pytest.mark.parametrize("shared_memory", ["1", "0"], ids=["shared-window", "mpi-all-reduce"])
def test_ddp_snapshots_and_buffer_broadcasts(shared_memory):
    """Deep-copied and unpickled DDP models train on 2 ranks; buffers are broadcast at torch's forwards."""
    done = run_ok(2, "ddp_copy_script.py", env={"VFW_DISTRIBUTED_SHARED_MEMORY": shared_memory})
    assert sorted(done.stdout.split("\n")[:-1]) == ["rank 0 ok", "rank 1 ok"]
