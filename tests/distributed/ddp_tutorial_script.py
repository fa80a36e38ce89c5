"""PyTorch's "Getting Started with DDP" and DistributedSampler usage, for vfw (its launcher) and real torch
(torchrun) alike: ``argv[1]`` names the module (``vfw.torch`` or ``torch``); each rank writes what it saw to
``argv[2]/<rank>.json`` (compat_tests/torch/test_distributed_tutorials.py compares them).

Read as torchrun's scripts do: ``LOCAL_RANK`` from the environment, ``init_process_group(backend="gloo")``.
"""

import importlib
import json
import os
import sys

torch = importlib.import_module(sys.argv[1])
dist = torch.distributed
nn = torch.nn
DDP = nn.parallel.DistributedDataParallel
data = importlib.import_module(sys.argv[1] + ".utils.data")
DistributedSampler = importlib.import_module(sys.argv[1] + ".utils.data.distributed").DistributedSampler


def outcome(fn):
    try:
        fn()
        return "ok"
    except Exception as e:  # noqa: BLE001 - the exception's type and text are what is compared
        return [type(e).__name__, str(e)]


class ToyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net1 = nn.Linear(10, 10)
        self.relu = nn.ReLU()
        self.net2 = nn.Linear(10, 5)

    def forward(self, x):
        return self.net2(self.relu(self.net1(x)))


def flat(module):
    return [v for p in module.parameters() for v in p.detach().flatten().tolist()]


def demo_basic_and_checkpoint(out, rank):
    torch.manual_seed(0)
    ddp_model = DDP(ToyModel() if rank == 0 else ToyModel())  # rank 1's draws differ: DDP broadcasts rank 0's
    optimizer = torch.optim.SGD(ddp_model.parameters(), lr=0.01)
    g = torch.Generator().manual_seed(rank)
    for _ in range(3):
        optimizer.zero_grad()
        loss = nn.MSELoss()(ddp_model(torch.randn(20, 10, generator=g)), torch.randn(20, 5, generator=g))
        loss.backward()
        optimizer.step()
    out["basic_loss"], out["basic_weights"] = loss.item(), flat(ddp_model)
    path = os.path.join(sys.argv[2], "model.checkpoint")
    if rank == 0:
        torch.save(ddp_model.state_dict(), path)
    dist.barrier()
    state = torch.load(path, map_location={"cuda:0": "cpu"}, weights_only=True)
    out["checkpoint_keys"] = sorted(state)
    ddp_model.load_state_dict(state)
    out["loaded_equal"] = all(torch.equal(a, b) for a, b in zip(ddp_model.state_dict().values(), state.values()))


def sampler_indices(out):
    for n in (10, 11):
        ds = data.TensorDataset(torch.arange(n))
        for shuffle in (True, False):
            for drop_last in (True, False):
                sampler = DistributedSampler(ds, shuffle=shuffle, drop_last=drop_last, seed=3)
                epochs = []
                for epoch in range(2):
                    sampler.set_epoch(epoch)
                    epochs.append(list(sampler))
                out[f"sampler_{n}_{shuffle}_{drop_last}"] = [len(sampler), sampler.total_size, epochs]


def train_with_sampler(out, rank):
    torch.manual_seed(0)
    x = torch.randn(37, 6)  # 37 rows: the sampler pads rank 1's share
    ds = data.TensorDataset(x, (x.sum(1) > 0).long())
    model = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2))
    out["sync_batchnorm_ddp"] = outcome(lambda: DDP(nn.SyncBatchNorm.convert_sync_batchnorm(
        nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8)))))
    ddp = DDP(model)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.1, momentum=0.9)
    for workers in (0, 2):
        sampler = DistributedSampler(ds)
        loader = data.DataLoader(ds, batch_size=4, sampler=sampler, num_workers=workers)
        for epoch in range(2):
            sampler.set_epoch(epoch)
            ddp.train()
            for xb, yb in loader:
                optimizer.zero_grad()
                loss = nn.functional.cross_entropy(ddp(xb), yb)
                loss.backward()
                optimizer.step()
            ddp.eval()
            correct, total = torch.tensor(0.0), torch.tensor(0.0)
            with torch.no_grad():
                for xb, yb in data.DataLoader(ds, batch_size=5, sampler=DistributedSampler(ds, shuffle=False)):
                    correct += (ddp(xb).argmax(1) == yb).sum()
                    total += len(yb)
            dist.all_reduce(correct)
            dist.all_reduce(total)
            out[f"validation_{workers}_{epoch}"] = [correct.item(), total.item(), loss.item()]
    out["sampler_weights"] = flat(ddp)
    out["running_stats"] = ddp.module[1].running_mean.tolist() + ddp.module[1].running_var.tolist()


def main():
    local_rank = int(os.environ["LOCAL_RANK"])
    dist.init_process_group(backend="gloo")
    rank = dist.get_rank()
    out = {"local_rank": local_rank, "rank": rank, "world": dist.get_world_size(), "backend": dist.get_backend()}
    demo_basic_and_checkpoint(out, rank)
    sampler_indices(out)
    train_with_sampler(out, rank)
    dist.barrier()
    dist.destroy_process_group()
    out["destroyed_twice"] = outcome(dist.destroy_process_group)
    out["initialized"] = dist.is_initialized()
    with open(os.path.join(sys.argv[2], f"{rank}.json"), "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main()
