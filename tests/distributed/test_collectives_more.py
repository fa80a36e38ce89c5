"""torch.distributed's gather/scatter, object and batched point-to-point transfers, all_to_all, monitored_barrier,
stores shared by processes and DDP communication hooks (each process checks against numpy in
collectives_more_script.py)."""

from tests.distributed.launch import run_ok


def test_collectives_more():
    done = run_ok(3, "collectives_more_script.py")
    assert sorted(done.stdout.split("\n")[:-1]) == [f"rank {r} ok" for r in range(3)]
