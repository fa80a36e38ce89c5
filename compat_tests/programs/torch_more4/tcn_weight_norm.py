"""A temporal convolutional network for sequence forecasting (the TCN repository's structure): causal dilated
Conv1d layers made causal by left padding with F.pad and by chomping the right end, the weight_norm
parametrization (torch.nn.utils.parametrizations.weight_norm: original0 / original1 in the state dict), residual
1x1 convolutions, dropout, grouped and depthwise convolutions; trained with SGD + Nesterov and a StepLR, evaluated
with a sliding-window unfold; then parametrize.remove_parametrizations and a check that outputs do not change."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parametrize
from torch.nn.utils.parametrizations import weight_norm


class Chomp(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.size = size

    def forward(self, x):
        return x[:, :, :-self.size].contiguous()


class TemporalBlock(nn.Module):
    def __init__(self, cin, cout, kernel, dilation, dropout=0.1):
        super().__init__()
        pad = (kernel - 1) * dilation
        self.conv1 = weight_norm(nn.Conv1d(cin, cout, kernel, padding=pad, dilation=dilation))
        self.chomp1 = Chomp(pad)
        self.conv2 = weight_norm(nn.Conv1d(cout, cout, kernel, dilation=dilation, groups=2))
        self.pad2 = pad
        self.drop = nn.Dropout(dropout)
        self.down = nn.Conv1d(cin, cout, 1) if cin != cout else None

    def forward(self, x):
        y = self.drop(F.relu(self.chomp1(self.conv1(x))))
        y = self.drop(F.relu(self.conv2(F.pad(y, (self.pad2, 0)))))
        return F.relu(y + (x if self.down is None else self.down(x)))


class TCN(nn.Module):
    def __init__(self, channels=(8, 8, 8), kernel=3):
        super().__init__()
        layers, cin = [], 2
        for i, cout in enumerate(channels):
            layers.append(TemporalBlock(cin, cout, kernel, dilation=2 ** i))
            cin = cout
        self.net = nn.Sequential(*layers)
        self.depthwise = nn.Conv1d(cin, cin, 3, padding=1, groups=cin, bias=False)
        self.head = nn.Linear(cin, 1)

    def forward(self, x):  # x: (batch, 2, time)
        h = self.depthwise(self.net(x))
        return self.head(h[:, :, -1])


def series(n, generator):
    t = torch.arange(n, dtype=torch.float32)
    x = torch.sin(0.3 * t) + 0.5 * torch.sin(0.05 * t) + 0.1 * torch.randn(n, generator=generator)
    return torch.stack([x, torch.cos(0.3 * t)])


def main():
    torch.manual_seed(43)
    g = torch.Generator().manual_seed(43)
    s = series(240, g)
    windows = s.unfold(1, 33, 4).permute(1, 0, 2)  # (n_windows, 2, 33)
    x, y = windows[:, :, :-1], windows[:, 0, -1:]
    model = TCN()
    keys = [k for k in model.state_dict() if k.startswith("net.0.conv1")]
    out = [",".join(keys), str(tuple(model.net[0].conv1.parametrizations.weight.original0.shape))]
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    for _epoch in range(6):
        model.train()
        for i in range(0, x.shape[0], 26):
            loss = F.mse_loss(model(x[i:i + 26]), y[i:i + 26])
            opt.zero_grad()
            loss.backward()
            opt.step()
        sched.step()
        out.append(loss.item())
    model.eval()
    with torch.no_grad():
        pred = model(x)
        out += [F.mse_loss(pred, y).item()] + pred[:5].flatten().tolist()
        g_norm = model.net[1].conv1.parametrizations.weight.original0
        out += g_norm.flatten()[:4].tolist()
        for block in model.net:
            parametrize.remove_parametrizations(block.conv1, "weight")
            parametrize.remove_parametrizations(block.conv2, "weight", leave_parametrized=True)
        out += [(model(x) - pred).abs().max().item() < 1e-5, parametrize.is_parametrized(model.net[0].conv1)]
        out += [",".join(k for k in model.state_dict() if k.startswith("net.0.conv1"))]
    return out
