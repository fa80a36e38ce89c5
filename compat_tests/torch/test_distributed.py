"""torch.distributed's API in one process (a world of size 1) against real torch 2.13 with gloo.

Multi-process behaviour (collectives, DDP, faults) is tested in tests/distributed/.
"""

import contextlib
import socket

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
pytest.importorskip("mpi4py")

import vfw.torch as vtorch  # noqa: E402


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def initialized(torch):
    torch.distributed.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{_free_port()}", rank=0, world_size=1)
    try:
        yield torch.distributed
    finally:
        if torch.distributed.is_initialized():
            torch.distributed.destroy_process_group()


def outcome(fn):
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001  (the exception type and text are what is compared)
        return type(e).__name__, str(e)


@pytest.mark.parametrize("call", ["get_rank", "get_world_size", "all_reduce", "barrier"])
def test_before_init_process_group(call):
    def run(torch):
        dist = torch.distributed
        args = (torch.ones(2),) if call == "all_reduce" else ()
        return dist.is_initialized(), dist.is_available(), outcome(lambda: getattr(dist, call)(*args))

    assert run(vtorch) == run(real_torch)


def test_env_rendezvous_without_its_variables(monkeypatch):
    # a script run with plain python (no torchrun, no MPI launcher): torch's env:// error, which scripts catch to
    # fall back to one process
    for name in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "LOCAL_RANK"):
        monkeypatch.delenv(name, raising=False)

    def run(torch):
        return outcome(lambda: torch.distributed.init_process_group("gloo")), torch.distributed.is_initialized()

    assert run(vtorch) == run(real_torch)


def test_names_and_enums():
    for torch in (vtorch, real_torch):
        dist = torch.distributed
        assert repr(dist.ReduceOp.SUM) == "<RedOpType.SUM: 0>" and dist.ReduceOp.MAX.value == 4
        assert dist.Backend("GLOO") == "gloo" and dist.Backend.MPI == "mpi"


def test_world_of_one_process():
    def run(torch):
        with initialized(torch) as dist:
            twice = outcome(lambda: dist.init_process_group("gloo"))
            t = torch.arange(3.0)
            work = dist.all_reduce(t, op=dist.ReduceOp.SUM, async_op=True)
            b = torch.ones(2)
            dist.broadcast(b, src=0)
            gathered = [torch.zeros(3)]
            dist.all_gather(gathered, t)
            objects = [None]
            dist.all_gather_object(objects, {"a": 1})
            bad_root = outcome(lambda: dist.broadcast(b, src=3))[0]
            to_self = outcome(lambda: dist.send(t, dst=0))
            not_tensor = outcome(lambda: dist.all_reduce([t]))
            ddp = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 2))
            state = (dist.get_backend(), dist.get_rank(), dist.get_world_size(), dist.group.WORLD is not None,
                     work.wait(), t.tolist(), b.tolist(), gathered[0].tolist(), objects, twice, bad_root, to_self,
                     not_tensor, type(ddp.module).__name__, list(ddp.state_dict()))
            del ddp  # before its process group is destroyed: real torch's gloo group can deadlock destroying it later
        return state + (torch.distributed.is_initialized(),)

    assert run(vtorch) == run(real_torch)


