"""Metric learning: a Siamese embedding net trained with nn.TripletMarginLoss (batch-hard mining: the hardest
positive by masked max, the hardest negative by topk over distances with masked_fill), F.pairwise_distance,
torch.cdist (p=2 and p=1), nn.CosineEmbeddingLoss on +1/-1 pairs, nn.TripletMarginWithDistanceLoss with a cosine
distance and swap=True, nn.MarginRankingLoss, and retrieval recall@k from a cdist ranking."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class EmbeddingNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(8, 32), nn.PReLU(), nn.Linear(32, 32), nn.PReLU(), nn.Linear(32, 4))

    def forward(self, x):
        return F.normalize(self.net(x), p=2, dim=1)


def batch_hard(emb, labels, k=2):
    dist = torch.cdist(emb, emb)
    same = labels.unsqueeze(0) == labels.unsqueeze(1)
    hardest_pos = (dist * same.float()).max(dim=1).values
    neg_dist = dist.masked_fill(same, float("inf"))
    hardest_negs, neg_idx = torch.topk(neg_dist, k, dim=1, largest=False)
    return hardest_pos, hardest_negs[:, 0], neg_idx[:, 0]


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(2)
    centers = torch.randn(4, 8, generator=g) * 2
    labels = torch.arange(64) % 4
    data = centers[labels] + 0.8 * torch.randn(64, 8, generator=g)
    model = EmbeddingNet()
    triplet = nn.TripletMarginLoss(margin=0.5, p=2)
    cos_loss = nn.CosineEmbeddingLoss(margin=0.2)
    swap_loss = nn.TripletMarginWithDistanceLoss(distance_function=lambda a, b: 1 - F.cosine_similarity(a, b),
                                                 margin=0.3, swap=True)
    rank_loss = nn.MarginRankingLoss(margin=0.1)
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    out = []
    for _epoch in range(4):
        # class-balanced batches (P classes x K samples), as batch-hard mining needs
        perm = torch.stack([torch.randperm(16) * 4 + c for c in range(4)], dim=1).flatten()
        for i in range(0, 64, 16):
            idx = perm[i:i + 16]
            x, y = data[idx], labels[idx]
            emb = model(x)
            pos_d, neg_d, neg_idx = batch_hard(emb, y)
            pos_idx = torch.stack([torch.nonzero((y == y[j]) & (torch.arange(16) != j))[0, 0] for j in range(16)])
            loss_t = triplet(emb, emb[pos_idx], emb[neg_idx])
            pair_target = torch.where(y == y.roll(1), 1.0, -1.0)
            loss_c = cos_loss(emb, emb.roll(1, 0), pair_target)
            loss_s = swap_loss(emb, emb[pos_idx], emb[neg_idx])
            loss_r = rank_loss(neg_d, pos_d, torch.ones(16))
            loss = loss_t + loss_c + loss_s + loss_r
            opt.zero_grad()
            loss.backward()
            opt.step()
            out += [loss_t.item(), loss_c.item(), loss_s.item(), loss_r.item()]
    model.eval()
    with torch.no_grad():
        emb = model(data)
        out += F.pairwise_distance(emb[:4], emb[4:8]).tolist()
        out += F.pairwise_distance(emb[:4], emb[4:8], p=1, keepdim=True).flatten().tolist()
        d1 = torch.cdist(emb[:5], emb[5:12], p=1)
        out += d1.flatten().tolist()
        dist = torch.cdist(emb, emb).fill_diagonal_(float("inf"))
        nearest = dist.topk(3, largest=False).indices
        recall1 = (labels[nearest[:, 0]] == labels).float().mean()
        recall3 = (labels[nearest] == labels[:, None]).any(dim=1).float().mean()
        out += [recall1.item(), recall3.item()]
        out += [model.net[1].weight.item(), model.net[3].weight.item()]
    return out
