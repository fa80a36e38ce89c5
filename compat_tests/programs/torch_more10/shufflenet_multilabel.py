"""Multi-label image tagging with a ShuffleNetV2-style network, in the style of popular classification repositories
and Stack Overflow answers on multi-label losses: channel split with Tensor.chunk, depthwise Conv2d (groups=channels),
nn.ChannelShuffle, an LPPool2d + AdaptiveMaxPool2d head, nn.MultiLabelMarginLoss on padded -1-terminated label
lists next to nn.MultiLabelSoftMarginLoss on multi-hot targets, an embedding head trained with
nn.PairwiseDistance in a contrastive loss, gradient accumulation with Adadelta, the module repr and
named_modules listing compared as text, and per-class average precision from torch.sort."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class ShuffleUnit(nn.Module):
    def __init__(self, channels):
        super().__init__()
        half = channels // 2
        self.branch = nn.Sequential(
            nn.Conv2d(half, half, 1, bias=False), nn.BatchNorm2d(half), nn.ReLU(inplace=True),
            nn.Conv2d(half, half, 3, padding=1, groups=half, bias=False), nn.BatchNorm2d(half),
            nn.Conv2d(half, half, 1, bias=False), nn.BatchNorm2d(half), nn.Hardswish())
        self.shuffle = nn.ChannelShuffle(2)

    def forward(self, x):
        keep, work = x.chunk(2, dim=1)
        return self.shuffle(torch.cat([keep, self.branch(work)], dim=1))


class Tagger(nn.Module):
    def __init__(self, n_labels=5, channels=8, emb=4):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, channels, 3, stride=2, padding=1, bias=False),
                                  nn.BatchNorm2d(channels), nn.ReLU6())
        self.units = nn.Sequential(ShuffleUnit(channels), ShuffleUnit(channels))
        self.lp = nn.LPPool2d(2, kernel_size=2)
        self.gmp = nn.AdaptiveMaxPool2d((1, 1))
        self.classifier = nn.Linear(2 * channels, n_labels)
        self.embed = nn.Linear(2 * channels, emb)

    def forward(self, x):
        h = self.units(self.stem(x))
        pooled = torch.cat([self.lp(h).mean((2, 3)), self.gmp(h).flatten(1)], dim=1)
        return self.classifier(pooled), F.normalize(self.embed(pooled), dim=1)


def make_data(g, n=24, n_labels=5):
    multi_hot = (torch.rand(n, n_labels, generator=g) < 0.4).float()
    multi_hot[multi_hot.sum(1) == 0, 0] = 1.0
    base = torch.randn(n, 3, 8, 8, generator=g) * 0.3
    pattern = torch.linspace(-1, 1, 8)
    for k in range(n_labels):
        base[:, k % 3] += multi_hot[:, k, None, None] * torch.roll(pattern, k).view(1, 8) * (1 + k % 2)
    # MultiLabelMarginLoss wants each row's label indices first, then -1
    ranks = torch.where(multi_hot.bool(), torch.arange(n_labels).expand(n, -1), torch.full((n, n_labels), n_labels))
    indices = ranks.sort(dim=1).values
    targets = torch.where(indices == n_labels, torch.full_like(indices, -1), indices)
    return base, multi_hot, targets


def average_precision(scores, labels):
    order = torch.sort(scores, dim=0, descending=True).indices
    hits = torch.gather(labels, 0, order)
    precision = hits.cumsum(0) / torch.arange(1, scores.shape[0] + 1).unsqueeze(1)
    return (precision * hits).sum(0) / hits.sum(0).clamp_min(1)


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(8)
    images, multi_hot, targets = make_data(g)
    model = Tagger()
    out = [repr(model.units[0]), repr([name for name, _ in model.named_modules()][:8]), targets[:3].tolist()[0][0]]
    margin_loss = nn.MultiLabelMarginLoss()
    soft_margin = nn.MultiLabelSoftMarginLoss(weight=torch.tensor([1.0, 1.0, 2.0, 1.0, 0.5]))
    distance = nn.PairwiseDistance(p=2, eps=1e-6, keepdim=False)
    opt = torch.optim.Adadelta(model.parameters(), lr=1.0, rho=0.9)
    accumulate = 2
    for _epoch in range(2):
        for i, idx in enumerate(torch.arange(24).split(6)):
            logits, emb = model(images[idx])
            anchor, other = emb[0::2], emb[1::2]
            same = (multi_hot[idx][0::2] * multi_hot[idx][1::2]).sum(1).gt(0).float()
            d = distance(anchor, other)
            contrastive = (same * d.pow(2) + (1 - same) * F.relu(1.0 - d).pow(2)).mean()
            loss = margin_loss(logits, targets[idx]) + soft_margin(logits, multi_hot[idx]) + 0.1 * contrastive
            (loss / accumulate).backward()
            if (i + 1) % accumulate == 0:
                opt.step()
                opt.zero_grad(set_to_none=True)
            out += [loss.item(), contrastive.item()]
    model.eval()
    with torch.no_grad():
        logits, emb = model(images)
    ap = average_precision(logits.sigmoid(), multi_hot)
    out += ap.tolist() + [ap.mean().item(), distance(emb[:1], emb[1:2]).item(),
                          model.units[1].branch[1].running_var.sum().item()]
    return out
