"""Kaggle-style image augmentation inside the training loop: mixup (a lambda from
torch.distributions.Beta, torch.randperm partner rows, torch.lerp of images) and CutMix (a box from the lambda,
pasted by slicing, lambda corrected by the box area), soft-target cross-entropy against F.one_hot mixtures with
label smoothing (F.cross_entropy with probability targets), a small CNN with GroupNorm and SiLU, test-time
augmentation averaging the softmax of flipped images (torch.flip, torch.rot90), and the accuracy of the TTA."""

import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def rand_bbox(h, w, lam, g):
    cut = math.sqrt(1.0 - lam)
    ch, cw = int(h * cut), int(w * cut)
    cy = int(torch.randint(h, (1,), generator=g))
    cx = int(torch.randint(w, (1,), generator=g))
    y1, y2 = np.clip(cy - ch // 2, 0, h), np.clip(cy + ch // 2, 0, h)
    x1, x2 = np.clip(cx - cw // 2, 0, w), np.clip(cx + cw // 2, 0, w)
    return int(y1), int(y2), int(x1), int(x2)


def smooth_one_hot(y, n, smoothing):
    return F.one_hot(y, n).float() * (1 - smoothing) + smoothing / n


def build():
    return nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.GroupNorm(2, 8), nn.SiLU(),
                         nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.GroupNorm(4, 16), nn.SiLU(),
                         nn.AdaptiveMaxPool2d(2), nn.Flatten(), nn.Linear(64, 5))


def main():
    torch.manual_seed(3)
    g = torch.Generator().manual_seed(3)
    n_classes = 5
    x = torch.randn(32, 3, 12, 12, generator=g)
    y = torch.randint(0, n_classes, (32,), generator=g)
    x += torch.linspace(-1, 1, n_classes)[y].view(-1, 1, 1, 1)
    model = build()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    beta = torch.distributions.Beta(torch.tensor(1.0), torch.tensor(1.0))
    out = []
    for step in range(12):
        model.train()
        xb, yb = x[step % 2 * 16:(step % 2 + 1) * 16], y[step % 2 * 16:(step % 2 + 1) * 16]
        lam = beta.sample().item()
        perm = torch.randperm(xb.size(0))
        targets = smooth_one_hot(yb, n_classes, 0.1)
        if step % 2 == 0:
            mixed = torch.lerp(xb[perm], xb, lam)
        else:
            y1, y2, x1, x2 = rand_bbox(12, 12, lam, g)
            mixed = xb.clone()
            mixed[:, :, y1:y2, x1:x2] = xb[perm, :, y1:y2, x1:x2]
            lam = 1 - (y2 - y1) * (x2 - x1) / (12 * 12)
        soft = lam * targets + (1 - lam) * targets[perm]
        loss = F.cross_entropy(model(mixed), soft)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out += [lam, loss.item()]
    model.eval()
    with torch.no_grad():
        views = [x, torch.flip(x, dims=[3]), torch.flip(x, dims=[2]), torch.rot90(x, 1, dims=(2, 3))]
        probs = torch.stack([model(v).softmax(-1) for v in views]).mean(0)
        hard = F.cross_entropy(model(x), y, label_smoothing=0.1)
    out += [probs.sum().item(), probs.max().item(), (probs.argmax(1) == y).float().mean().item(), hard.item()]
    return out
