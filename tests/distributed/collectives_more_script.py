"""torch.distributed's rooted/personalised collectives, batched point-to-point, stores shared by the processes and
DDP communication hooks, each checked in every process against numpy (run by test_collectives_more.py)."""

import datetime
import os
import tempfile
import time
import warnings

import numpy as np
import vfw.torch as torch
import vfw.torch.distributed as dist
from vfw.torch.distributed.algorithms.ddp_comm_hooks import default_hooks


def close(actual, expected, rtol=1e-6):
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=rtol)


def value(r, shape=(2, 3)):
    return (np.arange(np.prod(shape), dtype=np.float32).reshape(shape) + 10 * r).astype(np.float32)


def check_rooted(rank, size):
    root = size - 1
    gathered = [torch.zeros(2, 3) for _ in range(size)] if rank == root else None
    dist.gather(torch.from_numpy(value(rank)), gathered, dst=root)
    if rank == root:
        for r in range(size):
            close(gathered[r], value(r))
    out = torch.zeros(2, 3)
    work = dist.scatter(out, [torch.from_numpy(value(r) * 2) for r in range(size)] if rank == 0 else None, src=0,
                        async_op=True)
    assert work.wait()
    close(out, value(rank) * 2)
    objects = [None] * size if rank == 0 else None
    dist.gather_object({"rank": rank}, objects, dst=0)
    assert objects == ([{"rank": r} for r in range(size)] if rank == 0 else None)
    received = [None]
    dist.scatter_object_list(received, [("for", r) for r in range(size)] if rank == root else None, src=root)
    assert received == [("for", rank)]
    try:
        dist.scatter(torch.zeros(2, 3), [torch.zeros(2, 3)] * size, src=0) if rank != 0 else None
    except ValueError as e:
        assert "must NOT be specified on non-source ranks" in str(e)
    else:
        assert rank == 0


def check_object_p2p(rank, size):
    if rank == 0:
        dist.send_object_list([{"w": np.arange(3)}, "text", 7], dst=1)
    elif rank == 1:
        objects = [None, None, None]
        assert dist.recv_object_list(objects, src=0) == 0
        assert objects[1:] == ["text", 7] and objects[0]["w"].tolist() == [0, 1, 2]


def check_all_to_all(rank, size):
    outputs = [torch.zeros(2) for r in range(size)]  # gloo's all_to_all: blocks of one shape
    dist.all_to_all(outputs, [torch.full((2,), float(100 * rank + r)) for r in range(size)])
    for r in range(size):
        close(outputs[r], np.full(2, 100 * r + rank))
    # uneven splits: rank r sends (d + 1) rows to rank d; so it receives (rank + 1) rows from every rank
    rows = np.concatenate([np.full((d + 1, 2), 10 * rank + d, np.float32) for d in range(size)])
    out = torch.zeros((rank + 1) * size, 2)
    dist.all_to_all_single(out, torch.from_numpy(rows), output_split_sizes=[rank + 1] * size,
                           input_split_sizes=[d + 1 for d in range(size)])
    close(out, np.concatenate([np.full((rank + 1, 2), 10 * s + rank) for s in range(size)]))
    equal = torch.zeros(size, 3)
    dist.all_to_all_single(equal, torch.from_numpy(np.arange(3 * size, dtype=np.float32).reshape(size, 3) + rank))
    close(equal, np.stack([np.arange(3 * rank, 3 * rank + 3) + s for s in range(size)]))


def check_batched_p2p(rank, size):
    # a ring where every process sends before it receives a large message: posted together, nothing deadlocks
    big = 1 << 20
    to_next, from_prev = torch.full((big,), float(rank)), torch.zeros(big)
    ops = [dist.P2POp(dist.isend, to_next, (rank + 1) % size), dist.P2POp(dist.irecv, from_prev, (rank - 1) % size)]
    for work in dist.batch_isend_irecv(ops):
        work.wait()
    close(from_prev[:3], [(rank - 1) % size] * 3)
    try:
        dist.P2POp(dist.send, to_next, 0)
    except ValueError as e:
        assert "Invalid ``op``" in str(e)
    else:
        raise AssertionError("P2POp accepted dist.send")


