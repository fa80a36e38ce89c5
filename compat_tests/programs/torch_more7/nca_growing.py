"""Growing neural cellular automata (the Distill "Growing Neural Cellular Automata" PyTorch ports): a perception
step of identity and Sobel kernels stacked with torch.stack, repeated per channel (repeat) and applied as one
depthwise F.conv2d(groups=channels) with circular padding by F.pad(mode="circular"), a 1x1-conv update rule with
its last layer zero-initialised, a stochastic fire-rate mask from torch.rand(...) <= rate, the living mask from
F.max_pool2d over the alpha channel, a seed state with one live cell, a sample pool indexed by torch.randperm whose
worst sample is replaced by the seed (argsort of per-sample losses), per-parameter gradient normalisation
(p.grad / (p.grad.norm() + 1e-8)) before Adam with MultiStepLR, and a random number of steps from torch.randint."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class CA(nn.Module):
    def __init__(self, channels=8, hidden=32, fire_rate=0.5):
        super().__init__()
        self.channels, self.fire_rate = channels, fire_rate
        ident = torch.tensor([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
        sobel_x = torch.tensor([[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]]) / 8.0
        kernel = torch.stack([ident, sobel_x, sobel_x.T])
        self.register_buffer("kernel", kernel.repeat(channels, 1, 1)[:, None])
        self.w1 = nn.Conv2d(channels * 3, hidden, 1)
        self.w2 = nn.Conv2d(hidden, channels, 1, bias=False)
        with torch.no_grad():
            self.w2.weight.zero_()

    def perceive(self, x):
        return F.conv2d(F.pad(x, (1, 1, 1, 1), mode="circular"), self.kernel, groups=self.channels)

    @staticmethod
    def alive(x):
        return F.max_pool2d(x[:, 3:4], kernel_size=3, stride=1, padding=1) > 0.1

    def forward(self, x, generator):
        pre_life = self.alive(x)
        dx = self.w2(torch.relu(self.w1(self.perceive(x))))
        update = torch.rand(x.shape[0], 1, x.shape[2], x.shape[3], generator=generator) <= self.fire_rate
        x = x + dx * update.float()
        life = (pre_life & self.alive(x)).float()
        return x * life


def make_seed(n, channels, size):
    x = torch.zeros(n, channels, size, size)
    x[:, 3:, size // 2, size // 2] = 1.0
    return x


def main():
    torch.manual_seed(7)
    g = torch.Generator().manual_seed(7)
    size, channels = 12, 8
    yy, xx = torch.meshgrid(torch.arange(size), torch.arange(size), indexing="ij")
    disc = (((yy - 5.5) ** 2 + (xx - 5.5) ** 2) < 16).float()
    target = torch.stack([disc * 0.8, disc * 0.2, 1.0 - disc, disc])  # premultiplied RGBA
    ca = CA(channels)
    opt = torch.optim.Adam(ca.parameters(), lr=2e-3)
    sched = torch.optim.lr_scheduler.MultiStepLR(opt, [4], 0.3)
    pool = make_seed(16, channels, size)
    out = [ca.perceive(make_seed(1, channels, size)).abs().sum().item()]
    for _ in range(6):
        idx = torch.randperm(len(pool), generator=g)[:4]
        x = pool[idx].clone()
        per_sample = ((x[:, :4] - target) ** 2).mean([1, 2, 3])
        x[per_sample.argsort(descending=True)[:1]] = make_seed(1, channels, size)
        n_steps = int(torch.randint(6, 10, (), generator=g))
        for _ in range(n_steps):
            x = ca(x, g)
        loss = ((x[:, :4] - target) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        with torch.no_grad():
            for p in ca.parameters():
                p.grad /= p.grad.norm() + 1e-8
        opt.step()
        sched.step()
        pool[idx] = x.detach()
        out += [loss.item(), n_steps]
    out += [pool.abs().sum().item(), CA.alive(pool).sum().item(), ca.w2.weight.norm().item()]
    return out