def test_ddp_of_one_process_trains_as_the_module():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((8, 3)).astype(np.float32), rng.standard_normal((8, 1)).astype(np.float32)

    def run(torch):
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
        for p, value in zip(model.parameters(), weights):
            with torch.no_grad():
                p.copy_(torch.from_numpy(value))
        with initialized(torch):
            ddp = torch.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=0.00001)
            optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1)
            for _ in range(3):
                with ddp.no_sync():
                    torch.nn.functional.mse_loss(ddp(torch.from_numpy(x[:4])), torch.from_numpy(y[:4])).backward()
                torch.nn.functional.mse_loss(ddp(torch.from_numpy(x[4:])), torch.from_numpy(y[4:])).backward()
                optimizer.step()
                optimizer.zero_grad()
            trained = [p.detach().numpy().copy() for p in ddp.module.parameters()]
            del ddp, optimizer  # before the process group is destroyed
        return trained

    weights = [rng.standard_normal(s).astype(np.float32) for s in [(4, 3), (4,), (1, 4), (1,)]]
    for ours, theirs in zip(run(vtorch), run(real_torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_unused_parameters():
    class TwoHeads(vtorch.nn.Module):
        def __init__(self):
            super().__init__()
            self.used, self.unused = vtorch.nn.Linear(2, 1), vtorch.nn.Linear(2, 1)

        def forward(self, x):
            return self.used(x)

    with initialized(vtorch):
        strict = vtorch.nn.parallel.DistributedDataParallel(TwoHeads())
        with pytest.raises(RuntimeError, match=r"find_unused_parameters=True.*rank 0: \[2, 3\]"):
            strict(vtorch.ones(1, 2)).sum().backward()
        lenient = vtorch.nn.parallel.DistributedDataParallel(TwoHeads(), find_unused_parameters=True)
        lenient(vtorch.ones(1, 2)).sum().backward()
        assert lenient.module.used.weight.grad is not None and lenient.module.unused.weight.grad is None


@pytest.mark.parametrize("torch", [vtorch, real_torch], ids=["vfw", "torch"])
def test_ddp_reduces_on_backward_only(torch):
    # torch's reducer hooks gradient accumulation: torch.autograd.grad() through a DDP model averages nothing
    calls = []

    def hook(state, bucket):
        calls.append(len(bucket.parameters()))
        future = torch.futures.Future()
        future.set_result(bucket.buffer())
        return future

    with initialized(torch):
        model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 1))
        model.register_comm_hook(None, hook)
        torch.autograd.grad(model(torch.ones(3, 2)).sum(), list(model.parameters()))
        assert calls == [] and all(p.grad is None for p in model.parameters())
        model(torch.ones(3, 2)).sum().backward()
        assert calls == [2]
        del model


def test_backend_errors():
    with pytest.raises(RuntimeError, match="Backend 'nccl' needs accelerators"):
        vtorch.distributed.init_process_group("nccl")
    with pytest.raises(ValueError, match="Invalid backend: 'bogus'"):
        vtorch.distributed.init_process_group("bogus")
    with pytest.raises(RuntimeError, match="world size 2 was asked for but this process was not started by an MPI "
                                           "launcher"):
        vtorch.distributed.init_process_group("gloo", world_size=2)
    assert not vtorch.distributed.is_initialized()


def test_new_group_destroy_reduce_scatter_and_version_counters():
    # a new group is a handle of its own: destroying it leaves the world; collectives count versions as gloo does
    def run(torch):
        with initialized(torch) as dist:
            g = dist.new_group(backend="gloo")
            t = torch.arange(3.0)
            dist.all_reduce(t, group=g)
            state = [g is dist.group.WORLD, dist.get_rank(g), dist.get_world_size(g), dist.get_backend(g),
                     dist.get_pg_count()]
            dist.destroy_process_group(g)
            state += [dist.is_initialized(), dist.get_pg_count(), outcome(lambda: dist.all_reduce(t))]
            errors = [outcome(lambda: dist.get_rank(g)), outcome(lambda: dist.get_backend(g)),
                      outcome(lambda: dist.broadcast(t, 0, group=g)), outcome(lambda: dist.destroy_process_group(g)),
                      outcome(lambda: dist.new_group(backend="bogus"))]
            errors = [(kind, text.replace(repr(g), "<group>")) for kind, text in errors]
            counts = []
            for call, written in [(lambda: dist.all_reduce(t), t), (lambda: dist.broadcast(t, 0), t),
                                  (lambda: dist.all_reduce(t, op=dist.ReduceOp.AVG), t),
                                  (lambda: dist.reduce_scatter(t, [t * 2]), t),
                                  (lambda: dist.reduce_scatter_tensor(t, t * 3), t),
                                  (lambda: dist.all_gather_into_tensor(t, t + 1), t),
                                  (lambda: dist.scatter(t, [t + 1]), t)]:
                before = written._version
                call()
                counts.append(written._version - before)
            x = torch.ones(2, requires_grad=True)
            y = x.exp()
            dist.all_reduce(y)
            y.sum().backward()
            work = dist.all_reduce(t, async_op=True)
            return (state, errors, counts, t.tolist(), np.round(x.grad.numpy(), 5).tolist(), outcome(work.source_rank),
                    outcome(lambda: dist.reduce_scatter(t, [t, t])), outcome(lambda: dist.irecv(t.expand(2, 3), 0)))

    assert run(vtorch) == run(real_torch)


