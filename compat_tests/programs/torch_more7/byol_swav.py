"""Self-supervised learning without negatives (BYOL / SwAV, as in the solo-learn and lightly-style code): an online
network with a predictor and a target network built by copy.deepcopy with requires_grad_(False), the target updated
by momentum with torch._foreach_mul_ / torch._foreach_add_ (alpha=1 - tau) over parameter lists and the buffers
copied, a cosine schedule of tau, the symmetric BYOL loss 2 - 2 * cos from F.normalize, BatchNorm1d in the
projector (a predictor without), and torch.optim.Adafactor; SwAV prototypes as an nn.Linear without bias whose
weight is re-normalised in place under torch.no_grad, Sinkhorn-Knopp balanced assignments (exp(scores / eps).t(),
alternating row and column normalisation by sums), swapped prediction with log_softmax at a temperature, and the
prototypes frozen for the first steps by setting their grad to None."""

import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def mlp(n_in, hidden, n_out, batch_norm=True):
    # No bias before BatchNorm (it cancels it: the gradient would be round-off, which Adafactor scales up).
    norm = [nn.BatchNorm1d(hidden)] if batch_norm else []
    return nn.Sequential(nn.Linear(n_in, hidden, bias=not batch_norm), *norm, nn.ReLU(inplace=True),
                         nn.Linear(hidden, n_out))


def augment(x, g):
    noise = 0.1 * torch.randn(x.shape, generator=g)
    scale = 0.8 + 0.4 * torch.rand(x.shape[0], 1, generator=g)
    keep = (torch.rand(x.shape, generator=g) > 0.1).float()
    return (x * scale + noise) * keep


def byol_loss(p, z):
    p, z = F.normalize(p, dim=-1), F.normalize(z, dim=-1)
    return 2 - 2 * (p * z).sum(dim=-1)


@torch.no_grad()
def momentum_update(online, target, tau):
    online_params, target_params = list(online.parameters()), list(target.parameters())
    torch._foreach_mul_(target_params, tau)
    torch._foreach_add_(target_params, online_params, alpha=1 - tau)
    for b_t, b_o in zip(target.buffers(), online.buffers()):
        b_t.copy_(b_o)


@torch.no_grad()
def sinkhorn(scores, eps=0.05, iters=3):
    q = torch.exp(scores / eps).t()
    k, b = q.shape
    q /= torch.sum(q)
    for _ in range(iters):
        q /= torch.sum(q, dim=1, keepdim=True)
        q /= k
        q /= torch.sum(q, dim=0, keepdim=True)
        q /= b
    return (q * b).t()


def main():
    torch.manual_seed(8)
    g = torch.Generator().manual_seed(8)
    centers = torch.randn(4, 10, generator=g) * 2
    data = centers[torch.arange(64) % 4] + 0.3 * torch.randn(64, 10, generator=g)

    encoder = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU())
    online = nn.Sequential(encoder, mlp(16, 32, 8))
    predictor = mlp(8, 32, 8, batch_norm=False)
    target = copy.deepcopy(online).requires_grad_(False)
    opt = torch.optim.Adafactor(list(online.parameters()) + list(predictor.parameters()), lr=1e-2)
    out = []
    steps = 6
    for step in range(steps):
        v1, v2 = augment(data, g), augment(data, g)
        p1, p2 = predictor(online(v1)), predictor(online(v2))
        with torch.no_grad():
            z1, z2 = target(v1), target(v2)
        loss = (byol_loss(p1, z2) + byol_loss(p2, z1)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        tau = 1 - (1 - 0.99) * (math.cos(math.pi * step / steps) + 1) / 2
        momentum_update(online, target, tau)
        out += [loss.item(), tau]
    out.append(sum((a - b).abs().sum() for a, b in zip(online.parameters(), target.parameters())).item())

    torch.manual_seed(8)
    backbone = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), mlp(32, 32, 8))
    prototypes = nn.Linear(8, 6, bias=False)
    opt = torch.optim.SGD(list(backbone.parameters()) + list(prototypes.parameters()), lr=0.05, momentum=0.9)
    for step in range(6):
        with torch.no_grad():
            prototypes.weight.copy_(F.normalize(prototypes.weight.data.clone(), dim=1, p=2))
        v1, v2 = augment(data, g), augment(data, g)
        s1, s2 = prototypes(F.normalize(backbone(v1), dim=1)), prototypes(F.normalize(backbone(v2), dim=1))
        q1, q2 = sinkhorn(s1.detach()), sinkhorn(s2.detach())
        loss = -0.5 * ((q1 * F.log_softmax(s2 / 0.1, dim=1)).sum(1).mean() +
                       (q2 * F.log_softmax(s1 / 0.1, dim=1)).sum(1).mean())
        opt.zero_grad()
        loss.backward()
        if step < 2:
            prototypes.weight.grad = None
        opt.step()
        out += [loss.item(), q1.sum(0).std().item()]
    out.append(prototypes.weight.norm(dim=1).mean().item())
    return out
