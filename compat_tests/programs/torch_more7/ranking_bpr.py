"""Recommendation and learning to rank (the implicit-feedback tutorials and allRank-style losses): matrix
factorisation with user/item embeddings and item biases trained by the BPR loss (-F.logsigmoid of score
differences) on negatives drawn by torch.randint with a generator and resampled where they hit a positive
(a dense interaction matrix indexed by pairs), Adagrad with initial_accumulator_value, a factorisation machine whose
pairwise term uses the square-of-sum minus sum-of-squares trick; then ListNet (soft-max cross-entropy between
label and score distributions, torch.softmax / log_softmax) and a LambdaRank-style pairwise loss weighted by
|delta NDCG| built from torch.sort ranks, torch.log2 discounts and pairwise broadcasting with triu masks; metrics:
NDCG@k by torch.topk and gather, hit rate with torch.isin, MRR from argsort positions."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class MF(nn.Module):
    def __init__(self, n_users, n_items, d=8):
        super().__init__()
        self.user = nn.Embedding(n_users, d)
        self.item = nn.Embedding(n_items, d)
        self.item_bias = nn.Embedding(n_items, 1)
        nn.init.normal_(self.user.weight, std=0.1)
        nn.init.normal_(self.item.weight, std=0.1)
        nn.init.zeros_(self.item_bias.weight)

    def forward(self, u, i):
        return (self.user(u) * self.item(i)).sum(-1) + self.item_bias(i).squeeze(-1)


class FM(nn.Module):
    def __init__(self, n_features, d=4):
        super().__init__()
        self.linear = nn.Embedding(n_features, 1)
        self.v = nn.Embedding(n_features, d)
        self.bias = nn.Parameter(torch.zeros(1))
        nn.init.xavier_normal_(self.v.weight)

    def forward(self, fields):
        emb = self.v(fields)
        square_of_sum = emb.sum(1) ** 2
        sum_of_square = (emb ** 2).sum(1)
        pair = 0.5 * (square_of_sum - sum_of_square).sum(1)
        return self.bias + self.linear(fields).sum((1, 2)) + pair


def dcg(rels, k):
    discounts = 1.0 / torch.log2(torch.arange(2, k + 2, dtype=torch.float32))
    return ((2 ** rels[..., :k] - 1) * discounts).sum(-1)


def ndcg_at_k(scores, labels, k):
    top = torch.topk(scores, k, dim=-1).indices
    ideal = torch.sort(labels, dim=-1, descending=True).values
    return dcg(labels.gather(-1, top), k) / dcg(ideal, k).clamp_min(1e-10)


def listnet_loss(scores, labels):
    return -(torch.softmax(labels, -1) * torch.log_softmax(scores, -1)).sum(-1).mean()


def lambdarank_loss(scores, labels):
    n = scores.shape[-1]
    ranks = torch.empty_like(scores)
    order = torch.sort(scores.detach(), descending=True, dim=-1).indices
    ranks.scatter_(-1, order, torch.arange(n, dtype=scores.dtype).expand_as(scores))
    gains = 2 ** labels - 1
    disc = 1.0 / torch.log2(ranks + 2)
    ideal = dcg(torch.sort(labels, descending=True, dim=-1).values, n).unsqueeze(-1).unsqueeze(-1)
    delta = ((gains[..., :, None] - gains[..., None, :]) * (disc[..., :, None] - disc[..., None, :])).abs() / ideal
    better = labels[..., :, None] > labels[..., None, :]
    diff = scores[..., :, None] - scores[..., None, :]
    pair_loss = F.softplus(-diff) * delta * better
    return pair_loss.sum((-1, -2)).mean() / better.float().sum((-1, -2)).clamp_min(1).mean()


def main():
    torch.manual_seed(6)
    g = torch.Generator().manual_seed(6)
    n_users, n_items = 12, 20
    taste = torch.randn(n_users, 3, generator=g)
    kind = torch.randn(n_items, 3, generator=g)
    interactions = (taste @ kind.T > 0.8).float()
    pos_u, pos_i = interactions.nonzero(as_tuple=True)
    mf = MF(n_users, n_items)
    opt = torch.optim.Adagrad(mf.parameters(), lr=0.1, initial_accumulator_value=0.1)
    out = [len(pos_u)]
    for _ in range(8):
        neg = torch.randint(0, n_items, pos_u.shape, generator=g)
        clash = interactions[pos_u, neg].bool()
        neg = torch.where(clash, torch.randint(0, n_items, pos_u.shape, generator=g), neg)
        loss = -F.logsigmoid(mf(pos_u, pos_i) - mf(pos_u, neg)).mean()
        loss = loss + 1e-4 * (mf.user.weight.pow(2).sum() + mf.item.weight.pow(2).sum())
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    with torch.no_grad():
        scores = mf(torch.arange(n_users)[:, None], torch.arange(n_items)[None, :])
        top5 = scores.topk(5, dim=1).indices
        hits = torch.stack([torch.isin(top5[u], interactions[u].nonzero().flatten()).any() for u in range(n_users)])
        ranks = scores.argsort(dim=1, descending=True).argsort(dim=1)
        first = torch.where(interactions.bool(), ranks, torch.full_like(ranks, n_items)).min(1).values
        mrr = (1.0 / (first.float() + 1)).mean()
    out += [hits.float().mean().item(), mrr.item(), ndcg_at_k(scores, interactions, 5).mean().item()]

    fields = torch.stack([torch.randint(0, 5, (64,), generator=g), torch.randint(5, 9, (64,), generator=g),
                          torch.randint(9, 15, (64,), generator=g)], 1)
    clicks = ((fields[:, 0] % 2 == 0) & (fields[:, 2] > 11)).float()
    fm = FM(15)
    opt = torch.optim.Adam(fm.parameters(), lr=0.05)
    for _ in range(8):
        loss = F.binary_cross_entropy_with_logits(fm(fields), clicks)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())

    feats = torch.randn(16, 6, 5, generator=g)
    labels = (feats[..., 0] * 1.5 + feats[..., 1]).clamp(0, 3).round()
    for loss_fn in (listnet_loss, lambdarank_loss):
        torch.manual_seed(6)
        ranker = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1))
        opt = torch.optim.Adam(ranker.parameters(), lr=1e-2)
        for _ in range(8):
            scores = ranker(feats).squeeze(-1)
            loss = loss_fn(scores, labels)
            opt.zero_grad()
            loss.backward()
            opt.step()
            out.append(loss.item())
        out.append(ndcg_at_k(scores.detach(), labels, 3).mean().item())
    return out
