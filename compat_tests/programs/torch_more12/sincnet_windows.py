"""SincNet (Ravanelli & Bengio) for raw-waveform classification, as in the mravanelli/SincNet repository: the first
layer's band-pass filters are differences of two sinc low-passes with learnable cut-offs, windowed by
torch.signal.windows.hamming; the comparison windows (hann, blackman, kaiser, gaussian, general_cosine) come from
torch.signal.windows too; trained with AdamW on synthetic tones, with F.conv1d, nn.LayerNorm over time and
F.max_pool1d, then the learned band edges are reported."""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.signal import windows


class SincConv(nn.Module):
    def __init__(self, out_channels=4, kernel_size=31, sample_rate=800.0):
        super().__init__()
        self.kernel_size = kernel_size
        self.sample_rate = sample_rate
        low = torch.linspace(30.0, 250.0, out_channels)
        self.low_hz = nn.Parameter(low.unsqueeze(1))
        self.band_hz = nn.Parameter(torch.full((out_channels, 1), 60.0))
        half = (kernel_size - 1) // 2
        self.register_buffer("n", 2 * math.pi * torch.arange(-half, half + 1).float().unsqueeze(0) / sample_rate)
        self.register_buffer("window", windows.hamming(kernel_size, sym=True))

    def filters(self):
        low = 5.0 + self.low_hz.abs()
        high = torch.clamp(low + 5.0 + self.band_hz.abs(), 5.0, self.sample_rate / 2)
        n = self.n
        safe_n = torch.where(n == 0, torch.ones_like(n), n)
        band = (torch.sin(high * safe_n) - torch.sin(low * safe_n)) / (safe_n / 2)
        centre = 2 * (high - low)
        band = torch.where(n == 0, centre.expand_as(band), band)
        band = band / (2 * (high - low))
        return (band * self.window).unsqueeze(1)

    def forward(self, x):
        return F.conv1d(x, self.filters(), padding=self.kernel_size // 2)


class Net(nn.Module):
    def __init__(self, classes=3, length=128):
        super().__init__()
        self.sinc = SincConv()
        self.norm = nn.LayerNorm(length // 4)
        self.head = nn.Linear(4 * (length // 4), classes)

    def forward(self, x):
        h = F.max_pool1d(self.sinc(x).abs(), 4)
        h = F.leaky_relu(self.norm(h), 0.2)
        return self.head(h.flatten(1))


def tones(g, n=24, length=128, rate=800.0):
    freqs = torch.tensor([60.0, 150.0, 300.0])
    y = torch.randint(0, 3, (n,), generator=g)
    t = torch.arange(length).float() / rate
    phase = 2 * math.pi * torch.rand(n, 1, generator=g)
    x = torch.sin(2 * math.pi * freqs[y].unsqueeze(1) * t + phase) + 0.2 * torch.randn(n, length, generator=g)
    return x.unsqueeze(1), y


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(11)
    x, y = tones(g)
    net = Net()
    opt = torch.optim.AdamW(net.parameters(), lr=0.01, weight_decay=0.01)
    out = []
    for _step in range(5):
        loss = F.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    out += net.sinc.low_hz.flatten().tolist() + net.sinc.band_hz.flatten().tolist()
    out.append(net.sinc.filters().abs().sum().item())
    for w in (windows.hann(9), windows.hann(8, sym=False), windows.blackman(7), windows.kaiser(9, beta=8.0),
              windows.gaussian(7, std=1.5), windows.general_cosine(8, a=[0.5, 0.3, 0.2]),
              windows.cosine(6), windows.exponential(7, tau=2.0), windows.bartlett(7), windows.nuttall(8),
              windows.general_hamming(7, alpha=0.6)):
        out += w.tolist()
    return out
