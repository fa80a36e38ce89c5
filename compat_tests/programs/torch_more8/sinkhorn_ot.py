"""Optimal transport in PyTorch (as in POT / geomloss examples and the Sinkhorn-Knopp Stack Overflow answers):
an entropic OT plan between two weighted point clouds computed by log-domain Sinkhorn iterations
(torch.logsumexp over a cost matrix from torch.cdist(p=2) squared, log-weights, the plan recovered with torch.exp),
a debiased Sinkhorn divergence used as a loss to move a point cloud with SGD, the sliced Wasserstein distance with
random projections (F.normalize of randn directions from a generator, torch.sort of projections) training a small
generator, and the 1-D exact Wasserstein distance from sorted samples and torch.quantile."""

import torch
import torch.nn as nn
import torch.nn.functional as F


def sinkhorn_log(x, y, a, b, eps=0.1, n_iters=30):
    cost = torch.cdist(x, y, p=2) ** 2
    log_a, log_b = a.log(), b.log()
    f = torch.zeros_like(a)
    g = torch.zeros_like(b)
    for _ in range(n_iters):
        f = -eps * torch.logsumexp(log_b[None, :] + (g[None, :] - cost) / eps, dim=1)
        g = -eps * torch.logsumexp(log_a[:, None] + (f[:, None] - cost) / eps, dim=0)
    log_plan = log_a[:, None] + log_b[None, :] + (f[:, None] + g[None, :] - cost) / eps
    plan = torch.exp(log_plan)
    return (plan * cost).sum(), plan, (f * a).sum() + (g * b).sum()


def sinkhorn_divergence(x, y, a, b, eps=0.1):
    xy = sinkhorn_log(x, y, a, b, eps)[2]
    xx = sinkhorn_log(x, x, a, a, eps)[2]
    yy = sinkhorn_log(y, y, b, b, eps)[2]
    return xy - 0.5 * (xx + yy)


def sliced_wasserstein(x, y, n_projections, generator):
    dirs = F.normalize(torch.randn(x.shape[1], n_projections, generator=generator), dim=0)
    px, _ = torch.sort(x @ dirs, dim=0)
    py, _ = torch.sort(y @ dirs, dim=0)
    return ((px - py) ** 2).mean()


def main():
    torch.manual_seed(4)
    g = torch.Generator().manual_seed(4)
    x = torch.randn(12, 2, generator=g)
    y = torch.randn(15, 2, generator=g) * 0.5 + torch.tensor([2.0, -1.0])
    a = torch.softmax(torch.randn(12, generator=g), 0)
    b = torch.full((15,), 1.0 / 15)
    cost, plan, dual = sinkhorn_log(x, y, a, b)
    out = [cost.item(), dual.item(), plan.sum(1).sub(a).abs().max().item(), plan.sum(0).sub(b).abs().max().item(),
           plan.argmax(1).float().mean().item()]

    moving = x.clone().requires_grad_(True)
    opt = torch.optim.SGD([moving], lr=2.0)
    for _ in range(6):
        loss = sinkhorn_divergence(moving, y, a, b)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    out.append(moving.detach().mean(0).sum().item())

    target = torch.cat([torch.randn(32, 2, generator=g) * 0.3 + 1.0, torch.randn(32, 2, generator=g) * 0.3 - 1.0])
    gen = nn.Sequential(nn.Linear(3, 16), nn.LeakyReLU(0.2), nn.Linear(16, 2))
    opt = torch.optim.RMSprop(gen.parameters(), lr=1e-2)
    for _ in range(6):
        z = torch.randn(64, 3, generator=g)
        loss = sliced_wasserstein(gen(z), target, 16, g)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())

    u = torch.randn(40, generator=g)
    v = torch.randn(40, generator=g) * 2 + 1
    w1 = (torch.sort(u).values - torch.sort(v).values).abs().mean()
    qs = torch.linspace(0.05, 0.95, 7)
    out += [w1.item(), (torch.quantile(u, qs) - torch.quantile(v, qs)).abs().mean().item(),
            torch.quantile(v, 0.5, interpolation="midpoint").item()]
    return out
