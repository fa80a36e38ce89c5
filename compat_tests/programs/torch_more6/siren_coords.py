"""Implicit neural representations (SIREN, "Implicit Neural Representations with Periodic Activation Functions"):
a coordinate grid from torch.meshgrid(indexing="ij") and torch.linspace, sine layers with omega_0 and the
paper's uniform init under torch.no_grad, fitting an image, its spatial gradient obtained with
torch.autograd.grad(create_graph=True) and a gradient-matching (Poisson) loss that backpropagates through it, the
Laplacian from a divergence loop, and random Fourier features (a fixed Gaussian buffer, cat of sin and cos) as the
ReLU-network baseline."""

import math

import torch
import torch.nn as nn


class SineLayer(nn.Module):
    def __init__(self, cin, cout, is_first=False, omega_0=30.0):
        super().__init__()
        self.omega_0 = omega_0
        self.linear = nn.Linear(cin, cout)
        with torch.no_grad():
            bound = 1 / cin if is_first else math.sqrt(6 / cin) / omega_0
            self.linear.weight.uniform_(-bound, bound)

    def forward(self, x):
        return torch.sin(self.omega_0 * self.linear(x))


class Siren(nn.Module):
    def __init__(self, hidden=32, layers=2):
        super().__init__()
        net = [SineLayer(2, hidden, is_first=True)] + [SineLayer(hidden, hidden) for _ in range(layers)]
        final = nn.Linear(hidden, 1)
        with torch.no_grad():
            bound = math.sqrt(6 / hidden) / 30.0
            final.weight.uniform_(-bound, bound)
        self.net = nn.Sequential(*net, final)

    def forward(self, coords):
        coords = coords.clone().detach().requires_grad_(True)
        return self.net(coords), coords


class FourierFeatures(nn.Module):
    def __init__(self, n_features=16, scale=3.0):
        super().__init__()
        self.register_buffer("B", torch.randn(2, n_features) * scale)
        self.mlp = nn.Sequential(nn.Linear(2 * n_features, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, coords):
        proj = 2 * math.pi * coords @ self.B
        return self.mlp(torch.cat([torch.sin(proj), torch.cos(proj)], dim=-1))


def gradient(y, x):
    return torch.autograd.grad(y, [x], grad_outputs=torch.ones_like(y), create_graph=True)[0]


def laplacian(y, x):
    grad = gradient(y, x)
    div = 0.0
    for i in range(grad.shape[-1]):
        div = div + torch.autograd.grad(grad[..., i], x, torch.ones_like(grad[..., i]), create_graph=True)[0][..., i]
    return div


def main():
    torch.manual_seed(21)
    side = 12
    lin = torch.linspace(-1, 1, side)
    yy, xx = torch.meshgrid(lin, lin, indexing="ij")
    coords = torch.stack([xx, yy], dim=-1).reshape(-1, 2)
    image = (torch.sin(3 * coords[:, :1]) * torch.cos(2 * coords[:, 1:]))
    target_grad = torch.cat([3 * torch.cos(3 * coords[:, :1]) * torch.cos(2 * coords[:, 1:]),
                             -2 * torch.sin(3 * coords[:, :1]) * torch.sin(2 * coords[:, 1:])], dim=1)
    siren = Siren()
    opt = torch.optim.Adam(siren.parameters(), lr=1e-4)
    out = []
    for step in range(10):
        pred, x = siren(coords)
        img_loss = ((pred - image) ** 2).mean()
        if step < 5:
            loss = img_loss
        else:
            loss = img_loss + 0.01 * ((gradient(pred, x) - target_grad) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        out += [img_loss.item(), loss.item()]
    pred, x = siren(coords[:20])
    lap = laplacian(pred, x)
    out += [lap.abs().mean().item(), lap.sum().item(), pred.sum().item()]
    ff = FourierFeatures()
    opt = torch.optim.Adam(ff.parameters(), lr=1e-2)
    for _ in range(8):
        loss = nn.functional.mse_loss(ff(coords), image)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    out.append(sorted(ff.state_dict().keys())[0])
    return out
