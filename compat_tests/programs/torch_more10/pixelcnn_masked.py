"""PixelCNN on tiny binary images, in the style of popular PixelCNN repositories: a MaskedConv2d subclass of
nn.Conv2d holding its causal mask as a registered buffer (type "A" hides the centre pixel, type "B" shows it) and
multiplying weight.data by it before every forward, gated tanh * sigmoid activations from torch.chunk, a
per-pixel 4-D F.cross_entropy over 2 intensity levels, Adamax with ExponentialLR, and autoregressive sampling
pixel by pixel with torch.multinomial under a seeded generator."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class MaskedConv2d(nn.Conv2d):
    def __init__(self, mask_type, *args, **kwargs):
        super().__init__(*args, **kwargs)
        assert mask_type in ("A", "B")
        self.register_buffer("mask", self.weight.data.clone())
        _, _, kh, kw = self.weight.size()
        self.mask.fill_(1)
        self.mask[:, :, kh // 2, kw // 2 + (mask_type == "B"):] = 0
        self.mask[:, :, kh // 2 + 1:] = 0

    def forward(self, x):
        self.weight.data *= self.mask
        return super().forward(x)


class GatedBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = MaskedConv2d("B", channels, 2 * channels, 3, padding=1, bias=False)
        self.norm = nn.BatchNorm2d(2 * channels)

    def forward(self, x):
        a, b = torch.chunk(self.norm(self.conv(x)), 2, dim=1)
        return x + torch.tanh(a) * torch.sigmoid(b)


class PixelCNN(nn.Module):
    def __init__(self, channels=8, levels=2):
        super().__init__()
        self.inp = MaskedConv2d("A", 1, channels, 5, padding=2)
        self.blocks = nn.Sequential(*[GatedBlock(channels) for _ in range(2)])
        self.out = nn.Conv2d(channels, levels, 1)

    def forward(self, x):
        return self.out(F.relu(self.blocks(self.inp(x))))


def make_data(n, size, g):
    rows = torch.rand(n, 1, size, 1, generator=g) > 0.5
    cols = torch.rand(n, 1, 1, size, generator=g) > 0.5
    return (rows ^ cols).float()


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    size = 6
    data = make_data(32, size, g)
    model = PixelCNN()
    opt = torch.optim.Adamax(model.parameters(), lr=0.02)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
    out = [int(model.inp.mask.sum().item()), int(model.blocks[0].conv.mask.sum().item()),
           repr(sorted(k for k in model.state_dict() if k.endswith("mask")))]
    for _epoch in range(3):
        for batch in data.split(8):
            logits = model(batch)
            loss = F.cross_entropy(logits, batch.squeeze(1).long())
            opt.zero_grad()
            loss.backward()
            opt.step()
            out.append(loss.item())
        sched.step()
    out.append(sched.get_last_lr()[0])
    # the masked weights stay zero after training (the mask is re-applied before each forward)
    out.append(model.inp.weight.data[:, :, 2, 2:].abs().sum().item())
    model.eval()
    sample = torch.zeros(2, 1, size, size)
    gen = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for i in range(size):
            for j in range(size):
                probs = F.softmax(model(sample)[:, :, i, j], dim=1)
                sample[:, 0, i, j] = torch.multinomial(probs, 1, generator=gen).squeeze(1).float()
        nll = F.cross_entropy(model(data), data.squeeze(1).long(), reduction="none").sum((1, 2)).mean()
    out += sample.flatten().tolist() + [nll.item()]
    return out
