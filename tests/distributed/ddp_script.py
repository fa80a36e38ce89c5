"""DDP training run by tests/distributed/test_torch_ddp.py under the launcher or mpirun.

Every process builds the MLP of :func:`initial_weights` (rank 0's weights; the other ranks start from
different ones, which DDP's initial broadcast must overwrite) and trains it on its shard of
:func:`dataset` (``DistributedSampler``, per-process batch B, one ``no_sync`` accumulation step per
epoch); rank 0 saves the final parameters to ``argv[1]``.
"""

import os
import sys

import numpy as np
import vfw.torch as torch
import vfw.torch.distributed as dist
from vfw.torch.nn.parallel import DistributedDataParallel
from vfw.torch.utils.data import DataLoader, DistributedSampler, TensorDataset

LR, MOMENTUM, EPOCHS = 0.05, 0.9, 2


def dataset(n):
    data = np.random.default_rng(0).standard_normal((n, 6)).astype(np.float32)
    return data, np.tanh(data @ np.linspace(-1, 1, 6, dtype=np.float32).reshape(6, 1)).astype(np.float32)


def initial_weights(seed):
    rng = np.random.default_rng(seed)
    shapes = {"0.weight": (8, 6), "0.bias": (8,), "2.weight": (1, 8), "2.bias": (1,)}
    return {name: (0.5 * rng.standard_normal(shape)).astype(np.float32) for name, shape in shapes.items()}


def build(torch_module, seed):
    model = torch_module.nn.Sequential(torch_module.nn.Linear(6, 8), torch_module.nn.Tanh(),
                                       torch_module.nn.Linear(8, 1))
    model.load_state_dict({k: torch_module.from_numpy(v) for k, v in initial_weights(seed).items()})
    return model


def check_unused_parameters(rank, size):
    """With find_unused_parameters, a head only the last rank uses gets the average of its gradient and zeros
    (torch's rule); a head no rank uses keeps grad None.  The oracle: every rank's local gradient, gathered and
    averaged with numpy."""
    heads = [build(torch, 7) for _ in range(3)]  # used everywhere, by the last rank only, by none
    ddp = DistributedDataParallel(torch.nn.ModuleList(heads), find_unused_parameters=True)
    x = torch.from_numpy(dataset(size)[0][rank:rank + 1])
    local = heads[0](x).sum() + (heads[1](x).sum() if rank == size - 1 else 0)
    expected = {}
    for name, p in ddp.module.named_parameters():  # this rank's gradient, gathered from every rank
        mine = torch.autograd.grad(local, p, retain_graph=True, allow_unused=True)[0]
        mine = torch.zeros_like(p) if mine is None else mine
        everyone = [torch.zeros_like(p) for _ in range(size)]
        dist.all_gather(everyone, mine.detach())
        expected[name] = np.mean([e.numpy() for e in everyone], axis=0)
    local.backward()
    for name, p in ddp.module.named_parameters():
        if name.startswith("2."):
            assert p.grad is None, name
        else:
            np.testing.assert_allclose(p.grad.numpy(), expected[name], rtol=1e-6, atol=1e-7, err_msg=name)


def main(out_path, batch, steps):
    dist.init_process_group("gloo")
    rank, size = dist.get_rank(), dist.get_world_size()
    data, target = dataset(batch * size * steps)
    ddp = DistributedDataParallel(build(torch, 1 + rank), bucket_cap_mb=0.0002)  # several buckets
    # the averaging route the test asked for: a shared-memory window unless the variable turns it off
    assert (ddp._shared_average is not None) == (os.environ.get("VFW_DISTRIBUTED_SHARED_MEMORY") != "0")
    optimizer = torch.optim.SGD(ddp.parameters(), lr=LR, momentum=MOMENTUM)
    sampler = DistributedSampler(TensorDataset(torch.from_numpy(data), torch.from_numpy(target)), shuffle=False)
    loader = DataLoader(sampler.dataset, batch_size=batch, sampler=sampler)
    loss_fn = torch.nn.functional.mse_loss
    for epoch in range(EPOCHS):
        sampler.set_epoch(epoch)
        for i, (x, y) in enumerate(loader):
            if i == 0:  # local gradients of two half batches accumulate; the second backward averages them
                with ddp.no_sync():
                    loss_fn(ddp(x[: batch // 2]), y[: batch // 2]).mul(0.5).backward()
                loss_fn(ddp(x[batch // 2:]), y[batch // 2:]).mul(0.5).backward()
            else:
                loss_fn(ddp(x), y).backward()
            optimizer.step()
            optimizer.zero_grad()
    flat = torch.cat([p.detach().reshape(-1) for p in ddp.parameters()])
    replicas = [torch.zeros_like(flat) for _ in range(size)]
    dist.all_gather(replicas, flat)
    for other in replicas:  # every replica holds the same bits
        np.testing.assert_array_equal(other.numpy(), flat.numpy())
    check_unused_parameters(rank, size)
    if rank == 0:
        np.savez(out_path, **{k: v.numpy() for k, v in ddp.module.state_dict().items()})
    dist.destroy_process_group()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
