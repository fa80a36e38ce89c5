"""The rest of torch.distributed in one process against real torch 2.13 (gloo): stores, group utilities, rooted
and personalised collectives in a world of one, P2POp, exceptions, debug levels, DDP communication hooks.

Several processes: tests/distributed/test_collectives_more.py.
"""

import datetime
import os
import warnings

import numpy as np
import pytest

real_torch = pytest.importorskip("torch")
pytest.importorskip("mpi4py")

import vfw.torch as vtorch  # noqa: E402

from compat_tests.torch.test_distributed import initialized, outcome  # noqa: E402

SHORT = datetime.timedelta(seconds=0.1)


def store_script(dist, store, add_to_text=True):
    """What a store does, as comparable values (its operations and their errors); ``add_to_text=False`` leaves out
    ``add`` on a non-number (torch's TCPStore server then drops the connection)."""
    store.set("a", "x")
    store.set("b", b"\x00y")
    results = [store.get("a"), store.get("b"), store.add("c", 3), store.add("c", -1), store.get("c"),
               store.check(["a", "c"]), store.check(["a", "z"]),
               store.compare_set("a", "x", "new"), store.get("a"), store.compare_set("a", "bad", "z"),
               store.compare_set("q", "", "init"), store.compare_set("r", "zz", "init2"), store.check(["r"]),
               store.delete_key("q"), store.delete_key("q")]
    store.append("ap", "12")
    store.append("ap", "34")
    store.multi_set(["m1", "m2"], ["1", "2"])
    results += [store.get("ap"), store.multi_get(["m1", "m2"]), store.timeout]
    store.set_timeout(SHORT)
    results += [outcome(lambda: store.get("missing")), outcome(lambda: store.wait(["missing"])),
                outcome(lambda: store.wait(["missing"], SHORT)),
                outcome(lambda: store.add("b", 1))[0] if add_to_text else None,
                outcome(lambda: store.set(1, "a"))[0], outcome(lambda: store.get(3))[0], store.timeout]
    results += [isinstance(store, dist.Store), store.has_extended_api(), outcome(lambda: store.queue_len("queue"))]
    if not store.has_extended_api():  # FileStore: no queues
        return results + [outcome(lambda: store.queue_push("queue", "v1"))]
    store.queue_push("queue", "v1")
    store.queue_push("queue", "v2")
    return results + [store.queue_len("queue"), store.queue_pop("queue"), store.queue_pop("queue", block=False),
                      outcome(lambda: store.queue_pop("queue", block=False)), outcome(lambda: store.queue_pop("queue"))]


@pytest.mark.parametrize("kind", ["hash", "prefix", "tcp"])
def test_store_operations(kind):
    def run(torch):
        dist = torch.distributed
        if kind == "hash":
            store = dist.HashStore()
        elif kind == "prefix":
            store = dist.PrefixStore("pre", dist.HashStore())
        else:
            store = dist.TCPStore("127.0.0.1", 0, 1, True, timeout=datetime.timedelta(seconds=10))
        results = store_script(dist, store, add_to_text=kind != "tcp")
        if kind == "prefix":
            results += [store.underlying_store.get("pre/a"), store.underlying_store.check(["a"])]
        if kind != "prefix":  # torch's PrefixStore counts the underlying store's keys
            results.append(store.num_keys())
        return results

    assert run(vtorch) == run(real_torch)


def test_file_store(tmp_path):
    def run(torch, path):
        dist = torch.distributed
        store = dist.FileStore(str(path), 1)
        results = store_script(dist, store)
        other = dist.FileStore(str(path), 1)  # a second handle sees the same keys
        return results + [other.get("a"), other.check(["ap", "m2"])]

    assert run(vtorch, tmp_path / "ours") == run(real_torch, tmp_path / "theirs")


def test_tcp_store_errors():
    def run(torch):
        dist = torch.distributed
        refused = outcome(lambda: dist.TCPStore("127.0.0.1", 1, 1, False, timeout=SHORT))
        return refused[0], issubclass(getattr(dist, refused[0]), dist.DistError)

    assert run(vtorch) == run(real_torch)


