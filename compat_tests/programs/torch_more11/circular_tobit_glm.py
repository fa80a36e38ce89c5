"""Probabilistic regression with hand-written likelihoods from torch.special, as in statsmodels-to-PyTorch ports and
Stack Overflow answers: a von Mises head for wind directions (angles wrapped with torch.atan2, the normaliser via
torch.special.i0e, checked against torch.distributions.VonMises.log_prob), a Tobit model for censored targets
(torch.special.log_ndtr for the censored mass, torch.special.ndtri / erfinv for quantiles), a Bernoulli entropy
bonus with torch.special.entr and torch.special.xlogy, torch.heaviside and torch.sgn for hinge-style indicators,
a Laplace approximation of the posterior from torch.func.hessian over a flat parameter vector, and
torch.optim.Rprop on the full batch."""

import math

import torch
import torch.nn as nn
from torch.func import hessian


class Heads(nn.Module):
    def __init__(self, d=4):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(d, 16), nn.Mish())
        self.direction = nn.Linear(16, 3)  # (cos, sin, log kappa)
        self.tobit = nn.Linear(16, 2)  # (mean, log sigma)

    def forward(self, x):
        h = self.trunk(x)
        return self.direction(h), self.tobit(h)


def von_mises_nll(raw, angle):
    mu = torch.atan2(raw[:, 1], raw[:, 0])
    kappa = torch.nn.functional.softplus(raw[:, 2]) + 0.1
    # log I0(k) = log i0e(k) + k, stable for large concentrations
    log_norm = math.log(2 * math.pi) + torch.log(torch.special.i0e(kappa)) + kappa
    return (log_norm - kappa * torch.cos(angle - mu)).mean(), mu, kappa


def tobit_nll(raw, y, lower=0.0):
    mean, sigma = raw[:, 0], raw[:, 1].exp()
    z = (y - mean) / sigma
    censored = y <= lower
    observed_ll = -0.5 * z.pow(2) - 0.5 * math.log(2 * math.pi) - torch.log(sigma)
    censored_ll = torch.special.log_ndtr((lower - mean) / sigma)
    return -torch.where(censored, censored_ll, observed_ll).mean(), mean, sigma


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(5)
    x = torch.randn(48, 4, generator=g)
    angle = torch.remainder(1.5 * x[:, 0] + 0.3 * torch.randn(48, generator=g) + math.pi, 2 * math.pi) - math.pi
    latent = x[:, 1] - 0.5 * x[:, 2] + 0.4 * torch.randn(48, generator=g)
    y = latent.clamp_min(0.0)
    model = Heads()
    opt = torch.optim.Rprop(model.parameters(), lr=0.01, etas=(0.5, 1.2), step_sizes=(1e-5, 1.0))
    out = [(y == 0).float().mean().item()]
    for _step in range(6):
        raw_dir, raw_tob = model(x)
        vm, mu, kappa = von_mises_nll(raw_dir, angle)
        tb, mean, sigma = tobit_nll(raw_tob, y)
        p = torch.sigmoid(raw_tob[:, 0])
        entropy = (torch.special.entr(p) + torch.special.entr(1 - p)).mean()
        loss = vm + tb - 0.01 * entropy
        opt.zero_grad()
        loss.backward()
        opt.step()
        out += [vm.item(), tb.item(), entropy.item()]
    reference = torch.distributions.VonMises(mu.detach(), kappa.detach()).log_prob(angle)
    out += [(reference.mean() + vm).item(), torch.special.xlogy(torch.tensor([0.0, 2.0]), torch.tensor([0.0, 3.0]))
            .sum().item(), torch.special.ndtri(torch.tensor([0.05, 0.5, 0.975])).tolist()[2],
            torch.erfinv(torch.tensor(0.5)).item(), (mean + sigma * torch.special.ndtri(torch.tensor(0.9)))
            .detach().mean().item(), torch.heaviside(y - 0.5, torch.tensor(0.5)).sum().item(),
            torch.sgn(torch.tensor([-2.0, 0.0, 3.0])).tolist()[0]]

    # Laplace approximation of a logistic regression posterior on (y > 0)
    target = (y > 0).float()
    features = torch.cat([x, torch.ones(48, 1)], dim=1)

    def neg_log_post(w):
        logits = features @ w
        return torch.nn.functional.binary_cross_entropy_with_logits(logits, target, reduction="sum") + 0.5 * w.dot(w)

    w = torch.zeros(5)
    for _ in range(5):  # Newton steps with the exact Hessian
        w = w.detach().requires_grad_(True)
        grad, = torch.autograd.grad(neg_log_post(w), w)
        H = hessian(neg_log_post)(w.detach())
        w = w.detach() - torch.linalg.solve(H, grad)
    cov = torch.linalg.inv(hessian(neg_log_post)(w))
    out += [*w.tolist(), cov.diagonal().sum().item(), torch.linalg.slogdet(cov).logabsdet.item()]
    return out
