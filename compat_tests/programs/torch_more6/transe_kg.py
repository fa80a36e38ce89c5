"""Knowledge-graph embeddings (TransE / DistMult, as in the OpenKE-style PyTorch code): entity and relation
nn.Embedding tables initialised uniformly in +-6/sqrt(d), relations L2-normalised once, entities renormalised
before each batch (weight.data through F.normalize), corrupted triples by replacing heads or tails with
torch.where on a Bernoulli draw, an L1 distance score (torch.norm(p=1)), nn.MarginRankingLoss, Adagrad, and a
filtered-free link-prediction evaluation: distances to every entity by broadcasting, ranks by comparison counts,
mean rank, MRR and Hits@k; then a DistMult scorer trained with softplus loss and its scores for the same triples."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class TransE(nn.Module):
    def __init__(self, n_ent, n_rel, dim, p=1):
        super().__init__()
        self.p = p
        self.ent = nn.Embedding(n_ent, dim)
        self.rel = nn.Embedding(n_rel, dim)
        bound = 6 / math.sqrt(dim)
        nn.init.uniform_(self.ent.weight, -bound, bound)
        nn.init.uniform_(self.rel.weight, -bound, bound)
        self.rel.weight.data = F.normalize(self.rel.weight.data, p=2, dim=1)

    def forward(self, h, r, t):
        return torch.norm(self.ent(h) + self.rel(r) - self.ent(t), p=self.p, dim=-1)


class DistMult(nn.Module):
    def __init__(self, n_ent, n_rel, dim):
        super().__init__()
        self.ent = nn.Embedding(n_ent, dim)
        self.rel = nn.Embedding(n_rel, dim)
        nn.init.xavier_uniform_(self.ent.weight)
        nn.init.xavier_uniform_(self.rel.weight)

    def forward(self, h, r, t):
        return (self.ent(h) * self.rel(r) * self.ent(t)).sum(-1)


def corrupt(triples, n_ent, g):
    h, r, t = triples.unbind(1)
    replace_head = torch.bernoulli(torch.full((len(triples),), 0.5), generator=g).bool()
    rand = torch.randint(0, n_ent, (len(triples),), generator=g)
    return torch.where(replace_head, rand, h), r, torch.where(replace_head, t, rand)


def main():
    torch.manual_seed(9)
    g = torch.Generator().manual_seed(9)
    n_ent, n_rel = 20, 3
    heads = torch.arange(n_ent).repeat(n_rel)
    rels = torch.arange(n_rel).repeat_interleave(n_ent)
    tails = (heads * (rels + 1) + rels * 3) % n_ent
    triples = torch.stack([heads, rels, tails], 1)
    model = TransE(n_ent, n_rel, 16)
    opt = torch.optim.Adagrad(model.parameters(), lr=0.05)
    criterion = nn.MarginRankingLoss(margin=1.0)
    out = []
    for _ in range(12):
        with torch.no_grad():
            model.ent.weight.data = F.normalize(model.ent.weight.data, p=2, dim=1)
        batch = triples[torch.randperm(len(triples), generator=g)[:30]]
        pos = model(*batch.unbind(1))
        neg = model(*corrupt(batch, n_ent, g))
        loss = criterion(pos, neg, -torch.ones_like(pos))
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    with torch.no_grad():
        h, r, t = triples.unbind(1)
        query = model.ent(h) + model.rel(r)
        dists = torch.cdist(query, model.ent.weight, p=1)
        true = dists.gather(1, t.unsqueeze(1))
        ranks = (dists < true).sum(1) + 1
        out += [ranks.float().mean().item(), (1.0 / ranks.float()).mean().item(),
                (ranks <= 3).float().mean().item(), (ranks <= 10).float().mean().item(),
                (true.squeeze(1) - model(h, r, t)).abs().max().item() < 1e-4]
    dm = DistMult(n_ent, n_rel, 16)
    opt = torch.optim.Adam(dm.parameters(), lr=0.02)
    for _ in range(8):
        batch = triples[torch.randperm(len(triples), generator=g)[:30]]
        pos, neg = dm(*batch.unbind(1)), dm(*corrupt(batch, n_ent, g))
        loss = F.softplus(-pos).mean() + F.softplus(neg).mean() + 1e-3 * (dm.ent.weight.pow(2).sum())
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    out.append(dm(triples[:5, 0], triples[:5, 1], triples[:5, 2]).sum().item())
    return out