def test_exceptions_debug_levels_and_defaults():
    def run(torch):
        dist = torch.distributed
        hierarchy = [[c.__name__ for c in cls.__mro__] for cls in (dist.DistError, dist.DistBackendError,
                                                                   dist.DistNetworkError, dist.DistStoreError,
                                                                   dist.QueueEmptyError)]
        level = dist.get_debug_level()
        dist.set_debug_level(dist.DebugLevel.DETAIL)
        detail = dist.get_debug_level()
        dist.set_debug_level(level)
        os.environ.pop("LOCAL_RANK", None)
        return (hierarchy, list(dist.DebugLevel.__members__), level, detail, dist.default_pg_timeout,
                dist.get_default_backend_for_device("cpu"), dist.get_default_backend_for_device("cuda"),
                dist.is_backend_available("gloo"), dist.is_backend_available("nccl"), dist.is_torchelastic_launched(),
                dist.get_node_local_rank(fallback_rank=3), outcome(dist.get_node_local_rank),
                dist.get_pg_count())

    ours, theirs = run(vtorch), run(real_torch)
    assert [str(x) for x in ours] == [str(x) for x in theirs]


def test_world_of_one():
    def run(torch):
        with initialized(torch) as dist:
            x = torch.arange(4.0)
            gathered = [torch.zeros(4)]
            dist.gather(x, gathered)
            scattered = torch.zeros(4)
            work = dist.scatter(scattered, [x * 2], async_op=True)
            objects = [None]
            dist.gather_object({"k": 1}, objects)
            received = [None]
            dist.scatter_object_list(received, [("o", 2)])
            exchanged = [torch.zeros(4)]
            dist.all_to_all(exchanged, [x + 1])
            single = torch.zeros(4)
            dist.all_to_all_single(single, x * 3, [4], [4])
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                coalesced = [x.clone()]
                dist.all_reduce_coalesced(coalesced)
                dist.all_gather_coalesced([[torch.zeros(4)]], [x])
            dist.monitored_barrier(timeout=datetime.timedelta(seconds=5))
            errors = [outcome(lambda: dist.scatter(torch.zeros(4))),
                      outcome(lambda: dist.gather(x, None, dst=0)),
                      outcome(lambda: dist.scatter_object_list([], [1])),
                      outcome(lambda: dist.scatter_object_list([None], None)),
                      outcome(lambda: dist.P2POp(dist.send, x, 0)),
                      outcome(lambda: dist.batch_isend_irecv([x])),
                      outcome(lambda: dist.monitored_barrier(timeout=5)),
                      outcome(lambda: dist.send_object_list([1], dst=0)),
                      outcome(lambda: dist.new_subgroups(2)), outcome(lambda: dist.new_subgroups(0)),
                      outcome(lambda: dist.new_subgroups()),
                      outcome(lambda: dist.new_subgroups_by_enumeration([]))]
            op = dist.P2POp(dist.isend, x, 0)
            return ([t.tolist() for t in gathered], scattered.tolist(), work.wait(), objects, received,
                    [t.tolist() for t in exchanged], single.tolist(), coalesced[0].tolist(),
                    [(w.category.__name__, str(w.message)) for w in caught], errors,
                    (op.op is dist.isend, op.peer, op.tag), dist.get_process_group_ranks(dist.group.WORLD),
                    dist.get_global_rank(dist.group.WORLD, 0), dist.get_group_rank(dist.group.WORLD, 0),
                    dist.get_backend_config(), dist.get_pg_count())

    ours, theirs = run(vtorch), run(real_torch)
    assert ours == theirs


def test_init_process_group_with_store():
    def run(torch):
        dist = torch.distributed
        missing = [outcome(lambda kw=kw: dist.init_process_group("gloo", store=dist.HashStore(), **kw))
                   for kw in ({}, {"rank": 0}, {"world_size": 1})]
        dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
        try:
            return missing, dist.get_world_size(), dist.get_rank()
        finally:
            dist.destroy_process_group()

    assert run(vtorch) == run(real_torch)


def _model(torch, weights):
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    with torch.no_grad():
        for p, w in zip(model.parameters(), weights):
            p.copy_(torch.from_numpy(w))
    return model


