"""Object collectives, gather/scatter, all_to_all(_single), irecv from any rank and batch_isend_irecv against real
torch 2.13 (gloo): tests/distributed/collectives_rooted_script.py runs in 3 processes under vfw's launcher and
under torchrun, and each rank's results, exceptions and warnings must be the same."""

import json

import pytest

from tests.distributed.launch import run_ok
from tests.distributed.test_torch_subgroups import _torchrun

pytest.importorskip("torch")

SCRIPT = "collectives_rooted_script.py"


def test_rooted_and_object_collectives_match_torch(tmp_path):
    ours, theirs = tmp_path / "vfw", tmp_path / "torch"
    ours.mkdir()
    theirs.mkdir()
    run_ok(3, SCRIPT, "vfw.torch", ours)
    _torchrun(3, SCRIPT, "torch", theirs)
    for rank in range(3):
        got = json.loads((ours / f"{rank}.json").read_text())
        expected = json.loads((theirs / f"{rank}.json").read_text())
        assert got.keys() == expected.keys(), rank
        for key in expected:
            assert got[key] == expected[key], f"rank {rank}: {key}"
