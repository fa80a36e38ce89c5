"""torch.distributed subgroups against real torch 2.13 (gloo): tests/distributed/collectives_subgroups_script.py
runs in 3 processes under vfw's launcher and under torchrun, and each rank's results, exceptions and warnings
are compared (a group's repr differs: vfw's and torch's ``<... ProcessGroup ...>`` compare equal)."""

import json
import os
import re
import subprocess
import sys

import pytest

from tests.distributed.launch import HARD_TIMEOUT, ROOT, environment, run_ok

pytest.importorskip("torch")

SCRIPT = "collectives_subgroups_script.py"


def _normalized(path):
    """The JSON at ``path`` with every group's repr (which names its address in torch) replaced by one name."""
    return json.loads(re.sub(r"<[^<>]*ProcessGroup[^<>]*>", "<ProcessGroup>", path.read_text()))


def _torchrun(nproc, script, *args, env=None):
    """Run ``script`` under torchrun in ``nproc`` processes (real torch), with the variables ``env`` added."""
    torchrun = os.path.join(os.path.dirname(sys.executable), "torchrun")
    done = subprocess.run([torchrun, "--standalone", "--nproc-per-node", str(nproc),
                           os.path.join(ROOT, "tests", "distributed", script), *map(str, args)],
                          env=environment(extra=env), cwd=ROOT, capture_output=True, text=True, timeout=HARD_TIMEOUT)
    assert done.returncode == 0, done.stderr
    return done


def test_subgroups_match_torch(tmp_path):
    ours, theirs = tmp_path / "vfw", tmp_path / "torch"
    ours.mkdir()
    theirs.mkdir()
    run_ok(3, SCRIPT, "vfw.torch", ours)
    _torchrun(3, SCRIPT, "torch", theirs)
    for rank in range(3):
        got, expected = _normalized(ours / f"{rank}.json"), _normalized(theirs / f"{rank}.json")
        assert got.keys() == expected.keys(), rank
        for key in expected:
            assert got[key] == expected[key], f"rank {rank}: {key}"
