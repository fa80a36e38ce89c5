"""torchrun-era torch.distributed APIs in one process (a world of size 1) against real torch 2.13: the modules
``distributed_c10d`` and ``constants``, ``elastic.multiprocessing.errors`` (``record``, ``ChildFailedError``), and
DistributedDataParallel's deepcopy/pickle and forward buffer-sync state.

Two processes (the copy's averaging, the buffers broadcast) are tested in tests/distributed/test_torch_ddp.py.
"""

import copy
import json
import os
import pickle

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
pytest.importorskip("mpi4py")

import vfw.torch as vtorch  # noqa: E402
import vfw.torch.distributed.elastic.multiprocessing.errors as vfw_errors  # noqa: E402

from compat_tests.torch.test_distributed import initialized, outcome  # noqa: E402

both = pytest.mark.parametrize("torch", [vtorch, real_torch], ids=["vfw", "torch"])


def _errors(torch):
    if torch is vtorch:
        return vfw_errors
    import torch.distributed.elastic.multiprocessing.errors as errors

    return errors


def test_distributed_c10d_and_constants_modules():
    def run(torch):
        dist = torch.distributed
        c10d, constants = dist.distributed_c10d, dist.constants
        same = all(getattr(c10d, name) is getattr(dist, name) for name in ("init_process_group", "get_rank", "ReduceOp",
                                                                             "group", "GroupMember", "all_reduce",
                                                                             "default_pg_timeout", "Backend"))
        complex_ops = [c10d.supports_complex(op) for op in (dist.ReduceOp.SUM, dist.ReduceOp.AVG, dist.ReduceOp.MAX,
                                                             dist.ReduceOp.MIN, dist.ReduceOp.PRODUCT,
                                                             dist.ReduceOp.BAND)]
        before = outcome(c10d._get_default_group)
        with initialized(torch):
            default = c10d._get_default_group() is dist.group.WORLD
            not_in = c10d._rank_not_in_group(None), c10d._rank_not_in_group(dist.group.WORLD)
        return (same, complex_ops, before, default, not_in, constants.default_pg_timeout,
                constants.default_pg_timeout is dist.default_pg_timeout, constants.default_pg_nccl_timeout,
                sorted(constants.__all__))

    assert run(vtorch) == run(real_torch)
    assert set(vtorch.distributed.distributed_c10d.__all__) <= set(real_torch.distributed.distributed_c10d.__all__)


@both
def test_record_writes_the_error_file_and_reraises(torch, tmp_path, monkeypatch):
    errors = _errors(torch)
    path = tmp_path / "error.json"
    monkeypatch.setenv("TORCHELASTIC_ERROR_FILE", str(path))

    @errors.record
    def main(x):
        if x == "exit0":
            raise SystemExit(0)
        if x == "exit3":
            raise SystemExit(3)
        if x:
            raise ValueError(f"bad {x}")
        return "done"

    assert main(None) == "done" and main("exit0") is None and not path.exists()
    with pytest.raises(SystemExit):
        main("exit3")
    assert not path.exists()
    with pytest.raises(ValueError, match="bad 7"):
        main(7)
    data = json.loads(path.read_text())
    assert list(data) == ["message"] and data["message"]["message"] == "ValueError: bad 7"
    assert sorted(data["message"]["extraInfo"]) == ["py_callstack", "timestamp"]
    assert 'raise ValueError(f"bad {x}")' in data["message"]["extraInfo"]["py_callstack"]
    assert main.__name__ == "main"
    monkeypatch.delenv("TORCHELASTIC_ERROR_FILE")
    with pytest.raises(ValueError):  # no error file: only re-raised
        main(8)


