"""A RealNVP normalizing flow on a 2-D two-moons-like data set: affine coupling layers with alternating binary
masks (registered buffers), scale nets with tanh, log-determinants summed over the layers, a MultivariateNormal
base and an Independent(Normal) base compared, log_prob maximized with Adam, then sampling by inverting the flow
with base.sample under a seed; plus torch.distributions.TransformedDistribution with AffineTransform /
SigmoidTransform / ComposeTransform and its log_abs_det_jacobian."""

import math

import torch
import torch.nn as nn
from torch import distributions as D


class Coupling(nn.Module):
    def __init__(self, mask, hidden=32):
        super().__init__()
        self.register_buffer("mask", mask)
        self.s = nn.Sequential(nn.Linear(2, hidden), nn.LeakyReLU(), nn.Linear(hidden, 2), nn.Tanh())
        self.t = nn.Sequential(nn.Linear(2, hidden), nn.LeakyReLU(), nn.Linear(hidden, 2))

    def forward(self, x):  # data -> latent
        x_masked = x * self.mask
        s = self.s(x_masked) * (1 - self.mask)
        t = self.t(x_masked) * (1 - self.mask)
        z = x_masked + (1 - self.mask) * (x * torch.exp(s) + t)
        return z, s.sum(dim=1)

    def inverse(self, z):
        z_masked = z * self.mask
        s = self.s(z_masked) * (1 - self.mask)
        t = self.t(z_masked) * (1 - self.mask)
        return z_masked + (1 - self.mask) * ((z - t) * torch.exp(-s))


class RealNVP(nn.Module):
    def __init__(self, base, n_layers=4):
        super().__init__()
        masks = [torch.tensor([1.0, 0.0]) if i % 2 == 0 else torch.tensor([0.0, 1.0]) for i in range(n_layers)]
        self.layers = nn.ModuleList([Coupling(m) for m in masks])
        self.base = base

    def log_prob(self, x):
        log_det = torch.zeros(x.shape[0])
        for layer in self.layers:
            x, ld = layer(x)
            log_det = log_det + ld
        return self.base.log_prob(x) + log_det

    def sample(self, n):
        z = self.base.sample((n,))
        for layer in reversed(self.layers):
            z = layer.inverse(z)
        return z


def moons(n, generator):
    t = torch.rand(n, generator=generator) * math.pi
    upper = torch.stack([torch.cos(t), torch.sin(t)], 1)
    lower = torch.stack([1 - torch.cos(t), 0.5 - torch.sin(t)], 1)
    pick = (torch.arange(n) % 2 == 0).unsqueeze(1)
    return torch.where(pick, upper, lower) + 0.05 * torch.randn(n, 2, generator=generator)


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    data = moons(256, g)
    mvn = D.MultivariateNormal(torch.zeros(2), torch.eye(2))
    ind = D.Independent(D.Normal(torch.zeros(2), torch.ones(2)), 1)
    out = [(mvn.log_prob(data[:5]) - ind.log_prob(data[:5])).abs().max().item(), str(ind.batch_shape),
           str(ind.event_shape)]
    flow = RealNVP(mvn)
    opt = torch.optim.Adam(flow.parameters(), lr=3e-3)
    for _epoch in range(3):
        for batch in data.split(64):
            loss = -flow.log_prob(batch).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            out.append(loss.item())
    with torch.no_grad():
        torch.manual_seed(5)
        samples = flow.sample(6)
        out += samples.flatten().tolist()
        back = samples
        for layer in flow.layers:
            back, _ = layer(back)
        out.append((flow.layers[0].inverse(flow.layers[0](samples)[0]) - samples).abs().max().item() < 1e-5)
        out += flow.log_prob(data[:4]).tolist()
    # A logit-normal through transforms: log_prob and the Jacobian term.
    td = D.TransformedDistribution(D.Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5])),
                                   [D.AffineTransform(loc=0.5, scale=2.0), D.SigmoidTransform()])
    y = torch.tensor([0.3, 0.8])
    out += td.log_prob(y).tolist()
    comp = D.ComposeTransform([D.AffineTransform(0.5, 2.0), D.SigmoidTransform()])
    x = torch.tensor([-0.4, 0.7])
    out += comp(x).tolist() + comp.log_abs_det_jacobian(x, comp(x)).tolist() + comp.inv(comp(x)).tolist()
    torch.manual_seed(3)
    out += td.rsample((3,)).flatten().tolist()
    mvn2 = D.MultivariateNormal(torch.tensor([1.0, -1.0]), scale_tril=torch.tensor([[1.0, 0.0], [0.5, 0.8]]))
    out += [mvn2.entropy().item(), D.kl_divergence(mvn2, mvn).item()] + mvn2.covariance_matrix.flatten().tolist()
    return out
