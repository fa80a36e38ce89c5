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
    outputs = [torch.zeros(r + 1) for r in range(size)]  # rank r sends (rank+1) elements to everyone
    dist.all_to_all(outputs, [torch.full((rank + 1,), float(100 * rank + r)) for r in range(size)])
    for r in range(size):
        close(outputs[r], np.full(r + 1, 100 * r + rank))
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
    for check in (check_rooted, check_object_p2p, check_all_to_all, check_batched_p2p, check_misc, check_stores,
                  check_comm_hooks, check_device_mesh):
        check(rank, size)
    print(f"rank {rank} ok")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
