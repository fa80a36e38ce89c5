"""Data loading for variable-length text as in fairseq / torchtext recipes: a map-style Dataset of token lists, a
custom length-bucketing batch Sampler (sorted by length within shuffled chunks, driven by a torch.Generator and
set_epoch), DistributedSampler shards for two ranks, a collate_fn building padded batches and attention masks with
pad_sequence, a DataLoader with batch_sampler= and a generator, an IterableDataset split across workers with
get_worker_info (num_workers=0), ChainDataset, and a GRU classifier trained on the padded batches."""

import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import (
    ChainDataset,
    DataLoader,
    Dataset,
    DistributedSampler,
    IterableDataset,
    Sampler,
    get_worker_info,
)

PAD = 0


class TokenDataset(Dataset):
    def __init__(self, n, generator):
        self.items = []
        for _ in range(n):
            length = int(torch.randint(3, 12, (1,), generator=generator))
            tokens = torch.randint(1, 10, (length,), generator=generator)
            self.items.append((tokens, int(tokens[0] > 5)))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        return self.items[idx]


class BucketBatchSampler(Sampler):
    def __init__(self, lengths, batch_size, chunk=16, seed=0):
        self.lengths, self.batch_size, self.chunk, self.seed, self.epoch = lengths, batch_size, chunk, seed, 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        g = torch.Generator()
        g.manual_seed(self.seed + self.epoch)
        order = torch.randperm(len(self.lengths), generator=g).tolist()
        batches = []
        for start in range(0, len(order), self.chunk):
            chunk = sorted(order[start:start + self.chunk], key=lambda i: self.lengths[i])
            batches += [chunk[i:i + self.batch_size] for i in range(0, len(chunk), self.batch_size)]
        for j in torch.randperm(len(batches), generator=g).tolist():
            yield batches[j]

    def __len__(self):
        return sum((min(self.chunk, len(self.lengths) - s) + self.batch_size - 1) // self.batch_size
                   for s in range(0, len(self.lengths), self.chunk))


def collate(batch):
    tokens, labels = zip(*batch)
    lengths = torch.tensor([len(t) for t in tokens])
    padded = pad_sequence(tokens, batch_first=True, padding_value=PAD)
    mask = torch.arange(padded.shape[1])[None, :] < lengths[:, None]
    return padded, mask, lengths, torch.tensor(labels)


class Stream(IterableDataset):
    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        info = get_worker_info()
        lo, hi = self.start, self.end
        if info is not None:
            per = (hi - lo + info.num_workers - 1) // info.num_workers
            lo, hi = lo + info.id * per, min(lo + (info.id + 1) * per, hi)
        return iter(range(lo, hi))


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 8, padding_idx=PAD)
        self.gru = nn.GRU(8, 12, batch_first=True)
        self.out = nn.Linear(12, 2)

    def forward(self, x, mask, lengths):
        h, _ = self.gru(self.emb(x))
        last = h[torch.arange(x.shape[0]), lengths - 1]
        pooled = (h * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)
        return self.out(last + pooled)


def main():
    torch.manual_seed(0)
    data = TokenDataset(60, torch.Generator().manual_seed(3))
    lengths = [len(t) for t, _ in data.items]
    sampler = BucketBatchSampler(lengths, batch_size=8)
    loader = DataLoader(data, batch_sampler=sampler, collate_fn=collate)
    out = [len(loader), len(sampler)]
    model = Classifier()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        for x, mask, lens, y in loader:
            loss = nn.functional.cross_entropy(model(x, mask, lens), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            out += [loss.item(), x.shape[1], int(mask.sum())]
    for rank in range(2):
        ds = DistributedSampler(data, num_replicas=2, rank=rank, shuffle=True, seed=7)
        ds.set_epoch(1)
        idx = list(ds)
        out += [len(ds)] + idx[:6]
        tail = DistributedSampler(range(7), num_replicas=2, rank=rank, shuffle=False, drop_last=True)
        out += list(tail)
    plain = DataLoader(data, batch_size=16, shuffle=True, collate_fn=collate,
                       generator=torch.Generator().manual_seed(1), drop_last=True)
    out += [len(plain)] + [int(b[2].sum()) for b in plain]
    chained = ChainDataset([Stream(0, 3), Stream(10, 14)])
    out += list(chained)
    out += [int(b.sum()) for b in DataLoader(Stream(0, 10), batch_size=4)]
    return out