def check_reduce_scatter_list(rank, size):
    # rank r's input_list[i] holds i + r (+ a pattern): rank r gets the reduction over every rank's list[r]
    pattern = np.arange(6, dtype=np.float32).reshape(2, 3)
    inputs = [[pattern * (i + s) + i for i in range(size)] for s in range(size)]  # inputs[s]: rank s's list
    mine = [torch.from_numpy(a.copy()) for a in inputs[rank]]
    for op, reduce in [(dist.ReduceOp.SUM, np.sum), (dist.ReduceOp.MAX, np.max), (dist.ReduceOp.AVG, np.mean)]:
        out = torch.zeros(2, 3)
        dist.reduce_scatter(out, mine, op=op)
        close(out, reduce([inputs[s][rank] for s in range(size)], axis=0))
    out = torch.zeros(2)  # the probe's case: torch gives [sum_s (r + s)] * 2
    work = dist.reduce_scatter(out, [torch.ones(2) * (i + rank) for i in range(size)], async_op=True)
    assert work.wait()
    close(out, [size * rank + size * (size - 1) / 2] * 2)
    ints = torch.zeros(2, dtype=torch.int64)
    dist.reduce_scatter(ints, [torch.full((2,), i + rank + 1) for i in range(size)], op=dist.ReduceOp.PRODUCT)
    assert ints.tolist() == [int(np.prod([rank + s + 1 for s in range(size)]))] * 2
    scalar = torch.zeros(())
    dist.reduce_scatter(scalar, [torch.tensor(float(i * rank)) for i in range(size)])
    close(scalar, rank * sum(range(size)))
    for bad, kind, message in [([torch.ones(2)], RuntimeError, "invalid input tensor list size, must be world size"),
                               ([torch.ones(2, dtype=torch.float64)] * size, ValueError,
                                "Invalid usage of tensors with different dtypes")]:
        try:
            dist.reduce_scatter(torch.zeros(2), bad)
        except kind as e:
            assert message in str(e), e
        else:
            raise AssertionError(f"reduce_scatter accepted {bad}")


def check_nonblocking_p2p(rank, size):
    nxt, prev = (rank + 1) % size, (rank - 1) % size
    # irecv, then a blocking send around the ring, then wait: every send finds its receive posted
    buf = torch.zeros(3)
    work = dist.irecv(buf, prev)
    dist.send(torch.full((3,), float(rank)), nxt)
    assert work.wait() and work.is_completed() and work.source_rank() == prev
    close(buf, [prev] * 3)
    assert buf._version == 0  # gloo receives beneath autograd
    # isend of a message past MPI's eager limit, then a blocking recv: the send does not wait for its receiver
    big = 1 << 18
    work = dist.isend(torch.full((big,), float(rank)), nxt)
    got = torch.zeros(big)
    assert dist.recv(got, prev) == prev
    assert work.wait()
    close(got[[0, -1]], [prev, prev])
    for call, kind, message in [(work.source_rank, RuntimeError, "sourceRank() may only be called on work objects "
                                 "that correspond to a recv"), (work.result, RuntimeError, "result() not implemented"),
                                (work.get_future, RuntimeError, "Work::getFuture not implemented")]:
        try:
            call()
        except kind as e:
            assert message in str(e), e
        else:
            raise AssertionError(f"{call.__name__} on an isend's work returned")
    # from any rank: source_rank names the sender
    buf = torch.zeros(2, dtype=torch.int64)
    work = dist.irecv(buf)
    dist.send(torch.tensor([rank, 7 * rank]), nxt)
    work.wait()
    assert work.source_rank() == prev and buf.tolist() == [prev, 7 * prev]
    # in flight until the peer sends (after the barrier); a bounded wait gives up with gloo's error first
    buf = torch.zeros(4)
    work = dist.irecv(buf, prev, tag=5)
    assert not work.is_completed()
    try:
        work.wait(timeout=datetime.timedelta(seconds=0.2))
    except RuntimeError as e:
        assert str(e).endswith("Timed out waiting 200ms for recv operation to complete"), e
    else:
        raise AssertionError("irecv.wait(timeout) returned before anything was sent")
    dist.barrier()
    dist.send(torch.arange(4.0) + rank, nxt, tag=5)
    assert work.wait()
    close(buf, np.arange(4.0) + prev)
    # a batch of one irecv does not block: each rank sends only after posting it
    buf = torch.zeros(2)
    works = dist.batch_isend_irecv([dist.P2POp(dist.irecv, buf, prev)])
    dist.send(torch.full((2,), 10.0 + rank), nxt)
    for work in works:
        work.wait()
    close(buf, [10 + prev] * 2)
    try:
        dist.irecv(torch.zeros(3, 2).t(), prev)
    except RuntimeError as e:
        assert str(e) == "input tensor has to be contiguous"
    else:
        raise AssertionError("irecv accepted a non-contiguous tensor")


