"""Data plumbing from common training scripts: TensorDataset, random_split with a generator, Subset,
ConcatDataset, an IterableDataset, WeightedRandomSampler, SubsetRandomSampler, BatchSampler, dict samples through
default_collate, a collate_fn building padded batches, worker_init_fn/num_workers=0, and len() of loaders."""

import numpy as np
import torch
from torch import nn
from torch.utils.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    random_split,
)


class DictDataset(Dataset):
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return {"features": self.x[i], "label": self.y[i], "index": i, "meta": {"even": i % 2 == 0}}


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        g = torch.Generator().manual_seed(7)
        for _ in range(self.n):
            yield torch.randn(4, generator=g), torch.randint(0, 3, (), generator=g)


def main():
    torch.manual_seed(0)
    x = torch.randn(60, 4)
    y = (x[:, 0] > 0).long() + (x[:, 1] > 1).long()
    full = TensorDataset(x, y)
    train, val, test = random_split(full, [36, 12, 12], generator=torch.Generator().manual_seed(42))
    out = [len(train), len(val), sum(train.indices), sum(val.indices), float(np.sum(test.indices))]
    fractions = random_split(range(10), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(1))
    out += [len(f) for f in fractions] + list(fractions[0])
    counts = torch.bincount(y[train.indices], minlength=3).float()
    weights = (1.0 / counts.clamp(min=1))[y[train.indices]]
    sampler = WeightedRandomSampler(weights, num_samples=36, replacement=True,
                                    generator=torch.Generator().manual_seed(3))
    out += list(sampler)[:10]
    model = nn.Linear(4, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loaders = [DataLoader(train, batch_size=8, sampler=sampler),
               DataLoader(ConcatDataset([train, Subset(full, [0, 1, 2, 3])]), batch_size=10, shuffle=True,
                          drop_last=False, worker_init_fn=lambda worker_id: None, num_workers=0),
               DataLoader(full, batch_sampler=BatchSampler(SubsetRandomSampler(list(range(0, 60, 2))), 7, False)),
               DataLoader(Stream(20), batch_size=6)]
    out += [len(loaders[0]), len(loaders[1]), len(loaders[2])]
    for loader in loaders:
        for xb, yb in loader:
            loss = nn.functional.cross_entropy(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            out += [loss.item(), len(yb)]
    dict_loader = DataLoader(DictDataset(x, y), batch_size=16, shuffle=True, generator=torch.Generator().manual_seed(5))
    for batch in dict_loader:
        out += [batch["features"].sum().item(), batch["label"].sum().item(), batch["index"].tolist()[0],
                batch["meta"]["even"].sum().item(), str(batch["index"].dtype), str(batch["meta"]["even"].dtype)]
    out += list(RandomSampler(range(8), generator=torch.Generator().manual_seed(9))) + list(SequentialSampler(range(3)))
    out += list(RandomSampler(range(5), replacement=True, num_samples=7, generator=torch.Generator().manual_seed(2)))
    return out


if __name__ == "__main__":
    print(main())
