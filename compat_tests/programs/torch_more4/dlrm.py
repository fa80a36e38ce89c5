"""A DLRM / Wide & Deep click-through model on synthetic tabular data: dense features through a bottom MLP,
multi-hot categorical features through nn.EmbeddingBag with offsets (mode="sum" with per_sample_weights, and
mode="mean"), pairwise feature interactions by bmm with the upper triangle taken by triu_indices, a wide linear
part over one-hot crosses, BCEWithLogitsLoss with pos_weight for the class imbalance, Adagrad, and AUC computed
with argsort ranks."""

import torch
import torch.nn as nn


def mlp(sizes):
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers[:-1])


class DLRM(nn.Module):
    def __init__(self, n_dense=4, tables=(10, 15, 8), dim=8, n_wide=6):
        super().__init__()
        self.bottom = mlp([n_dense, 16, dim])
        self.bags = nn.ModuleList([nn.EmbeddingBag(n, dim, mode="sum") for n in tables[:-1]]
                                  + [nn.EmbeddingBag(tables[-1], dim, mode="mean")])
        n_feat = len(tables) + 1
        self.register_buffer("rows", torch.triu_indices(n_feat, n_feat, offset=1)[0])
        self.register_buffer("cols", torch.triu_indices(n_feat, n_feat, offset=1)[1])
        self.top = mlp([dim + n_feat * (n_feat - 1) // 2, 16, 1])
        self.wide = nn.Linear(n_wide, 1)

    def forward(self, dense, sparse, wide):
        x = self.bottom(dense)
        embs = []
        for bag, (idx, offsets, weights) in zip(self.bags, sparse):
            if weights is None:
                embs.append(bag(idx, offsets))
            else:
                embs.append(bag(idx, offsets, per_sample_weights=weights))
        feats = torch.stack([x] + embs, dim=1)
        inter = torch.bmm(feats, feats.transpose(1, 2))[:, self.rows, self.cols]
        return (self.top(torch.cat([x, inter], dim=1)) + self.wide(wide)).squeeze(1)


def make_batch(n, tables, generator):
    dense = torch.randn(n, 4, generator=generator)
    sparse = []
    for t, size in enumerate(tables):
        lengths = torch.randint(1, 4, (n,), generator=generator)
        idx = torch.randint(0, size, (int(lengths.sum()),), generator=generator)
        offsets = torch.cat([torch.zeros(1, dtype=torch.long), lengths.cumsum(0)[:-1]])
        weights = torch.rand(idx.shape[0], generator=generator) if t == 0 else None
        sparse.append((idx, offsets, weights))
    wide = torch.nn.functional.one_hot(torch.randint(0, 6, (n,), generator=generator), 6).float()
    score = dense[:, 0] - 0.5 * dense[:, 1] + wide[:, 2] * 2
    labels = (score > 1.2).float()
    return dense, sparse, wide, labels


def auc(scores, labels):
    ranks = torch.empty_like(scores)
    ranks[scores.argsort()] = torch.arange(1, scores.numel() + 1, dtype=scores.dtype)
    pos = labels.sum()
    neg = labels.numel() - pos
    return ((ranks * labels).sum() - pos * (pos + 1) / 2) / (pos * neg)


def main():
    torch.manual_seed(23)
    g = torch.Generator().manual_seed(23)
    tables = (10, 15, 8)
    model = DLRM(tables=tables)
    opt = torch.optim.Adagrad(model.parameters(), lr=0.05, initial_accumulator_value=0.1)
    dense, sparse, wide, labels = make_batch(64, tables, g)
    pos_weight = (labels.numel() - labels.sum()) / labels.sum()
    criterion = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
    out = [labels.mean().item(), pos_weight.item()]
    for _ in range(12):
        logits = model(dense, sparse, wide)
        loss = criterion(logits, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    with torch.no_grad():
        logits = model(dense, sparse, wide)
        out += [auc(logits, labels).item(), torch.sigmoid(logits[:6]).sum().item()]
        out += logits[:8].tolist()
    out += model.bags[0].weight.grad.abs().sum(1).tolist()
    out.append(model.bags[2].weight.grad.norm().item())
    return out
