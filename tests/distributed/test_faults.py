"""Faults end the whole job with a clear error, within a bounded time, instead of hanging (a wrong world size:
compat_tests/torch/test_distributed.py)."""

import sys

import pytest

from tests.distributed.launch import launch


def test_exception_on_one_rank_aborts_the_job():
    done = launch(2, "fault_script.py", "raise")
    assert done.returncode != 0
    assert "ValueError: bad batch on rank 1" in done.stderr
    assert "rank 1 raised ValueError; aborting the MPI job" in done.stderr
    assert "passed the all-reduce" not in done.stdout


def test_peer_exit_times_out_the_waiting_rank():
    done = launch(2, "fault_script.py", "exit", collective_timeout=3)
    assert done.returncode != 0
    assert "rank 0/2: all_reduce(sum) of (4,) float32 did not complete within 3 s" in done.stderr
    assert "passed the all-reduce" not in done.stdout


def test_irecv_wait_for_a_message_never_sent_times_out():
    # irecv is non-blocking, and waiting for it is watched by the same timeout as a collective
    done = launch(2, "fault_script.py", "irecv", collective_timeout=3)
    assert done.returncode != 0
    assert "rank 0/2: irecv from rank 1 of (4,) float32 did not complete within 3 s" in done.stderr
    assert "received" not in done.stdout


def test_missing_mpi4py_says_what_to_install(monkeypatch):
    from vfw.core.distributed import mpi

    monkeypatch.setitem(mpi._state, "MPI", None)
    monkeypatch.setitem(sys.modules, "mpi4py", None)  # import mpi4py now raises ImportError
    with pytest.raises(ImportError, match=r"mpi4py is not installed: install them with `pip install 'vfw\[dist"):
        mpi.load()


def test_launcher_without_mpirun_says_what_to_install(monkeypatch, tmp_path):
    from vfw.distributed import run

    monkeypatch.setattr(run.sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SystemExit, match="no MPI launcher .*pip install 'vfw\\[distributed\\]'"):
        run.find_launcher()


def test_tf_config_naming_more_workers_than_mpi_started_says_how_to_launch(monkeypatch):
    # TF's own workers are started one by one with TF_CONFIG and meet over gRPC; vfw's replicas are the processes
    # of one MPI job, so a lone process must not train as if it were the whole cluster
    import vfw.tensorflow as tf

    monkeypatch.setenv("TF_CONFIG", '{"cluster": {"chief": ["localhost:1233"], "worker": ["localhost:1234"]}, '
                                    '"task": {"type": "chief", "index": 0}}')
    with pytest.raises(RuntimeError, match=r"MultiWorkerMirroredStrategy: the cluster spec names 2 chief/worker "
                                           r"tasks.*mpirun -n 2 python script.py"):
        tf.distribute.MultiWorkerMirroredStrategy()
    monkeypatch.setenv("TF_CONFIG", '{"cluster": {"worker": ["localhost:1234"]}, "task": {"type": "worker", '
                                    '"index": 0}}')
    assert tf.distribute.MultiWorkerMirroredStrategy().num_replicas_in_sync == 1
