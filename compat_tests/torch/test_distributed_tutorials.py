"""What torch's DDP tutorials do in one process (a world of size 1) against real torch 2.13: SyncBatchNorm under
an initialized process group on CPU (vfw's only device: ``convert_sync_batchnorm`` then DistributedDataParallel is
refused, as is a training forward; evaluation and an uninitialized group still run), and a cleanup that destroys
the process group twice; and the tutorials' programs run by 2 processes each (tests/distributed/
ddp_tutorial_script.py under vfw's launcher and under torchrun, one job each)."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
pytest.importorskip("mpi4py")

import vfw.torch as vtorch  # noqa: E402

from compat_tests.torch.test_distributed import initialized, outcome  # noqa: E402
from tests.distributed.launch import HARD_TIMEOUT, ROOT, environment, run_ok  # noqa: E402


def _sync_batchnorm_under_process_group(torch):
    nn = torch.nn
    torch.manual_seed(0)
    x = torch.tensor(np.random.default_rng(0).standard_normal((6, 3)), dtype=torch.float32)
    net = nn.SyncBatchNorm.convert_sync_batchnorm(nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4)))
    before = net(x).detach().numpy()  # no process group: batch norm of this process's batch
    results = {"before": before, "types": [type(m).__name__ for m in net]}
    with initialized(torch):
        results["ddp"] = outcome(lambda: type(nn.parallel.DistributedDataParallel(net)).__name__)
        results["train"] = outcome(lambda: net(x).sum().item())
        results["steps"] = net[1].num_batches_tracked.item()  # counted before torch refuses the input
        results["running_mean"] = net[1].running_mean.numpy().copy()
        net.eval()
        results["eval"] = net(x).detach().numpy()
        bn = nn.SyncBatchNorm(4, track_running_stats=False).eval()  # batch statistics in eval: still a sync
        results["eval_batch_stats"] = outcome(lambda: bn(torch.ones(2, 4)).sum().item())
    return results


def test_sync_batchnorm_refused_on_cpu_under_process_group():
    ours, theirs = _sync_batchnorm_under_process_group(vtorch), _sync_batchnorm_under_process_group(real_torch)
    assert set(ours) == set(theirs)
    for key in theirs:
        if isinstance(theirs[key], np.ndarray):
            np.testing.assert_allclose(ours[key], theirs[key], rtol=1e-5, atol=1e-6)
        else:
            assert ours[key] == theirs[key], key


def test_destroy_process_group_twice():
    def run(torch):
        dist = torch.distributed
        with initialized(torch):
            group = dist.new_group()
        return (outcome(dist.destroy_process_group), outcome(lambda: dist.destroy_process_group(group)),
                dist.is_initialized())

    assert run(vtorch) == run(real_torch)


def _assert_close(got, expected, where):
    """Equal structures; floats to float32 rounding (the ranks' all-reduces sum in another order)."""
    if isinstance(expected, float):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, err_msg=where)
    elif isinstance(expected, list) and expected and any(isinstance(v, float) for v in expected):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, err_msg=where)
    elif isinstance(expected, dict):
        assert got.keys() == expected.keys(), where
        for key in expected:
            _assert_close(got[key], expected[key], f"{where}: {key}")
    else:
        assert got == expected, where


def test_ddp_tutorial_programs_under_two_processes(tmp_path):
    ours, theirs = tmp_path / "vfw", tmp_path / "torch"
    ours.mkdir()
    theirs.mkdir()
    run_ok(2, "ddp_tutorial_script.py", "vfw.torch", ours)
    torchrun = os.path.join(os.path.dirname(sys.executable), "torchrun")
    done = subprocess.run([torchrun, "--standalone", "--nproc-per-node", "2",
                           os.path.join(ROOT, "tests", "distributed", "ddp_tutorial_script.py"), "torch", str(theirs)],
                          env=environment(), cwd=ROOT, capture_output=True, text=True, timeout=HARD_TIMEOUT)
    assert done.returncode == 0, done.stderr
    for rank in range(2):
        _assert_close(json.loads((ours / f"{rank}.json").read_text()),
                      json.loads((theirs / f"{rank}.json").read_text()), f"rank {rank}")
