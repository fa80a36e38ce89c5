"""Collectives on tensors whose sizes or dtypes differ across ranks, against real torch 2.13.

Plain gloo aborts a process or silently mixes bytes there; under ``TORCH_DISTRIBUTED_DEBUG=DETAIL`` torch checks
each collective's fingerprint first and every rank raises a RuntimeError naming the collective, both ranks and
their tensors.  vfw always checks: tests/distributed/collectives_mismatch_script.py runs under vfw's launcher and
under torchrun (DETAIL), and the two must raise the same errors about the same fingerprints; tensors whose shapes
differ but whose sizes agree run as under plain gloo.
"""

import json
import re

import numpy as np
import pytest

from tests.distributed.launch import run_ok
from tests.distributed.test_torch_subgroups import _torchrun

pytest.importorskip("torch")

SCRIPT = "collectives_mismatch_script.py"


def _fingerprints(message):
    """``(this rank, its collective, the other rank, its collective)`` from a mismatch message; a collective as
    (op type, first tensor shape, first dtype)."""
    found = re.match(r"Detected mismatch between collectives on ranks\. Rank (\d+) is running collective: (.*), "
                     r"but Rank (\d+) is running collective: (.*)", message, re.S)
    assert found, message

    def collective(text):
        return (re.search(r"OpType=(\w+)", text)[1], re.search(r"TensorShape=(\[[^\]]*\])", text)[1],
                re.search(r"TensorDtypes=(\w+)", text)[1])

    return int(found[1]), collective(found[2]), int(found[3]), collective(found[4])


def _run_both(tmp_path, cases, torch_env):
    ours, theirs = tmp_path / "vfw", tmp_path / "torch"
    ours.mkdir()
    theirs.mkdir()
    run_ok(2, SCRIPT, "vfw.torch", ours, cases)
    _torchrun(2, SCRIPT, "torch", theirs, cases, env=torch_env)
    return [(json.loads((ours / f"{r}.json").read_text()), json.loads((theirs / f"{r}.json").read_text()))
            for r in range(2)]


def test_mismatched_collectives_raise_on_every_rank_as_torch_detail(tmp_path):
    for rank, (got, expected) in enumerate(_run_both(tmp_path, "mismatch", {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"})):
        assert got.keys() == expected.keys()
        for case in expected:
            assert expected[case][0] == "RuntimeError", (rank, case, expected[case])
            assert got[case][0] == "RuntimeError", (rank, case, got[case])
            assert _fingerprints(got[case][1]) == _fingerprints(expected[case][1]), (rank, case, got[case][1])


def test_same_sizes_other_shapes_run_as_plain_gloo(tmp_path):
    for got, expected in _run_both(tmp_path, "agree", {}):
        assert got == expected


def test_disagreeing_all_to_all_single_and_oversized_message_raise(tmp_path):
    """gloo aborts, hangs or mixes bytes here (no DETAIL fingerprint covers splits): the oracle is the script's
    split tables and sizes, in numpy."""
    sends, receives = np.array([[1, 2], [1, 1]]), np.array([[1, 1], [1, 1]])  # the script's SEND/RECEIVE_SPLITS
    s, d = np.argwhere(sends != receives.T)[0]
    run_ok(2, SCRIPT, "vfw.torch", tmp_path, "vfw")
    for rank in range(2):
        got = json.loads((tmp_path / f"{rank}.json").read_text())
        kind, message, _ = got["all_to_all_single splits"]
        assert kind == "RuntimeError"
        assert f"rank {s} sends {sends[s, d]} elements to rank {d}, which expects {receives[d, s]}" in message
        kind, message, _ = got["all_to_all_single dtypes"]
        assert kind == "RuntimeError" and "rank 0 Float, rank 1 Double" in message
        assert got["all_to_all_single agreeing"] == ["ok", [[0.0, 1.0], [0.5, 1.5]][rank]]
    _, message, is_runtime_error = json.loads((tmp_path / "1.json").read_text())["recv smaller"]  # 5 sent, room for 3
    assert is_runtime_error and "recv from rank 0 of (3,) float32" in message and "larger" in message
