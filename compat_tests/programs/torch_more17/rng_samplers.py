"""Reproducibility of data sampling, as a "seed everything" blog post checks it: torch.Generator objects passed to
randn / randperm / randint / multinomial, DataLoader(shuffle=True, generator=g) epoch orders, random_split with a
seeded generator, WeightedRandomSampler for class balancing, SubsetRandomSampler train/valid indices,
BatchSampler, get_state / set_state replays and a small model trained over the balanced loader."""

import torch
import torch.nn as nn
from torch.utils.data import (
    BatchSampler,
    DataLoader,
    RandomSampler,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    random_split,
)


def main():
    out = []
    torch.manual_seed(42)
    g = torch.Generator().manual_seed(123)
    out.append(str(torch.randn(3, generator=g)))
    out.append(str(torch.randperm(8, generator=g)))
    out.append(str(torch.randint(0, 10, (5,), generator=g)))
    out.append(str(torch.multinomial(torch.tensor([0.1, 0.2, 0.7]), 4, replacement=True, generator=g)))
    state = g.get_state()
    a = torch.rand(4, generator=g)
    g.set_state(state)
    out.append(torch.equal(a, torch.rand(4, generator=g)))
    out.append(g.initial_seed())
    out.append(str(torch.rand(2)))  # the global generator is untouched by g

    x = torch.arange(20, dtype=torch.float32).unsqueeze(1)
    y = (torch.arange(20) % 4 == 0).long()  # imbalanced: 5 positives out of 20
    ds = TensorDataset(x, y)
    loader = DataLoader(ds, batch_size=6, shuffle=True, generator=torch.Generator().manual_seed(7))
    for _ in range(2):
        out.append(str([xb[:, 0].long().tolist() for xb, _ in loader]))

    train, valid = random_split(ds, [0.75, 0.25], generator=torch.Generator().manual_seed(1))
    out += [str(train.indices), str(valid.indices), len(train), len(valid)]
    parts = random_split(range(10), [3, 3, 4], generator=torch.Generator().manual_seed(2))
    out.append(str([list(p) for p in parts]))

    class_count = torch.bincount(y)
    weights = (1.0 / class_count.float())[y]
    sampler = WeightedRandomSampler(weights, num_samples=16, replacement=True,
                                    generator=torch.Generator().manual_seed(3))
    drawn = list(sampler)
    out.append(str(drawn))
    out.append(str(torch.bincount(y[drawn], minlength=2).tolist()))
    no_repl = WeightedRandomSampler([0.1, 0.9, 0.4, 0.7, 0.3], num_samples=3, replacement=False,
                                    generator=torch.Generator().manual_seed(4))
    out.append(str(list(no_repl)))

    idx = torch.randperm(20, generator=torch.Generator().manual_seed(5)).tolist()
    train_sampler = SubsetRandomSampler(idx[:15], generator=torch.Generator().manual_seed(6))
    out.append(str(list(train_sampler)))
    out.append(str(list(BatchSampler(RandomSampler(range(7), generator=torch.Generator().manual_seed(8)),
                                     batch_size=3, drop_last=False))))
    out.append(str(list(RandomSampler(range(5), replacement=True, num_samples=8,
                                      generator=torch.Generator().manual_seed(9)))))

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    balanced = DataLoader(ds, batch_size=4, sampler=WeightedRandomSampler(weights, 20, generator=g))
    for _ in range(3):
        total = 0.0
        for xb, yb in balanced:
            loss = nn.functional.cross_entropy(model(xb / 20), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        out.append(total)
    # the global generator drives unseeded shuffles
    torch.manual_seed(11)
    out.append(str([yb.tolist() for _, yb in DataLoader(ds, batch_size=10, shuffle=True)]))
    return out
