"""DDP snapshots and buffer broadcasts on 2 processes, run by tests/distributed/test_torch_ddp.py.

Checks, against torch 2.13's behaviour (its values measured on 2 ranks with gloo):

* ``copy.deepcopy(ddp)`` and ``pickle.loads(pickle.dumps(ddp))`` are working DDP models: their backward averages
  the gradients over the ranks (the oracle: every rank's local gradient, gathered and averaged with numpy), they
  do not broadcast rank 0's weights again, the original keeps training on its own, and a deepcopy made on rank 0
  alone does not wait for the other rank.
* Buffers (BatchNorm running statistics) are broadcast from rank 0 in a forward only when the previous forward
  ran with grad enabled outside ``no_sync`` (and at the first), and the broadcast keeps the buffers' versions:
  rank 1's running means after each step are torch's.
"""

import copy
import os
import pickle

import numpy as np
import vfw.torch as torch
import vfw.torch.distributed as dist
from vfw.torch.nn.parallel import DistributedDataParallel

# Rank 1's BatchNorm running_mean after each step of check_buffer_broadcasts, from torch 2.13 (2 ranks, gloo).
TORCH_RUNNING_MEANS = [[1.15, 0.55], [1.885, 0.87], [3.1465, 1.433], [4.43185, 1.9897], [3.07685, 1.3122],
                       [3.07685, 1.3122], [4.81916, 2.03098], [6.08725, 2.50288], [7.37852, 2.97759]]
TORCH_FORWARD_SYNC = [True, False, False, True, False, False, True, True, True]


def averaged_gradients(model, loss, size):
    """Each parameter's gradient of ``loss`` on this rank, averaged over the ranks with numpy."""
    expected = []
    for p in model.parameters():
        mine = torch.autograd.grad(loss, p, retain_graph=True)[0].detach()
        everyone = [torch.zeros_like(mine) for _ in range(size)]
        dist.all_gather(everyone, mine)
        expected.append(np.mean([e.numpy() for e in everyone], axis=0))
    return expected


def check_copies(rank, size):
    torch.manual_seed(rank)  # different weights on each rank: DDP's construction gives them rank 0's
    ddp = DistributedDataParallel(torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Tanh()))
    x = torch.arange(12.0).reshape(4, 3) * (rank + 1)
    (ddp(x) ** 2).sum().backward()
    for snapshot in (copy.deepcopy(ddp), pickle.loads(pickle.dumps(ddp))):
        assert type(snapshot) is DistributedDataParallel and snapshot.process_group is ddp.process_group
        assert all(p.grad is None for p in snapshot.parameters())  # torch copies the values only
        with torch.no_grad():
            snapshot.module[0].weight.add_(rank)  # the copy's replicas now differ: it must not re-broadcast
        weight = snapshot.module[0].weight.detach().clone()
        loss = ((snapshot(x) * (rank + 1)) ** 2).sum()
        expected = averaged_gradients(snapshot.module, loss, size)
        loss.backward()
        for p, want in zip(snapshot.module.parameters(), expected):
            np.testing.assert_allclose(p.grad.numpy(), want, rtol=1e-5, atol=1e-6)
        assert np.array_equal(snapshot.module[0].weight.detach().numpy(), weight.numpy())
        if os.environ.get("VFW_DISTRIBUTED_SHARED_MEMORY") != "0":
            assert snapshot._shared_average is not None  # created at its first averaging, on both ranks
        # the original's backward leaves the snapshot's gradients alone
        snapshot.zero_grad(set_to_none=True)
        (ddp(x) ** 2).sum().backward()
        assert all(p.grad is None for p in snapshot.parameters())
    if rank == 0:  # a snapshot on rank 0 alone (e.g. the best model so far) must not wait for rank 1
        copy.deepcopy(ddp)
        pickle.dumps(ddp)
    dist.barrier()


def check_buffer_broadcasts(rank):
    model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2))
    with torch.no_grad():
        model[0].weight.copy_(torch.tensor([[1.0, 0.5], [-0.5, 1.0]]))
        model[0].bias.zero_()
    ddp = DistributedDataParallel(model)
    means, syncs = [], []

    def step(i, backward=True):
        out = ddp(torch.arange(8.0).reshape(4, 2) * (rank + 1) + i)
        if backward:
            (out ** 2).sum().backward()
        means.append(model[1].running_mean.tolist())
        syncs.append(ddp.require_forward_param_sync)

    step(1)
    with ddp.no_sync():
        step(2)  # broadcasts (the forward before ran with grad, outside no_sync)
    with ddp.no_sync():
        step(3)  # does not
    step(4)  # does not either: the forward before was inside no_sync
    ddp.eval()
    with torch.no_grad():
        step(5, backward=False)  # broadcasts
        step(6, backward=False)  # does not: the forward before ran without grad
    ddp.train()
    step(7)
    step(8)
    step(9, backward=False)
    if rank == 1:
        np.testing.assert_allclose(means, TORCH_RUNNING_MEANS, rtol=1e-5, atol=1e-5)
    assert syncs == TORCH_FORWARD_SYNC, syncs
    # torch keeps the buffers' version counters: an eval forward's pending backward survives the next broadcast
    ddp.eval()
    pending = (ddp(torch.ones(4, 2) * (rank + 1)) ** 2).sum()
    ddp(torch.ones(4, 2))
    pending.backward()


def main():
    dist.init_process_group("gloo")
    rank, size = dist.get_rank(), dist.get_world_size()
    check_copies(rank, size)
    check_buffer_broadcasts(rank)
    dist.destroy_process_group()
    print(f"rank {rank} ok")


if __name__ == "__main__":
    main()
