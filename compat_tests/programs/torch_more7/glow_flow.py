"""A Glow flow on tiny images (the glow-pytorch re-implementations): a squeeze by view / permute, ActNorm with
data-dependent initialisation on its own batch (an `initialized` buffer filled with fill_(1), loc/scale written with
.data.copy_ under torch.no_grad), an invertible 1x1 convolution applied by F.conv2d with weight.view(c, c, 1, 1)
whose log-determinant comes from torch.slogdet, its LU-decomposed variant (torch.linalg.lu of a QR-orthogonal matrix,
fixed permutation buffer, torch.triu / tril masks, torch.diag of sign(s) * exp(log|s|)) with inverses by
torch.inverse, an affine coupling with sigmoid(scale + 2) as in the paper, the standard-normal log-likelihood turned
into bits per dimension, Adamax with gradient clipping by value, and reconstruction through the inverse flow."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


def squeeze2d(x):
    b, c, h, w = x.shape
    x = x.view(b, c, h // 2, 2, w // 2, 2).permute(0, 1, 3, 5, 2, 4).contiguous()
    return x.view(b, c * 4, h // 2, w // 2)


def unsqueeze2d(x):
    b, c, h, w = x.shape
    x = x.view(b, c // 4, 2, 2, h, w).permute(0, 1, 4, 2, 5, 3).contiguous()
    return x.view(b, c // 4, h * 2, w * 2)


class ActNorm(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.loc = nn.Parameter(torch.zeros(1, c, 1, 1))
        self.logs = nn.Parameter(torch.zeros(1, c, 1, 1))
        self.register_buffer("initialized", torch.tensor(0, dtype=torch.uint8))

    def forward(self, x, reverse=False):
        if not reverse and self.initialized.item() == 0:
            with torch.no_grad():
                flat = x.permute(1, 0, 2, 3).contiguous().view(x.shape[1], -1)
                mean, std = flat.mean(1), flat.std(1)
                self.loc.data.copy_(-mean.view_as(self.loc))
                self.logs.data.copy_(torch.log(1 / (std + 1e-6)).view_as(self.logs))
                self.initialized.fill_(1)
        h, w = x.shape[2:]
        logdet = h * w * self.logs.sum()
        if reverse:
            return x * torch.exp(-self.logs) - self.loc, -logdet
        return (x + self.loc) * torch.exp(self.logs), logdet


class InvConv(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.weight = nn.Parameter(torch.linalg.qr(torch.randn(c, c))[0])

    def forward(self, x, reverse=False):
        h, w = x.shape[2:]
        logdet = h * w * torch.slogdet(self.weight)[1]
        weight = torch.inverse(self.weight) if reverse else self.weight
        return F.conv2d(x, weight.view(*weight.shape, 1, 1)), -logdet if reverse else logdet


class InvConvLU(nn.Module):
    def __init__(self, c):
        super().__init__()
        q = torch.linalg.qr(torch.randn(c, c))[0]
        p, lower, upper = torch.linalg.lu(q)
        s = torch.diag(upper)
        self.register_buffer("p", p)
        self.register_buffer("sign_s", torch.sign(s))
        self.register_buffer("l_mask", torch.tril(torch.ones(c, c), -1))
        self.register_buffer("eye", torch.eye(c))
        self.lower = nn.Parameter(lower)
        self.log_s = nn.Parameter(torch.log(torch.abs(s)))
        self.upper = nn.Parameter(torch.triu(upper, 1))

    def get_weight(self):
        lower = self.lower * self.l_mask + self.eye
        upper = self.upper * self.l_mask.T.contiguous() + torch.diag(self.sign_s * torch.exp(self.log_s))
        return self.p @ lower @ upper

    def forward(self, x, reverse=False):
        h, w = x.shape[2:]
        logdet = h * w * self.log_s.sum()
        weight = self.get_weight()
        if reverse:
            weight = torch.inverse(weight)
            logdet = -logdet
        return F.conv2d(x, weight.unsqueeze(2).unsqueeze(3)), logdet


class Coupling(nn.Module):
    def __init__(self, c, hidden=16):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(c // 2, hidden, 3, padding=1), nn.ReLU(), nn.Conv2d(hidden, c, 3, padding=1))
        self.net[-1].weight.data.zero_()
        self.net[-1].bias.data.zero_()

    def forward(self, x, reverse=False):
        xa, xb = x.chunk(2, 1)
        log_s, t = self.net(xa).chunk(2, 1)
        s = torch.sigmoid(log_s + 2)
        if reverse:
            yb = xb / s - t
            return torch.cat([xa, yb], 1), -torch.log(s).flatten(1).sum(1)
        yb = (xb + t) * s
        return torch.cat([xa, yb], 1), torch.log(s).flatten(1).sum(1)


class Glow(nn.Module):
    def __init__(self, c=4, n_steps=2):
        super().__init__()
        self.steps = nn.ModuleList()
        for i in range(n_steps):
            self.steps.append(nn.ModuleList([ActNorm(c), InvConvLU(c) if i % 2 else InvConv(c), Coupling(c)]))

    def forward(self, x):
        z, logdet = squeeze2d(x), torch.zeros(x.shape[0])
        for step in self.steps:
            for layer in step:
                z, ld = layer(z)
                logdet = logdet + ld
        return z, logdet

    def reverse(self, z):
        for step in reversed(self.steps):
            for layer in reversed(step):
                z, _ = layer(z, reverse=True)
        return unsqueeze2d(z)


def bits_per_dim(z, logdet, n_pixels, n_bins=32):
    log_p = (-0.5 * (z ** 2 + math.log(2 * math.pi))).flatten(1).sum(1)
    loss = -math.log(n_bins) * n_pixels + logdet + log_p
    return (-loss / (math.log(2) * n_pixels)).mean()


def main():
    torch.manual_seed(2)
    g = torch.Generator().manual_seed(2)
    base = torch.rand(16, 1, 4, 4, generator=g)
    x = torch.floor(base * 32) / 32 - 0.5 + torch.rand(16, 1, 4, 4, generator=g) / 32
    model = Glow()
    with torch.no_grad():  # data-dependent init on its own batch (on the training batch, loc's gradient is round-off)
        model(torch.rand(32, 1, 4, 4, generator=g) - 0.5)
    n_pixels = 16
    opt = torch.optim.Adamax(model.parameters(), lr=2e-3)
    out = []
    for _ in range(10):
        z, logdet = model(x)
        loss = bits_per_dim(z, logdet, n_pixels)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_value_(model.parameters(), 5.0)
        opt.step()
        out.append(loss.item())
    out += [model.steps[0][0].initialized.item(), model.steps[0][0].logs.sum().item()]
    with torch.no_grad():
        z, logdet = model(x)
        recon = model.reverse(z)
        w = model.steps[1][1].get_weight()
    out += [(recon - x).abs().max().item() < 1e-4, logdet.mean().item(), torch.slogdet(w)[1].item(),
            model.steps[1][1].log_s.sum().item(), z.std().item()]
    return out
