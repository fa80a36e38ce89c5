"""Evidential deep learning for classification (Sensoy et al.), in the style of popular evidential-dl repositories:
the network outputs Dirichlet evidence through F.softplus, the loss is the Dirichlet-expected MSE plus an annealed
KL(Dir(alpha_tilde) || Dir(1)) from torch.distributions.kl.kl_divergence, the distribution classes imported from
their own modules (torch.distributions.dirichlet, .beta, .categorical); the predictive uncertainty K / S, the
per-class Beta marginals' entropies and a Categorical over the mean are reported, trained with RMSprop and a
StepLR schedule.  The evidence offset is a learnable parameter kept above 1 with
transform_to(constraints.greater_than(1.0)), and the supports are inspected with isinstance on constraint classes."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import constraints, transform_to
from torch.distributions.beta import Beta
from torch.distributions.categorical import Categorical
from torch.distributions.dirichlet import Dirichlet
from torch.distributions.kl import kl_divergence


def make_data(g, n=60, k=3):
    centers = torch.tensor([[2.0, 0.0], [-1.0, 1.7], [-1.0, -1.7]])
    y = torch.randint(0, k, (n,), generator=g)
    x = centers[y] + 0.7 * torch.randn(n, 2, generator=g)
    return x, y


def evidential_loss(alpha, target, epoch, k, anneal_epochs=4):
    s = alpha.sum(-1, keepdim=True)
    p = alpha / s
    y = F.one_hot(target, k).float()
    err = ((y - p) ** 2).sum(-1)
    var = (p * (1 - p) / (s + 1)).sum(-1)
    alpha_tilde = y + (1 - y) * alpha
    kl = kl_divergence(Dirichlet(alpha_tilde), Dirichlet(torch.ones_like(alpha_tilde)))
    coeff = min(1.0, epoch / anneal_epochs)
    return (err + var + coeff * kl).mean(), kl.mean()


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(5)
    x, y = make_data(g)
    k = 3
    net = nn.Sequential(nn.Linear(2, 16), nn.SiLU(), nn.Linear(16, k))
    raw_offset = nn.Parameter(torch.zeros(k))
    to_offset = transform_to(constraints.greater_than(1.0))
    opt = torch.optim.RMSprop([*net.parameters(), raw_offset], lr=0.01, alpha=0.9)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
    out = []
    for epoch in range(7):
        alpha = F.softplus(net(x)) + to_offset(raw_offset)
        loss, kl = evidential_loss(alpha, y, epoch, k)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        out += [loss.item(), kl.item()]
    out += to_offset(raw_offset).tolist() + [raw_offset.grad.norm().item()]
    with torch.no_grad():
        probe = torch.tensor([[2.0, 0.0], [0.0, 0.0], [8.0, 8.0]])
        alpha = F.softplus(net(probe)) + to_offset(raw_offset)
        s = alpha.sum(-1)
        uncertainty = k / s
        dist = Dirichlet(alpha)
        marginals = Beta(alpha, (s.unsqueeze(-1) - alpha))
        cat = Categorical(probs=dist.mean)
        out += uncertainty.tolist()
        out += dist.entropy().tolist() + dist.variance.flatten().tolist()
        out += marginals.entropy().flatten().tolist() + marginals.mean.flatten().tolist()
        out += cat.entropy().tolist() + cat.log_prob(torch.tensor([0, 1, 2])).tolist()
        out += dist.log_prob(torch.tensor([[0.8, 0.1, 0.1], [0.3, 0.3, 0.4], [0.2, 0.5, 0.3]])).tolist()
        acc = (F.softplus(net(x)).argmax(-1) == y).float().mean()
    out.append(acc.item())
    supports = [dist.support, marginals.support, cat.support, Dirichlet.arg_constraints["concentration"]]
    kinds = (constraints.interval, constraints.integer_interval, constraints.greater_than, constraints.simplex)
    out += [str([isinstance(c, kind) for kind in kinds if isinstance(kind, type)]) for c in supports]
    out += [str(c) for c in supports]
    return out
