"""Collectives checked in every process against numpy (run by test_collectives.py); any mismatch raises.

Covers torch.distributed's collectives (sync and async handles), send/recv, objects, the engine ops
inside a traced graph (run twice: the second run replays the graph) and their gradients, and the engine's
shared-memory averaging.
"""

import numpy as np
import vfw.torch as torch
import vfw.torch.distributed as dist

from vfw.core.autograd import gradient
from vfw.core.distributed import DistributedError, SharedAverage, world
from vfw.core.eager import execute
from vfw.core.graph import function
from vfw.core.tensor import Tensor


def close(actual, expected):
    np.testing.assert_allclose(np.asarray(actual), expected, rtol=1e-6)


def check_torch_api(rank, size):
    values = [np.arange(6, dtype=np.float32).reshape(2, 3) * (r + 1) for r in range(size)]
    for op, expected in [(dist.ReduceOp.SUM, sum(values)), (dist.ReduceOp.AVG, sum(values) / size),
                         (dist.ReduceOp.MAX, values[-1]), (dist.ReduceOp.MIN, values[0])]:
        t = torch.from_numpy(values[rank].copy())
        version = t._version
        work = dist.all_reduce(t, op=op, async_op=True)
        # torch's gloo reduces in place beneath autograd (no version), then divides in place for AVG (one)
        assert work.wait() and t._version == version + (op == dist.ReduceOp.AVG)
        close(t, expected)
    ints = torch.tensor([rank + 1, 2 * rank], dtype=torch.int64)
    dist.all_reduce(ints, op=dist.ReduceOp.PRODUCT)
    close(ints, [np.prod([r + 1 for r in range(size)]), 0])
    b = torch.full((3,), float(rank))
    dist.broadcast(b, src=size - 1)
    close(b, [size - 1] * 3)
    gathered = [torch.zeros(2, 3) for _ in range(size)]
    dist.all_gather(gathered, torch.from_numpy(values[rank]))
    for r in range(size):
        close(gathered[r], values[r])
    flat = torch.zeros(2 * size, 3)
    dist.all_gather_into_tensor(flat, torch.from_numpy(values[rank]))
    close(flat, np.concatenate(values))
    out = torch.zeros(2, 3)
    dist.reduce_scatter_tensor(out, torch.from_numpy(np.concatenate(values) + rank))
    close(out, size * values[rank] + sum(range(size)))
    objects = [None] * size
    dist.all_gather_object(objects, {"rank": rank})
    assert objects == [{"rank": r} for r in range(size)]
    if rank == 0:
        dist.send(torch.arange(4.0), dst=1)
    elif rank == 1:
        got = torch.zeros(4)
        assert dist.recv(got, src=0) == 0
        close(got, np.arange(4.0))
    dist.barrier()


def check_sampler_defaults(rank, size):
    # the process group's rank and size are the defaults; with set_epoch the ranks' shards partition the data
    from vfw.torch.utils.data import DistributedSampler

    default, explicit = (DistributedSampler(range(10), seed=5), DistributedSampler(range(10), size, rank, seed=5))
    default.set_epoch(1)
    explicit.set_epoch(1)
    mine = list(default)
    assert mine == list(explicit) and len(mine) == -(-10 // size)
    shards = [None] * size
    dist.all_gather_object(shards, mine)
    assert set(sum(shards, [])) == set(range(10))
    default.set_epoch(2)
    assert list(default) != mine or size == 1


def check_traced_ops(rank, size):
    @function
    def step(x):
        return execute("AllReduce", execute("Mul", x, x), reduction="sum"), execute("AllGather", x)

    for attempt in range(2):  # trace, then replay
        x = Tensor(np.full(3, float(rank + attempt), np.float32))
        reduced, stacked = step(x)
        close(reduced.array, np.full(3, sum((r + attempt) ** 2 for r in range(size)), np.float32))
        close(stacked.array, [[r + attempt] * 3 for r in range(size)])


def check_gradients(rank, size):
    # global loss = sum over ranks of sum(AllReduce(x_r * w_r)) * c_r: d/dx_r = w_r * sum_r' c_r'
    x = Tensor(np.arange(3, dtype=np.float64) + rank, requires_grad=True)
    w = np.full(3, rank + 2.0)
    c = float(rank + 1)
    y = execute("AllReduce", execute("Mul", x, w), reduction="sum")
    (gx,) = gradient([execute("Mul", y, np.full(3, c))], [x])
    close(gx.array, w * sum(r + 1.0 for r in range(size)))
    # AllGather's gradient: ReduceScatter of the stacked gradients
    z = execute("AllGather", x)
    seed = np.stack([np.full(3, (r + 1) * (rank + 1.0)) for r in range(size)])
    (gz,) = gradient([z], [x], [Tensor(seed)])
    close(gz.array, np.full(3, (rank + 1) * sum(r + 1.0 for r in range(size))))


def check_shared_average(rank, size):
    # every process can make every process's arrays, so each checks the average against numpy's, bit for bit
    specs = [((5, 3), np.float32), ((7,), np.float64), ((6, 4), np.float32), ((2,), np.float32)]

    def local(r, i, trial):
        return (np.random.default_rng([r, i, trial]).standard_normal(specs[i][0]) * 1e3).astype(specs[i][1])

    average = SharedAverage.create(world(), specs)
    assert average is not None  # the test's processes share this machine
    for trial in range(3):  # the window is reused (its two copies in turn)
        arrays = [local(rank, 0, trial), local(rank, 1, trial), np.asfortranarray(local(rank, 2, trial)), None]
        results = average.average(arrays)
        assert all(results[i] is arrays[i] for i in range(3))  # in place, whatever the layout
        for i in range(3):
            expected = np.divide(local(0, i, trial), size)
            for r in range(1, size):  # rank order
                expected = expected + np.divide(local(r, i, trial), size)
            np.testing.assert_array_equal(results[i], expected)
        np.testing.assert_array_equal(results[3], np.zeros(2, np.float32))
    assert SharedAverage.create(world(), [((2,), np.float16)]) is None  # other dtypes keep MPI's all-reduce
    return average


def main():
    dist.init_process_group("mpi")
    rank, size = dist.get_rank(), dist.get_world_size()
    assert dist.is_initialized() and dist.get_backend() == "mpi" and dist.group.WORLD is not None
    check_torch_api(rank, size)
    check_sampler_defaults(rank, size)
    check_traced_ops(rank, size)
    check_gradients(rank, size)
    average = check_shared_average(rank, size)
    print(f"rank {rank} ok")
    dist.destroy_process_group()
    assert not dist.is_initialized()
    try:  # its window was freed with the group: an error, not a write to unmapped memory
        average.average([np.zeros(s, t) for s, t in average.specs])
    except DistributedError as e:
        assert "destroyed" in str(e)
    else:
        raise AssertionError("SharedAverage.average ran after destroy_process_group")


if __name__ == "__main__":
    main()
