"""Differentiable collectives (``torch.distributed.nn``), ``Join`` with DDP on uneven inputs,
``ZeroRedundancyOptimizer`` and collective conformance (gloo's ``reduce`` on non-destination ranks,
``all_gather_into_tensor``'s checks, DDP's device arguments, ``monitored_barrier``'s message) in 2 and 3
processes: distributed_algorithms_script.py runs once under real torch 2.13 with gloo (the oracle) and once
under vfw.torch, and every rank's results must agree.
"""

import json
import math
import os

import pytest

pytest.importorskip("torch")
pytest.importorskip("mpi4py")

from tests.distributed.launch import launch  # noqa: E402

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "distributed_algorithms_script.py")


def _results(nproc, lib, env=None):
    done = launch(nproc, SCRIPT, lib, env=env)
    assert done.returncode == 0, f"{lib}: exit {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {(row["rank"], row["check"]): row["value"] for row in rows}


def _assert_same(got, expected, where):
    """Exact for strings, bools and structure; numbers to float32 accuracy (summation orders differ)."""
    if isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected), f"{where}: {got!r} != {expected!r}"
        for i, (g, e) in enumerate(zip(got, expected)):
            _assert_same(g, e, f"{where}[{i}]")
    elif isinstance(expected, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(expected), f"{where}: {got!r} != {expected!r}"
        for k in expected:
            _assert_same(got[k], expected[k], f"{where}[{k!r}]")
    elif isinstance(expected, float) and not isinstance(got, bool):
        assert isinstance(got, (int, float)) and math.isclose(got, expected, rel_tol=1e-5, abs_tol=1e-6), \
            f"{where}: {got!r} != {expected!r}"
    else:
        assert got == expected, f"{where}: {got!r} != {expected!r}"


@pytest.mark.parametrize("nproc, shared_memory", [(2, "1"), (3, "0")], ids=["2-shared-window", "3-mpi-all-reduce"])
def test_distributed_algorithms_match_torch(nproc, shared_memory):
    """One job per framework checks every section; with 3 processes DDP averages through MPI's all-reduce."""
    expected = _results(nproc, "torch")
    got = _results(nproc, "vfw", env={"VFW_DISTRIBUTED_SHARED_MEMORY": shared_memory})
    assert sorted(got) == sorted(expected)
    assert len(expected) > 40 * nproc  # every section ran
    for key in sorted(expected):
        _assert_same(got[key], expected[key], f"rank {key[0]} {key[1]}")
