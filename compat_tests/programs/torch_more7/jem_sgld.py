"""A joint energy-based model (JEM, "Your classifier is secretly an energy based model") on 2-D blobs: a classifier
whose energy is -torch.logsumexp(logits, 1), Lipschitz-constrained by the parametrization form of spectral norm
(nn.utils.parametrizations.spectral_norm), nn.RMSNorm between layers, samples drawn by stochastic gradient Langevin
dynamics (torch.autograd.grad of the summed energy with respect to a requires_grad_ chain of samples, step size
and noise by randn_like) started from a replay buffer reinitialised at a 5% rate (torch.rand < p, torch.where on a
broadcast mask), the contrastive-divergence loss plus an energy-magnitude penalty, cross-entropy on labels; then a
heteroscedastic regression head trained with nn.GaussianNLLLoss (predicted variances through F.softplus) and an
nn.utils.parametrizations.orthogonal layer whose weight stays orthogonal."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parametrizations


class EnergyNet(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.fc1 = parametrizations.spectral_norm(nn.Linear(2, 32))
        self.norm = nn.RMSNorm(32, eps=1e-6)
        self.fc2 = parametrizations.spectral_norm(nn.Linear(32, 32))
        self.out = nn.Linear(32, n_classes)

    def forward(self, x):
        h = F.silu(self.norm(self.fc1(x)))
        return self.out(F.silu(self.fc2(h)))

    def energy(self, x):
        return -torch.logsumexp(self(x), dim=1)


def sgld(model, x, n_steps=10, step_size=0.1, noise=0.01):
    x = x.clone().requires_grad_(True)
    for _ in range(n_steps):
        grad = torch.autograd.grad(model.energy(x).sum(), x)[0]
        x = (x - step_size * grad + noise * torch.randn_like(x)).detach().requires_grad_(True)
    return x.detach()


def main():
    torch.manual_seed(12)
    centers = torch.tensor([[2.0, 0.0], [-1.0, 1.7], [-1.0, -1.7]])
    y = torch.arange(60) % 3
    x = centers[y] + 0.4 * torch.randn(60, 2)
    model = EnergyNet()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3, betas=(0.0, 0.999))
    buffer = torch.rand(100, 2) * 8 - 4
    out = [str(sorted(k for k in model.state_dict() if "fc1" in k))]
    for _ in range(8):
        idx = torch.randint(0, 100, (30,))
        start = buffer[idx]
        reinit = (torch.rand(30) < 0.05)[:, None]
        start = torch.where(reinit, torch.rand(30, 2) * 8 - 4, start)
        samples = sgld(model, start)
        buffer[idx] = samples
        e_pos, e_neg = model.energy(x).mean(), model.energy(samples).mean()
        loss = F.cross_entropy(model(x), y) + (e_pos - e_neg) + 0.1 * (e_pos ** 2 + e_neg ** 2)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out += [loss.item(), e_pos.item(), e_neg.item()]
    with torch.no_grad():
        sigma = torch.linalg.matrix_norm(model.fc2.weight, ord=2)
    out += [sigma.item(), buffer.abs().mean().item()]

    torch.manual_seed(12)
    t = torch.linspace(-2, 2, 64)[:, None]
    target = torch.sin(2 * t) + (0.05 + 0.3 * t.abs()) * torch.randn(64, 1)
    rot = parametrizations.orthogonal(nn.Linear(16, 16, bias=False))
    body = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), rot, nn.Tanh(), nn.Linear(16, 2))
    crit = nn.GaussianNLLLoss(eps=1e-6)
    opt = torch.optim.Adam(body.parameters(), lr=1e-2)
    for _ in range(10):
        mean, raw_var = body(t).chunk(2, dim=1)
        loss = crit(mean, target, F.softplus(raw_var))
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    w = rot.weight
    out += [(w @ w.T - torch.eye(16)).abs().max().item() < 1e-5, w.detach().sum().item()]
    return out
