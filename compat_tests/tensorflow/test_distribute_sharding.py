"""How MultiWorkerMirroredStrategy splits datasets over 2 workers, against real TF 2.21 run as 2 processes with
their own ``TF_CONFIG``: the DATA (and AUTO) slices of odd and short global batches, the per-replica batches of
``AutoShardPolicy.OFF``, and ``distribute_datasets_from_function``'s input contexts
(tests/distributed/tf_sharding_script.py reads them, one multi-process job for each framework)."""

import json
import os
import socket
import subprocess
import sys

import pytest

pytest.importorskip("tensorflow")

from tests.distributed.launch import HARD_TIMEOUT, ROOT, environment, run_ok  # noqa: E402

SCRIPT = os.path.join(ROOT, "tests", "distributed", "tf_sharding_script.py")


def _free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("localhost", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def _real_tf(out):
    real_tf_workers(SCRIPT, out)


def real_tf_workers(script, out, *args):
    """Real TF's two workers running ``script tensorflow out *args``, each a process with its ``TF_CONFIG`` (as TF's
    multi-worker tutorial runs them)."""
    workers = [f"localhost:{port}" for port in _free_ports(2)]
    processes = []
    for index in range(2):
        config = json.dumps({"cluster": {"worker": workers}, "task": {"type": "worker", "index": index}})
        env = environment(extra={"TF_CONFIG": config, "TF_CPP_MIN_LOG_LEVEL": "3"})
        command = [sys.executable, script, "tensorflow", str(out), *map(str, args)]
        processes.append(subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                          text=True))
    try:
        logs = [p.communicate(timeout=HARD_TIMEOUT)[0] for p in processes]
    finally:
        for p in processes:
            p.kill()
    assert all(p.returncode == 0 for p in processes), "\n".join(logs)


def _read(out):
    return [json.loads((out / f"{task}.json").read_text()) for task in range(2)]


def test_datasets_distributed_over_two_workers_as_tf(tmp_path):
    ours, theirs = tmp_path / "vfw", tmp_path / "tf"
    ours.mkdir()
    theirs.mkdir()
    run_ok(2, "tf_sharding_script.py", "vfw.tensorflow", ours)
    _real_tf(theirs)
    for task, (got, expected) in enumerate(zip(_read(ours), _read(theirs))):
        assert got.keys() == expected.keys()
        for key in expected:
            assert got[key] == expected[key], f"worker {task}: {key}"


FILE_ERRORS = ("no_files_file", "one_file_auto", "one_file_file")


def _tf_message(message):
    """A real TF error message without the ``{{function_node ...}}`` prefix naming its worker's device."""
    return message.split("}} ", 1)[1] if message.startswith("{{") else message


def test_file_datasets_sharded_by_file_over_two_workers_as_tf(tmp_path):
    """AUTO and FILE sharding of TextLine/TFRecord datasets (file names listed, from ``list_files`` through
    ``interleave``/``flat_map``): each worker reads whole files, as real TF's workers; an unshardable source and
    too few files raise TF's errors (real TF's first worker's: its second one then fails on the broken collective
    or reads empty batches, vfw's raises the same error)."""
    ours, theirs = tmp_path / "vfw", tmp_path / "tf"
    ours.mkdir()
    theirs.mkdir()
    run_ok(2, "tf_file_sharding_script.py", "vfw.tensorflow", ours)
    real_tf_workers(os.path.join(ROOT, "tests", "distributed", "tf_file_sharding_script.py"), theirs)
    expected_errors = _read(theirs)[0]
    for task, (got, expected) in enumerate(zip(_read(ours), _read(theirs))):
        assert got.keys() == expected.keys()
        for key in expected:
            if key in FILE_ERRORS:
                kind, message = expected_errors[key]
                assert got[key][0] == kind, f"worker {task}: {key}: {got[key]}"
                # (TF's unshardable-source message names the source by a garbled debug string)
                core = _tf_message(message)
                core = core.split(":", 1)[0] + ":" if kind == "NotFoundError" else core
                assert got[key][1].startswith(core.rstrip()), f"worker {task}: {key}: {got[key]}"
            else:
                assert got[key] == expected[key], f"worker {task}: {key}"