def check_new_group(rank, size):
    count = dist.get_pg_count()
    group = dist.new_group(backend="gloo")
    assert group is not dist.group.WORLD and dist.get_pg_count() == count + 1
    assert (dist.get_rank(group), dist.get_world_size(group), dist.get_backend(group)) == (rank, size, "gloo")
    t = torch.full((2,), float(rank))
    dist.all_reduce(t, group=group)
    close(t, [sum(range(size))] * 2)
    dist.destroy_process_group(group)
    assert dist.is_initialized() and dist.get_pg_count() == count + 1  # torch counts created groups
    t = torch.ones(2)
    dist.all_reduce(t)  # the world lives on
    close(t, [size] * 2)
    dist.all_reduce(t, group=group)  # as in torch: a collective that names no rank still runs
    close(t, [size * size] * 2)
    for call, message in [(lambda: dist.get_rank(group), "is not registered, please create group with "
                           "torch.distributed.new_group API"),
                          (lambda: dist.broadcast(t, 0, group=group), "is not initialized in the world group map"),
                          (lambda: dist.get_backend(group), "is not initialized in the world group map"),
                          (lambda: dist.destroy_process_group(group), "Invalid process group specified")]:
        try:
            call()
        except ValueError as e:
            assert message in str(e), e
        else:
            raise AssertionError("a destroyed group was used")
    try:
        dist.new_group(backend="bogus")
    except AssertionError as e:
        assert str(e) == "Unknown backend type bogus"
    else:
        raise AssertionError("new_group accepted backend 'bogus'")
    assert dist.get_backend(dist.new_group()) == "gloo"


def check_versions(rank, size):
    # torch's gloo collectives write beneath autograd: the version counter counts only the copy_/div_ it makes
    def counted(call, tensor):
        before = tensor._version
        call()
        return tensor._version - before

    t = torch.ones(2)
    assert [counted(lambda: dist.all_reduce(t), t), counted(lambda: dist.broadcast(t, 0), t),
            counted(lambda: dist.reduce(t, 0), t), counted(lambda: dist.all_reduce(t, op=dist.ReduceOp.AVG), t),
            counted(lambda: dist.scatter(t, [t] * size if rank == 0 else None, src=0), t)] == [0, 0, 0, 1, 0]
    outs = [torch.zeros(2) for _ in range(size)]
    assert counted(lambda: dist.all_gather(outs, t), outs[0]) == 1
    flat = torch.zeros(2 * size)
    assert counted(lambda: dist.all_gather_into_tensor(flat, t), flat) == size
    assert counted(lambda: dist.all_to_all_single(flat, torch.ones(2 * size)), flat) == 0
    assert counted(lambda: dist.reduce_scatter_tensor(t, torch.ones(2 * size)), t) == 1
    assert counted(lambda: dist.reduce_scatter(t, [torch.ones(2)] * size), t) == 1
    assert counted(lambda: dist.reduce_scatter(t, [torch.ones(2)] * size, op=dist.ReduceOp.AVG), t) == 2
    assert counted(lambda: dist.all_to_all(outs, [t] * size), outs[0]) == 1
    buf = torch.zeros(2)
    ops = [dist.P2POp(dist.isend, t, (rank + 1) % size), dist.P2POp(dist.irecv, buf, (rank - 1) % size)]
    assert counted(lambda: [w.wait() for w in dist.batch_isend_irecv(ops)], buf) == 0
    # so a collective on a value autograd saved does not break backward: torch's grad uses the reduced value
    x = torch.ones(2, requires_grad=True)
    y = x.exp()
    dist.all_reduce(y)
    y.sum().backward()
    close(x.grad, [size * np.e] * 2)


def check_misc(rank, size):
    dist.monitored_barrier(timeout=datetime.timedelta(seconds=30))
    if rank == 0:  # the other ranks are late: rank 0's monitored barrier gives up instead of hanging
        try:
            dist.monitored_barrier(timeout=datetime.timedelta(seconds=0.2))
        except RuntimeError as e:
            assert "failed to pass monitoredBarrier" in str(e)
        else:
            raise AssertionError("monitored_barrier did not time out")
    else:  # (late ranks complete the barrier rank 0 gave up on)
        time.sleep(1.0)
        dist.monitored_barrier(timeout=datetime.timedelta(seconds=30))
    dist.barrier()
    t = torch.full((3,), float(rank + 1))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dist.all_reduce_coalesced([t], op=dist.ReduceOp.MAX)
        outs = [[torch.zeros(2), torch.zeros(1)] for _ in range(size)]
        dist.all_gather_coalesced(outs, [torch.full((2,), float(rank)), torch.full((1,), -float(rank))])
    assert [w.category for w in caught] == [FutureWarning, FutureWarning]
    close(t, [size] * 3)
    for r in range(size):
        close(outs[r][0], [r, r])
        close(outs[r][1], [-r])
    assert dist.get_process_group_ranks(dist.group.WORLD) == list(range(size))
    assert dist.get_global_rank(dist.group.WORLD, size - 1) == size - 1


