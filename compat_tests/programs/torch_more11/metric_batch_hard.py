"""Deep metric learning, as in popular person re-id / pytorch-metric-learning style scripts: a PK sampler built with
torch.combinations and torch.cartesian_prod, batch-hard triplet mining from F.pdist expanded to a square matrix
through torch.triu_indices / index_put_, nn.TripletMarginWithDistanceLoss with a cosine distance and swap=True,
a center loss updated in place with index_add_ / addcmul_, Tanhshrink and Softshrink heads, statistics with
torch.var_mean / torch.std_mean / torch.aminmax / torch.nansum, recall@1 with masked_fill and argmin, and
torch.optim.Adamax with an ExponentialLR schedule."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Embedder(nn.Module):
    def __init__(self, d_in=10, d=6):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 24, bias=False), nn.BatchNorm1d(24), nn.Tanhshrink(), nn.Linear(24, d),
                                 nn.Softshrink(0.05))

    def forward(self, x):
        return self.net(x)


def square_distances(emb):
    n = emb.shape[0]
    flat = F.pdist(emb, p=2)
    rows, cols = torch.triu_indices(n, n, offset=1)
    dist = emb.new_zeros(n, n)
    dist = dist.index_put((rows, cols), flat)
    return dist + dist.T


def batch_hard(dist, labels, margin=0.3):
    same = labels.unsqueeze(0) == labels.unsqueeze(1)
    hardest_pos = dist.masked_fill(~same, float("-inf")).amax(dim=1)
    hardest_neg = dist.masked_fill(same, float("inf")).amin(dim=1)
    return F.relu(hardest_pos - hardest_neg + margin).mean()


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(3)
    n_classes, per_class = 4, 3
    prototypes = torch.randn(n_classes, 10, generator=g) * 2
    labels = torch.arange(n_classes).repeat_interleave(per_class)
    x = prototypes[labels] + torch.randn(len(labels), 10, generator=g)
    model = Embedder()
    centers = torch.zeros(n_classes, 6)
    cos_dist = lambda a, b: 1 - F.cosine_similarity(a, b)  # noqa: E731
    triplet = nn.TripletMarginWithDistanceLoss(distance_function=cos_dist, margin=1.0, swap=True)
    opt = torch.optim.Adamax(model.parameters(), lr=0.02, betas=(0.9, 0.99), weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    pairs = torch.combinations(torch.arange(per_class), r=2)
    class_pairs = torch.cartesian_prod(torch.arange(n_classes), torch.arange(n_classes))
    class_pairs = class_pairs[class_pairs[:, 0] != class_pairs[:, 1]]
    out = [len(pairs), len(class_pairs)]
    for step in range(5):
        emb = model(x)
        dist = square_distances(emb)
        hard = batch_hard(dist, labels)
        cls_a = class_pairs[step % len(class_pairs)]
        anchor_idx = cls_a[0] * per_class + pairs[:, 0]
        pos_idx = cls_a[0] * per_class + pairs[:, 1]
        neg_idx = cls_a[1] * per_class + pairs[:, 0]
        trip = triplet(emb[anchor_idx], emb[pos_idx], emb[neg_idx])
        center = (emb - centers[labels]).pow(2).sum(1).mean()
        loss = hard + trip + 0.1 * center
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        with torch.no_grad():
            delta = torch.zeros_like(centers).index_add_(0, labels, emb - centers[labels])
            counts = torch.bincount(labels, minlength=n_classes).float().unsqueeze(1)
            centers.addcmul_(delta, 1 / (1 + counts), value=0.5)
        out += [hard.item(), trip.item(), center.item(), sched.get_last_lr()[0]]
    model.eval()
    with torch.no_grad():
        emb = model(x)
        dist = square_distances(emb).fill_diagonal_(float("inf"))
        recall = (labels[dist.argmin(1)] == labels).float().mean()
        var, mean = torch.var_mean(emb, dim=0, correction=0)
        std, _ = torch.std_mean(emb, dim=1)
        lo, hi = torch.aminmax(emb)
        ratio = torch.nansum(torch.where(emb.abs() > 0.1, emb, torch.nan), dim=0)
    bn = model.net[1]
    out += [bn.running_mean.sum().item(), bn.running_var.sum().item(), recall.item(), var.sum().item(),
            mean.sum().item(), std.mean().item(), lo.item(), hi.item(), *ratio.tolist(),
            torch.pdist(emb[:3], p=1).sum().item()]
    return out