@pytest.mark.parametrize("hook_name", ["allreduce_hook", "fp16_compress_hook", "bf16_compress_hook", "recording"])
def test_ddp_comm_hooks(hook_name):
    rng = np.random.default_rng(1)
    weights = [rng.standard_normal(s).astype(np.float32) for s in [(4, 3), (4,), (2, 4), (2,)]]
    x = rng.standard_normal((5, 3)).astype(np.float32)

    def run(torch):
        from_hooks = __import__(f"{torch.__name__}.distributed.algorithms.ddp_comm_hooks.default_hooks",
                                fromlist=["default_hooks"])
        seen = []

        def recording(state, bucket):  # doubles the gradients
            seen.append((state, bucket.index(), bucket.is_last(), [tuple(p.shape) for p in bucket.parameters()],
                         [g.tolist() for g in bucket.gradients()], bucket.buffer().tolist(),
                         type(bucket).__name__))
            future = torch.futures.Future()
            future.set_result(bucket.buffer() * 2)
            return future

        hook = recording if hook_name == "recording" else getattr(from_hooks, hook_name)
        # the DDP wrapper is released before the process group is destroyed: real torch's gloo group, freed by a
        # DDP reducer after destroy_process_group, can deadlock in its destructor (it hung a CI run)
        with initialized(torch) as dist:
            model = _model(torch, weights)
            ddp = torch.nn.parallel.DistributedDataParallel(model)
            registered = outcome(lambda: ddp.register_comm_hook("S" if hook is recording else None, hook))
            if registered[0] != "ok":  # bf16: torch needs CUDA
                ddp = None
                return [], seen, registered
            twice = outcome(lambda: ddp.register_comm_hook(None, hook))
            not_callable = outcome(lambda: torch.nn.parallel.DistributedDataParallel(model).register_comm_hook(
                None, 3))
            ddp(torch.from_numpy(x)).pow(2).sum().backward()
            grads = [p.grad.numpy().copy() for p in model.parameters()]
            assert isinstance(dist.GradBucket, type)
            ddp = None  # before the process group is destroyed (see below)
        return grads, seen, registered, twice, not_callable

    (ours, our_seen, *our_errors), (theirs, their_seen, *their_errors) = run(vtorch), run(real_torch)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)  # float32 matmuls: ulps
    assert our_errors == their_errors
    assert len(our_seen) == len(their_seen)
    for a, b in zip(our_seen, their_seen):
        assert a[:4] == b[:4] and a[6] == b[6]
        np.testing.assert_allclose(np.concatenate([np.ravel(g) for g in a[4]]), np.concatenate(
            [np.ravel(g) for g in b[4]]), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(a[5], b[5], rtol=1e-5, atol=1e-6)


def test_device_mesh_of_one_process():
    def run(torch):
        with initialized(torch) as dist:
            from_module = __import__(f"{torch.__name__}.distributed.device_mesh", fromlist=["init_device_mesh"])
            named = dist.init_device_mesh("cpu", (1,), mesh_dim_names=("dp",))
            plain = from_module.init_device_mesh("cpu", (1,))
            return (repr(named), repr(plain), named.ndim, named.shape, named.size(), named.size(0), named.get_rank(),
                    named.get_local_rank(), named.get_local_rank("dp"), named.get_coordinate(), named.mesh.tolist(),
                    str(named.mesh.dtype), named.device_type, named.mesh_dim_names, plain.mesh_dim_names,
                    named.get_group() is dist.group.WORLD, named.get_group("dp") is dist.group.WORLD,
                    named["dp"] is named, outcome(lambda: dist.init_device_mesh("cpu", (2,))),
                    outcome(lambda: plain["x"]), outcome(lambda: named.get_local_rank(1))[0],
                    outcome(lambda: dist.init_device_mesh("cpu", (1,), mesh_dim_names=("a", "b"))),
                    isinstance(named, dist.DeviceMesh), dist.algorithms.ddp_comm_hooks.default_hooks.__name__[-13:])

    assert run(vtorch) == run(real_torch)