@pytest.mark.parametrize("op", ["PRODUCT", "MIN", "MAX", "BAND", "SUM"])
def test_complex_tensors_refuse_reductions_torch_refuses(op):
    def run(torch):
        with initialized(torch) as dist:
            reduction = getattr(dist.ReduceOp, op)
            return [outcome(lambda: dist.all_reduce(torch.ones(2, dtype=torch.complex64), op=reduction)),
                    outcome(lambda: dist.reduce(torch.ones(2, dtype=torch.complex64), 0, op=reduction))]

    assert run(vtorch) == run(real_torch)


@pytest.mark.parametrize("case", ["dtype", "length", "size"])
def test_all_gather_argument_errors(case):
    def run(torch):
        outputs = {"dtype": [torch.zeros(2)], "length": [torch.zeros(2), torch.zeros(2)], "size": [torch.zeros(3)]}
        source = torch.ones(2, dtype=torch.int64 if case == "dtype" else torch.float32)
        with initialized(torch) as dist:
            return outcome(lambda: dist.all_gather(outputs[case], source))

    assert run(vtorch) == run(real_torch)


_ARGUMENT_CASES = {
    "avg_of_ints": lambda torch, dist: dist.all_reduce(torch.ones(2, dtype=torch.int64), op=dist.ReduceOp.AVG),
    "band_of_floats": lambda torch, dist: dist.all_reduce(torch.ones(2), op=dist.ReduceOp.BAND),
    "bor_of_bools": lambda torch, dist: dist.all_reduce(torch.ones(2, dtype=torch.bool), op=dist.ReduceOp.BOR),
    "op_string": lambda torch, dist: dist.all_reduce(torch.ones(2), op="sum"),
    "op_int": lambda torch, dist: dist.all_reduce(torch.ones(2), op=0),
    "op_premul_sum": lambda torch, dist: dist.all_reduce(torch.ones(2), op=dist.ReduceOp.PREMUL_SUM),
    "wrapped_op": lambda torch, dist: dist.all_reduce(torch.ones(2), op=dist.ReduceOp(dist.ReduceOp.MAX)),
    "broadcast_without_src": lambda torch, dist: dist.broadcast(torch.ones(2)),
    "broadcast_both_srcs": lambda torch, dist: dist.broadcast(torch.ones(2), src=0, group_src=0),
    "reduce_without_dst": lambda torch, dist: dist.reduce(torch.ones(2)),
    "reduce_op_as_int": lambda torch, dist: (int(dist.ReduceOp.MAX), dist.ReduceOp.MAX == 4, str(dist.ReduceOp.MAX),
                                             isinstance(dist.ReduceOp.SUM, dist.ReduceOp),
                                             dist.ReduceOp(dist.ReduceOp.MIN) == dist.ReduceOp.MIN,
                                             hasattr(dist.ReduceOp, "UNUSED")),
    "backend_names": lambda torch, dist: (dist.Backend("NCCL"), dist.Backend("custom"), dist.Backend.GLOO),
}


@pytest.mark.parametrize("case", sorted(_ARGUMENT_CASES))
def test_argument_errors_and_reduce_ops_as_torch(case):
    def run(torch):
        with initialized(torch) as dist:
            kind, value = outcome(lambda: _ARGUMENT_CASES[case](torch, dist))
            return kind, (value.split("\n")[0] if kind != "ok" else value if case != "wrapped_op" else None)

    assert run(vtorch) == run(real_torch)