def check_stores(rank, size):
    port = [None]
    if rank == 0:
        master = dist.TCPStore("127.0.0.1", 0, size, True, timeout=datetime.timedelta(seconds=30),
                               wait_for_workers=False)
        port[0] = master.port
    dist.broadcast_object_list(port, src=0)
    store = master if rank == 0 else dist.TCPStore("127.0.0.1", port[0], size, False,
                                                   timeout=datetime.timedelta(seconds=30))
    store.set(f"from{rank}", str(rank))
    assert store.add("counter", rank + 1) >= rank + 1
    store.wait([f"from{r}" for r in range(size)])
    assert [store.get(f"from{r}") for r in range(size)] == [str(r).encode() for r in range(size)]
    dist.barrier()
    assert int(store.get("counter")) == size * (size + 1) // 2
    assert store.compare_set("winner", "", f"rank{rank}") in [f"rank{r}".encode() for r in range(size)]
    prefixed = dist.PrefixStore("job", store)
    if rank == 0:
        prefixed.set("ready", b"1")
    assert store.get("job/ready") == b"1"  # blocks until rank 0 has set it
    path = [tempfile.mktemp() if rank == 0 else None]
    dist.broadcast_object_list(path, src=0)
    files = dist.FileStore(path[0], size)
    files.add("hits", 1)
    files.wait(["hits"])
    dist.barrier()
    assert files.get("hits") == str(size).encode()
    dist.barrier()
    if rank == 0:
        os.unlink(path[0])


def check_comm_hooks(rank, size):
    rng = np.random.default_rng(0)
    weights = [rng.standard_normal(s).astype(np.float32) for s in [(4, 3), (4,), (2, 4), (2,)]]
    x = np.random.default_rng(rank).standard_normal((5, 3)).astype(np.float32)

    def grads(register):
        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
        with torch.no_grad():
            for p, w in zip(model.parameters(), weights):
                p.copy_(torch.from_numpy(w))
        ddp = torch.nn.parallel.DistributedDataParallel(model)
        register(ddp)
        ddp(torch.from_numpy(x)).pow(2).sum().backward()
        return [p.grad.numpy().copy() for p in model.parameters()]

    default = grads(lambda ddp: None)
    local = grads(lambda ddp: ddp.register_comm_hook(None, lambda state, bucket: _identity(bucket)))
    for g, ours in zip(default, grads(lambda ddp: ddp.register_comm_hook(None, default_hooks.allreduce_hook))):
        close(ours, g)
    for g, ours in zip(default, grads(lambda ddp: ddp.register_comm_hook(dist.group.WORLD,
                                                                           default_hooks.fp16_compress_hook))):
        np.testing.assert_allclose(ours, g, rtol=2e-3, atol=2e-3)
    everyone = [None] * size
    dist.all_gather_object(everyone, local)
    for i, g in enumerate(default):  # the default reduction is the mean of the local gradients
        close(g, np.mean([e[i] for e in everyone], axis=0), rtol=1e-5)
    seen = []

    def recording(state, bucket):
        seen.append((state, bucket.index(), bucket.is_last(), [tuple(p.shape) for p in bucket.parameters()],
                     [tuple(g.shape) for g in bucket.gradients()], tuple(bucket.buffer().shape)))
        return _identity(bucket)

    grads(lambda ddp: ddp.register_comm_hook("S", recording))
    shapes = [(4, 3), (4,), (2, 4), (2,)]
    assert seen == [("S", 0, True, shapes, shapes, (26,))], seen


def check_device_mesh(rank, size):
    mesh = dist.init_device_mesh("cpu", (size,), mesh_dim_names=("dp",))
    assert (mesh.size(), mesh.get_rank(), mesh.get_local_rank("dp"), mesh.mesh.tolist()) == (size, rank, rank,
                                                                                             list(range(size)))
    t = torch.full((2,), float(rank))
    dist.all_reduce(t, group=mesh.get_group("dp"))
    close(t, [sum(range(size))] * 2)


def _identity(bucket):
    future = torch.futures.Future()
    future.set_result(bucket.buffer())
    return future


def main():
    dist.init_process_group("gloo")
    rank, size = dist.get_rank(), dist.get_world_size()
    for check in (check_rooted, check_object_p2p, check_all_to_all, check_batched_p2p, check_reduce_scatter_list,
                  check_nonblocking_p2p, check_new_group, check_versions, check_misc, check_stores, check_comm_hooks,
                  check_device_mesh):
        check(rank, size)
    print(f"rank {rank} ok")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
