"""A torch.utils.data pipeline the way Kaggle notebooks build one: two TensorDatasets joined with ConcatDataset,
random_split with a seeded generator, a Subset for validation, a WeightedRandomSampler that rebalances classes with
its own generator, and a collate_fn returning a dict.  Each phase of training uses a different scheduler:
OneCycleLR, CosineAnnealingWarmRestarts (fractional epochs), SequentialLR(LinearLR -> ExponentialLR) and
ReduceLROnPlateau, whose get_last_lr() values are reported."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import ConcatDataset, DataLoader, Subset, TensorDataset, WeightedRandomSampler, random_split


def collate(batch):
    x = torch.stack([b[0] for b in batch])
    y = torch.stack([b[1] for b in batch])
    return {"features": x, "label": y, "size": len(batch)}


def main():
    torch.manual_seed(0)
    xa = torch.randn(20, 5)
    ya = (xa[:, 0] > 0.8).long()
    xb = torch.randn(12, 5) + 0.5
    yb = (xb[:, 1] > 0.3).long()
    full = ConcatDataset([TensorDataset(xa, ya), TensorDataset(xb, yb)])
    train_set, val_set = random_split(full, [0.75, 0.25], generator=torch.Generator().manual_seed(7))
    val_small = Subset(val_set, [0, 2, 4, 6])
    labels = torch.stack([full[i][1] for i in train_set.indices])
    counts = torch.bincount(labels, minlength=2)
    weights = (1.0 / counts.float())[labels]
    sampler = WeightedRandomSampler(weights, num_samples=len(train_set), replacement=True,
                                    generator=torch.Generator().manual_seed(1))
    loader = DataLoader(train_set, batch_size=6, sampler=sampler, collate_fn=collate)
    out = [len(full), len(train_set), len(val_set), str(train_set.indices[:6]), str(counts.tolist()),
           str(list(sampler)[:8]), str(val_small.indices)]

    model = nn.Sequential(nn.Linear(5, 8), nn.Tanh(), nn.Linear(8, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    steps = len(loader)
    one_cycle = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.3, total_steps=2 * steps, pct_start=0.4,
                                                    anneal_strategy="cos", div_factor=10.0, final_div_factor=50.0)
    for _ in range(2):
        for batch in loader:
            loss = F.cross_entropy(model(batch["features"]), batch["label"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            one_cycle.step()
            out += [loss.item(), batch["size"], one_cycle.get_last_lr()[0], opt.param_groups[0]["momentum"]]

    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    warm = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=0.001)
    for epoch in range(3):
        for i, batch in enumerate(loader):
            loss = F.cross_entropy(model(batch["features"]), batch["label"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            warm.step(epoch + i / steps)
            out += [warm.get_last_lr()[0], warm.T_cur, warm.T_i]

    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    seq = torch.optim.lr_scheduler.SequentialLR(
        opt, [torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.2, total_iters=2),
              torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.7)], milestones=[2])
    plateau_opt = torch.optim.SGD(model.parameters(), lr=0.1)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(plateau_opt, mode="min", factor=0.5, patience=0,
                                                         threshold=0.05, cooldown=1, min_lr=0.01)
    val_loader = DataLoader(val_small, batch_size=2, shuffle=False, collate_fn=collate)
    for epoch in range(5):
        for batch in loader:
            loss = F.cross_entropy(model(batch["features"]), batch["label"])
            opt.zero_grad()
            loss.backward()
            opt.step()
        seq.step()
        with torch.no_grad():
            val = sum(F.cross_entropy(model(b["features"]), b["label"], reduction="sum") for b in val_loader)
        plateau.step(val.item() if epoch % 2 else 5.0)
        out += [val.item(), seq.get_last_lr()[0], plateau.get_last_lr()[0], plateau.num_bad_epochs]
    return out
