"""torch.distributed's gather/scatter, object, batched and non-blocking point-to-point transfers, reduce_scatter of
tensor lists, all_to_all, new_group/destroy_process_group, version counters, monitored_barrier, stores shared by
processes and DDP communication hooks (each process checks against numpy and torch's values in
collectives_more_script.py)."""

from tests.distributed.launch import run_ok


def test_collectives_more():
    done = run_ok(3, "collectives_more_script.py")
    assert sorted(done.stdout.split("\n")[:-1]) == [f"rank {r} ok" for r in range(3)]