def test_child_failed_error(tmp_path, monkeypatch):
    child = tmp_path / "child.json"
    child.write_text(json.dumps({"message": {"message": "RuntimeError: boom",
                                             "extraInfo": {"py_callstack": "Traceback\n  line\nRuntimeError: boom",
                                                           "timestamp": "1700000000"}}}))

    def run(torch):
        errors = _errors(torch)
        failures = {1: errors.ProcessFailure(local_rank=1, pid=42, exitcode=1, error_file=str(child)),
                    3: errors.ProcessFailure(local_rank=3, pid=43, exitcode=-9, error_file=str(tmp_path / "none"))}
        failures[3].timestamp = 1700000001
        error = errors.ChildFailedError("train.py", failures)
        first = error.get_first_failure()
        parent = tmp_path / f"parent_{torch.__name__}.json"
        monkeypatch.setenv("TORCHELASTIC_ERROR_FILE", str(parent))

        @errors.record
        def agent():
            raise error

        raised = outcome(agent)
        no_failure = outcome(lambda: errors.ChildFailedError("x", {}))[0]
        return (str(error), first[0], first[1].message, failures[3].message, failures[3].error_file,
                failures[3].signal_name(), raised, json.loads(parent.read_text()), no_failure,
                isinstance(errors.get_error_handler(), errors.ErrorHandler))

    assert run(vtorch) == run(real_torch)


def test_ddp_deepcopy_and_pickle():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 3)).astype(np.float32)
    weights = [rng.standard_normal(s).astype(np.float32) for s in [(4, 3), (4,), (1, 4), (1,)]]

    def run(torch):
        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
        with torch.no_grad():
            for p, value in zip(model.parameters(), weights):
                p.copy_(torch.from_numpy(value))
        with initialized(torch):
            ddp = torch.nn.parallel.DistributedDataParallel(model, find_unused_parameters=True)
            ddp(torch.from_numpy(x)).sum().backward()
            results = []
            for snapshot in (copy.deepcopy(ddp), pickle.loads(pickle.dumps(ddp))):
                optimizer = torch.optim.SGD(snapshot.parameters(), lr=0.1)
                for _ in range(2):
                    with snapshot.no_sync():
                        snapshot(torch.from_numpy(x[:3])).pow(2).mean().backward()
                    snapshot(torch.from_numpy(x[3:])).pow(2).mean().backward()
                    optimizer.step()
                    optimizer.zero_grad()
                results.append((type(snapshot).__name__, snapshot.process_group is ddp.process_group,
                                snapshot.module is not ddp.module, snapshot.find_unused_parameters,
                                snapshot.require_backward_grad_sync, snapshot.require_forward_param_sync,
                                list(snapshot.state_dict()),
                                [p.detach().numpy().round(5).tolist() for p in snapshot.parameters()]))
                del snapshot, optimizer
            results.append([p.grad.numpy().round(5).tolist() for p in ddp.parameters()])  # the original's, kept
            del ddp  # before the process group is destroyed
        return results

    assert run(vtorch) == run(real_torch)


def test_pickling_needs_the_default_group():
    with initialized(vtorch):
        ddp = vtorch.nn.parallel.DistributedDataParallel(vtorch.nn.Linear(2, 1))
        saved = pickle.dumps(ddp)
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        pickle.loads(saved)


@both
def test_forward_buffer_sync_state(torch):
    """torch broadcasts buffers in a forward when the one before ran with grad enabled outside no_sync."""
    with initialized(torch):
        ddp = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(torch.nn.Linear(2, 2),
                                                                            torch.nn.BatchNorm1d(2)))
        x = torch.ones(3, 2)
        seen = [ddp.require_forward_param_sync]
        ddp(x).sum().backward()
        seen.append(ddp.require_forward_param_sync)
        with ddp.no_sync():
            ddp(x)
        seen.append(ddp.require_forward_param_sync)
        ddp(x)
        seen.append(ddp.require_forward_param_sync)
        with torch.no_grad():
            ddp(x)
        seen.append(ddp.require_forward_param_sync)
        with torch.inference_mode():
            ddp(x)
        seen.append(ddp.require_forward_param_sync)
        del ddp
    assert seen == [True, True, False, True, False, False]
    assert os.environ.get("TORCHELASTIC_RUN_ID") is None or torch.distributed.is_torchelastic_launched()


def test_imports_of_a_served_torchrun_script():
    import vfw

    with vfw.mock("torch"):
        import torch
        from torch.distributed.constants import default_pg_timeout
        from torch.distributed.distributed_c10d import ReduceOp, _get_default_group, init_process_group
        from torch.distributed.elastic.multiprocessing.errors import ChildFailedError, record
    assert init_process_group is torch.distributed.init_process_group and ReduceOp is torch.distributed.ReduceOp
    assert record is vfw_errors.record and ChildFailedError is vfw_errors.ChildFailedError
    assert default_pg_timeout.total_seconds() == 1800 and callable(_get_default_group)
