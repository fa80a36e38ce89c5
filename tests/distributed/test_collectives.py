"""torch.distributed collectives, the engine's collective ops in traced graphs and their gradients (3
processes; every process checks its results against numpy in collectives_script.py)."""

from tests.distributed.launch import run_ok


def test_collectives():
    done = run_ok(3, "collectives_script.py")
    assert sorted(done.stdout.split("\n")[:-1]) == [f"rank {r} ok" for r in range(3)]
